"""save and load: the format is chosen by the file's suffix, from the one FORMATS registry."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .._files import check_writable
from ..errors import MotionFileError, UnknownNameError
from ..robots.robot_motion import RobotMotion
from . import _csv, _json, _npz, _pickle
from ._common import check_robot

if TYPE_CHECKING:
    from ..robots.robot import Robot


class Writer(Protocol):
    def __call__(self, motion: RobotMotion, path: Path, *, robot: Robot | None, force: bool) -> Path: ...


class Reader(Protocol):
    def __call__(self, path: Path, *, robot_name: str | None, dof_names: tuple[str, ...] | None) -> RobotMotion: ...


@dataclass(frozen=True)
class Format:
    """A RobotMotion file format.

    Attributes:
        suffix: file suffix, lower case with the dot (".npz").
        description: one line for help texts.
        write: writes a motion atomically.
        read: reads a motion back.
    """

    suffix: str
    description: str
    write: Writer
    read: Reader


FORMATS: dict[str, Format] = {
    f.suffix: f
    for f in (
        Format(".npz", "numpy archive with GMR's keys (root_rot x y z w, dof_names)", _npz.write, _npz.read),
        Format(
            ".pkl", "GMR's pickle (root_rot x y z w; local_body_pos when a robot is given)", _pickle.write, _pickle.read
        ),
        Format(
            ".csv",
            "one row per frame: frame, time, root position and quaternion x y z w, joints",
            _csv.write,
            _csv.read,
        ),
        Format(
            ".json",
            "one object with the robot, fps, joint names, trajectories and engine info",
            _json.write,
            _json.read,
        ),
    )
}
"""Every supported format by suffix; the CLI's and the app's choices come from here."""


def format_for(path: str | Path) -> Format:
    """The format of ``path`` by its suffix (case-insensitive); UnknownNameError lists the supported ones."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise UnknownNameError("RobotMotion file format", suffix or "(no suffix)", FORMATS, where=str(path))
    return FORMATS[suffix]


def save(robot_motion: RobotMotion, path: str | Path, *, robot: Robot | None = None, force: bool = False) -> Path:
    """Write a RobotMotion in the format its suffix names (see ``FORMATS``), atomically: through a
    temporary file in the target's folder, renamed on success, removed on failure.

    Args:
        robot_motion: the motion; root_rot is wxyz here and written as x y z w, GMR's order.
        path: output file; its folder must exist.
        robot: the motion's robot. When given, its joint order must be the motion's; .pkl then
            fills local_body_pos and link_body_list from its forward kinematics.
        force: overwrite an existing file (otherwise OutputExistsError).

    Returns:
        The path written.
    """
    fmt = format_for(path)
    target = check_writable(path, force=force)
    if robot is not None:
        check_robot(robot_motion, robot)
    return fmt.write(robot_motion, target, robot=robot, force=force)


def load(path: str | Path, *, robot_name: str | None = None, dof_names: Sequence[str] | None = None) -> RobotMotion:
    """Read a RobotMotion from any format in ``FORMATS``; root_rot comes back wxyz.

    Args:
        path: the file.
        robot_name: the robot the motion is for. Default: the name .json stores; for the other
            formats the known robot named in the file name (``walk_unitree_g1.npz``), else "unknown".
        dof_names: joint names. .pkl stores none and needs them (default ``dof_0 .. dof_{n-1}``);
            for the other formats they are checked against the file's.
    """
    fmt = format_for(path)
    p = Path(path)
    if not p.is_file():
        raise MotionFileError(p, "no such file")
    return fmt.read(p, robot_name=robot_name, dof_names=None if dof_names is None else tuple(dof_names))
