"""Turning a recognised rig's raw content into a Motion (Z-up metres, floor at 0)."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from ...errors import KinemorphError
from ...transforms import mat_to_quat, quat_mul
from ..motion import Motion, forward_kinematics
from ..skeleton import Skeleton
from .recognise import Recognition, recognise
from .report import RigReport
from .tree import PosedTree

FLOOR_TOLERANCE = 0.10
"""[m] a floor (the plane the feet return to) farther than this from z = 0 is moved there; nearer,
the file's own ground is kept (the lowest foot joint sits a few cm above the sole)."""
FOOT_CLEARANCE = 0.03
"""[m] height of the lowest foot joint over the ground when the floor is moved."""


class RigError(KinemorphError):
    """A rig that cannot be used as asked: not recognised, ambiguous, or with an implausible size."""


class RigWarning(UserWarning):
    """Something about a source the user should check (printed by the CLI as a warning line)."""


def recognise_raw(
    skeleton: Skeleton,
    local_rot: np.ndarray,
    local_pos: np.ndarray,
    *,
    source: str,
    unit: str | float | None = None,
    up: str | None = None,
) -> Recognition:
    """Recognition on raw transforms in file units and axes (samples a few frames)."""
    return recognise(PosedTree.sample(skeleton, local_rot, local_pos), source=source, unit=unit, up=up)


def motion_from_raw(
    skeleton: Skeleton,
    local_rot: np.ndarray,
    local_pos: np.ndarray,
    fps: float,
    *,
    source: str,
    unit: str | float | None = None,
    up: str | None = None,
    strict: bool = False,
    preset: str = "generic",
    landmarks: dict[str, str] | None = None,
) -> Motion:
    """A Motion from raw transforms, axes, unit and landmarks found by recognition.

    A floor (the plane the feet return to) far from z = 0 is moved there (see FLOOR_TOLERANCE).
    Raises RigError when a unit the user gave makes the body implausibly sized, or (strict) on any
    warning; a rig that is not recognised still loads (family "other"), its report says what is
    missing. ``landmarks``: a table {landmark: joint} used instead of recognition by names and shape.
    """
    from ..presets import change_frame

    gpos, grot = forward_kinematics(skeleton, local_rot, local_pos)  # once: recognition samples it
    tree = PosedTree.sample(skeleton, local_rot, local_pos, gpos, grot)
    rec = recognise(tree, source=source, unit=unit, up=up, landmarks=landmarks)
    rep = rec.report
    if rep.problem and rep.unit_source == "given":
        raise RigError(rep.problem)
    for w in rep.warnings:
        if strict:
            raise RigError(f"{w} (strict)")
        warnings.warn(w, RigWarning, stacklevel=3)
    if strict and rep.problem:
        raise RigError(rep.problem)
    sk, lr, lp = change_frame(skeleton, local_rot, local_pos, rotation=rec.rotation, scale=rec.scale)
    # the global poses follow the same change: p -> s R p (+ floor), q -> R q
    gpos = (gpos @ rec.rotation.T) * rec.scale
    grot = quat_mul(mat_to_quat(rec.rotation), grot)
    if abs(rec.floor) > FLOOR_TOLERANCE:
        lp[:, 0, 2] -= rec.floor - FOOT_CLEARANCE
        gpos[..., 2] -= rec.floor - FOOT_CLEARANCE
    family = rep.family if rep.ok else "other"
    return Motion.from_global(
        sk,
        fps,
        lr,
        lp,
        gpos,
        grot,
        virtual=rec.virtual or None,
        family=family,
        source=source,
        preset=preset,
        legs=rec.legs if family == "quadruped" else (),
        landmarks=rec.landmarks if family == "humanoid" else (),
        rig=rep,
    )


def preset_report(motion: Motion, raw_skeleton: Skeleton, local_rot: np.ndarray, local_pos: np.ndarray) -> RigReport:
    """The landmark report of a motion read with a fixed preset (axes and unit from the preset)."""
    rec = recognise_raw(raw_skeleton, local_rot, local_pos, source=motion.source)
    return replace(rec.report, method="preset", rig=motion.preset, up_source="preset", unit_source="preset")


def require_rig(motion: Motion) -> RigReport:
    """The motion's recognised rig, or RigError saying what is missing and what to do."""
    rep = motion.rig
    if rep is None:
        raise RigError(f"{motion.source}: no rig recognition was run for this motion (preset {motion.preset})")
    if rep.problem:
        raise RigError(rep.problem)
    return rep
