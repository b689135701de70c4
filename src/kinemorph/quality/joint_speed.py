"""Joint speed and rate-independent smoothness: figures that mean the same at 30 and 120 fps.

Joint speed is |q_t - q_{t-1}| x fps [rad/s]; a joint faster than 7.5 rad/s is a jump (the old
per-frame threshold of 0.25 rad at 30 fps, now in time units). Jerk is taken on the motion
resampled to 30 Hz, so that a 120 fps copy and a 30 fps copy of one motion score alike (third
differences at a high rate amplify sampling noise by fps^3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..robots.robot_motion import RobotMotion
from .jerk import jerk_rms

MAX_SPEED = 7.5
"""[rad/s] a joint faster than this is jumping: above the 2-5 rad/s most humanoid joint motors
reach, so smooth motion never crosses it while an IK flip or a wrapped angle does."""

JERK_RATE = 30.0
"""[Hz] the rate jerk is computed at."""


@dataclass(frozen=True)
class JointSpeed:
    """How fast the joints move.

    Attributes:
        max_rad_s: fastest joint speed over the clip [rad/s] (0 for one frame).
        fast_frames: frame transitions in which some joint is faster than the threshold.
        fastest_joint: the joint of max_rad_s ("" without joints or frames).
    """

    max_rad_s: float
    fast_frames: int
    fastest_joint: str


def joint_speed(motion: RobotMotion, *, max_speed: float = MAX_SPEED) -> JointSpeed:
    """Joint speeds [rad/s] (slide joints [m/s]) by backward differences; see the module docstring."""
    if max_speed <= 0:
        raise ConfigError(f"joint_speed: max_speed must be positive, got {max_speed}")
    q = np.asarray(motion.dof_pos, dtype=np.float64)  # (T, n)
    if q.shape[0] < 2 or q.shape[1] == 0:
        return JointSpeed(0.0, 0, "")
    v = np.abs(np.diff(q, axis=0)) * motion.fps  # (T-1, n) [rad/s]
    worst = np.unravel_index(int(np.argmax(v)), v.shape)
    return JointSpeed(float(v.max()), int(np.count_nonzero(v.max(axis=1) > max_speed)), motion.dof_names[worst[1]])


def joint_jerk_rms_resampled(motion: RobotMotion, *, rate: float = JERK_RATE) -> float:
    """RMS joint jerk [rad/s^3] of the motion linearly resampled to ``rate`` [Hz]; NaN when the
    resampled clip has fewer than 4 frames or the robot has no joints."""
    if rate <= 0:
        raise ConfigError(f"joint_jerk_rms_resampled: rate must be positive, got {rate}")
    q = np.asarray(motion.dof_pos, dtype=np.float64)  # (T, n)
    if q.shape[1] == 0:
        return float("nan")
    t_src = np.arange(q.shape[0]) / motion.fps
    t_new = np.arange(0.0, t_src[-1] + 1e-9, 1.0 / rate)
    qs = np.stack([np.interp(t_new, t_src, q[:, j]) for j in range(q.shape[1])], axis=1)
    return jerk_rms(qs, rate)
