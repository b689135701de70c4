"""Page 3, Retarget preview: one click retargets (progress bar, in a worker thread, so the server
keeps serving and a failure shows in the page); the robot plays in sync with the source keypoints;
per-frame error and joint curves; the quality table; downloads in every export format (trainer
formats included)."""

from __future__ import annotations

import re
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import KinemorphError, UnknownNameError
from ..io import EXPORT_FORMATS, get_format, save
from ..robots.robot import RobotPose
from .playback import Playback, add_controls
from .scene import PointsView
from .state import AppState
from .ui import Notice

if TYPE_CHECKING:
    from .server import App

KEYPOINT_RGB = (250, 110, 30)
CURSOR = {"label": "frame", "stroke": "#212529", "width": 1.5, "spanGaps": False}
CURSOR_PERIOD_S = 0.25
"""While playing, the plots' frame cursor moves at most this often [s] (each move resends the curves)."""


def cursor(curves: list[np.ndarray], frame: int) -> np.ndarray:
    """A series that draws a vertical line at ``frame`` across the curves' range (NaN elsewhere:
    from (t[frame], min) to (t[frame + 1], max), one frame wide). Shape: (T,)."""
    n = len(curves[0]) if curves else 0
    line = np.full(n, np.nan)
    if n >= 2:
        f = int(np.clip(frame, 0, n - 2))
        lo, hi = (float(np.nanmin([c.min() for c in curves])), float(np.nanmax([c.max() for c in curves])))
        line[f], line[f + 1] = lo, hi
    return line


LEG_WORDS = ("hip", "knee", "ankle", "leg", "thigh", "calf")


class PreviewPage:
    """Handlers take and change the shared :class:`AppState`; ``build`` adds the widgets."""

    title = "Preview"

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.playback = Playback()
        self.pose: RobotPose | None = None
        self.running = False
        self.error = ""
        self.progress = (0, 0)
        self.progress_text = ""
        self._t0 = 0.0
        self._cursor_at = 0.0
        self.kp_view: PointsView | None = None
        self.overlay: np.ndarray | None = None  # (T, J, 3) source positions shown when the result has no keypoints

    # -- handlers ------------------------------------------------------------------------------------
    def run(self, progress: Any = None) -> str:
        """Retarget with the current setup; returns a one-line summary (errors raise)."""
        result, report = self.state.run_retarget(progress)
        self.load_result()
        return (
            f"{result.num_frames} frames onto {result.robot} with {result.solve_info.engine or '?'}: tracking error "
            f"mean {report.tracking_error_mean_cm:.1f} cm, {result.solve_info.frames_per_s:.0f} frames/s"
        )

    def error_curve(self) -> tuple[np.ndarray, np.ndarray]:
        """Time [s] and keypoint tracking error per frame [cm] (zeros without keypoints)."""
        r, rep = self.state.result, self.state.report
        if r is None or rep is None:
            return np.zeros(2), np.zeros(2)
        t = np.arange(r.num_frames) / r.fps
        err = rep.tracking_error_per_frame_cm
        return t, (np.zeros(r.num_frames) if err is None else np.asarray(err, dtype=np.float64))

    def joint_groups(self) -> list[str]:
        r = self.state.result
        return ["legs", "torso and arms", *(r.dof_names if r is not None else ())]

    def joint_curves(self, group: str) -> tuple[np.ndarray, list[str], list[np.ndarray]]:
        """Time [s], joint names and their angle curves [rad] for a group (legs, torso and arms) or one joint."""
        r = self.state.result
        if r is None:
            return np.zeros(2), [], []
        names = list(r.dof_names)
        if group in names:
            idx = [names.index(group)]
        else:
            legs = group == "legs"
            idx = [i for i, n in enumerate(names) if any(w in n.lower() for w in LEG_WORDS) == legs]
        t = np.arange(r.num_frames) / r.fps
        return t, [names[i] for i in idx], [r.dof_pos[:, i] for i in idx]

    def quality_markdown(self) -> str:
        """The quality report as a two-column table (metric with unit, value) that wraps in the panel."""
        rep = self.state.report
        if rep is None:
            return ""
        rows = [re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in rep.table().splitlines() if line.strip()]
        body = "\n".join(f"| {r[0]} | {r[-1]} |" for r in rows)
        return f"| metric | value |\n|---|---:|\n{body}"

    def stale_markdown(self) -> str:
        """What the page says once the result was dropped (empty while it is current)."""
        st = self.state.stale
        return f"**No current result**: {st}. Retarget again." if st and self.state.result is None else ""

    def download(self, fmt: str) -> tuple[str, bytes]:
        """The last result in an export format (a name of EXPORT_FORMATS, or a suffix such as
        ".npz"), as (file name, bytes), written by the library's exporter. The file only: a
        format's metadata sidecar is not part of the download."""
        r = self.state.result
        if r is None:
            raise ValueError("retarget first: there is nothing to download")
        try:
            f = get_format(fmt)
        except UnknownNameError:
            raise ValueError(f"unknown format {fmt}; valid: {', '.join(EXPORT_FORMATS)}") from None
        stem = Path(self.state.motion_key.split(":", 1)[-1]).stem or "motion"
        name = f"{stem}_{r.robot}{f.suffix}"
        with tempfile.TemporaryDirectory(prefix="kinemorph-dl-") as tmp:
            path = save(r, Path(tmp) / name, robot=self.state.robot(), format=f.name)
            return name, path.read_bytes()

    def load_result(self) -> None:
        """Playback and body poses of the state's result (after a retarget, or a file opened by view)."""
        r = self.state.result
        if r is None:
            raise ValueError("no result to show")
        self.pose = self.state.robot(meshes=False).fk(r.qpos)
        self.playback.load(r.num_frames, r.fps)

    def keypoints(self, frame: int) -> np.ndarray:
        r = self.state.result
        if r is not None and r.keypoints is None and self.overlay is not None:
            return self.overlay[min(frame, len(self.overlay) - 1)]
        if r is None or r.keypoints is None:
            return np.zeros((0, 3))
        return r.keypoints.positions[min(frame, r.num_frames - 1)]

    # -- widgets -------------------------------------------------------------------------------------
    def build(self, app: App, gui: Any) -> None:
        self.app = app
        self.run_button = gui.add_button("Retarget", color="green")
        self.bar = gui.add_progress_bar(0.0, animated=False)
        self.progress_md = gui.add_markdown("")
        self.notice = Notice(gui)
        self.summary_md = gui.add_markdown("Set up on the Setup page, then Retarget.")
        with gui.add_folder("Playback"):
            self.controls = add_controls(gui, self.playback)
            self.show_kp = gui.add_checkbox("Source keypoints", initial_value=True)
        with gui.add_folder("Plots"):
            self.err_plot = gui.add_uplot(
                data=(np.zeros(2), np.zeros(2), np.full(2, np.nan)),
                series=({"label": "time [s]"}, {"label": "tracking error [cm]", "stroke": "#d6336c", "width": 1.5},
                        CURSOR),
                title="Tracking error per frame", aspect=2.0, scales={"x": {"time": False}},
            )  # fmt: skip
            self.group_dd = gui.add_dropdown("Joint curves", self.joint_groups())
            self.joint_plot_slot = gui.add_folder("Joint angles [rad]")
            self.joint_plot: Any = None
        with gui.add_folder("Quality"):
            self.quality_md = gui.add_markdown("")
        with gui.add_folder("Download"):
            self.download_buttons = {n: gui.add_button(f"Download {n.upper()}") for n in EXPORT_FORMATS}
        self.playback.listeners.append(self._on_frame)
        self.state.invalidated.append(self.invalidate_view)

        @self.run_button.on_click
        def _(_: Any) -> None:
            self.start()

        @self.group_dd.on_update
        def _(_: Any) -> None:
            self._plot_joints()

        @self.show_kp.on_update
        def _(_: Any) -> None:
            if self.kp_view is not None:
                self.kp_view.handle.visible = bool(self.show_kp.value)

        for suffix, button in self.download_buttons.items():
            self._wire_download(suffix, button)

    def _wire_download(self, suffix: str, button: Any) -> None:
        @button.on_click
        def _(event: Any) -> None:
            try:
                name, data = self.download(suffix)
            except (ValueError, OSError) as exc:
                self.notice.error(exc)
                return
            if event.client is not None:
                event.client.send_file_download(name, data, save_immediately=True)

    def start(self) -> threading.Thread | None:
        """Retarget in a worker thread; the button is disabled meanwhile."""
        if self.running:
            return None
        self.running = True
        self.run_button.disabled = True
        self.notice.info("retargeting...")
        self.bar.value = 0.0
        self.progress, self.progress_text, self._t0 = (0, 0), "", time.perf_counter()
        self.progress_md.content = "starting (loading the engine)..."
        worker = threading.Thread(target=self._work, name="kinemorph-retarget", daemon=True)
        worker.start()
        return worker

    def _progress(self, done: int, total: int) -> None:
        """Live progress: frames done of the total and the rate so far; a second pass (clean-up)
        starts its own count."""
        now = time.perf_counter()
        if done < self.progress[0]:
            self._t0 = now
        self.progress = (done, total)
        rate = done / (now - self._t0) if now > self._t0 else 0.0
        self.bar.value = 100.0 * done / total if total else 100.0
        tail = "; evaluating the result..." if done >= total else ""
        self.progress_text = f"{done} / {total} frames, {rate:,.0f} frames/s{tail}"
        self.progress_md.content = self.progress_text

    def invalidate_view(self, reason: str) -> None:
        """The result was dropped (clip, robot, mapping, engine or parameters changed): clear the
        plots, quality table, keypoints, robot and progress, and say why."""
        self.pose, self.overlay = None, None
        self.progress, self.progress_text = (0, 0), ""
        if not hasattr(self, "bar"):
            return
        self.bar.value = 0.0
        self.progress_md.content = ""
        self.summary_md.content = self.stale_markdown() or f"**No current result**: {reason}. Retarget again."
        self.notice.info(f"The last result was dropped: {reason}.")
        self.err_plot.data = (np.zeros(2), np.zeros(2), np.full(2, np.nan))
        if self.joint_plot is not None:
            self.joint_plot.remove()
            self.joint_plot = None
        self.group_dd.options = self.joint_groups()
        self.quality_md.content = ""
        if self.kp_view is not None:
            self.kp_view.remove()
            self.kp_view = None
        if self.app.active is self:
            self.app.show_robots(set())

    def _work(self) -> None:
        try:
            text = self.run(self._progress)
        except Exception as exc:  # shown in the page, not swallowed: the server keeps serving whatever failed
            self.error = str(exc) if isinstance(exc, KinemorphError) else f"{type(exc).__name__}: {exc}"
            self.notice.error(self.error)
        else:
            self.error = ""
            self.notice.clear()
            self.summary_md.content = text
            self.bar.value = 100.0
            self.progress_md.content = self.progress_text.split(";")[0]
            self._show_result()
        finally:
            self.running = False
            self.run_button.disabled = False

    def _show_result(self) -> None:
        t, err = self.error_curve()
        self.err_plot.data = (t, err, cursor([err], 0))
        self.group_dd.options = self.joint_groups()
        self._plot_joints()
        self.quality_md.content = self.quality_markdown()
        if self.kp_view is not None:
            self.kp_view.remove()
        self.kp_view = PointsView(self.app.server, "/preview/keypoints", self.keypoints(0), KEYPOINT_RGB, 0.022)
        self.kp_view.handle.visible = bool(self.show_kp.value)
        self.controls["timeline"].max = max(1, self.playback.num_frames - 1)
        if self.app.active is self:
            self.app.show_robots({self.state.robot_key})
            height = float(np.ptp(self.pose.positions[0, 1:, 2])) if self.pose is not None else 1.0
            self.app.look_at(
                self.state.result.root_pos[0] if self.state.result is not None else np.zeros(3), height + 0.3
            )
        self._on_frame(0)

    def _plot_joints(self) -> None:
        t, names, curves = self.joint_curves(str(self.group_dd.value))
        if self.joint_plot is not None:
            self.joint_plot.remove()
        if not names:
            self.joint_plot = None
            return
        palette = ("#1c7ed6", "#e8590c", "#2b8a3e", "#ae3ec9", "#f59f00", "#0ca678", "#e03131", "#5c7cfa")
        series = [{"label": "time [s]"}] + [
            {"label": n, "stroke": palette[i % len(palette)], "width": 1.0, **({"dash": [6, 3]} if i >= 8 else {})}
            for i, n in enumerate(names)
        ]  # past 8 joints the colours repeat, dashed
        with self.joint_plot_slot:
            self.joint_plot = self.app.server.gui.add_uplot(
                data=(t, *curves, cursor(curves, self.playback.frame)),
                series=(*series, CURSOR),
                aspect=1.6,
                legend={"show": True},
                scales={"x": {"time": False}},
            )

    def _move_cursor(self, frame: int) -> None:
        """The plots' frame cursor follows playback (throttled while playing)."""
        now = time.perf_counter()
        if self.playback.playing and now - self._cursor_at < CURSOR_PERIOD_S:
            return
        self._cursor_at = now
        t, err = self.error_curve()
        self.err_plot.data = (t, err, cursor([err], frame))
        if self.joint_plot is not None:
            data = self.joint_plot.data
            self.joint_plot.data = (*data[:-1], cursor(list(data[1:-1]), frame))

    def _on_frame(self, frame: int) -> None:
        r = self.state.result
        if r is None or self.pose is None or self.app.active is not self:
            return
        view = self.app.robot_view(self.state.robot_key)
        view.show(np.empty(0), pose=(self.pose.positions[frame], self.pose.rotations[frame]))
        if self.kp_view is not None:
            self.kp_view.show(self.keypoints(frame))
        self.app.follow(r.root_pos[frame])
        self._move_cursor(frame)

    def activate(self, active: bool) -> None:
        self.app.scene_root("/preview").visible = active
        if active:
            self.app.show_robots({self.state.robot_key} if self.state.result is not None else set())
            self._on_frame(self.playback.frame)
