"""Joint jerk: the third time derivative of joint positions, a smoothness measure [rad/s^3]."""

from __future__ import annotations

import numpy as np

from ..robots.robot_motion import RobotMotion


def joint_jerk_rms(motion: RobotMotion) -> float:
    """RMS over frames and joints of joint jerk [rad/s^3] (slide joints: [m/s^3]).

    Jerk is the third forward difference of ``dof_pos`` times fps^3, so it has T - 3 frames;
    NaN for a clip shorter than 4 frames or a robot without joints.
    """
    return jerk_rms(np.asarray(motion.dof_pos, dtype=np.float64), motion.fps)


def jerk_rms(q: np.ndarray, fps: float) -> float:
    """RMS of the third difference of samples q (T, n) taken at ``fps``, times fps^3; NaN for
    fewer than 4 samples or no columns."""
    if q.shape[0] < 4 or q.shape[1] == 0:
        return float("nan")
    jerk = np.diff(q, n=3, axis=0) * fps**3  # (T-3, n) [rad/s^3]
    return float(np.sqrt(np.mean(jerk**2)))
