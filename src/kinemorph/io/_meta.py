"""What every export says about itself: robot, kinematic tree hash, joint and body order, fps,
quaternion convention, units, kinemorph's version and the settings that produced it.

Formats that can hold it store the metadata inside (a JSON string under ``kinemorph_meta`` in
.npz archives and MimicKit pickles, a ``meta`` object in .json); the others (kinemorph's .csv,
GMR's .pkl, the BeyondMimic .csv) get a sidecar ``<file>.meta.json`` beside the file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import KinemorphError, MotionFileError

if TYPE_CHECKING:
    from ..robots.robot import Robot
    from ..robots.robot_motion import RobotMotion

META_KEY = "kinemorph_meta"
"""Key of the metadata inside .npz archives and MimicKit pickles (a JSON string)."""

SIDECAR_SUFFIX = ".meta.json"
"""A sidecar is the file's name plus this: ``walk.csv`` -> ``walk.csv.meta.json``."""

UNITS = {"length": "m", "angle": "rad", "time": "s", "linear_velocity": "m/s", "angular_velocity": "rad/s"}
"""Units of every export (joint values of slide joints are metres)."""


@dataclass(frozen=True)
class ExportMeta:
    """The metadata of one exported file.

    Attributes:
        format: the format's name (kinemorph.io.EXPORT_FORMATS key).
        kinemorph_version: the version that wrote the file.
        robot: robot name (registry key or model file stem).
        robot_model: the model file's name ("g1.xml"); "" when no robot model was given.
        kinematic_tree_sha256: hash of the robot's kinematic tree (see :func:`kinematic_tree_hash`);
            "" when no robot model was given.
        root_body: the floating-base body; "" when unknown.
        dof_names: joint order of the joint columns. Shape: (n,).
        body_names: body order of per-body arrays (the robot's bodies but the world, MuJoCo order);
            empty when no robot model was given. Shape: (B,).
        fps: frame rate [1/s].
        num_frames: frames in the file.
        quaternion: how rotations are stored ("xyzw", "wxyz", "exponential map").
        units: unit per quantity (:data:`UNITS`).
        settings: what produced the motion (engine, its config, mapping, source file...), JSON values.
    """

    format: str
    kinemorph_version: str
    robot: str
    robot_model: str
    kinematic_tree_sha256: str
    root_body: str
    dof_names: tuple[str, ...]
    body_names: tuple[str, ...]
    fps: float
    num_frames: int
    quaternion: str
    units: dict[str, str] = field(default_factory=lambda: dict(UNITS))
    settings: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """The metadata as one JSON object (numpy values as plain numbers)."""
        d = asdict(self)
        d["dof_names"], d["body_names"] = list(self.dof_names), list(self.body_names)
        try:
            return json.dumps(d, indent=1, default=_plain, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise KinemorphError(f"the export's settings cannot be written as JSON: {exc}") from None

    @classmethod
    def from_dict(cls, d: Any, *, where: str) -> ExportMeta:
        """Metadata from its JSON object; MotionFileError names ``where`` and the missing keys."""
        if not isinstance(d, dict):
            raise MotionFileError(where, f"metadata is a {type(d).__name__}, expected an object")
        names = set(cls.__dataclass_fields__)
        required = names - {"units", "settings"}
        missing = sorted(required - set(d))
        if missing:
            raise MotionFileError(where, f"metadata lacks {missing}")
        try:
            return cls(
                **{k: v for k, v in d.items() if k in names}
                | {
                    "dof_names": tuple(str(s) for s in d["dof_names"]),
                    "body_names": tuple(str(s) for s in d["body_names"]),
                    "fps": float(d["fps"]),
                    "num_frames": int(d["num_frames"]),
                    "units": dict(d.get("units") or UNITS),
                    "settings": dict(d.get("settings") or {}),
                }
            )
        except (TypeError, ValueError) as exc:
            raise MotionFileError(where, f"malformed metadata: {exc}") from None

    @classmethod
    def from_json(cls, text: str, *, where: str) -> ExportMeta:
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise MotionFileError(where, f"metadata is not JSON: {exc.msg}", line=exc.lineno) from None
        return cls.from_dict(d, where=where)


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} {value!r} is not JSON-serialisable")


def kinematic_tree_hash(robot: Robot) -> str:
    """SHA-256 of what decides the robot's kinematics, independent of meshes and colours: per body
    its name, parent, position and orientation in the parent; per joint its name, type, body,
    axis, anchor and range. Two models with the same hash give the same forward kinematics."""
    m = robot.model
    bodies = [
        [m.body(b).name, int(m.body_parentid[b]), m.body_pos[b].tolist(), m.body_quat[b].tolist()]
        for b in range(m.nbody)
    ]
    joints = [
        [
            m.joint(j).name,
            int(m.jnt_type[j]),
            int(m.jnt_bodyid[j]),
            m.jnt_axis[j].tolist(),
            m.jnt_pos[j].tolist(),
            m.jnt_range[j].tolist(),
        ]
        for j in range(m.njnt)
    ]
    text = json.dumps({"bodies": bodies, "joints": joints}, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def build_meta(
    motion: RobotMotion,
    *,
    format: str,
    quaternion: str,
    robot: Robot | None,
    settings: Mapping[str, Any] | None,
) -> ExportMeta:
    """The metadata of ``motion`` written in ``format``. ``settings`` default: the engine details
    the motion carries (``motion.settings``: engine, config, mapping; no timings, so that the
    same job writes the same file)."""
    from .. import __version__

    return ExportMeta(
        format=format,
        kinemorph_version=__version__,
        robot=motion.robot if robot is None else robot.name,
        robot_model="" if robot is None else Path(robot.path).name,
        kinematic_tree_sha256="" if robot is None else kinematic_tree_hash(robot),
        root_body="" if robot is None else robot.root_body,
        dof_names=tuple(motion.dof_names),
        body_names=() if robot is None else tuple(robot.body_names[1:]),
        fps=float(motion.fps),
        num_frames=motion.num_frames,
        quaternion=quaternion,
        settings=dict(motion.settings if settings is None else settings),
    )


def sidecar_path(path: str | Path) -> Path:
    """The sidecar of an export: ``walk.csv`` -> ``walk.csv.meta.json``."""
    p = Path(path)
    return p.with_name(p.name + SIDECAR_SUFFIX)


def is_sidecar(path: str | Path) -> bool:
    return Path(path).name.lower().endswith(SIDECAR_SUFFIX)


def read_sidecar(path: str | Path) -> ExportMeta | None:
    """The sidecar's metadata of ``path``, or None when the file has no sidecar."""
    side = sidecar_path(path)
    if not side.is_file():
        return None
    try:
        text = side.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MotionFileError(side, f"not a readable metadata file: {exc}") from None
    return ExportMeta.from_json(text, where=str(side))


def meta_from_array(value: Any, *, where: str) -> ExportMeta:
    """Metadata stored as a JSON string (a 0-d numpy string array in .npz archives)."""
    return ExportMeta.from_json(str(np.asarray(value).reshape(())), where=where)
