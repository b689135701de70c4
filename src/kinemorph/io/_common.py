"""Helpers every RobotMotion file format shares: quaternion order, fps, robot name, validation.

Inside the library quaternions are wxyz (MuJoCo's order); every file kinemorph writes stores the
root rotation as **xyzw**, GMR's order. The conversion lives here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import KinemorphError, MotionFileError
from ..robots.registry import KNOWN_ROBOTS
from ..robots.robot_motion import RobotMotion

if TYPE_CHECKING:
    from ..robots.robot import Robot

UNKNOWN_ROBOT = "unknown"
"""Robot name of a motion read from a file that does not say which robot it is for."""


def wxyz_to_xyzw(q: np.ndarray) -> np.ndarray:
    """Quaternions from the library's order to the files' order. Shape: (..., 4)."""
    return np.roll(np.asarray(q, dtype=np.float64), -1, axis=-1)


def xyzw_to_wxyz(q: np.ndarray) -> np.ndarray:
    """Quaternions from the files' order to the library's order. Shape: (..., 4)."""
    return np.roll(np.asarray(q, dtype=np.float64), 1, axis=-1)


def fps_for_file(fps: float) -> int | float:
    """Frame rate [1/s] as GMR writes it: an int when integral (30), else a float."""
    value = float(fps)
    return int(value) if value.is_integer() else value


def check_robot(motion: RobotMotion, robot: Robot) -> None:
    """Raise KinemorphError unless ``robot`` has exactly the motion's joints in the motion's order."""
    if tuple(robot.dof_names) == tuple(motion.dof_names):
        return
    mine, theirs = tuple(motion.dof_names), tuple(robot.dof_names)
    first = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
    raise KinemorphError(
        f"robot {robot.name} has {len(theirs)} joints, the motion (robot {motion.robot}) has {len(mine)}; "
        f"they first differ at index {first}: robot {theirs[first : first + 1]}, motion {mine[first : first + 1]}"
    )


def guess_robot_name(path: Path, robot_name: str | None, stored: str | None = None) -> str:
    """The robot a file is for: ``robot_name`` when given, else the name the file stores, else the
    longest known robot name found in the file's stem (GMR names files ``walk_unitree_g1.npz``),
    else ``UNKNOWN_ROBOT``."""
    if robot_name:
        return robot_name
    if stored:
        return stored
    found = [name for name in KNOWN_ROBOTS if name in path.stem]
    return max(found, key=len) if found else UNKNOWN_ROBOT


def file_array(path: Path, name: str, value: Any, columns: int | None = None) -> np.ndarray:
    """A (T, columns) float64 array read from a file; MotionFileError names the file and the field."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MotionFileError(path, f"{name} is not numeric: {exc}") from None
    if arr.ndim != 2 or (columns is not None and arr.shape[1] != columns):
        want = f"(T, {columns})" if columns is not None else "(T, n)"
        raise MotionFileError(path, f"{name} has shape {arr.shape}, expected {want}")
    bad = np.argwhere(~np.isfinite(arr))
    if len(bad):
        raise MotionFileError(path, f"{name} is not finite at frame {int(bad[0][0])}")
    return arr


def file_fps(path: Path, value: Any) -> float:
    """The frame rate [1/s] stored in a file (a scalar or a one-element array)."""
    arr = np.asarray(value)
    if arr.size != 1 or arr.dtype.kind not in "iuf":
        raise MotionFileError(path, f"fps must be one number, got {value!r}")
    return float(arr.reshape(()))


def _dof_names(path: Path, stored: Sequence[str] | None, requested: Sequence[str] | None, n: int) -> tuple[str, ...]:
    """Joint names: the file's, checked against ``requested`` when both exist; ``requested`` for files
    without names (GMR's pickle); placeholders ``dof_0 .. dof_{n-1}`` when neither exists."""
    if stored is not None:
        names = tuple(str(s) for s in stored)
        if requested is not None and tuple(requested) != names:
            raise MotionFileError(path, f"the file's dof_names {names} differ from the requested {tuple(requested)}")
        return names
    if requested is not None:
        if len(requested) != n:
            raise MotionFileError(path, f"{len(requested)} dof_names requested for {n} joint columns")
        return tuple(requested)
    return tuple(f"dof_{i}" for i in range(n))


def motion_from_file(
    path: Path,
    *,
    robot: str,
    fps: float,
    root_pos: Any,
    root_rot_xyzw: Any,
    dof_pos: Any,
    stored_dof_names: Sequence[str] | None,
    requested_dof_names: Sequence[str] | None,
    info: dict[str, Any] | None = None,
    contacts: Any = None,
    contact_bodies: Sequence[str] = (),
) -> RobotMotion:
    """Validate what a reader found and build the RobotMotion (root_rot converted to wxyz);
    every problem is a MotionFileError naming the file."""
    pos = file_array(path, "root_pos", root_pos, 3)
    rot = file_array(path, "root_rot", root_rot_xyzw, 4)
    dofs = file_array(path, "dof_pos", dof_pos)
    names = _dof_names(path, stored_dof_names, requested_dof_names, dofs.shape[1])
    try:
        return RobotMotion(
            robot=robot,
            fps=fps,
            root_pos=pos,
            root_rot=xyzw_to_wxyz(rot),
            dof_pos=dofs,
            dof_names=names,
            info=dict(info or {}),
            contacts=None if contacts is None else np.asarray(contacts).astype(bool),
            contact_bodies=tuple(str(b) for b in contact_bodies),
        )
    except KinemorphError as exc:
        raise MotionFileError(path, str(exc)) from None
