"""RobotMotion as a MimicKit motion file (MimicKit's mimickit/anim/motion.py).

A pickled dict: ``loop_mode`` (int: 0 clamp, 1 wrap; MimicKit's LoopMode), ``fps`` (int when
integral [1/s]) and ``frames``, a list of T rows, each [root position x y z (3) [m], root rotation
as an exponential map, axis times angle (3) [rad], joint DoFs (n) in the robot's joint order [rad
or m]] (MimicKit's gmr_to_mimickit concatenates root_pos, quat_to_exp_map(root_rot), dof_pos).
The loop mode written is the motion's ``info["loop_mode"]`` ("clamp" by default, "wrap"), and
reading puts it back there. kinemorph adds ``kinemorph_meta`` (a JSON string), which MimicKit's
loader does not read. An exponential map stores a rotation, not a quaternion sign: quaternions
read back have w >= 0.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .._files import write_atomic
from ..errors import MotionFileError
from ..robots.robot_motion import RobotMotion
from ..transforms import quat_exp, quat_log, quat_normalize
from ._common import file_fps, fps_for_file, guess_robot_name, motion_from_file, wxyz_to_xyzw
from ._meta import META_KEY, ExportMeta
from ._pickle import _NumpyOnlyUnpickler

if TYPE_CHECKING:
    from ..robots.robot import Robot

LOOP_MODES = ("clamp", "wrap")
"""MimicKit's LoopMode names by value (CLAMP = 0, WRAP = 1)."""
KEYS = ("loop_mode", "fps", "frames")


def exp_map(root_rot: np.ndarray) -> np.ndarray:
    """Exponential maps (axis times angle, angle in [0, pi]) of wxyz quaternions. Shape: (T, 4) -> (T, 3)."""
    q = quat_normalize(np.asarray(root_rot, dtype=np.float64))
    return quat_log(np.where(q[:, :1] < 0.0, -q, q))


def write(motion: RobotMotion, path: Path, *, robot: Robot | None, force: bool, meta: ExportMeta) -> Path:
    """Write ``motion`` atomically."""
    loop = str(motion.info.get("loop_mode", "clamp"))
    if loop not in LOOP_MODES:
        raise MotionFileError(path, f"loop_mode {loop!r} is not one of {list(LOOP_MODES)}")
    frames = np.concatenate([motion.root_pos, exp_map(motion.root_rot), motion.dof_pos], axis=1)
    data = {
        "loop_mode": LOOP_MODES.index(loop),
        "fps": fps_for_file(motion.fps),
        "frames": frames.tolist(),
        META_KEY: meta.to_json(),
    }

    def dump(f: IO[bytes]) -> None:
        pickle.dump(data, f)

    return write_atomic(path, dump, force=force)


def contents(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            data = _NumpyOnlyUnpickler(f).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError, OSError) as exc:
        raise MotionFileError(path, f"not a readable pickle: {exc}") from None
    if not isinstance(data, dict):
        raise MotionFileError(path, f"holds a {type(data).__name__}, expected a dict with keys {list(KEYS)}")
    return data


def looks_like(data: dict[str, Any]) -> bool:
    return "frames" in data and "loop_mode" in data


def stored_meta(path: Path, data: dict[str, Any]) -> ExportMeta | None:
    return ExportMeta.from_json(str(data[META_KEY]), where=str(path)) if META_KEY in data else None


def read(
    path: Path, *, robot_name: str | None, dof_names: tuple[str, ...] | None, meta: ExportMeta | None
) -> RobotMotion:
    """Read a MimicKit motion file; root rotations come back as quaternions with w >= 0."""
    data = contents(path)
    missing = [k for k in KEYS if k not in data]
    if missing:
        raise MotionFileError(path, f"missing keys {missing}; found {list(data)}, need {list(KEYS)}")
    meta = meta or stored_meta(path, data)
    try:
        frames = np.asarray(data["frames"], dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MotionFileError(path, f"frames is not a numeric table: {exc}") from None
    if frames.ndim != 2 or frames.shape[1] < 6:
        raise MotionFileError(path, f"frames has shape {frames.shape}, expected (T, 6 + joints)")
    loop = data["loop_mode"]
    loop = getattr(loop, "value", loop)
    if loop not in (0, 1):
        raise MotionFileError(path, f"loop_mode {loop!r} is not 0 (clamp) or 1 (wrap)")
    info = {"loop_mode": LOOP_MODES[int(loop)]}
    return motion_from_file(
        path,
        robot=guess_robot_name(path, robot_name, stored=meta.robot if meta else None),
        fps=file_fps(path, data["fps"]),
        root_pos=frames[:, :3],
        root_rot_xyzw=wxyz_to_xyzw(quat_exp(frames[:, 3:6])),
        dof_pos=frames[:, 6:],
        stored_dof_names=meta.dof_names if meta else None,
        requested_dof_names=dof_names,
        info=info,
    )
