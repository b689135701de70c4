"""Ground penetration: how deep the robot's collision geometry goes below the floor (z = 0) [cm]."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..robots.geometry import lowest_point_all
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from ._common import CM_PER_M, check_motion


@dataclass(frozen=True)
class Penetration:
    """Depth below z = 0 of the lowest point of all collision geometry.

    Attributes:
        p95_cm: 95th percentile over frames of the depth [cm] (frames above the floor count as 0).
        max_cm: deepest frame [cm].
        per_frame_cm: depth per frame, max(0, -z_lowest) [cm]. Shape: (T,).
    """

    p95_cm: float
    max_cm: float
    per_frame_cm: np.ndarray


def ground_penetration(motion: RobotMotion, robot: Robot, *, lowest: np.ndarray | None = None) -> Penetration:
    """Depth [cm] below the floor of the robot's lowest collision point, per frame; its p95 and maximum.

    Every collision geom of every body counts (feet, knees, hands...), through
    :func:`kinemorph.robots.geometry.lowest_point_all` (or ``lowest`` (T,) when already known).
    """
    check_motion(motion, robot)
    low = lowest_point_all(robot, motion.qpos) if lowest is None else lowest  # (T,) [m]
    depth = np.maximum(0.0, -low) * CM_PER_M  # (T,) [cm]
    return Penetration(float(np.percentile(depth, 95)), float(depth.max()), depth)
