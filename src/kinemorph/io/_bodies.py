"""Per-body world states of a robot motion through the robot's MuJoCo kinematics, as tracking
trainers (mjlab, holosoma, BeyondMimic) consume them.

Generalised velocities come from finite differences of the trajectory, as mjlab's csv_to_npz
computes them: root linear velocity and joint velocities by central differences (one-sided at the
ends, ``np.gradient``), root angular velocity from the relative rotation of the neighbouring
frames, ``log(q[t+1] q[t-1]^-1) / (2 dt)`` in the world frame. MuJoCo then gives every body's
pose (``mj_kinematics``) and the spatial velocity of its frame origin in world orientation
(``mj_comVel`` and ``mj_objectVelocity`` on the body frame).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from ..transforms import quat_conj, quat_log, quat_mul, quat_rotate
from ._common import check_robot

if TYPE_CHECKING:
    from ..robots.robot import Robot
    from ..robots.robot_motion import RobotMotion


@dataclass(frozen=True)
class BodyStates:
    """World-frame states of the robot's bodies (all but the world, MuJoCo's depth-first order).

    Attributes:
        body_names: the bodies. Shape: (B,).
        pos: body frame origins [m]. Shape: (T, B, 3).
        quat: body orientations, quaternion **w x y z**. Shape: (T, B, 4).
        lin_vel: linear velocity of each body frame origin, world axes [m/s]. Shape: (T, B, 3).
        ang_vel: angular velocity of each body, world axes [rad/s]. Shape: (T, B, 3).
        root_lin_vel: floating base linear velocity, world axes [m/s]. Shape: (T, 3).
        root_ang_vel: floating base angular velocity, world axes [rad/s]. Shape: (T, 3).
        joint_vel: joint velocities [rad/s or m/s]. Shape: (T, n).
    """

    body_names: tuple[str, ...]
    pos: np.ndarray
    quat: np.ndarray
    lin_vel: np.ndarray
    ang_vel: np.ndarray
    root_lin_vel: np.ndarray
    root_ang_vel: np.ndarray
    joint_vel: np.ndarray


def _gradient(x: np.ndarray, dt: float) -> np.ndarray:
    if x.shape[0] < 2:
        return np.zeros_like(x)
    return np.gradient(x, dt, axis=0)


def root_angular_velocity(root_rot: np.ndarray, dt: float) -> np.ndarray:
    """World-frame angular velocity [rad/s] of a quaternion (wxyz) trajectory: central differences
    of the relative rotation, one-sided at the ends. Shape: (T, 4) -> (T, 3)."""
    q = np.asarray(root_rot, dtype=np.float64)
    t = q.shape[0]
    if t < 2:
        return np.zeros((t, 3))
    nxt = np.concatenate([q[1:], q[-1:]])
    prv = np.concatenate([q[:1], q[:-1]])
    span = np.full(t, 2.0 * dt)
    span[0] = span[-1] = dt
    rel = quat_mul(nxt, quat_conj(prv))
    rel = np.where(rel[:, :1] < 0.0, -rel, rel)  # the shortest way
    return quat_log(rel) / span[:, None]


def body_states(motion: RobotMotion, robot: Robot) -> BodyStates:
    """Every body's world pose and velocity over the motion (see the module docstring)."""
    check_robot(motion, robot)
    dt = 1.0 / float(motion.fps)
    m, d = robot.model, robot.data
    t_count = motion.num_frames
    lin = _gradient(np.asarray(motion.root_pos, dtype=np.float64), dt)
    ang_world = root_angular_velocity(motion.root_rot, dt)
    joint_vel = _gradient(np.asarray(motion.dof_pos, dtype=np.float64), dt)
    # MuJoCo's free joint velocity: linear in world axes, angular in the body's own axes.
    ang_local = quat_rotate(quat_conj(motion.root_rot), ang_world)
    qvel = np.concatenate([lin, ang_local, joint_vel], axis=1)
    qpos = motion.qpos
    nb = m.nbody - 1
    pos = np.empty((t_count, nb, 3))
    quat = np.empty((t_count, nb, 4))
    vel = np.empty((t_count, nb, 6))
    res = np.empty(6)
    xbody = mujoco.mjtObj.mjOBJ_XBODY
    for t in range(t_count):
        d.qpos[:] = qpos[t]
        d.qvel[:] = qvel[t]
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        mujoco.mj_comVel(m, d)
        pos[t] = d.xpos[1:]
        quat[t] = d.xquat[1:]
        for b in range(1, m.nbody):
            mujoco.mj_objectVelocity(m, d, xbody, b, res, 0)
            vel[t, b - 1] = res
    return BodyStates(
        body_names=tuple(robot.body_names[1:]),
        pos=pos,
        quat=quat,
        lin_vel=vel[:, :, 3:],
        ang_vel=vel[:, :, :3],
        root_lin_vel=lin,
        root_ang_vel=ang_world,
        joint_vel=joint_vel,
    )
