"""Round contact points that roll: the clean-up's anchors of a quadruped's paws move with their turns.

The clean-up holds each planted point (a paw's sphere centre, a calf tip's end sphere) at an
anchor set on its first planted frame. A sphere whose centre stands still while its body turns
slides its contact point at radius x turn rate, which kinemorph.quality.foot_slip and the replay
measure as slip; one that rolls has a still contact point and a centre that moves (see
kinemorph.retarget.quadruped.rolling). Here each held round point's anchor moves, frame by frame,
by the rolling shift of its body's turns in the engine's motion (the clean-up follows that motion
closely, so its own turns differ from them only by its small corrections).
"""

from __future__ import annotations

import numpy as np

from ...robots.robot import Robot
from ..quadruped.rolling import body_rotations, roll_shift
from .schedule import ContactPoints


def rolled_anchors(
    robot: Robot, qpos: np.ndarray, points: ContactPoints, anchors: np.ndarray, *, lift_frames: int
) -> np.ndarray:
    """Anchors per frame (T, C, 2) [m]: ``anchors`` (C, 3) moved over each point's planted
    interval and the ``lift_frames`` after it (the clean-up holds a lifting point's x, y there) by
    the rolling shift of its body's turns in qpos (T, nq) (points of radius 0: kept)."""
    out = np.repeat(anchors[None, :, :2], qpos.shape[0], axis=0)
    rots: np.ndarray | None = None
    for c in range(points.count):
        a, r = int(points.start[c]), float(points.radius[c])
        b = min(int(points.stop[c]) + lift_frames, qpos.shape[0])
        if r <= 0.0 or b - a < 2:
            continue
        rots = body_rotations(robot, qpos) if rots is None else rots
        out[a:b, c] += roll_shift(rots[:, int(points.body[c])], r, a, b)
    return out
