"""Helpers every metric shares: input checks, the clip's body poses, units, NaN-aware statistics."""

from __future__ import annotations

import numpy as np

from ..errors import KinemorphError
from ..robots.robot import Robot, RobotPose
from ..robots.robot_motion import RobotMotion

CM_PER_M = 100.0
"""Metres to centimetres."""

DEG_PER_RAD = 180.0 / np.pi
"""Radians to degrees."""


def check_motion(motion: RobotMotion, robot: Robot) -> None:
    """Raise KinemorphError unless the motion's joints are the robot's, in its order, and every value is finite."""
    if tuple(motion.dof_names) != tuple(robot.dof_names):
        missing = sorted(set(robot.dof_names) - set(motion.dof_names))
        extra = sorted(set(motion.dof_names) - set(robot.dof_names))
        detail = f"missing {missing}, unknown {extra}" if missing or extra else "same joints in another order"
        raise KinemorphError(
            f"motion for {motion.robot!r} does not fit robot {robot.name!r}: dof_names differ ({detail})"
        )
    bad = ~np.isfinite(motion.qpos).all(axis=1)
    if bad.any():
        raise KinemorphError(f"motion for {motion.robot!r}: non-finite qpos at frame {int(np.argmax(bad))}")


def clip_pose(motion: RobotMotion, robot: Robot, pose: RobotPose | None = None) -> RobotPose:
    """Body poses of every frame: ``pose`` when given (checked against the clip), else ``robot.fk``.

    Pass a pose computed once to share forward kinematics between metrics.
    Shapes: positions (T, nbody, 3) [m], rotations (T, nbody, 4) wxyz.
    """
    if pose is None:
        return robot.fk(motion.qpos)
    want = (motion.num_frames, int(robot.model.nbody))
    if pose.positions.shape != (*want, 3) or pose.rotations.shape != (*want, 4):
        raise KinemorphError(
            f"pose has shapes {pose.positions.shape} and {pose.rotations.shape}, "
            f"expected {(*want, 3)} and {(*want, 4)} for {motion.num_frames} frames of robot {robot.name!r}"
        )
    return pose


def nan_mean(x: np.ndarray) -> float:
    """Mean of the finite entries; NaN when there are none (an undefined metric, not a perfect one)."""
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    return float(x.mean()) if x.size else float("nan")


def nan_max(x: np.ndarray) -> float:
    """Maximum of the finite entries; NaN when there are none."""
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    return float(x.max()) if x.size else float("nan")
