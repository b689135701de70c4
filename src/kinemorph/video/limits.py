"""Human joint limits: poses no person can take are rejected and refilled from their neighbours.

Each joint's local rotation is measured against its neutral one (the rig's standing pose) and split
into twist about the bone (local x) and swing of the bone; hinges (knees, elbows) into the angle
about the hinge (local z for knees, rig.ELBOW_AXES for elbows; flexion is negative) and the
rotation off it. The ranges are generous
versions of clinical ranges of motion (e.g. knee flexion to about 150°, hip rotation about ±45°,
forearm pronation and supination about ±85°), since they reject only what cannot be a person:
a knee bent forwards, a thigh turned backwards, a head turned beyond the shoulder.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..transforms import mat_to_quat, quat_conj, quat_continuous, quat_mul, quat_normalize
from .rig import ELBOW_AXES, rig


@dataclass(frozen=True)
class JointLimit:
    """Range of one joint [deg], relative to the neutral stance.

    Attributes:
        joint: joint name.
        twist: (min, max) twist about the bone (x) — or, for a hinge, the angle about z.
        swing: largest swing of the bone — or, for a hinge, the largest rotation off the hinge axis.
        hinge: True for knees and elbows.
    """

    joint: str
    twist: tuple[float, float]
    swing: float
    hinge: bool = False


def _sides(name: str, twist: tuple[float, float], swing: float, hinge: bool = False) -> list[JointLimit]:
    return [JointLimit(f"{side}{name}", twist, swing, hinge) for side in ("Left", "Right")]


LIMITS: tuple[JointLimit, ...] = (
    JointLimit("Spine", (-40.0, 40.0), 40.0),
    JointLimit("Spine1", (-40.0, 40.0), 40.0),
    JointLimit("Spine2", (-40.0, 40.0), 40.0),
    JointLimit("Neck", (-60.0, 60.0), 60.0),
    JointLimit("Head", (-70.0, 70.0), 60.0),
    *_sides("Shoulder", (-50.0, 50.0), 45.0),
    *_sides("Arm", (-120.0, 120.0), 180.0),
    *_sides("ForeArm", (-165.0, 15.0), 35.0, hinge=True),
    *_sides("Hand", (-130.0, 130.0), 100.0),
    *_sides("UpLeg", (-65.0, 65.0), 150.0),
    *_sides("Leg", (-165.0, 15.0), 35.0, hinge=True),
    *_sides("Foot", (-60.0, 60.0), 75.0),
)


def twist_swing(q: np.ndarray, axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Twist angle about a unit axis (3,) of the local frame in (-180, 180] and swing angle in
    [0, 180] [deg] of unit quaternions (..., 4) wxyz."""
    w, a = q[..., 0], q[..., 1:] @ axis
    twist = np.degrees(2.0 * np.arctan2(a, w))
    twist = (twist + 180.0) % 360.0 - 180.0
    swing = np.degrees(2.0 * np.arccos(np.clip(np.sqrt(w * w + a * a), 0.0, 1.0)))
    return twist, swing


def _axis(lim: JointLimit) -> np.ndarray:
    """The axis a limit's twist is measured about: the bone (x), the knee's z, the elbow's axis."""
    if not lim.hinge:
        return np.array([1.0, 0.0, 0.0])
    if "ForeArm" in lim.joint:
        return ELBOW_AXES["left" if lim.joint.startswith("Left") else "right"]
    return np.array([0.0, 0.0, 1.0])


def violations(local_rot: np.ndarray, limits: tuple[JointLimit, ...] = LIMITS) -> np.ndarray:
    """Frames where a joint leaves its range, per joint of the rig. (T, J) bool."""
    r = rig()
    neutral = mat_to_quat(r.locals)
    bad = np.zeros(local_rot.shape[:2], dtype=bool)
    for lim in limits:
        j = r.joint(lim.joint)
        delta = quat_mul(quat_conj(neutral[j]), local_rot[:, j])
        twist, swing = twist_swing(delta, _axis(lim))
        bad[:, j] = (twist < lim.twist[0]) | (twist > lim.twist[1]) | (swing > lim.swing)
    return bad


_LIMB_PARTS = ("Shoulder", "Arm", "Hand", "Leg", "Foot", "Toe", "Head")


def spread_to_limbs(bad: np.ndarray) -> np.ndarray:
    """Rejections (T, J) passed down each limb: a joint out of range means the landmarks below it
    are wrong too (a knee bent forwards is a misplaced ankle), so its children are refilled with it.
    The trunk's rejections stay where they are."""
    sk = rig().skeleton
    out = bad.copy()
    for j in range(1, sk.num_joints):
        p = int(sk.parents[j])
        if any(part in sk.names[p] for part in _LIMB_PARTS) or sk.names[p] == "Neck":
            out[:, j] |= out[:, p]
    return out


def refill(local_rot: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """Local rotations (T, J, 4) with every rejected (frame, joint) replaced by interpolation
    between the joint's nearest accepted frames (normalised linear, held at the ends); a joint
    rejected in every frame keeps its values."""
    out = local_rot.copy()
    t = np.arange(local_rot.shape[0])
    for j in np.nonzero(bad.any(axis=0) & ~bad.all(axis=0))[0]:
        q = quat_continuous(local_rot[:, j])
        good = ~bad[:, j]
        fill = np.stack([np.interp(t[~good], t[good], q[good, c]) for c in range(4)], axis=-1)
        out[~good, j] = quat_normalize(fill)
    return out


__all__ = ["LIMITS", "JointLimit", "refill", "spread_to_limbs", "twist_swing", "violations"]
