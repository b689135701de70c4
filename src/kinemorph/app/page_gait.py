"""Page 4, Gait editor: choose a style and a sample; edit its interval ends, attributes and curve
control points; the robot walks the sample live, joints near their limits in red; a refused edit
shows the gait package's message in place; test mode walks under velocity sliders; the simulate
view walks the style under physics (kinemorph.control) at the sliders' velocity, with an optional
push, and plays the simulated walk with its summary; save the style."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import KinemorphError
from ..gait.style import ATTRIBUTES
from ..robots.robot_motion import RobotMotion
from .gait_editor import INTERVALS, GaitEditor
from .gait_sim import MAX_DURATION, PUSH_SIDES, GaitSimRunner, make_request
from .playback import Playback
from .ui import Notice, guarded

if TYPE_CHECKING:
    from .server import App


PRECISION = 6
"""Decimals the gait page's number boxes show, so a control point or interval keeps its value."""


class GaitPage:
    """Widgets over a :class:`GaitEditor` (whose methods are the handlers)."""

    title = "Gait"

    def __init__(self, editor: GaitEditor | None = None) -> None:
        self._editor = editor
        self.playback = Playback()
        self.motion: RobotMotion | None = None
        self.testing = False
        self._test_thread: threading.Thread | None = None
        self.sim = GaitSimRunner()
        self._sim_lock = threading.Lock()  # the progress line never overwrites the finished walk's summary
        self._sim_live = False

    @property
    def editor(self) -> GaitEditor:
        if self._editor is None:
            self._editor = GaitEditor()
        return self._editor

    # -- widgets -------------------------------------------------------------------------------------
    def build(self, app: App, gui: Any) -> None:
        self.app = app
        ed = self.editor
        self.notice = Notice(gui)
        self.robot_dd = gui.add_dropdown("Gait robot", ed.robots(), initial_value=ed.robot_name)
        self.style_dd = gui.add_dropdown("Style", ed.styles(), initial_value=ed.style.name)
        self.style_upload = gui.add_upload_button("Upload style JSON", mime_type=".json")
        app.watch_upload(self.style_upload, self.notice)
        self.sample_dd = gui.add_dropdown("Sample", ed.samples(), initial_value=ed.sample)
        self.mode = gui.add_button_group("Mode", ("Edit", "Test"))
        self.mode_md = gui.add_markdown(self.mode_text())
        self.velocity_md = gui.add_markdown("")
        self.limits_md = gui.add_markdown("")
        with gui.add_folder("Intervals [s]"):
            self.iv = {k: gui.add_number(k, initial_value=0.0, step=0.01) for k in INTERVALS}
            self.iv_notice = Notice(gui)
        with gui.add_folder("Attributes", expand_by_default=False):
            self.attr = {k: gui.add_number(k, initial_value=0.0, step=0.01) for k in ATTRIBUTES}
            self.attr_notice = Notice(gui)
        with gui.add_folder("Curves", expand_by_default=False):
            self.curve_dd = gui.add_dropdown("Curve", ed.curves(), initial_value=ed.curve)
            self.knot_dd = gui.add_dropdown("Control point", ["(none)"])
            self.knot_u = gui.add_number("u", initial_value=0.5, min=0.0, max=1.0, step=0.01)
            self.knot_v = gui.add_number("value", initial_value=0.0, step=0.005)
            self.knot_set = gui.add_button("Set point")
            self.knot_add = gui.add_button("Add point")
            self.knot_del = gui.add_button("Remove point")
            self.curve_plot = gui.add_uplot(
                data=(np.linspace(0, 1, 2), np.zeros(2)),
                series=({"label": "u"}, {"label": "value", "stroke": "#1c7ed6", "width": 1.5}),
                aspect=2.0,
                scales={"x": {"time": False}},
            )
            self.curve_notice = Notice(gui)
        with gui.add_folder("Test mode"):
            lim = ed.velocity_limits()
            self.vel = {
                k: gui.add_slider(k, min=lo, max=hi, step=0.01, initial_value=0.0) for k, (lo, hi) in lim.items()
            }
            self.test_notice = Notice(gui)
        with gui.add_folder("Simulate (physics)", expand_by_default=False):
            self.sim_len = gui.add_number("length [s]", initial_value=10.0, min=0.5, max=MAX_DURATION, step=0.5)
            self.push_side = gui.add_dropdown("push from", PUSH_SIDES, initial_value="none")
            self.push_force = gui.add_number("push [N/kg]", initial_value=1.0, min=0.0, max=20.0, step=0.1)
            self.push_at = gui.add_number("push at [s]", initial_value=4.0, min=0.0, step=0.5)
            self.sim_b = gui.add_button("Simulate")
            self.sim_md = gui.add_markdown("Walks the style at the test sliders' velocity under physics.")
            self.sim_plot = gui.add_uplot(
                data=(np.zeros(2), np.zeros(2), np.zeros(2)),
                series=({"label": "t [s]"}, {"label": "planned pelvis [m]", "stroke": "#868e96", "width": 1},
                        {"label": "simulated pelvis [m]", "stroke": "#1c7ed6", "width": 1.5}),
                aspect=2.0, scales={"x": {"time": False}},
            )  # fmt: skip
            self.sim_notice = Notice(gui)
        self.save_b = gui.add_button("Save style JSON")
        for h in (*self.iv.values(), *self.attr.values(), self.knot_u, self.knot_v):
            h.precision = PRECISION  # values are shown (and typed) to this many decimals, not the step's
        self.notices = {"intervals": self.iv_notice, "attributes": self.attr_notice, "curves": self.curve_notice}
        self.playback.listeners.append(self._on_frame)
        self._wire()
        self.load_values()

    def _edit(self, action: Any, group: str) -> None:
        """Run an edit; a refused one shows its message in the group's notice (in place)."""
        try:
            action()
        except (KinemorphError, ValueError) as exc:
            self.notices.get(group, self.notice).error(exc)
            self.load_values()  # the refused value goes back to the one in use
            return
        for n in self.notices.values():
            n.clear()
        self.load_values()
        self.walk()

    def _wire(self) -> None:
        ed = self.editor

        def user(event: Any) -> bool:  # a change made in the browser, not by load_values
            return event.client_id is not None

        @self.robot_dd.on_update
        def _(event: Any) -> None:
            if user(event):
                self._edit(lambda: ed.set_robot(str(self.robot_dd.value)), "style")

        @self.style_dd.on_update
        def _(event: Any) -> None:
            if user(event):
                self._edit(lambda: ed.set_style(str(self.style_dd.value)), "style")

        @self.style_upload.on_upload
        def _(_: Any) -> None:
            f = self.style_upload.value
            if guarded(self.notice, lambda: ed.upload_style(f.name, f.content)) is not None:
                self.style_dd.options = ed.styles()
                self.style_dd.value = ed.style.name
                self.load_values()
                self.walk()

        @self.sample_dd.on_update
        def _(event: Any) -> None:
            if user(event):
                self._edit(lambda: ed.set_sample(str(self.sample_dd.value)), "style")

        for name, h in self.iv.items():
            self._wire_number(h, lambda v, n=name: ed.set_interval(n, v), "intervals")
        for name, h in self.attr.items():
            self._wire_number(h, lambda v, n=name: ed.set_attribute(n, v), "attributes")

        @self.curve_dd.on_update
        def _(event: Any) -> None:
            if user(event):
                ed.curve = str(self.curve_dd.value)
                self.load_values()

        @self.knot_dd.on_update
        def _(event: Any) -> None:
            if user(event):
                self._load_knot()

        @self.knot_set.on_click
        def _(_: Any) -> None:
            self._edit(lambda: ed.set_knot(self._knot_index(), self.knot_u.value, self.knot_v.value), "curves")

        @self.knot_add.on_click
        def _(_: Any) -> None:
            self._edit(lambda: ed.add_knot(self.knot_u.value, self.knot_v.value), "curves")

        @self.knot_del.on_click
        def _(_: Any) -> None:
            self._edit(lambda: ed.remove_knot(self._knot_index()), "curves")

        @self.mode.on_click
        def _(_: Any) -> None:
            self.set_testing(self.mode.value == "Test")

        @self.sim_b.on_click
        def _(_: Any) -> None:
            self.simulate()

        @self.save_b.on_click
        def _(event: Any) -> None:
            out = guarded(self.notice, ed.style_json)
            if out is not None and event.client is not None:
                event.client.send_file_download(out[0], out[1], save_immediately=True)

    def _wire_number(self, handle: Any, edit: Any, group: str) -> None:
        @handle.on_update
        def _(event: Any) -> None:
            if event.client_id is not None:
                self._edit(lambda: edit(float(handle.value)), group)

    def _knot_index(self) -> int:
        text = str(self.knot_dd.value)
        return int(text.split(":", 1)[0]) if text[:1].isdigit() else -1

    def _load_knot(self) -> None:
        knots = self.editor.knots()
        i = self._knot_index()
        if 0 <= i < len(knots):
            self.knot_u.value, self.knot_v.value = knots[i]

    def load_values(self) -> None:
        """Show the editor's values (programmatic sets, which the handlers ignore)."""
        ed = self.editor
        for k, v in ed.intervals().items():
            self.iv[k].value = v
        for k, v in ed.attributes().items():
            self.attr[k].value = v
        knots = ed.knots()
        self.knot_dd.options = [f"{i}: u={u:.3g}, value={v:.3g}" for i, (u, v) in enumerate(knots)] or ["(none)"]
        self._load_knot()
        u, values = ed.curve_values()
        self.curve_plot.data = (u, values)
        s = ed.style.samples[ed.sample]
        self.velocity_md.content = (
            f"Sample **{ed.sample}** of **{ed.style.name}**: velocity {np.round(s.velocity, 3).tolist()}"
        )

    # -- motion ----------------------------------------------------------------------------------------
    def walk(self) -> None:
        """Solve the sample's walk and play it, looping."""
        motion = guarded(self.notice, self.editor.walk)
        if motion is None:
            return
        self.motion, self._pose = motion, self.editor.robot().fk(motion.qpos)
        self.playback.load(motion.num_frames, motion.fps)
        self.playback.playing = True
        if self.app.active is self:
            self._on_frame(0)

    def _on_frame(self, frame: int) -> None:
        if self.motion is None or self.app.active is not self:
            return
        view = self.app.robot_view(self.editor.robot_name)
        view.show(np.empty(0), pose=(self._pose.positions[frame], self._pose.rotations[frame]))
        red = view.mark_limits(self.motion.dof_pos[frame])
        self.app.follow(self.motion.root_pos[frame])
        self.limits_md.content = "Joints near a limit: " + (", ".join(red) if red else "none")

    def simulate(self) -> bool:
        """Start the simulated walk (background thread); its progress and summary show under the
        button and the simulated motion replaces the looping sample when it is done."""
        command = tuple(float(self.vel[k].value) for k in ("vx", "vy", "yaw_rate"))
        request = guarded(
            self.sim_notice,
            lambda: make_request(command, float(self.sim_len.value), str(self.push_side.value),  # type: ignore[arg-type]
                                 float(self.push_force.value), float(self.push_at.value)),
        )  # fmt: skip
        if request is None:
            return False
        self.testing = False
        self.mode_md.content = self.mode_text()
        ed = self.editor
        was, self._sim_live = self._sim_live, True
        if not self.sim.start(ed.style, ed.robot(), request, self._simulated):
            self._sim_live = was
            self.sim_notice.info("a simulation is already running")
            return False
        threading.Thread(target=self._sim_progress, name="kinemorph-gait-sim-progress", daemon=True).start()
        return True

    def _sim_progress(self) -> None:
        while self.sim.running:
            with self._sim_lock:
                if self._sim_live:
                    self.sim_md.content = f"Simulating ... {100 * self.sim.progress:.0f}%"
            time.sleep(0.5)

    def _simulated(self, runner: GaitSimRunner) -> None:
        with self._sim_lock:
            self._sim_live = False
        if runner.error:
            self.sim_notice.error(runner.error)
            self.sim_md.content = "Simulation refused."
            return
        sim = runner.result
        if sim is None:
            return
        self.sim_notice.clear()
        self.sim_md.content = f"**Simulated**: {runner.summary}"
        t, ref, got = runner.pelvis_series()
        if t.size >= 2:
            self.sim_plot.data = (t, ref, got)
        self.motion, self._pose = sim.motion, self.editor.robot().fk(sim.motion.qpos)
        self.playback.load(sim.motion.num_frames, sim.motion.fps)
        self.playback.playing = True
        if self.app.active is self:
            self._on_frame(0)

    def mode_text(self) -> str:
        return (
            "Mode: **Test** (walking under the velocity sliders)"
            if self.testing
            else "Mode: **Edit** (the sample, looping)"
        )

    def set_testing(self, on: bool) -> None:
        """Test mode: the robot walks on under the velocity sliders, chunk by chunk."""
        self.testing = on
        if hasattr(self, "mode_md"):
            self.mode_md.content = self.mode_text()
        if on and (self._test_thread is None or not self._test_thread.is_alive()):
            self.playback.playing = False
            self.editor.reset_test()
            self._test_thread = threading.Thread(target=self._test_loop, name="kinemorph-gait-test", daemon=True)
            self._test_thread.start()
        elif not on:
            self.walk()

    def _next_chunk(self) -> RobotMotion:
        vx, vy, wz = (float(self.vel[k].value) for k in ("vx", "vy", "yaw_rate"))
        return self.editor.test_chunk((vx, vy, wz), 1.0)

    def _test_loop(self) -> None:
        while self.testing:
            motion = guarded(self.test_notice, self._next_chunk)
            if motion is None:
                self.testing = False
                return
            self.motion, self._pose = motion, self.editor.robot().fk(motion.qpos)
            t0 = time.perf_counter()
            for f in range(motion.num_frames):
                if not self.testing:
                    return
                self._on_frame(f)
                time.sleep(max(0.0, (f + 1) / motion.fps - (time.perf_counter() - t0)))

    def activate(self, active: bool) -> None:
        self.app.scene_root("/gait").visible = active
        if active:
            self.app.show_robots({self.editor.robot_name})
            if self.motion is None:
                self.walk()
            if self.motion is not None:
                self.app.look_at(self.motion.root_pos[0], 1.4)
            self._on_frame(self.playback.frame)
        else:
            self.testing = False
            self.mode_md.content = self.mode_text()
