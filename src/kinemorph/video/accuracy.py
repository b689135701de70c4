"""How close a fitted clip is to the clip its landmarks came from, and to its retargeted motion.

Used by the tests and benchmarks/bench_video.py on landmarks made from known clips
(:mod:`~kinemorph.video.synthetic`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..motion.motion import Motion

if TYPE_CHECKING:
    from ..robots.robot import Robot

BONES: tuple[str, ...] = (
    "LeftLeg", "LeftFoot", "LeftToe", "RightLeg", "RightFoot", "RightToe",
    "LeftArm", "LeftForeArm", "LeftHand", "RightArm", "RightForeArm", "RightHand", "Neck", "Head",
)  # fmt: skip
"""Bones compared, each named by its child joint (LeftLeg: the thigh, LeftFoot: the shank, LeftToe: the
foot, LeftArm: the clavicle, LeftForeArm: the upper arm, LeftHand: the forearm, Neck, Head)."""

LIMBS: tuple[tuple[str, str], ...] = (
    ("shoulder_l", "elbow_l"), ("elbow_l", "wrist_l"), ("shoulder_r", "elbow_r"), ("elbow_r", "wrist_r"),
    ("pelvis", "knee_l"), ("knee_l", "ankle_l"), ("pelvis", "knee_r"), ("knee_r", "ankle_r"),
    ("ankle_l", "toe_l"), ("ankle_r", "toe_r"), ("pelvis", "neck"),
)  # fmt: skip
"""Robot limbs compared, as pairs of kinemorph.conventions.LANDMARKS."""


def angles(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Angles [deg] between matching vectors (..., 3)."""
    cos = np.sum(u * v, -1) / np.linalg.norm(u, axis=-1) / np.linalg.norm(v, axis=-1)
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def bone_errors(source: Motion, fitted: Motion, bones: tuple[str, ...] = BONES) -> np.ndarray:
    """Angle [deg] between each bone's world direction in two clips with LAFAN1 joint names,
    per frame and bone. Shape: (T, len(bones))."""
    out = []
    for name in bones:
        j = source.index(name)
        parent = source.skeleton.names[int(source.skeleton.parents[j])]
        a = source.positions[:, j] - source.positions[:, source.index(parent)]
        b = fitted.positions[:, fitted.index(name)] - fitted.positions[:, fitted.index(parent)]
        out.append(angles(a, b))
    return np.stack(out, axis=1)


def limb_errors(robot: Robot, a: Motion, b: Motion, limbs: tuple[tuple[str, str], ...] = LIMBS) -> np.ndarray:
    """Angle [deg] between a robot's limb directions retargeted (default engine and mapping) from clip
    a and from clip b, per frame and limb. Shape: (T, len(limbs))."""
    from ..conventions import LANDMARKS
    from ..retarget import retarget

    pa = robot.landmark_positions(robot.fk(retarget(a, robot).qpos))
    pb = robot.landmark_positions(robot.fk(retarget(b, robot).qpos))
    ix = {n: i for i, n in enumerate(LANDMARKS)}
    return np.stack([angles(pa[:, ix[v]] - pa[:, ix[u]], pb[:, ix[v]] - pb[:, ix[u]]) for u, v in limbs], axis=1)


__all__ = ["BONES", "LIMBS", "angles", "bone_errors", "limb_errors"]
