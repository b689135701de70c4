"""Joint-limit violations: joint values outside the model's [lower, upper] range."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from ._common import check_motion

LIMIT_TOLERANCE = 1e-6
"""[rad] Excess up to this is rounding (solvers clip to the limit in floating point), not a violation."""


@dataclass(frozen=True)
class LimitViolations:
    """Joint values outside their limits.

    Attributes:
        count: number of (frame, joint) entries beyond a limit by more than the tolerance.
        max_excess_rad: largest distance outside a limit [rad] (slide joints: [m]); 0 when none.
    """

    count: int
    max_excess_rad: float


def joint_limit_violations(motion: RobotMotion, robot: Robot, *, tolerance: float = LIMIT_TOLERANCE) -> LimitViolations:
    """(frame, joint) entries of ``dof_pos`` below ``robot.lower`` or above ``robot.upper`` by more than
    ``tolerance`` [rad], and the largest excess [rad]. Unlimited joints never violate."""
    if tolerance < 0:
        raise ConfigError(f"joint_limit_violations: tolerance must be >= 0, got {tolerance}")
    check_motion(motion, robot)
    q = np.asarray(motion.dof_pos, dtype=np.float64)  # (T, n) [rad]
    if q.shape[1] == 0:
        return LimitViolations(0, 0.0)
    excess = np.maximum(np.maximum(robot.lower - q, q - robot.upper), 0.0)  # (T, n) [rad]
    return LimitViolations(int(np.count_nonzero(excess > tolerance)), float(excess.max()))
