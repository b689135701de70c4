"""Self-collision: how often and how deep two of the robot's links overlap [frames, cm].

Links are measured by their capsule proxies (kinemorph.quality.proxies: one capsule per
collision geom of the model file, meshes included), over the pairs that can collide: different
bodies, not parent and child, not excluded by the model, not already touching in the rest pose.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..robots.robot import Robot, RobotPose
from ..robots.robot_motion import RobotMotion
from ._common import CM_PER_M, check_motion
from .proxies import clip_self_distances, link_proxies

DEEP = 0.01
"""[m] an overlap deeper than this counts as interpenetration."""


@dataclass(frozen=True)
class SelfCollision:
    """Overlaps between link proxies.

    Attributes:
        touching_frames: frames where some pair is closer than 0 (overlapping at all).
        deep_frames: frames where some pair overlaps deeper than 1 cm.
        max_depth_cm: deepest overlap over the clip [cm] (0 when none).
        pairs: pairs checked (0: the robot has no collision geometry to check).
        worst_pair: "body/geom - body/geom" of the deepest overlap ("" when none).
        depth_per_frame_cm: deepest overlap per frame [cm], 0 where none. Shape: (T,).
    """

    touching_frames: int
    deep_frames: int
    max_depth_cm: float
    pairs: int
    worst_pair: str
    depth_per_frame_cm: np.ndarray


def self_collision(motion: RobotMotion, robot: Robot, *, pose: RobotPose | None = None) -> SelfCollision:
    """Proxy overlaps per frame (see the module docstring). ``pose``: robot.fk(motion.qpos), when known."""
    check_motion(motion, robot)
    prox = link_proxies(robot)
    if prox.pairs.shape[0] == 0:
        return SelfCollision(0, 0, 0.0, 0, "", np.zeros(motion.num_frames))
    d = clip_self_distances(robot, prox, motion.qpos, pose)  # (T, K) [m]
    depth = np.maximum(0.0, -d.min(axis=1))  # (T,) [m]
    worst = ""
    if depth.max() > 0:
        t = int(np.argmax(depth))
        i, j = prox.pairs[int(np.argmin(d[t]))]
        worst = f"{prox.names[i]} - {prox.names[j]}"
    return SelfCollision(
        int(np.count_nonzero(depth > 0)),
        int(np.count_nonzero(depth > DEEP)),
        float(depth.max() * CM_PER_M),
        int(prox.pairs.shape[0]),
        worst,
        depth * CM_PER_M,
    )
