"""Loading and saving motions by path."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._files import write_text_atomic
from ..errors import ConfigError, MotionFileError
from .bvh import format_bvh, read_bvh
from .keypoints import read_keypoints
from .motion import Motion
from .presets import _Y_UP_TO_Z_UP, UNITS, Preset, apply_preset, change_frame


def load_motion(path: str | Path, preset: str | Preset = "auto") -> Motion:
    """Load a motion file into the library's Z-up metre convention.

    preset: "auto" (recognise LAFAN1 and dog skeletons by their joint names, else generic),
    a preset name ("lafan1", "dog", "generic") or a Preset. A .npz holds keypoint trajectories
    (layout in motion/keypoints.py) and needs no preset.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".npz":
        if preset not in ("auto", "keypoints"):
            raise MotionFileError(p, f"keypoint .npz files take no preset (got {preset!r}); their layout says it")
        return read_keypoints(p)
    if suffix != ".bvh":
        raise MotionFileError(p, f"unsupported motion format {suffix or '(none)'!r}; supported: .bvh, .npz (keypoints)")
    return apply_preset(read_bvh(p), preset, source=str(p))


def save_bvh(motion: Motion, path: str | Path, *, up: str = "y", unit: str = "cm", force: bool = False) -> Path:
    """Write a motion as BVH, converted to the given up axis ("y" or "z") and unit.

    The defaults (Y-up, centimetres) give a LAFAN1-style file that ``load_motion`` reads back
    to the same poses. Written atomically.
    """
    if up not in ("y", "z"):
        raise ConfigError(f"up must be 'y' or 'z', got {up!r}")
    if unit not in UNITS:
        raise ConfigError(f"unit must be one of {', '.join(UNITS)}, got {unit!r}")
    rotation = _Y_UP_TO_Z_UP.T if up == "y" else np.eye(3)
    file_sk, local_rot, local_pos = change_frame(
        motion.skeleton, motion.local_rotations, motion.local_positions, rotation=rotation, scale=1.0 / UNITS[unit]
    )
    text = format_bvh(file_sk, 1.0 / motion.fps, local_rot, local_pos)
    return write_text_atomic(path, text, force=force)


__all__ = ["load_motion", "save_bvh"]
