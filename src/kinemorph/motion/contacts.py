"""Contact detection: when is a foot planted? Low and slow, over a few frames.

Works on any point trajectory (a source foot, a robot foot), so sources and robots share it.
"""

from __future__ import annotations

import numpy as np


def speeds(positions: np.ndarray, fps: float, *, horizontal: bool = False) -> np.ndarray:
    """Speed [m/s] of a point trajectory (T, 3) by central differences. Shape: (T,)."""
    p = positions[..., :2] if horizontal else positions
    if p.shape[0] < 2:
        return np.zeros(p.shape[0])
    v = np.gradient(p, axis=0) * fps
    return np.linalg.norm(v, axis=-1)


def detect_contacts(
    positions: np.ndarray,
    fps: float,
    *,
    floor: float | None = None,
    height_margin: float = 0.05,
    max_speed: float = 0.3,
    min_frames: int = 3,
) -> np.ndarray:
    """Frames where a point is planted: within height_margin [m] of the floor and slower than
    max_speed [m/s], in runs of at least min_frames. positions: (T, 3). Returns (T,) bool.

    floor [m]: the floor height; None estimates it as the 5th percentile of the point's height
    (so that a foot joint some centimetres above its sole still counts as down).
    """
    z = positions[:, 2]
    base = float(np.percentile(z, 5)) if floor is None else floor
    low = z <= base + height_margin
    slow = speeds(positions, fps) <= max_speed
    planted = low & slow
    if min_frames > 1:
        planted = _remove_short_runs(planted, min_frames)
    return planted


def _remove_short_runs(mask: np.ndarray, min_len: int) -> np.ndarray:
    out = mask.copy()
    t = 0
    n = len(mask)
    while t < n:
        if mask[t]:
            u = t
            while u < n and mask[u]:
                u += 1
            if u - t < min_len:
                out[t:u] = False
            t = u
        else:
            t += 1
    return out
