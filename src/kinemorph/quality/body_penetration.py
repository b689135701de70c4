"""Floor penetration of any body: how deep any link goes below z = 0 [cm], not only the feet.

Every link counts through its capsule proxies (kinemorph.quality.proxies, built from the
model file's collision geometry with meshes), so a robot loaded without meshes is still measured
at its knees, hands, hips and back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..robots.geometry import lowest_point_all
from ..robots.robot import Robot, RobotPose
from ..robots.robot_motion import RobotMotion
from ._common import CM_PER_M, check_motion
from .proxies import clip_lowest, link_proxies

DEEP = 0.01
"""[m] a body deeper than this below the floor counts as sunk."""


@dataclass(frozen=True)
class BodyPenetration:
    """Depth below the floor of the lowest point of any link.

    Attributes:
        max_cm: deepest frame [cm].
        deep_frames: frames with some link deeper than 1 cm.
        deepest_body: the body of the deepest point ("" when nothing goes below the floor).
        per_frame_cm: depth per frame, max(0, -z_lowest) [cm]. Shape: (T,).
    """

    max_cm: float
    deep_frames: int
    deepest_body: str
    per_frame_cm: np.ndarray


def body_penetration(
    motion: RobotMotion, robot: Robot, *, pose: RobotPose | None = None, lowest_geoms: np.ndarray | None = None
) -> BodyPenetration:
    """Depth [cm] below z = 0 of the lowest link proxy (or collision geom) per frame. ``pose``
    (robot.fk(motion.qpos)) and ``lowest_geoms`` (lowest collision geom point per frame (T,) [m])
    save kinematics passes when known."""
    check_motion(motion, robot)
    prox = link_proxies(robot)
    low_geoms = lowest_point_all(robot, motion.qpos) if lowest_geoms is None else lowest_geoms  # (T,) [m]
    body = ""
    if prox.count:
        low = clip_lowest(robot, prox, motion.qpos, pose)  # (T, P) [m]
        lowest = np.minimum(low.min(axis=1), low_geoms)
        t = int(np.argmin(low.min(axis=1)))
        if low[t].min() < 0:
            body = robot.body_names[int(prox.body[int(np.argmin(low[t]))])]
    else:
        lowest = low_geoms
    depth = np.maximum(0.0, -lowest)  # (T,) [m]
    return BodyPenetration(float(depth.max() * CM_PER_M), int(np.count_nonzero(depth > DEEP)), body, depth * CM_PER_M)
