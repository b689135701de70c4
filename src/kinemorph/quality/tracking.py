"""Keypoint tracking: how far robot bodies are from the positions the retargeter aimed them at [cm]."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import KinemorphError
from ..robots.robot import Robot, RobotPose
from ..robots.robot_motion import RobotMotion
from ._common import CM_PER_M, check_motion, clip_pose


@dataclass(frozen=True)
class TrackingError:
    """Distance between keypoint bodies and their targets.

    Attributes:
        mean_cm: mean over frames and keypoints [cm].
        max_cm: largest over frames and keypoints [cm].
        per_frame_cm: mean over keypoints, per frame [cm]. Shape: (T,).
    """

    mean_cm: float
    max_cm: float
    per_frame_cm: np.ndarray


def keypoint_tracking(motion: RobotMotion, robot: Robot, *, pose: RobotPose | None = None) -> TrackingError | None:
    """Distance [cm] from each keypoint's robot body origin (forward kinematics) to its target, per frame;
    None when the motion carries no keypoints. ``pose`` is computed when not given."""
    kp = motion.keypoints
    if kp is None:
        return None
    check_motion(motion, robot)
    target = np.asarray(kp.positions, dtype=np.float64)  # (T, K, 3) [m]
    want = (motion.num_frames, len(kp.robot_bodies), 3)
    if target.shape != want:
        raise KinemorphError(f"keypoints.positions has shape {target.shape}, expected {want}")
    if not kp.robot_bodies:
        return None
    ids = [robot.body_id(b) for b in kp.robot_bodies]
    pose = clip_pose(motion, robot, pose)
    err = np.linalg.norm(pose.positions[:, ids] - target, axis=-1) * CM_PER_M  # (T, K) [cm]
    return TrackingError(float(err.mean()), float(err.max()), err.mean(axis=1))
