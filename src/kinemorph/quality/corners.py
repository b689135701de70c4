"""Where a link's shape sticks out of its capsule proxy (a box's corners): extra floor points, so
that the floor checks of the clean-up and the metrics see what the capsule leaves out."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..robots.robot import Robot

CORNERS = 8
"""Points of a link's shape that stick out of its capsule most (a box's corners) checked against
the floor as well, per geom."""


def corner_points(
    robot: Robot,
    caps: list,  # proxies._Cap tuples
    floor: np.ndarray,
    p0: np.ndarray,
    p1: np.ndarray,
    radius: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Floor points (body id (S,), points in the body frame (S, 3), labels) where a shape reaches
    more than 2 mm past its capsule (a box's corners: 0.7 cm on ANYmal B's shank boxes), up to
    CORNERS per geom, so that the floor checks see them."""
    body: list[int] = []
    pts: list[np.ndarray] = []
    names: list[str] = []
    for i, c in enumerate(caps):
        if not floor[i] or c[7] is None or c[7].shape[0] < 4:
            continue
        q = c[7]
        axis = p1[i] - p0[i]
        n2 = float(axis @ axis)
        s = np.clip((q - p0[i]) @ axis / n2, 0.0, 1.0) if n2 > 1e-12 else np.zeros(len(q))
        excess = np.linalg.norm(q - (p0[i] + s[:, None] * axis), axis=1) - radius[i]
        for k in np.argsort(-excess)[:CORNERS]:
            if excess[k] > 0.002:
                body.append(robot.body_names.index(c[0]))
                pts.append(q[k])
                names.append(f"{c[0]}/{c[1] or 'geom'}:corner{len(names)}")
    return np.array(body, dtype=np.int64), np.array(pts, dtype=np.float64).reshape(-1, 3), tuple(names)
