"""Trunk attitude: how far the root body leans from upright [deg], and how fast it rolls and pitches [deg/s]."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..robots.robot import Robot, RobotPose
from ..robots.robot_motion import RobotMotion
from ..transforms import quat_conj, quat_log, quat_mul, quat_to_mat
from ._common import DEG_PER_RAD, check_motion, clip_pose


@dataclass(frozen=True)
class TrunkMotion:
    """Tilt and roll/pitch rates of the root body.

    Attributes:
        tilt_mean_deg: mean over frames of the angle between the root's z axis and world z [deg].
        tilt_max_deg: its maximum [deg].
        roll_rate_deg_s: mean |angular velocity about the root's own x axis| [deg/s]; NaN for one frame.
        pitch_rate_deg_s: mean |angular velocity about the root's own y axis| [deg/s]; NaN for one frame.
        tilt_deg: tilt per frame [deg]. Shape: (T,).
    """

    tilt_mean_deg: float
    tilt_max_deg: float
    roll_rate_deg_s: float
    pitch_rate_deg_s: float
    tilt_deg: np.ndarray


def body_angular_velocity(rotations: np.ndarray, fps: float) -> np.ndarray:
    """Angular velocity in the body's own frame [rad/s] between consecutive orientations (wxyz, (T, 4)).

    omega_t = log(q_t^-1 q_{t+1}) * fps, the constant rate that turns q_t into q_{t+1} in one frame
    (shortest way, so exact below pi rad per frame). Shape: (T-1, 3).
    """
    rel = quat_mul(quat_conj(rotations[:-1]), rotations[1:])
    return quat_log(rel) * fps


def trunk_motion(motion: RobotMotion, robot: Robot, *, pose: RobotPose | None = None) -> TrunkMotion:
    """Tilt [deg] of the root body from upright, and its mean |roll| and |pitch| rates [deg/s] about its
    own x and y axes (forward differences of its orientation). ``pose`` is computed when not given."""
    check_motion(motion, robot)
    pose = clip_pose(motion, robot, pose)
    rot = pose.rotations[:, robot.root_body_id]  # (T, 4) wxyz
    up = quat_to_mat(rot)[:, 2, 2]  # world z component of the root's z axis
    tilt = np.arccos(np.clip(up, -1.0, 1.0)) * DEG_PER_RAD  # (T,) [deg]
    if rot.shape[0] < 2:
        roll = pitch = float("nan")
    else:
        omega = np.abs(body_angular_velocity(rot, motion.fps)) * DEG_PER_RAD  # (T-1, 3) [deg/s]
        roll, pitch = float(omega[:, 0].mean()), float(omega[:, 1].mean())
    return TrunkMotion(float(tilt.mean()), float(tilt.max()), roll, pitch, tilt)
