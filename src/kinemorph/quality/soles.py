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

import numpy as np

TILTS_DEG = (0.0, 15.0, 30.0, 45.0, 60.0)
"""Foot tilts [deg] from the rest orientation at which the lowest point is taken."""
HEADINGS = 8
"""Directions around the foot (every 45 degrees) towards which it is tilted."""
MERGE = 0.005
"""[m] support points closer than this count as one."""


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

