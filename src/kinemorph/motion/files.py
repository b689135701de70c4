"""Loading and saving motions by path."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._files import write_text_atomic
from ..errors import ConfigError, MotionFileError
from .bvh import BvhData, format_bvh, read_bvh
from .keypoints import read_keypoints
from .motion import Motion
from .presets import _Y_UP_TO_Z_UP, UNITS, Preset, apply_preset, change_frame, detect_preset, fps_from_frame_time


def load_motion(
    path: str | Path,
    preset: str | Preset = "auto",
    *,
    unit: str | float | None = None,
    up: str | None = None,
    strict: bool = False,
    fps: float | None = None,
    body_model: str | Path | None = None,
    landmarks: str | Path | dict[str, str] | None = None,
) -> Motion:
    """Load a motion file into the library's Z-up metre convention.

    preset: "auto" (LAFAN1 and dog skeletons by their joint names; any other skeleton through rig
    recognition, kinemorph.motion.rig: landmarks, family, up axis, unit and floor detected), a
    preset name ("lafan1", "dog"; "generic" = recognition without the named presets) or a Preset.
    unit: overrides the detected unit: "m", "cm", "mm", "inch", "ft", "cmu" or metres per unit.
    up: overrides the detected up axis: "x", "y", "z", "-x", "-y" or "-z".
    strict: refuse (RigError) what would otherwise be a warning (e.g. an implausible stature).
    fps: resample to this rate [1/s] (rotations by slerp, translations linearly).
    body_model: SMPL-family .npz files (AMASS): the body model file, or a folder of them
        (default: the environment variable KINEMORPH_BODY_MODELS).
    landmarks: a table {landmark: joint} (or a JSON file of one) naming the rig's landmarks
        (kinemorph.motion.rig.HUMANOID_LANDMARKS), for rigs recognition does not find.
    A .npz holds keypoint trajectories (layout in motion/keypoints.py) or AMASS-style SMPL
    parameters (motion/smpl.py).
    """
    table = _landmark_table(landmarks)
    motion = _load(Path(path), preset, unit=unit, up=up, strict=strict, body_model=body_model, landmarks=table)
    if fps is not None:
        from .resample import resample

        motion = resample(motion, fps)
    return motion


def _load(
    p: Path,
    preset: str | Preset,
    *,
    unit: str | float | None,
    up: str | None,
    strict: bool,
    body_model: str | Path | None,
    landmarks: dict[str, str] | None = None,
) -> Motion:
    suffix = p.suffix.lower()
    if suffix == ".npz":
        from .smpl import is_smpl_file, read_smpl

        if is_smpl_file(p):
            return read_smpl(p, body_model=body_model, unit=unit, up=up, strict=strict)
        if preset not in ("auto", "keypoints"):
            raise MotionFileError(p, f"keypoint .npz files take no preset (got {preset!r}); their layout says it")
        return read_keypoints(p)
    if suffix != ".bvh":
        raise MotionFileError(
            p, f"unsupported motion format {suffix or '(none)'!r}; supported: .bvh, .npz (keypoints or AMASS)"
        )
    data = read_bvh(p)
    if isinstance(preset, str) and preset in ("auto", "generic"):
        named = detect_preset(data.skeleton) if preset == "auto" else "generic"
        if named == "generic" or unit is not None or up is not None or landmarks is not None:
            from .rig import motion_from_raw

            local_rot, local_pos = data.local_transforms()
            return motion_from_raw(
                data.skeleton,
                local_rot,
                local_pos,
                fps_from_frame_time(data.frame_time),
                source=str(p),
                unit=unit,
                up=up,
                strict=strict,
                landmarks=landmarks,
            )
        return with_rig(apply_preset(data, named, source=str(p)), data)
    elif unit is not None or up is not None:
        raise ConfigError(f"{p}: unit and up overrides go with preset 'auto' or 'generic', not a fixed preset")
    return with_rig(apply_preset(data, preset, source=str(p)), data)


def with_rig(motion: Motion, data: BvhData) -> Motion:
    """``motion`` (from a named preset) with its rig report, so that what needs the rig's landmarks
    (an automatic mapping onto an unseen robot) works as for a recognised rig."""
    from dataclasses import replace

    from .rig.load import preset_report

    return replace(motion, rig=preset_report(motion, data.skeleton, *data.local_transforms()))


def _landmark_table(landmarks: str | Path | dict[str, str] | None) -> dict[str, str] | None:
    """A landmark table from a dict or a JSON file of {landmark: joint}."""
    if landmarks is None or isinstance(landmarks, dict):
        return landmarks
    import json

    p = Path(landmarks)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the landmark table ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ConfigError(f"{p}: a landmark table is a JSON object {{landmark: joint name}}")
    return data


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
