"""Sole points of flat feet: the corners a foot stands and rolls on, from its collision shape.

A capsule fits a round foot (a sphere or capsule geom) exactly, but not a flat one: around a box
or a sole mesh it either reaches below the sole (the foot floats) or stops short of the toe (the
toe dips into the floor when the heel lifts). For such feet the floor checks use points instead:
the support points of the foot's collision shape (its hull vertices that are lowest when the foot
is tilted by 0 to 60 degrees towards any of eight directions around its rest orientation). The
lowest point of a convex shape on a plane is always one of its support points, so these points
bound the sole on the floor in every pose a foot takes while walking.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ..robots.robot import Robot

TILTS_DEG = (0.0, 15.0, 30.0, 45.0, 60.0)
"""Foot tilts [deg] from the rest orientation at which the lowest point is taken."""
HEADINGS = 8
"""Directions around the foot (every 45 degrees) towards which it is tilted."""
MERGE = 0.005
"""[m] support points closer than this count as one."""

_Cap = tuple[str, str, np.ndarray, np.ndarray, float, int, int, "np.ndarray | None"]
"""A link proxy read from a model file (kinemorph.quality.proxies): (body, geom, p0, p1, radius,
contype, conaffinity, shape points in the body frame or None)."""


def support_points(points: np.ndarray, up: np.ndarray, forward: np.ndarray) -> np.ndarray:
    """Support points (K, 3) of a shape given by points (N, 3) in its body frame [m].

    ``up`` is the world's up direction in the body frame at rest and ``forward`` the robot's
    facing direction there (both unit (3,)). For every tilt in :data:`TILTS_DEG` and heading the
    point furthest along the tilted down direction is kept; points within :data:`MERGE` of an
    earlier one are dropped. The first point is the lowest at rest.
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    up = np.asarray(up, dtype=np.float64) / np.linalg.norm(up)
    fwd = np.asarray(forward, dtype=np.float64) - np.dot(forward, up) * up
    fwd = fwd / (np.linalg.norm(fwd) or 1.0)
    side = np.cross(up, fwd)
    dirs = [-up]
    for tilt in np.radians(TILTS_DEG[1:]):
        for k in range(HEADINGS):
            a = 2 * np.pi * k / HEADINGS
            h = np.cos(a) * fwd + np.sin(a) * side
            dirs.append(-np.cos(tilt) * up + np.sin(tilt) * h)
    out: list[np.ndarray] = []
    for d in dirs:
        s = p @ d
        # among near-ties (a flat sole), the point nearest the shape's middle: stable under noise
        cand = np.nonzero(s >= s.max() - 1e-4)[0]
        v = p[cand[np.argmin(np.linalg.norm(p[cand] - p.mean(axis=0), axis=1))]] if cand.size > 1 else p[cand[0]]
        if all(np.linalg.norm(v - q) > MERGE for q in out):
            out.append(v)
    return np.array(out).reshape(-1, 3)


def sole_points(
    robot: Robot, caps: list[_Cap], floor: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]:
    """Sole points of the feet whose collision shape is flat, and the origin of feet with no
    collision shape (a foot point at a bare calf tip): body id (S,), points in the body frame
    (S, 3), labels; the flat shapes' capsules are taken off the floor checks (``floor``)."""
    m = robot.model
    feet = {robot.body_id(f) for f in robot.feet}
    d = mujoco.MjData(m)
    d.qpos[:] = robot.rest_qpos()
    mujoco.mj_kinematics(m, d)
    body, pts, radii, names = [], [], [], []
    for i, c in enumerate(caps):
        b = robot.body_names.index(c[0])
        if b not in feet or c[7] is None or c[7].shape[0] < 4:
            continue
        rot = d.xmat[b].reshape(3, 3)
        up, fwd = rot.T @ np.array([0.0, 0.0, 1.0]), rot.T @ np.array([1.0, 0.0, 0.0])
        sole = support_points(c[7], up, fwd)
        floor[i] = False
        for k, q in enumerate(sole):
            body.append(b)
            pts.append(q)
            radii.append(0.0)
            names.append(f"{c[0]}/{c[1] or 'geom'}:sole{k}")
    covered = {robot.body_names.index(c[0]) for c in caps}
    for b in sorted(feet - covered):  # a foot point with no shape of its own (a bare calf tip)
        body.append(b)
        local, r = _tip_sphere(robot, d, b, caps)
        pts.append(local)
        radii.append(r)
        names.append(f"{robot.body_names[b]}:tip")
    return (
        np.array(body, dtype=np.int64), np.array(pts, dtype=np.float64).reshape(-1, 3),
        np.array(radii, dtype=np.float64), tuple(names),
    )  # fmt: skip


def _tip_sphere(robot: Robot, d: mujoco.MjData, foot: int, caps: list[_Cap]) -> tuple[np.ndarray, float]:
    """A shapeless foot's floor proxy: the rounded end of its parent's capsule that the foot point
    sits on or at the centre of (its centre in the foot's frame and its radius), so that holding the foot on the floor
    and keeping the capsule above it ask the same; the foot's origin when no capsule ends there."""
    parent = robot.body_names[int(robot.model.body_parentid[foot])]
    xf, rf = d.xpos[foot], d.xmat[foot].reshape(3, 3)
    best, best_gap = (np.zeros(3), 0.0), 0.002
    for c in caps:
        if c[0] != parent:
            continue
        b = robot.body_names.index(c[0])
        for end in (c[2], c[3]):
            centre = rf.T @ (d.xpos[b] + d.xmat[b].reshape(3, 3) @ end - xf)
            dist = float(np.linalg.norm(centre))
            gap = min(abs(dist - c[4]), dist)  # the foot point on that end's surface, or at its centre
            if gap < best_gap:
                best, best_gap = (centre, float(c[4])), gap
    return best
