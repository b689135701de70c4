"""Contact slip: how fast the feet's contact geometry slides while it touches the floor [cm/s].

Unlike :mod:`foot_slip` (a foot body's origin over the frames its foot is planted), this measures
each collision geom of the feet (G1: four spheres per foot) on every frame its lowest point is
within ``height`` of the floor, by the speed of its centre (a capsule standing on an end, such as
a bare calf tip, by that end's centre: it rolls on it), so a heel-to-toe roll on sole spheres is
no slip and a toe dragged along the floor is.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ..motion.contacts import speeds
from ..robots.geometry import GroundClearance, collision_geoms, ground_clearance
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from ._common import CM_PER_M, check_motion
from .proxies import pose_frames

TOUCH_HEIGHT = 0.01
"""[m] a contact geom whose lowest point is at most this high touches the floor."""


@dataclass(frozen=True)
class ContactSlip:
    """Horizontal speed of the feet's contact geoms while they touch the floor.

    Attributes:
        mean_cm_s: mean over touching (frame, geom) entries [cm/s]; NaN when nothing touches.
        p95_cm_s: their 95th percentile [cm/s]; NaN when nothing touches.
        touching_fraction: share of (frame, geom) entries touching the floor.
    """

    mean_cm_s: float
    p95_cm_s: float
    touching_fraction: float


LYING, STANDING = 0.2, 0.4
"""|axis z| of a capsule at or below which it lies (measured by its centre) and at or above which
it stands on its lower end (measured by that end's centre); blended linearly in between."""
_T = mujoco.mjtGeom


def _slip_points(robot: Robot, geoms: np.ndarray, xpos: np.ndarray, xmat: np.ndarray) -> np.ndarray:
    """World point of each geom whose speed is its slip, per frame (T, G, 3) [m], from body frames
    xpos (T, nbody, 3) and xmat (T, nbody, 9): the geom's centre, except for a capsule standing on
    an end (a shank's tip), which rolls on that end: the end's centre, blended in continuously as
    the capsule rises from LYING to STANDING."""
    m = robot.model
    T = xpos.shape[0]
    out = np.empty((T, len(geoms), 3))
    for k, g in enumerate(geoms):
        b = int(m.geom_bodyid[g])
        rb = xmat[:, b].reshape(T, 3, 3)
        centre = xpos[:, b] + rb @ m.geom_pos[g]  # (T, 3)
        out[:, k] = centre
        if int(m.geom_type[g]) == _T.mjGEOM_CAPSULE:
            gm = np.empty(9)
            mujoco.mju_quat2Mat(gm, m.geom_quat[g])
            axis = (rb @ gm.reshape(3, 3))[:, :, 2] * m.geom_size[g, 1]  # (T, 3) half segment
            steep = np.clip((np.abs(axis[:, 2]) / m.geom_size[g, 1] - LYING) / (STANDING - LYING), 0.0, 1.0)
            out[:, k] -= (np.sign(axis[:, 2]) * steep)[:, None] * axis
    return out


def contact_slip(
    motion: RobotMotion, robot: Robot, *, height: float = TOUCH_HEIGHT, clearance: GroundClearance | None = None
) -> ContactSlip:
    """Slip of the feet's collision geoms on the floor (see the module docstring). ``clearance``
    (kinemorph.robots.geometry.ground_clearance of the clip, covering the feet's geoms) saves the
    kinematics pass."""
    check_motion(motion, robot)
    geoms = np.unique(np.concatenate([np.zeros(0, np.int64), *(collision_geoms(robot, f) for f in robot.feet)]))
    geoms = geoms.astype(np.int64)
    if geoms.size == 0 or motion.num_frames < 2:
        return ContactSlip(float("nan"), float("nan"), 0.0)
    if clearance is None or not np.isin(geoms, clearance.geoms).all():
        clearance = ground_clearance(robot, motion.qpos, geoms)  # one kinematics pass: poses and lowest points
    cols = (
        np.searchsorted(clearance.geoms, geoms)
        if np.all(np.diff(clearance.geoms) > 0)
        else np.array([int(np.nonzero(clearance.geoms == g)[0][0]) for g in geoms])
    )
    low = clearance.lowest[:, cols]  # (T, G) [m]
    pos = _slip_points(robot, geoms, *pose_frames(clearance.pose))
    v = np.stack([speeds(pos[:, g], motion.fps, horizontal=True) for g in range(geoms.size)], axis=1)  # (T, G)
    touch = low <= height
    if not touch.any():
        return ContactSlip(float("nan"), float("nan"), 0.0)
    s = v[touch] * CM_PER_M
    return ContactSlip(float(s.mean()), float(np.percentile(s, 95)), float(touch.mean()))
