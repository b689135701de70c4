"""Foot slip: how fast planted feet slide over the floor [cm/s]."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..motion.contacts import detect_contacts, speeds
from ..robots.geometry import lowest_points
from ..robots.robot import Robot, RobotPose
from ..robots.robot_motion import RobotMotion
from ._common import CM_PER_M, check_motion, clip_pose, nan_max, nan_mean

CONTACT_HEIGHT = 0.03
"""[m] A foot can be planted while its lowest collision point is at most this high above z = 0.
A few cm: a standing robot's soles sit within millimetres of the floor, a swinging foot clears it by more."""

CONTACT_MAX_SPEED = 1.0
"""[m/s] ...and while it moves slower than this. It separates swing from slip, so it lies well above
the slips a retargeter makes (tenths of m/s) and below a swing foot's speed (2-4 m/s); a slip faster
than this reads as swing and is not counted."""

SIZE_HEIGHTS = {"humanoid": 0.6, "quadruped": 0.25}
"""[m] standing height (humanoids: the root body above the floor at rest; quadrupeds: the hips) at
and above which CONTACT_HEIGHT and CONTACT_MAX_SPEED hold as they are (the sizes of the robots
they were set on: G1 0.79, H1 1.04, T1 0.67; Go2 0.29, A1 0.27). A smaller robot scales both by its
height over this: a 0.44 m child-size robot's swinging foot never rises 3 cm, so the fixed band
would count its swings as planted."""
CONTACT_MIN_FRAMES = 3
"""Contacts shorter than this many frames are ignored (a foot brushing the floor mid-swing)."""


@dataclass(frozen=True)
class FootSlip:
    """Horizontal speed of planted feet.

    Attributes:
        mean_cm_s: mean over feet of each foot's mean slip [cm/s]; NaN when no foot is ever planted.
        max_cm_s: largest per-foot slip [cm/s]; NaN when no foot is ever planted.
        per_foot_cm_s: each foot's mean horizontal speed over its planted frames [cm/s], NaN for a
            foot that is never planted. Shape: (F,), in ``robot.feet`` order.
        planted: frames where each foot is planted. Shape: (T, F) bool.
    """

    mean_cm_s: float
    max_cm_s: float
    per_foot_cm_s: np.ndarray
    planted: np.ndarray

    @property
    def planted_fraction(self) -> float:
        """Share of (frame, foot) entries that are planted, in [0, 1]."""
        return float(self.planted.mean()) if self.planted.size else 0.0


def foot_slip(
    motion: RobotMotion,
    robot: Robot,
    *,
    pose: RobotPose | None = None,
    feet_lowest: np.ndarray | None = None,
    contact_height: float | None = None,
    contact_max_speed: float | None = None,
    contact_min_frames: int = CONTACT_MIN_FRAMES,
) -> FootSlip:
    """Mean horizontal speed [cm/s] of each foot body's origin over the frames where that foot is planted.

    A foot is planted where the lowest point of its collision geometry is within ``contact_height`` [m]
    of the floor (z = 0) and the point (foot origin in x, y; lowest point in z) is slower than
    ``contact_max_speed`` [m/s], in runs of at least ``contact_min_frames`` frames
    (:func:`kinemorph.motion.contacts.detect_contacts` with the floor at 0). Speeds are central
    differences. ``pose`` (from ``robot.fk(motion.qpos)``) and ``feet_lowest`` (the feet's lowest
    points (T, F), from kinemorph.robots.geometry) are computed when not given.

    ``contact_height`` and ``contact_max_speed`` default to CONTACT_HEIGHT and CONTACT_MAX_SPEED
    times :func:`size_factor` of the robot.

    A foot rolling onto its toe moves its origin while the toe stays put; that counts as slip here.
    """
    if contact_height is None or contact_max_speed is None:
        k = size_factor(robot)
        contact_height = CONTACT_HEIGHT * k if contact_height is None else contact_height
        contact_max_speed = CONTACT_MAX_SPEED * k if contact_max_speed is None else contact_max_speed
    if contact_height < 0 or contact_max_speed <= 0 or contact_min_frames < 1:
        raise ConfigError(
            f"foot_slip: need contact_height >= 0, contact_max_speed > 0, contact_min_frames >= 1; got "
            f"{contact_height}, {contact_max_speed}, {contact_min_frames}"
        )
    check_motion(motion, robot)
    pose = clip_pose(motion, robot, pose)
    feet = [robot.body_id(f) for f in robot.feet]
    origin = pose.positions[:, feet]  # (T, F, 3) [m]
    low_z = lowest_points(robot, motion.qpos, robot.feet) if feet_lowest is None else feet_lowest  # (T, F) [m]
    planted = np.zeros(low_z.shape, dtype=bool)
    per_foot = np.full(len(feet), np.nan)
    for f in range(len(feet)):
        point = np.column_stack([origin[:, f, :2], low_z[:, f]])  # (T, 3) [m]
        planted[:, f] = detect_contacts(
            point,
            motion.fps,
            floor=0.0,
            height_margin=contact_height,
            max_speed=contact_max_speed,
            min_frames=contact_min_frames,
        )
        if planted[:, f].any():
            slide = speeds(origin[:, f], motion.fps, horizontal=True)  # (T,) [m/s]
            per_foot[f] = float(slide[planted[:, f]].mean()) * CM_PER_M
    return FootSlip(nan_mean(per_foot), nan_max(per_foot), per_foot, planted)


_FACTORS: dict[tuple[str, str, bytes], float] = {}


def size_factor(robot: Robot) -> float:
    """min(1, standing height / SIZE_HEIGHTS[family]) (1 for other families): how much smaller than
    the robots the contact thresholds were set on ``robot`` is. Cached per model and rest pose."""
    ref = SIZE_HEIGHTS.get(robot.family)
    if ref is None:
        return 1.0
    q = robot.rest_qpos()
    key = (str(robot.path), robot.family, q.tobytes())
    if key not in _FACTORS:
        pos = robot.fk(q).positions[0]
        floor = float(lowest_points(robot, q, robot.feet).min())
        if robot.family == "quadruped" and robot.legs:
            height = float(np.mean([pos[robot.body_id(hip), 2] for hip, _ in robot.legs])) - floor
        else:
            height = float(pos[1, 2]) - floor  # the root body
        _FACTORS[key] = float(np.clip(height / ref, 0.05, 1.0))
    return _FACTORS[key]
