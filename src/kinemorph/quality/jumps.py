"""Joint jumps: frame-to-frame changes too large for a real joint to make [count]."""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from ..robots.robot_motion import RobotMotion

JUMP_THRESHOLD = 0.25
"""[rad] A change per frame above this is a jump: 0.25 rad per frame is 7.5 rad/s at 30 fps and
15 rad/s at 60 fps, above the 2-5 rad/s most humanoid joint motors reach, so smooth motion never
crosses it while an IK flip or a wrapped angle does."""


def joint_jumps(motion: RobotMotion, *, threshold: float = JUMP_THRESHOLD) -> int:
    """Number of frame transitions t-1 -> t (t = 1..T-1) in which any joint changes by more than
    ``threshold`` [rad] (slide joints: [m]).

    A step to a new value counts once; a one-frame spike counts twice (into it and out of it).
    The threshold is per frame, so it means a faster joint speed at a higher fps.
    """
    if threshold <= 0:
        raise ConfigError(f"joint_jumps: threshold must be positive, got {threshold}")
    q = np.asarray(motion.dof_pos, dtype=np.float64)  # (T, n) [rad]
    if q.shape[0] < 2 or q.shape[1] == 0:
        return 0
    step = np.abs(np.diff(q, axis=0)).max(axis=1)  # (T-1,) [rad]
    return int(np.count_nonzero(step > threshold))
