"""Frame-rate change of a motion: joint rotations by slerp, translations linearly."""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from ..transforms import quat_normalize
from .motion import Motion


def slerp(q0: np.ndarray, q1: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Spherical interpolation between unit quaternions q0 and q1 (..., 4) at fractions t (...)."""
    dot = np.sum(q0 * q1, axis=-1)
    q1 = np.where((dot < 0)[..., None], -q1, q1)
    dot = np.abs(dot)
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    s = np.sin(theta)
    small = s < 1e-6
    safe = np.where(small, 1.0, s)
    w0 = np.where(small, 1.0 - t, np.sin((1.0 - t) * theta) / safe)
    w1 = np.where(small, t, np.sin(t * theta) / safe)
    return quat_normalize(w0[..., None] * q0 + w1[..., None] * q1)


def resample_times(num_frames: int, fps: float, new_fps: float) -> np.ndarray:
    """Source frame coordinates (fractional) of the new frames over the same duration: frame 0 at
    t = 0, then every 1/new_fps s up to the last source frame. Shape: (T',)."""
    last = (num_frames - 1) / fps
    n = int(np.floor(last * new_fps + 1e-9)) + 1
    return np.arange(n) / new_fps * fps


def resample(motion: Motion, fps: float) -> Motion:
    """The motion at ``fps`` frames per second [1/s]: each joint's local rotation by slerp and its
    local translation linearly between the two nearest source frames; virtual bodies, legs and
    landmarks are kept. The same fps returns the motion unchanged."""
    if not np.isfinite(fps) or fps <= 0:
        raise ConfigError(f"fps must be a positive number, got {fps}")
    if abs(fps - motion.fps) < 1e-9 * motion.fps:
        return motion
    x = resample_times(motion.num_frames, motion.fps, fps)
    i0 = np.clip(np.floor(x).astype(int), 0, motion.num_frames - 1)
    i1 = np.minimum(i0 + 1, motion.num_frames - 1)
    t = (x - i0)[:, None]
    rot = motion.local_rotations
    local_rot = slerp(rot[i0], rot[i1], np.broadcast_to(t, rot[i0].shape[:2]))
    p0, p1 = motion.local_positions[i0], motion.local_positions[i1]
    local_pos = p0 + t[..., None] * (p1 - p0)
    return Motion.from_local(
        motion.skeleton,
        fps,
        local_rot,
        local_pos,
        virtual=motion.virtual or None,
        family=motion.family,
        source=motion.source,
        preset=motion.preset,
        legs=motion.legs,
        landmarks=motion.landmarks,
        rig=motion.rig,
    )
