"""Loading and saving motions by path."""

from __future__ import annotations

from pathlib import Path

from .._files import write_text_atomic
from ..errors import ConfigError, MotionFileError
from ..transforms import mat_to_quat, quat_mul
from .bvh import format_bvh, read_bvh
from .motion import Motion
from .presets import _Y_UP_TO_Z_UP, UNITS, Preset, apply_preset
from .skeleton import Skeleton


def load_motion(path: str | Path, preset: str | Preset = "auto") -> Motion:
    """Load a motion file into the library's Z-up metre convention.

    preset: "auto" (recognise LAFAN1 and dog skeletons by their joint names, else generic),
    a preset name ("lafan1", "dog", "generic") or a Preset.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix != ".bvh":
        raise MotionFileError(p, f"unsupported motion format {suffix or '(none)'!r}; supported: .bvh")
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
    inv = 1.0 / UNITS[unit]
    sk = motion.skeleton
    local_rot = motion.local_rotations.copy()
    local_pos = motion.local_positions * inv
    offsets = sk.offsets * inv
    if up == "y":
        r = _Y_UP_TO_Z_UP.T
        local_pos[:, 0] = local_pos[:, 0] @ r.T
        offsets[0] = r @ offsets[0]
        local_rot[:, 0] = quat_mul(mat_to_quat(r), local_rot[:, 0])
    file_sk = Skeleton(
        names=sk.names,
        parents=sk.parents,
        offsets=offsets,
        channels=sk.channels,
        end_sites=tuple(type(e)(parent=e.parent, offset=e.offset * inv) for e in sk.end_sites),
    )
    text = format_bvh(file_sk, 1.0 / motion.fps, local_rot, local_pos)
    return write_text_atomic(path, text, force=force)


__all__ = ["load_motion", "save_bvh"]
