"""RobotMotion as GMR's pickle.

The file is a pickled dict with exactly these keys, in this order: ``fps`` (int when integral,
else float [1/s]), ``root_pos`` (T, 3) [m], ``root_rot`` (T, 4) quaternion **x y z w**,
``dof_pos`` (T, n) [rad or m], ``local_body_pos`` (T, nbody-1, 3) [m] and ``link_body_list``
(nbody-1 body names). Arrays are float64. Given a Robot, ``local_body_pos`` holds every body but
the world in the root body's frame and ``link_body_list`` their names; without one both are None,
as GMR's own BVH script writes them. The format stores no joint names: they come from the
sidecar ``<file>.meta.json`` kinemorph writes beside it, or from ``dof_names``.

Reading unpickles only numpy arrays and plain Python values, never arbitrary objects.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .._files import write_atomic
from ..errors import MotionFileError
from ..robots.robot_motion import RobotMotion
from ..transforms import quat_conj, quat_rotate
from ._common import check_robot, file_fps, fps_for_file, guess_robot_name, motion_from_file, wxyz_to_xyzw
from ._meta import ExportMeta

if TYPE_CHECKING:
    from ..robots.robot import Robot

GMR_KEYS = ("fps", "root_pos", "root_rot", "dof_pos", "local_body_pos", "link_body_list")
"""The keys of GMR's pickle, in GMR's order."""

_NUMPY_GLOBALS = frozenset(
    (module, name)
    for module in ("numpy.core.multiarray", "numpy._core.multiarray", "numpy.core.numeric", "numpy._core.numeric")
    for name in ("_reconstruct", "scalar", "_frombuffer")
) | {("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode")}  # protocol 2 stores bytes via encode


def local_body_positions(motion: RobotMotion, robot: Robot) -> np.ndarray:
    """Positions [m] of every body but the world (``robot.body_names[1:]``), relative to the root
    body's position and rotated by the inverse of its rotation, from the robot's forward kinematics.
    Shape: (T, nbody-1, 3)."""
    check_robot(motion, robot)
    pose = robot.fk(motion.qpos)
    r = robot.root_body_id
    relative = pose.positions[:, 1:] - pose.positions[:, r : r + 1]
    return quat_rotate(quat_conj(pose.rotations[:, r : r + 1]), relative)


def gmr_dict(motion: RobotMotion, robot: Robot | None = None) -> dict[str, Any]:
    """The dict GMR pickles, keys in GMR's order (see the module docstring)."""
    return {
        "fps": fps_for_file(motion.fps),
        "root_pos": np.asarray(motion.root_pos, dtype=np.float64),
        "root_rot": wxyz_to_xyzw(motion.root_rot),
        "dof_pos": np.asarray(motion.dof_pos, dtype=np.float64),
        "local_body_pos": None if robot is None else local_body_positions(motion, robot),
        "link_body_list": None if robot is None else list(robot.body_names[1:]),
    }


def write(
    motion: RobotMotion, path: Path, *, robot: Robot | None = None, force: bool = False, meta: ExportMeta | None = None
) -> Path:
    """Write ``motion`` atomically; ``robot`` fills local_body_pos and link_body_list. ``meta`` goes
    to the sidecar, which the caller writes (GMR's pickle has a fixed set of keys)."""
    data = gmr_dict(motion, robot)

    def dump(f: IO[bytes]) -> None:
        pickle.dump(data, f)

    return write_atomic(path, dump, force=force)


class _NumpyOnlyUnpickler(pickle.Unpickler):
    """Unpickles numpy arrays, numpy scalars and builtin containers; refuses every other class."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _NUMPY_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing to unpickle {module}.{name} (only numpy arrays are read)")


def _contents(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            data = _NumpyOnlyUnpickler(f).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError) as exc:
        raise MotionFileError(path, f"not a readable GMR pickle: {exc}") from None
    if not isinstance(data, dict):
        raise MotionFileError(path, f"holds a {type(data).__name__}, expected a dict with keys {list(GMR_KEYS)}")
    missing = [key for key in GMR_KEYS[:4] if key not in data]
    if missing:
        raise MotionFileError(path, f"missing keys {missing}; found {list(data)}, need {list(GMR_KEYS[:4])}")
    return data


def read(
    path: Path,
    *,
    robot_name: str | None = None,
    dof_names: tuple[str, ...] | None = None,
    meta: ExportMeta | None = None,
) -> RobotMotion:
    """Read a RobotMotion. The file has no joint names: ``dof_names`` (e.g. ``robot.dof_names``)
    names the joints, else the sidecar's ``meta``, else they are called ``dof_0 .. dof_{n-1}``.
    ``robot_name`` overrides the sidecar's robot and the name guessed from the file name.
    local_body_pos and link_body_list are not read back."""
    data = _contents(path)
    return motion_from_file(
        path,
        robot=guess_robot_name(path, robot_name, stored=meta.robot if meta else None),
        fps=file_fps(path, data["fps"]),
        root_pos=data["root_pos"],
        root_rot_xyzw=data["root_rot"],
        dof_pos=data["dof_pos"],
        stored_dof_names=meta.dof_names if meta is not None and dof_names is None else None,
        requested_dof_names=dof_names,
    )
