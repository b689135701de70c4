"""Page 2, Retarget setup: engine, robot, the mapping's two stages (weights, offsets) and its
human scale table, the engine's solver parameters; a 3D view of each target linked to its robot
body; mapping JSON import and export (GMR's ik_config layout). Handlers: setup_logic.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..mapping.mapping import Mapping
from ..retarget import ENGINES
from .forms import add_form
from .scene import PointsView, add_links
from .setup_logic import SetupHandlers
from .state import ENGINE_CHOICES
from .ui import Notice, guarded

if TYPE_CHECKING:
    from .server import App

STAGE_RGB = ((40, 110, 230), (240, 140, 20))


class SetupPage(SetupHandlers):
    """The Setup page: ``build`` adds the widgets over the handlers of :class:`SetupHandlers`."""

    title = "Setup"

    # -- widgets -------------------------------------------------------------------------------------
    def build(self, app: App, gui: Any) -> None:
        self.app = app
        self.notice = Notice(gui)
        self.engine_dd = gui.add_dropdown("Engine", ENGINE_CHOICES, initial_value=self.state.engine)
        self.engine_md = gui.add_markdown("")
        with gui.add_folder("Robot") as self.robot_folder:
            self.robot_md = gui.add_markdown("")
            self.robot_buttons: dict[str, Any] = {}
            for c in self.state.robot_choices():
                self._add_robot_button(gui, c.key)
            self.robot_upload = gui.add_upload_button(
                "Upload robot (MJCF/URDF, or .zip with meshes)", mime_type=".xml,.urdf,.zip"
            )
            app.watch_upload(self.robot_upload, self.notice)
        with gui.add_folder("Mapping", expand_by_default=False):
            self.stage_bg = gui.add_button_group("Stage", ("1", "2"))
            self.task_dd = gui.add_dropdown("Robot body", ["(none)"])
            self.source_dd = gui.add_dropdown("Source body", ["(none)"])
            self.pw = gui.add_number("Position weight", initial_value=0.0, min=0.0, step=1.0)
            self.rw = gui.add_number("Rotation weight", initial_value=0.0, min=0.0, step=1.0)
            self.po = gui.add_vector3("Offset xyz [m]", initial_value=(0.0, 0.0, 0.0), step=0.01)
            self.ro = gui.add_text("Rotation wxyz", initial_value="1, 0, 0, 0")
            self.apply_task = gui.add_button("Apply row")
            self.remove_task_b = gui.add_button("Remove row")
            self.new_body = gui.add_dropdown("Add robot body", ["(none)"])
            self.add_task_b = gui.add_button("Add row")
            self.table_md = gui.add_html("")
            self.weight_slot = gui.add_folder("Weights per row: position, rotation (edit in place)")
            self.weight_boxes: dict[str, Any] = {}
        with gui.add_folder("Human scale table", expand_by_default=False):
            self.height_num = gui.add_number("human_height_assumption [m]", initial_value=1.8, step=0.01)
            self.ground_num = gui.add_number("ground_height [m]", initial_value=0.0, step=0.01)
            self.scale_slot = gui.add_folder("Scale per source body (edit in place)")
            self.scale_boxes: dict[str, Any] = {}
        with gui.add_folder("Import / export"):
            self.import_b = gui.add_upload_button("Import mapping JSON", mime_type=".json")
            app.watch_upload(self.import_b, self.notice)
            self.export_b = gui.add_button("Export mapping JSON")
        self.solver_folder = gui.add_folder("Solver parameters", expand_by_default=False)
        self.form: dict[str, Any] = {}
        self._wire()
        self.state.listeners.append(lambda _: self.refresh())
        self.refresh()

    def _add_robot_button(self, gui: Any, key: str) -> None:
        b = gui.add_button(key)
        self.robot_buttons[key] = b

        @b.on_click
        def _(_: Any) -> None:
            guarded(self.notice, lambda: self.select_robot(key))

    def _wire(self) -> None:
        @self.engine_dd.on_update
        def _(_: Any) -> None:
            guarded(self.notice, lambda: self.set_engine(str(self.engine_dd.value)))
            self.refresh()

        @self.robot_upload.on_upload
        def _(_: Any) -> None:
            f = self.robot_upload.value
            robot = guarded(self.notice, lambda: self.state.upload_robot(f.name, f.content))
            for c in self.state.robot_choices():
                if c.key not in self.robot_buttons:
                    with self.robot_folder:
                        self._add_robot_button(self.app.server.gui, c.key)
            self.refresh()
            if robot is not None:
                key = self.state.robot_key
                self.notice.info(
                    self.state.notes.get(key) or f"{key}: {len(robot.dof_names)} joints, loaded with its meshes"
                )

        @self.stage_bg.on_click
        def _(_: Any) -> None:
            self.stage = int(self.stage_bg.value) - 1
            self.refresh()

        @self.task_dd.on_update
        def _(_: Any) -> None:
            self._load_row()
            self.table_md.content = self.table_markdown(self.stage, str(self.task_dd.value))

        @self.apply_task.on_click
        def _(_: Any) -> None:
            def edit() -> Mapping:
                ro = [float(x) for x in str(self.ro.value).replace(",", " ").split()]
                return self.edit_task(
                    self.stage, str(self.task_dd.value), source_body=str(self.source_dd.value),
                    position_weight=float(self.pw.value), rotation_weight=float(self.rw.value),
                    position_offset=tuple(self.po.value), rotation_offset=ro,
                )  # fmt: skip

            guarded(self.notice, edit)
            self.refresh()

        @self.remove_task_b.on_click
        def _(_: Any) -> None:
            guarded(self.notice, lambda: self.remove_task(self.stage, str(self.task_dd.value)))
            self.refresh()

        @self.add_task_b.on_click
        def _(_: Any) -> None:
            guarded(self.notice, lambda: self.add_task(self.stage, str(self.new_body.value), str(self.source_dd.value)))
            self.refresh()

        for handle, key in ((self.height_num, "human_height_assumption"), (self.ground_num, "ground_height")):
            self._wire_value(handle, lambda v, k=key: self.set_value(k, v))

        @self.import_b.on_upload
        def _(_: Any) -> None:
            f = self.import_b.value
            mapping = guarded(self.notice, lambda: self.import_mapping(f.name, f.content))
            self.refresh()
            if mapping is not None:
                n1, n2 = len(mapping.stage1), len(mapping.stage2)
                self.notice.info(f"imported {f.name}: {n1} + {n2} tasks, now in use (Preview: retarget again)")

        @self.export_b.on_click
        def _(event: Any) -> None:
            out = guarded(self.notice, self.export_mapping)
            if out is not None and event.client is not None:
                event.client.send_file_download(out[0], out[1], save_immediately=True)

    def refresh(self) -> None:
        """Redraw everything from the state (after a change here or on another page)."""
        if not hasattr(self, "engine_md"):
            return
        st = self.state
        eng = st.engine_name()
        self.engine_md.content = f"Engine **{eng}**: {ENGINES[eng].summary}"
        for c in st.robot_choices():
            if c.key not in self.robot_buttons:
                continue
            b = self.robot_buttons[c.key]
            b.disabled = not c.enabled
            b.color = "green" if c.key == st.robot_key else None
        fam = st.family_of(st.robot_key)
        clip = f"; clip family {st.motion.family}" if st.motion is not None else ""
        self.robot_md.content = f"**Robot:** {st.robot_key} ({fam or 'unknown family'}){clip}"
        self._rebuild_form(eng)
        if st.motion is None:
            self.table_md.content = "<p>Open a motion first (Motion page).</p>"
            return
        d = guarded(self.notice, self.mapping_dict, clear=False)
        if d is None:
            return
        rows = self.rows(self.stage)
        self.task_dd.options = [r[0] for r in rows] or ["(none)"]
        self.source_dd.options = list(st.motion.body_names)
        robot = st.robot()
        self.new_body.options = [b for b in robot.body_names[1:] if b not in {r[0] for r in rows}] or ["(none)"]
        self.table_md.content = self.table_markdown(self.stage, str(self.task_dd.value))
        self._weight_boxes(rows)
        self.height_num.value = float(d["human_height_assumption"])
        self.ground_num.value = float(d["ground_height"])
        self._scale_boxes(d["human_scale_table"])
        self._load_row()
        if self.app.active is self:
            self.draw()

    def _weight_boxes(self, rows: list[list[Any]]) -> None:
        """One (position, rotation) weight pair per task of the stage, edited in place."""
        keys = [f"{self.stage}:{r[0]}" for r in rows]
        if list(self.weight_boxes) != keys:
            for h in self.weight_boxes.values():
                h.remove()
            with self.weight_slot:
                self.weight_boxes = {
                    k: self.app.server.gui.add_vector2(r[0], (float(r[2]), float(r[3])), step=0.5)
                    for k, r in zip(keys, rows)
                }
            for h, r in zip(self.weight_boxes.values(), rows):
                self._wire_value(h, self._weight_edit(str(r[0])))
        for k, r in zip(keys, rows):
            self.weight_boxes[k].value = (float(r[2]), float(r[3]))

    def _weight_edit(self, body: str) -> Any:
        def edit(v: tuple[float, float]) -> Any:
            return self.edit_task(self.stage, body, position_weight=float(v[0]), rotation_weight=float(v[1]))

        return edit

    def _wire_value(self, handle: Any, edit: Any) -> None:
        """Apply a number box's value when the user changes it; a refused value shows its message
        and the box goes back to the value in use."""

        @handle.on_update
        def _(event: Any) -> None:
            if event.client_id is None:  # set by refresh, not by the user
                return
            value = handle.value
            guarded(self.notice, lambda: edit(value if isinstance(value, tuple) else float(value)))
            self.refresh()  # the tables, and a refused value back to the one in use

    def _scale_boxes(self, table: dict[str, float]) -> None:
        """One number box per source body of the scale table, edited in place (rebuilt only when
        the bodies change)."""
        if list(self.scale_boxes) != list(table):
            for h in self.scale_boxes.values():
                h.remove()
            with self.scale_slot:
                self.scale_boxes = {
                    b: self.app.server.gui.add_number(b, initial_value=float(v), step=0.01) for b, v in table.items()
                }
            for b, h in self.scale_boxes.items():
                self._wire_value(h, lambda v, body=b: self.set_scale(body, v))
        for b, v in table.items():
            self.scale_boxes[b].value = float(v)

    def _rebuild_form(self, engine: str) -> None:
        if getattr(self, "_form_engine", None) == engine:
            return
        for h in self.form.values():
            h.remove()
        if self.apply_form is not None:
            self.apply_form.remove()
        with self.solver_folder:
            self.form = add_form(self.app.server.gui, self.state.configs[engine])
            self.apply_form = self.app.server.gui.add_button("Apply parameters")

        @self.apply_form.on_click
        def _(_: Any) -> None:
            guarded(self.notice, lambda: self.set_config({k: h.value for k, h in self.form.items()}))

        self._form_engine = engine

    def _load_row(self) -> None:
        rows = {r[0]: r for r in guarded(self.notice, lambda: self.rows(self.stage), clear=False) or []}
        r = rows.get(str(self.task_dd.value))
        if r is None:
            return
        self.source_dd.value = r[1]
        self.pw.value, self.rw.value = float(r[2]), float(r[3])
        self.po.value = tuple(float(x) for x in r[4])
        self.ro.value = ", ".join(f"{x:.6g}" for x in r[5])

    def draw(self) -> None:
        """The 3D view: the robot at rest under the source root, targets, and a line from each target
        to the robot body it drives."""
        for h in getattr(self, "_drawn", []):
            h.remove()
        self._drawn: list[Any] = []
        if self.state.motion is None:
            self.app.show_robots(set())
            return
        links = guarded(self.notice, self.links, clear=False)
        if links is None:
            return
        view = self.app.robot_view(self.state.robot_key)
        view.show(links["qpos"])
        self.app.show_robots({self.state.robot_key})
        self.app.look_at(links["qpos"][:3], 1.6 * float(np.ptp(links["bodies"][:, 2])) + 0.3)
        for s in (0, 1):
            sel = links["stages"] == s
            if sel.any():
                pts = PointsView(
                    self.app.server, f"/setup/targets/stage{s + 1}", links["targets"][sel], STAGE_RGB[s], 0.02
                )
                line = add_links(
                    self.app.server,
                    f"/setup/links/stage{s + 1}",
                    links["targets"][sel],
                    links["bodies"][sel],
                    STAGE_RGB[s],
                )
                self._drawn += [pts, line]

    def activate(self, active: bool) -> None:
        self.app.scene_root("/setup").visible = active
        if active:
            self.frame = self.app.motion_frame()
            self.draw()
