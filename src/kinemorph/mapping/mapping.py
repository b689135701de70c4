"""Mapping: which source body drives which robot body, with weights, scales and offsets.

Stored as JSON in GMR's ``ik_config`` layout (read and written unchanged), converted at once
into named, validated types. GMR's layout: ``robot_root_name``, ``human_root_name``,
``ground_height``, ``human_height_assumption``, ``use_ik_match_table1/2``,
``human_scale_table`` {human body: scale}, and ``ik_match_table1/2`` {robot body:
[human body, position weight, rotation weight, position offset xyz, rotation offset wxyz]}.
kinemorph adds optional keys GMR ignores: ``source_preset`` and ``robot``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._files import write_text_atomic
from ..errors import MappingError, UnknownNameError
from ..motion.motion import Motion
from ..robots.robot import Robot


def read_mapping_json(path: str | Path) -> dict[str, Any]:
    """A mapping file's JSON object (validated by Mapping.from_dict); MappingError names the file
    and, for JSON syntax errors, the line."""
    p = Path(path)
    if not p.is_file():
        raise MappingError(f"{p}: no such mapping file")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MappingError(f"{p}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise MappingError(f"{p}: not a text file") from None
    if not isinstance(data, dict):
        raise MappingError(f"{p}: expected a JSON object")
    return data


@dataclass(frozen=True)
class BodyTask:
    """One robot body tracking one source body.

    Attributes:
        robot_body: robot body (MuJoCo body name).
        source_body: source body (skeleton joint or preset's virtual body).
        position_weight: cost on the position error [1/m].
        rotation_weight: cost on the orientation error [1/rad].
        position_offset: offset added in the target's (rotated) frame [m]. Shape: (3,).
        rotation_offset: rotation applied on the right of the source orientation, wxyz. Shape: (4,).
    """

    robot_body: str
    source_body: str
    position_weight: float
    rotation_weight: float
    position_offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    rotation_offset: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0, 0.0]))

    def __post_init__(self) -> None:
        for name, w in (("position", self.position_weight), ("rotation", self.rotation_weight)):
            if not (np.isfinite(w) and w >= 0):
                raise MappingError(f"{self.robot_body}: weights must be >= 0 and finite; {name} weight is {w}")
        if not (np.all(np.isfinite(self.position_offset)) and np.all(np.isfinite(self.rotation_offset))):
            raise MappingError(f"{self.robot_body}: offsets must be finite")
        n = float(np.linalg.norm(self.rotation_offset))
        if abs(n - 1.0) > 1e-3:
            raise MappingError(
                f"{self.robot_body}: rotation offset {list(self.rotation_offset)} is not a unit quaternion"
            )
        object.__setattr__(self, "rotation_offset", np.asarray(self.rotation_offset, float) / n)
        object.__setattr__(self, "position_offset", np.asarray(self.position_offset, float))

    @property
    def active(self) -> bool:
        return self.position_weight > 0 or self.rotation_weight > 0


@dataclass(frozen=True)
class Mapping:
    """A source-to-robot mapping in two stages, as GMR solves it.

    Attributes:
        robot_root: the robot's floating-base body.
        source_root: the source body about which positions are scaled.
        scales: per source body, the factor applied to its offset from the root (the root's own
            factor scales its position). Bodies without a scale are not used.
        stage1, stage2: tasks of each stage; a stage may be empty (it is then skipped).
        ground_height: GMR's ground_height [m] (subtracted from each local position offset, as GMR does).
        human_height_assumption: the stature [m] the scales were made for.
        source_preset, robot: what the mapping was made for (optional, checked when present).
        where: where it came from (a file name), for messages; not part of its value.
    """

    robot_root: str
    source_root: str
    scales: dict[str, float]
    stage1: tuple[BodyTask, ...]
    stage2: tuple[BodyTask, ...]
    ground_height: float = 0.0
    human_height_assumption: float = 1.8
    source_preset: str | None = None
    robot: str | None = None
    where: str = field(default="mapping", compare=False)

    def __post_init__(self) -> None:
        if not self.stage1 and not self.stage2:
            raise MappingError("mapping has no tasks in either stage")
        if not (np.isfinite(self.human_height_assumption) and 0.3 <= self.human_height_assumption <= 3.0):
            raise MappingError(
                f"human_height_assumption must be a stature in metres in [0.3, 3], got {self.human_height_assumption}"
            )
        if not (np.isfinite(self.ground_height) and abs(self.ground_height) <= 10.0):
            raise MappingError(f"ground_height must be a finite height in metres (|h| <= 10), got {self.ground_height}")
        for s, v in self.scales.items():
            if not np.isfinite(v) or v <= 0:
                raise MappingError(f"human_scale_table[{s!r}] = {v}: scales must be positive")
        if self.source_root not in self.scales:
            raise MappingError(f"the source root {self.source_root!r} needs an entry in human_scale_table")
        for name, stage in (("ik_match_table1", self.stage1), ("ik_match_table2", self.stage2)):
            for t in stage:
                if t.source_body not in self.scales:
                    raise MappingError(
                        f"{name}: {t.robot_body} follows {t.source_body!r}, which has no entry in human_scale_table"
                    )

    # -- names -----------------------------------------------------------------------------------
    @property
    def stages(self) -> tuple[tuple[BodyTask, ...], ...]:
        return tuple(s for s in (self.stage1, self.stage2) if s)

    def source_bodies(self) -> list[str]:
        """Source bodies the mapping reads, root first, each once."""
        out = [self.source_root]
        for stage in (self.stage1, self.stage2):
            for t in stage:
                if t.source_body not in out:
                    out.append(t.source_body)
        return out

    def robot_bodies(self) -> list[str]:
        out: list[str] = []
        for stage in (self.stage1, self.stage2):
            for t in stage:
                if t.robot_body not in out:
                    out.append(t.robot_body)
        return out

    def check(self, motion: Motion, robot: Robot, *, where: str = "mapping") -> None:
        """Raise a clear error when the mapping does not fit the motion or the robot (family, names)."""
        robot.check_motion(motion)
        self.check_names(motion, robot, where=where)

    def check_names(self, motion: Motion, robot: Robot, *, where: str = "mapping", root_only: bool = False) -> None:
        """Raise a clear error when the mapping's source preset or body names do not fit (with
        root_only, only the names of the tasks on the robot's root body)."""
        if self.source_preset and motion.preset != "generic" and motion.preset != self.source_preset:
            raise MappingError(
                f"{where} is made for {self.source_preset} sources, "
                f"but {motion.source} was read with preset {motion.preset}"
            )
        sources = self.source_bodies()
        if root_only:
            tasks = [t for stage in self.stages for t in stage if t.robot_body == self.robot_root]
            sources = [self.source_root, *(t.source_body for t in tasks)]
        for b in sources:
            if b not in motion.body_names:
                raise UnknownNameError("source body", b, motion.body_names, where=f"{where} (motion {motion.source})")
        self.check_robot(robot, where=where, root_only=root_only)

    def check_robot(self, robot: Robot, *, where: str = "mapping", root_only: bool = False) -> None:
        """Raise a clear error when a robot body the mapping names (with root_only: its root) is
        not in the robot."""
        for b in [self.robot_root] if root_only else [self.robot_root, *self.robot_bodies()]:
            if b not in robot.body_names or b == "world":
                raise UnknownNameError("robot body", b, robot.body_names[1:], where=f"{where} (robot {robot.name})")

    # -- GMR layout --------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: dict[str, Any], *, where: str = "mapping") -> Mapping:
        """Read GMR's ik_config layout (plus kinemorph's optional keys)."""
        if not isinstance(d, dict):
            raise MappingError(f"{where}: expected a JSON object")
        required = ("robot_root_name", "human_root_name", "human_scale_table", "ik_match_table1", "ik_match_table2")
        missing = [k for k in required if k not in d]
        if missing:
            raise MappingError(f"{where}: missing key(s) {', '.join(missing)}")
        known = set(required) | {
            "ground_height",
            "human_height_assumption",
            "use_ik_match_table1",
            "use_ik_match_table2",
            "source_preset",
            "robot",
        }
        unknown = sorted(set(d) - known)
        if unknown:
            raise MappingError(f"{where}: unknown key(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
        raw_scales = d["human_scale_table"]
        if not isinstance(raw_scales, dict) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in raw_scales.values()
        ):
            raise MappingError(f"{where}: human_scale_table must map body names to numbers")
        scales = {str(k): float(v) for k, v in raw_scales.items()}

        def table(key: str) -> tuple[BodyTask, ...]:
            raw = d[key]
            if not isinstance(raw, dict):
                raise MappingError(f"{where}: {key} must be an object {{robot body: [...]}}")
            tasks = []
            for robot_body, entry in raw.items():
                ctx = f"{where}: {key}[{robot_body!r}]"
                if not isinstance(entry, (list, tuple)) or len(entry) != 5:
                    raise MappingError(
                        f"{ctx}: expected [source body, position weight, rotation weight, "
                        "position offset xyz, rotation offset wxyz]"
                    )
                body, pw, rw, po, ro = entry
                try:
                    po_arr = np.asarray(po, dtype=float).reshape(3)
                    ro_arr = np.asarray(ro, dtype=float).reshape(4)
                    task = BodyTask(str(robot_body), str(body), float(pw), float(rw), po_arr, ro_arr)
                except (TypeError, ValueError):
                    raise MappingError(f"{ctx}: weights must be numbers, offsets 3 and 4 numbers") from None
                except MappingError as exc:
                    raise MappingError(f"{ctx}: {exc}") from None
                if task.active:
                    tasks.append(task)
            return tuple(tasks)

        def flag(key: str) -> bool:
            v = d.get(key, True)
            if not isinstance(v, bool):
                raise MappingError(f"{where}: {key} must be true or false, got {v!r}")
            return v

        def number(key: str, default: float) -> float:
            v = d.get(key, default)
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise MappingError(f"{where}: {key} must be a number, got {v!r}")
            return float(v)

        def name(key: str, optional: bool = False) -> Any:
            v = d.get(key)
            if (v is None and optional) or (isinstance(v, str) and v):
                return v
            raise MappingError(f"{where}: {key} must be a non-empty string, got {v!r}")

        stage1 = table("ik_match_table1") if flag("use_ik_match_table1") else ()
        stage2 = table("ik_match_table2") if flag("use_ik_match_table2") else ()
        try:
            return cls(
                robot_root=name("robot_root_name"),
                source_root=name("human_root_name"),
                scales=scales,
                stage1=stage1,
                stage2=stage2,
                ground_height=number("ground_height", 0.0),
                human_height_assumption=number("human_height_assumption", 1.8),
                source_preset=name("source_preset", optional=True),
                robot=name("robot", optional=True),
                where=where,
            )
        except MappingError as exc:
            raise MappingError(f"{where}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        """GMR's ik_config layout (kinemorph's optional keys only when set)."""

        def table(stage: Iterable[BodyTask]) -> dict[str, list[Any]]:
            return {
                t.robot_body: [
                    t.source_body,
                    t.position_weight,
                    t.rotation_weight,
                    [round(float(x), 9) for x in t.position_offset],
                    [round(float(x), 9) for x in t.rotation_offset],
                ]
                for t in stage
            }

        d: dict[str, Any] = {
            "robot_root_name": self.robot_root,
            "human_root_name": self.source_root,
            "ground_height": self.ground_height,
            "human_height_assumption": self.human_height_assumption,
            "use_ik_match_table1": bool(self.stage1),
            "use_ik_match_table2": bool(self.stage2),
            "human_scale_table": {k: round(float(v), 6) for k, v in self.scales.items()},
            "ik_match_table1": table(self.stage1),
            "ik_match_table2": table(self.stage2),
        }
        if self.source_preset:
            d["source_preset"] = self.source_preset
        if self.robot:
            d["robot"] = self.robot
        return d

    @classmethod
    def load(cls, path: str | Path) -> Mapping:
        return cls.from_dict(read_mapping_json(path), where=str(path))

    def save(self, path: str | Path, *, force: bool = False) -> Path:
        return write_text_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n", force=force)


def load_mapping(path_or_robot: str | Path, preset: str = "lafan1") -> Mapping:
    """A mapping from a JSON file, or the shipped default of a known robot for a source preset."""
    from ..robots.registry import KNOWN_ROBOTS

    s = str(path_or_robot)
    if s in KNOWN_ROBOTS:
        return _shipped(s, preset)
    return Mapping.load(s)


@functools.lru_cache(maxsize=32)
def _shipped(robot: str, preset: str) -> Mapping:
    """A shipped mapping, read once per process (mappings are immutable)."""
    from ..robots.registry import default_mapping_path

    return Mapping.load(default_mapping_path(robot, preset))


def default_mapping(motion: Motion, robot: Robot) -> Mapping:
    """The shipped mapping for a known robot and the motion's preset; for any other recognised
    humanoid rig, the shipped mapping over landmarks calibrated on that rig (mapping/landmarks.py);
    for a humanoid robot not in the registry, the automatic mapping (mapping/auto.py)."""
    from ..robots.registry import KNOWN_ROBOTS, robot_info

    if getattr(robot, "recognition", None) is not None and robot.family == "humanoid":
        from .auto import auto_mapping  # a robot kinemorph has never seen (mapping/auto.py)

        return auto_mapping(motion, robot)
    if getattr(robot, "recognition_error", ""):
        from ..robots.recognise import RecognitionError

        raise RecognitionError(f"{robot.recognition_error}; pass a mapping (--mapping FILE)")
    if robot.name not in KNOWN_ROBOTS:
        raise UnknownNameError(
            "robot with a shipped mapping",
            robot.name,
            KNOWN_ROBOTS,
            where=f"{robot.path} has no default mapping: pass one (--mapping FILE)",
        )
    if motion.preset not in robot_info(robot.name).mappings and motion.rig is not None:
        from .landmarks import landmark_mapping

        if "lafan1" in robot_info(robot.name).mappings:
            return landmark_mapping(motion, robot)
        if motion.family == "quadruped":
            raise MappingError(
                f"{motion.source}: {robot.name}'s shipped mapping is for the dog rig; the quadruped engine's "
                "natural mode (the default) needs no mapping, the plain mode needs one (--mapping FILE)"
            )
    return load_mapping(robot.name, motion.preset)
