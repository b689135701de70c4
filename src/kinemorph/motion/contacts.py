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


def detect_contacts_hysteresis(
    positions: np.ndarray,
    fps: float,
    *,
    floor: float,
    enter_height: float = 0.03,
    exit_height: float = 0.05,
    enter_speed: float = 0.3,
    exit_speed: float = 0.6,
    min_stance: int = 3,
    min_swing: int = 2,
) -> np.ndarray:
    """Planted frames with hysteresis: a point becomes planted when it is within enter_height [m]
    of the floor and slower than enter_speed [m/s], and stays planted until it rises above
    exit_height or moves faster than exit_speed. Stances shorter than min_stance frames are
    dropped, then swings shorter than min_swing frames are filled. positions: (T, 3). Returns (T,) bool.
    """
    if not (0 <= enter_height <= exit_height and 0 < enter_speed <= exit_speed):
        raise ValueError("need 0 <= enter_height <= exit_height and 0 < enter_speed <= exit_speed")
    h = positions[:, 2] - floor
    v = speeds(positions, fps)
    out = np.zeros(len(h), dtype=bool)
    down = False
    for t in range(len(h)):
        if down:
            down = h[t] <= exit_height and v[t] <= exit_speed
        else:
            down = h[t] <= enter_height and v[t] <= enter_speed
        out[t] = down
    out = _remove_short_runs(out, min_stance)
    return ~_remove_short_runs(~out, min_swing) if min_swing > 1 else out


def contact_intervals(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) frame intervals where mask is True."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.nonzero(edges == 1)[0].tolist(), np.nonzero(edges == -1)[0].tolist()))
