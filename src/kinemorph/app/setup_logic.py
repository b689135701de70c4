"""The Setup page's handlers (no viser): engine, robot, the mapping's two stages and scale table,
solver parameters, mapping JSON import and export, and the target-to-body links the 3D view draws.
Every mapping edit goes through Mapping.from_dict and is checked against the open clip and robot."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np

from ..mapping.mapping import Mapping
from ..retarget.targets import stage_targets
from ..transforms import quat_mul, yaw_quat
from .forms import apply_values
from .sources import JSON_SUFFIXES
from .state import AppState

STAGES = ("ik_match_table1", "ik_match_table2")


class SetupHandlers:
    """Handlers that take and change the shared :class:`AppState` (the Setup page's logic)."""

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.stage = 0
        self.frame = 0
        self.apply_form: Any = None

    # -- handlers ------------------------------------------------------------------------------------
    def select_robot(self, key: str) -> str:
        return self.state.select_robot(key).name

    def set_engine(self, name: str) -> str:
        self.state.set_engine(name)
        return self.state.engine_name()

    def mapping_dict(self) -> dict[str, Any]:
        return self.state.current_mapping().to_dict()

    def _apply(self, d: dict[str, Any]) -> Mapping:
        mapping = Mapping.from_dict(d, where="edited mapping")
        self.state.set_mapping(mapping)
        return mapping

    def rows(self, stage: int) -> list[list[Any]]:
        """[robot body, source body, position weight, rotation weight, offset xyz, rotation wxyz] per task."""
        return [[body, *entry] for body, entry in self.mapping_dict()[STAGES[stage]].items()]

    def edit_task(self, stage: int, robot_body: str, **values: Any) -> Mapping:
        """Change one task: source_body, position_weight, rotation_weight, position_offset (3),
        rotation_offset (wxyz, 4). The mapping is validated and checked against clip and robot."""
        d = copy.deepcopy(self.mapping_dict())
        table = d[STAGES[stage]]
        if robot_body not in table:
            raise KeyError(robot_body)
        entry = table[robot_body]
        slots = ("source_body", "position_weight", "rotation_weight", "position_offset", "rotation_offset")
        for name, value in values.items():
            entry[slots.index(name)] = list(value) if isinstance(value, tuple | list | np.ndarray) else value
        if entry[0] not in d["human_scale_table"]:
            d["human_scale_table"][entry[0]] = 1.0
        return self._apply(d)

    def add_task(self, stage: int, robot_body: str, source_body: str) -> Mapping:
        d = copy.deepcopy(self.mapping_dict())
        d[STAGES[stage]][robot_body] = [source_body, 10.0, 0.0, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]]
        d[f"use_ik_match_table{stage + 1}"] = True
        d["human_scale_table"].setdefault(source_body, 1.0)
        return self._apply(d)

    def remove_task(self, stage: int, robot_body: str) -> Mapping:
        d = copy.deepcopy(self.mapping_dict())
        d[STAGES[stage]].pop(robot_body, None)
        d[f"use_ik_match_table{stage + 1}"] = bool(d[STAGES[stage]])
        return self._apply(d)

    def set_scale(self, source_body: str, value: float) -> Mapping:
        d = copy.deepcopy(self.mapping_dict())
        d["human_scale_table"][source_body] = float(value)
        return self._apply(d)

    def set_value(self, key: str, value: float) -> Mapping:
        """human_height_assumption or ground_height."""
        if key not in ("human_height_assumption", "ground_height"):
            raise KeyError(key)
        d = copy.deepcopy(self.mapping_dict())
        d[key] = float(value)
        return self._apply(d)

    def import_mapping(self, name: str, content: bytes) -> Mapping:
        """A GMR ik_config JSON upload, read by the library's mapping reader (size-limited, then
        validated and checked against the open clip and robot); the uploaded file is not kept."""
        key, path = self.state.sources.store(name, content, JSON_SUFFIXES)
        try:
            mapping = Mapping.load(path)
        finally:
            self.state.sources.discard(key)
        self.state.set_mapping(mapping)
        return mapping

    def export_mapping(self) -> tuple[str, bytes]:
        m = self.state.current_mapping()
        text = json.dumps(m.to_dict(), indent=2) + "\n"
        return f"{self.state.robot().name}_mapping.json", text.encode("utf-8")

    def set_config(self, values: dict[str, Any]) -> Any:
        name = self.state.engine_name()
        config = apply_values(self.state.configs[name], values)
        if config != self.state.configs[name]:
            self.state.configs[name] = config
            self.state.invalidate("the solver parameters changed")
        return config

    def links(self, frame: int | None = None) -> dict[str, np.ndarray]:
        """The mapping at a frame: every task's target [m] (K, 3), its stage (K,), the robot body it
        drives placed at rest under the source root (K, 3), and that robot qpos."""
        motion = self.state.need_motion()
        robot = self.state.robot()
        mapping = self.state.current_mapping()
        f = int(np.clip(self.frame if frame is None else frame, 0, motion.num_frames - 1))
        one = motion.slice(f, f + 1)
        targets, stages, bodies = [], [], []
        for s, stage in enumerate((mapping.stage1, mapping.stage2)):
            if stage:
                targets.append(stage_targets(one, mapping, stage)[0, :, :3])
                stages += [s] * len(stage)
                bodies += [t.robot_body for t in stage]
        target = np.concatenate(targets)
        q = robot.rest_qpos()
        root_pos, root_rot = one.body(mapping.source_root)
        q[:2] = (
            target[0, :2] if bodies[0] == mapping.robot_root else root_pos[0, :2] * mapping.scales[mapping.source_root]
        )
        q[3:7] = quat_mul(yaw_quat(root_rot[0]), q[3:7])
        fk = robot.fk(q)
        ids = [robot.body_id(b) for b in bodies]
        return {"targets": target, "stages": np.array(stages), "bodies": fk.positions[0, ids], "qpos": q}

    def table_markdown(self, stage: int, selected: str = "") -> str:
        """The stage's tasks as a compact HTML table (one line a row, numbers to 3 significant
        digits, an identity rotation as "-"); the row being edited below it is highlighted."""
        rows = self.rows(stage)
        if not rows:
            return f"<p>Stage {stage + 1}: no tasks.</p>"
        head = ("robot body", "source", "pos w", "rot w", "offset xyz [m]", "rotation wxyz")
        body = "".join(
            _tr(
                [r[0], r[1], f"{r[2]:g}", f"{r[3]:g}", _vec(r[4], (0.0, 0.0, 0.0)), _vec(r[5], (1.0, 0.0, 0.0, 0.0))],
                r[0] == selected,
            )
            for r in rows
        )
        return _table(head, body)

    def scales_markdown(self) -> str:
        """The human scale table as a compact HTML table."""
        d = self.mapping_dict()
        body = "".join(_tr([k, f"{v:.3g}"], False) for k, v in d["human_scale_table"].items())
        return _table(("source body", "scale"), body)


_CELL = "padding:1px 6px;white-space:nowrap;"


def _vec(values: Any, identity: tuple[float, ...]) -> str:
    v = [float(x) for x in values]
    return "-" if np.allclose(v, identity) else " ".join(f"{x:.3g}" for x in v)


def _tr(cells: list[str], selected: bool) -> str:
    import html

    style = ' style="background:#fff3bf"' if selected else ""
    tds = "".join(f'<td style="{_CELL}">{html.escape(c)}</td>' for c in cells)
    return f"<tr{style}>{tds}</tr>"


def _table(head: tuple[str, ...], body: str) -> str:
    ths = "".join(f'<th style="{_CELL}text-align:left">{h}</th>' for h in head)
    return (
        '<div style="overflow-x:auto;font-size:0.78em;font-variant-numeric:tabular-nums">'
        f'<table style="border-collapse:collapse"><tr>{ths}</tr>{body}</table></div>'
    )
