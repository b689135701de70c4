"""save and load: the format is chosen by name (``format="holosoma"``) or by the file's name,
from the one EXPORT_FORMATS registry."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .._files import atomic_path, check_writable
from ..errors import KinemorphError, MotionFileError, UnknownNameError
from ..robots.robot_motion import RobotMotion
from . import _beyondmimic, _csv, _json, _mimickit, _npz, _pickle, _tracking
from ._common import check_robot
from ._meta import META_KEY, ExportMeta, build_meta, is_sidecar, read_sidecar, sidecar_path

if TYPE_CHECKING:
    from ..robots.robot import Robot


class Writer(Protocol):
    def __call__(
        self, motion: RobotMotion, path: Path, *, robot: Robot | None, force: bool, meta: ExportMeta
    ) -> Path: ...


class Reader(Protocol):
    def __call__(
        self, path: Path, *, robot_name: str | None, dof_names: tuple[str, ...] | None, meta: ExportMeta | None
    ) -> RobotMotion: ...


@dataclass(frozen=True)
class Format:
    """A RobotMotion file format.

    Attributes:
        name: the format's name (``format=`` and the CLI's ``--format``).
        suffix: the file name ending that selects it, lower case (".npz", ".holosoma.npz").
        description: one line for help texts.
        write: writes a motion atomically.
        read: reads a motion back.
        quaternion: how the file stores the root rotation ("xyzw", "wxyz", "exponential map").
        read_meta: reads the metadata stored inside the file; None: the format keeps it in a
            sidecar ``<file>.meta.json``.
        needs_robot: the writer computes through the robot's kinematics (loaded by the motion's
            robot name when none is given).
    """

    name: str
    suffix: str
    description: str
    write: Writer
    read: Reader
    quaternion: str
    read_meta: Callable[[Path], ExportMeta | None] | None = None
    needs_robot: bool = False

    @property
    def sidecar(self) -> bool:
        return self.read_meta is None


EXPORT_FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("npz", ".npz", "numpy archive with GMR's keys (root_rot x y z w, dof_names)", _npz.write, _npz.read,
               "xyzw", _npz.read_meta),
        Format("pkl", ".pkl", "GMR's pickle (root_rot x y z w; local_body_pos when a robot is given)",
               _pickle.write, _pickle.read, "xyzw"),
        Format("csv", ".csv", "one row per frame: frame, time, root position and quaternion x y z w, joints",
               _csv.write, _csv.read, "xyzw"),
        Format("json", ".json", "one object with the robot, fps, joint names, trajectories and engine info",
               _json.write, _json.read, "xyzw", _json.read_meta),
        Format("beyondmimic", ".beyondmimic.csv",
               "BeyondMimic / Unitree LAFAN1 CSV: no header; root x y z, quaternion x y z w, joints",
               _beyondmimic.write, _beyondmimic.read, "xyzw"),
        Format("mimickit", ".mimickit.pkl",
               "MimicKit motion: loop_mode, fps, frames of root position, root exponential map, joint DoFs",
               _mimickit.write, _mimickit.read, "exponential map",
               lambda p: _mimickit.stored_meta(p, _mimickit.contents(p))),
        Format("holosoma", ".holosoma.npz",
               "holosoma whole-body tracking npz: joint_pos with root, per-body world states, names",
               _tracking.write_holosoma, _tracking.read_holosoma, "wxyz", _tracking.read_meta, needs_robot=True),
        Format("mjlab", ".mjlab.npz",
               "mjlab tracking npz: joint_pos, joint_vel, per-body world states in MuJoCo body order",
               _tracking.write_mjlab, _tracking.read_mjlab, "wxyz", _tracking.read_meta, needs_robot=True),
    )
}  # fmt: skip
"""Every format by name; the CLI's and the app's choices come from here."""

FORMATS: dict[str, Format] = {f.suffix: f for f in EXPORT_FORMATS.values() if f.suffix.count(".") == 1}
"""The plain-suffix formats (.npz, .pkl, .csv, .json) by suffix: what a bare suffix writes."""


def get_format(name: str) -> Format:
    """A format by name; ".npz" and "npz" both name the npz format. UnknownNameError lists the names."""
    key = str(name).lower().lstrip(".")
    if key not in EXPORT_FORMATS:
        raise UnknownNameError("output format", str(name), EXPORT_FORMATS)
    return EXPORT_FORMATS[key]


def output_suffix(format: str) -> str:
    """The file name ending that a format writes: "holosoma" -> ".holosoma.npz", ".npz" -> ".npz"."""
    return get_format(format).suffix


def _by_name(path: str | Path) -> Format:
    """The format of a file name: the longest registered ending it has."""
    if is_sidecar(path):
        raise KinemorphError(f"{path}: is the metadata sidecar of an export; name the export itself")
    name = Path(path).name.lower()
    endings = sorted((f for f in EXPORT_FORMATS.values() if name.endswith(f.suffix)), key=lambda f: -len(f.suffix))
    if not endings:
        suffix = Path(path).suffix.lower()
        valid = sorted(f.suffix for f in EXPORT_FORMATS.values())
        raise UnknownNameError("RobotMotion file format", suffix or "(no suffix)", valid, where=str(path))
    return endings[0]


def format_for(path: str | Path, format: str | None = None) -> Format:
    """The format named by ``format``, else the one the file name ends with (case-insensitive);
    UnknownNameError lists the valid names or endings."""
    return get_format(format) if format else _by_name(path)


def detect_format(path: str | Path, format: str | None = None) -> Format:
    """The format of an existing file: ``format`` when given; else a file name's specific ending
    (.holosoma.npz); else, for a plain suffix, what the content says: a headerless numeric .csv is
    BeyondMimic's, a .pkl with ``frames`` is MimicKit's, an .npz with per-body arrays is
    holosoma's (joint_pos starts with the root) or mjlab's."""
    fmt = format_for(path, format)
    if format or fmt.suffix.count(".") > 1:
        return fmt
    p = Path(path)
    if fmt.name == "csv" and _beyondmimic.looks_like(p):
        return EXPORT_FORMATS["beyondmimic"]
    if fmt.name == "pkl":
        try:
            data = _mimickit.contents(p)
        except MotionFileError:
            return fmt
        return EXPORT_FORMATS["mimickit"] if _mimickit.looks_like(data) else fmt
    if fmt.name == "npz":
        try:
            data = _tracking.contents(p)
        except MotionFileError:
            return fmt
        if META_KEY in data:
            stored = _tracking.stored_meta(p, data)
            if stored is not None and stored.format in EXPORT_FORMATS:
                return EXPORT_FORMATS[stored.format]
        if "body_pos_w" in data:
            names, jp = data.get("joint_names"), data.get("joint_pos")
            root_first = names is not None and jp is not None and jp.ndim == 2 and jp.shape[1] == len(names) + 7
            return EXPORT_FORMATS["holosoma" if root_first else "mjlab"]
    return fmt


def _robot_for(motion: RobotMotion, fmt: Format, where: Path) -> Robot:
    from ..robots import KNOWN_ROBOTS, load_robot

    if motion.robot not in KNOWN_ROBOTS:
        raise KinemorphError(
            f"{where}: the {fmt.name} format computes body states through the robot's kinematics; "
            f"robot {motion.robot!r} is not a known robot: pass its model (robot=, CLI: --robot)"
        )
    robot = load_robot(motion.robot)
    check_robot(motion, robot)
    return robot


def save(
    robot_motion: RobotMotion,
    path: str | Path,
    *,
    robot: Robot | None = None,
    force: bool = False,
    format: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> Path:
    """Write a RobotMotion in the format ``format`` names, else the one the file name ends with
    (see ``EXPORT_FORMATS``), atomically: through a temporary file in the target's folder, renamed
    on success, removed on failure. The export's metadata (_meta.ExportMeta) goes inside the file
    where the format has room, else into the sidecar ``<file>.meta.json``.

    Args:
        robot_motion: the motion; root_rot is wxyz here and written in the format's convention.
        path: output file; its folder must exist.
        robot: the motion's robot. When given, its joint order must be the motion's; it fills the
            metadata's model hash and body order, .pkl's local_body_pos, and the per-body states of
            holosoma and mjlab (which load the motion's known robot by name when none is given).
        force: overwrite an existing file (otherwise OutputExistsError).
        format: a name in ``EXPORT_FORMATS`` ("beyondmimic", "holosoma", ...); default: by file name.
        settings: what produced the motion, for the metadata (default: ``robot_motion.settings``).

    Returns:
        The path written.
    """
    fmt = format_for(path, format)
    target = check_writable(path, force=force)
    if robot is not None:
        check_robot(robot_motion, robot)
    elif fmt.needs_robot:
        robot = _robot_for(robot_motion, fmt, target)
    meta = build_meta(robot_motion, format=fmt.name, quaternion=fmt.quaternion, robot=robot, settings=settings)
    meta.to_json()  # unserialisable settings fail here, before anything is written
    if not fmt.sidecar:
        return fmt.write(robot_motion, target, robot=robot, force=force, meta=meta)
    with atomic_path(sidecar_path(target), force=True) as tmp:
        tmp.write_text(meta.to_json() + "\n", encoding="utf-8")
        fmt.write(robot_motion, target, robot=robot, force=force, meta=meta)
    return target


def is_export(path: str | Path) -> bool:
    """True for a file a RobotMotion reader takes: a name with an export ending (not a motion
    source: an .npz must hold GMR's or a tracker's keys, not keypoints)."""
    try:
        fmt = detect_format(path)
    except KinemorphError:
        return False
    if fmt.name != "npz":
        return True
    try:
        keys = set(_tracking.contents(Path(path)))
    except MotionFileError:
        return False
    return set(_npz.REQUIRED_KEYS) <= keys


def written_files(path: str | Path, *, format: str | None = None) -> list[Path]:
    """The files an export consists of: the file, and its sidecar when its format has one."""
    p = Path(path)
    return [p, sidecar_path(p)] if format_for(p, format).sidecar else [p]


def read_meta(path: str | Path, *, format: str | None = None) -> ExportMeta | None:
    """The metadata of an export (inside the file or in its sidecar); None for files without any
    (GMR's own, Unitree's dataset, files from other tools)."""
    fmt = detect_format(path, format)
    p = Path(path)
    if not p.is_file():
        raise MotionFileError(p, "no such file")
    return read_sidecar(p) if fmt.read_meta is None else fmt.read_meta(p)


def load(
    path: str | Path,
    *,
    robot_name: str | None = None,
    dof_names: Sequence[str] | None = None,
    format: str | None = None,
) -> RobotMotion:
    """Read a RobotMotion from any format in ``EXPORT_FORMATS``; root_rot comes back wxyz and
    ``settings`` holds the metadata's settings.

    Args:
        path: the file.
        robot_name: the robot the motion is for. Default: the one the file's metadata names, else
            the known robot named in the file name (``walk_unitree_g1.npz``), else "unknown".
        dof_names: joint names. Files without names (GMR's .pkl, BeyondMimic's .csv, without a
            sidecar) need them (default ``dof_0 .. dof_{n-1}``); otherwise they are checked
            against the file's.
        format: the format's name; default: by the file name and content (:func:`detect_format`).
    """
    fmt = detect_format(path, format)
    p = Path(path)
    if not p.is_file():
        raise MotionFileError(p, "no such file")
    meta = read_meta(p, format=fmt.name)
    motion = fmt.read(p, robot_name=robot_name, dof_names=None if dof_names is None else tuple(dof_names), meta=meta)
    return motion if meta is None else dataclasses.replace(motion, settings=dict(meta.settings))
