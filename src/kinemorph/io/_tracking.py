"""The motion .npz of whole-body tracking trainers: mjlab and holosoma (BeyondMimic's layout).

Both store per-body world states computed through the robot's kinematics (see _bodies.py):
``body_pos_w`` (T, B, 3) [m], ``body_quat_w`` (T, B, 4) quaternion **w x y z**, ``body_lin_vel_w``
and ``body_ang_vel_w`` (T, B, 3) [m/s, rad/s, world axes], and ``fps`` (1,) [1/s]. Bodies are
the robot's bodies but the world in MuJoCo's (depth-first) order, named in ``body_names``.

- ``mjlab`` (mjlab's MotionLoader, src/mjlab/tasks/tracking/mdp/commands.py): ``joint_pos`` and
  ``joint_vel`` (T, n) in the robot's joint order. mjlab indexes the body axis with its own
  MuJoCo body ids, so the order must be MuJoCo's (mjlab PR #781: an npz in Isaac Lab's
  breadth-first order tracks the wrong bodies).
- ``holosoma`` (holosoma's MotionLoader, src/holosoma/holosoma/managers/command/terms/wbt.py):
  ``joint_pos`` (T, 7 + n) = root position, root quaternion w x y z, joints; ``joint_vel``
  (T, 6 + n) = root linear and angular velocity (world axes), joint velocities; ``joint_names``
  (n,) and ``body_names`` (B,), which holosoma matches by name.

Both also hold ``joint_names``, ``body_names`` and ``kinemorph_meta``; the trainers ignore keys
they do not read. Arrays are float64 (the trainers cast to float32).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .._files import write_atomic
from .._npz import read_npz
from ..errors import MotionFileError
from ..robots.robot_motion import RobotMotion
from ._bodies import body_states
from ._common import file_fps, guess_robot_name, motion_from_file, wxyz_to_xyzw
from ._meta import META_KEY, ExportMeta, meta_from_array

if TYPE_CHECKING:
    from ..robots.robot import Robot

BODY_KEYS = ("body_pos_w", "body_quat_w", "body_lin_vel_w", "body_ang_vel_w")
REQUIRED_KEYS = ("fps", "joint_pos", "joint_vel", *BODY_KEYS)


def _arrays(motion: RobotMotion, robot: Robot, *, root_in_joints: bool) -> dict[str, Any]:
    s = body_states(motion, robot)
    if root_in_joints:
        joint_pos = np.concatenate([motion.root_pos, motion.root_rot, motion.dof_pos], axis=1)
        joint_vel = np.concatenate([s.root_lin_vel, s.root_ang_vel, s.joint_vel], axis=1)
    else:
        joint_pos, joint_vel = np.asarray(motion.dof_pos, dtype=np.float64), s.joint_vel
    return {
        "fps": np.array([float(motion.fps)]),
        "joint_pos": joint_pos,
        "joint_vel": joint_vel,
        "body_pos_w": s.pos,
        "body_quat_w": s.quat,
        "body_lin_vel_w": s.lin_vel,
        "body_ang_vel_w": s.ang_vel,
        "joint_names": np.asarray(motion.dof_names, dtype=np.str_),
        "body_names": np.asarray(s.body_names, dtype=np.str_),
    }


def _writer(root_in_joints: bool) -> Any:
    def write(motion: RobotMotion, path: Path, *, robot: Robot | None, force: bool, meta: ExportMeta) -> Path:
        if robot is None:
            raise MotionFileError(path, f"the {meta.format} format needs the robot model (pass robot=)")
        arrays = _arrays(motion, robot, root_in_joints=root_in_joints)
        arrays[META_KEY] = np.asarray(meta.to_json(), dtype=np.str_)

        def dump(f: IO[bytes]) -> None:
            np.savez(f, **arrays)

        return write_atomic(path, dump, force=force)

    return write


write_mjlab = _writer(root_in_joints=False)
write_holosoma = _writer(root_in_joints=True)


def contents(path: Path) -> dict[str, Any]:
    """Every array of an .npz archive (MotionFileError when it is not one; see kinemorph._npz)."""
    return read_npz(path)


def stored_meta(path: Path, data: dict[str, Any]) -> ExportMeta | None:
    return meta_from_array(data[META_KEY], where=str(path)) if META_KEY in data else None


def _names(data: dict[str, Any], key: str) -> list[str] | None:
    return [str(s) for s in np.atleast_1d(data[key])] if key in data else None


def _reader(root_in_joints: bool) -> Any:
    def read(
        path: Path, *, robot_name: str | None, dof_names: tuple[str, ...] | None, meta: ExportMeta | None
    ) -> RobotMotion:
        data = contents(path)
        missing = [k for k in REQUIRED_KEYS if k not in data]
        if missing:
            raise MotionFileError(path, f"missing keys {missing}; found {sorted(data)}, need {list(REQUIRED_KEYS)}")
        meta = meta or stored_meta(path, data)
        body_names = _names(data, "body_names") or (list(meta.body_names) if meta else None)
        root = meta.root_body if meta and meta.root_body else None
        if root_in_joints:
            jp = np.asarray(data["joint_pos"], dtype=np.float64)
            if jp.ndim != 2 or jp.shape[1] < 7:
                raise MotionFileError(path, f"joint_pos has shape {jp.shape}, expected (T, 7 + joints)")
            root_pos, root_rot, dofs = jp[:, :3], jp[:, 3:7], jp[:, 7:]
        else:
            i = body_names.index(root) if body_names and root in body_names else 0  # the root body comes first
            root_pos = np.asarray(data["body_pos_w"])[:, i]
            root_rot, dofs = np.asarray(data["body_quat_w"])[:, i], data["joint_pos"]
        return motion_from_file(
            path,
            robot=guess_robot_name(path, robot_name, stored=meta.robot if meta else None),
            fps=file_fps(path, data["fps"]),
            root_pos=root_pos,
            root_rot_xyzw=wxyz_to_xyzw(root_rot),
            dof_pos=dofs,
            stored_dof_names=_names(data, "joint_names"),
            requested_dof_names=dof_names,
        )

    return read


read_mjlab = _reader(root_in_joints=False)
read_holosoma = _reader(root_in_joints=True)


def read_meta(path: Path) -> ExportMeta | None:
    return stored_meta(path, contents(path))
