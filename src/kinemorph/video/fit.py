"""Landmarks to joint rotations: every joint's frame is aimed, vectorised over frames.

A joint's global frame is the rotation that takes its neutral bone vector (from the rig) onto the
landmarks' bone direction exactly, and its neutral twist vector as close as possible onto a twist
reference (a two-vector alignment, the TRIAD construction of attitude determination):

- pelvis: hip line, trunk up; chest (Spine2): shoulder line, trunk up; Spine and Spine1 share
  the pelvis-to-chest rotation in thirds;
- neck: shoulders' mid-point to ears' mid-point, half-way between shoulder and ear lines;
  head: ear line, ears to nose;
- clavicles: shoulders' mid-point to the shoulder; upper arm / thigh: the bone, with the elbow /
  knee hinge axis (ELBOW_AXES; local z for knees) from the plane of the limb (falling back to the chest's backward
  direction / the foot's direction when the limb is straight); forearm / shank: the bone, with
  the hinge axis of the upper segment; hand: wrist to the knuckles' mid-point, pinky to index
  (the neutral wrist where those landmarks collapse);
  foot: ankle to toe tip, ankle to heel; toe: rigid (its neutral local rotation).
Bone lengths are the skeleton's rest offsets: only directions come from the landmarks.
"""

from __future__ import annotations

import numpy as np

from ..transforms import mat_to_quat, quat_exp, quat_log, quat_to_mat
from .rig import ELBOW_AXES, P, rig

_Z = np.array([0.0, 0.0, 1.0])
_HINGE_FALLBACK = 0.15  # weight of the straight-limb twist reference against sin(bend angle)
_HAND_FALLBACK = 0.005  # [m]: the neutral wrist counts like knuckle landmarks 5 mm apart


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


def _frame(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Orthonormal frames (columns e1 along a, e2 towards b, e3 = e1 × e2). Shape: (..., 3, 3)."""
    e1 = _unit(a)
    r = b - np.sum(b * e1, axis=-1, keepdims=True) * e1
    # b parallel to a: any perpendicular will do (picked from the axis least aligned with a)
    alt = np.cross(e1, np.eye(3)[np.argmin(np.abs(e1), axis=-1)])
    r = np.where(np.linalg.norm(r, axis=-1, keepdims=True) < 1e-9, alt, r)
    e2 = _unit(r)
    return np.stack([e1, e2, np.cross(e1, e2)], axis=-1)


def align(a_local: np.ndarray, b_local: np.ndarray, a_world: np.ndarray, b_world: np.ndarray) -> np.ndarray:
    """Rotations R with R a_local parallel to a_world and R b_local as near b_world as possible.

    a_local, b_local: (3,) or (T, 3); a_world, b_world: (T, 3). Returns (T, 3, 3)."""
    return _frame(a_world, b_world) @ np.swapaxes(_frame(a_local, b_local), -1, -2)


def _hinge_axis(a: np.ndarray, b: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Hinge axis of a two-segment limb (upper a, lower b, both (T, 3)): b̂ × â where the limb is
    bent, blending into the unit fallback (T, 3) as it straightens."""
    return np.cross(_unit(b), _unit(a)) + _HINGE_FALLBACK * _unit(fallback)


def fit_globals(points: np.ndarray) -> np.ndarray:
    """Global joint frames of the rig from points (T, N, 3) [m] in the Z-up world (rig.POINTS order).

    Returns rotation matrices whose columns are the joints' local axes. Shape: (T, J, 3, 3)."""
    r = rig()
    sk = r.skeleton
    t = points.shape[0]
    G = np.empty((t, sk.num_joints, 3, 3))

    def pt(name: str) -> np.ndarray:
        return points[:, P[name]]

    def vec(a: str, b: str) -> np.ndarray:
        return pt(b) - pt(a)

    def aim(joint: str, bone: tuple[str, str], twist: tuple[str, str]) -> np.ndarray:
        G[:, r.joint(joint)] = align(
            r.local_vector(joint, *bone), r.local_vector(joint, *twist), vec(*bone), vec(*twist)
        )
        return G[:, r.joint(joint)]

    up = ("hip_mid", "shoulder_mid")
    pelvis = aim("Hips", ("right_hip", "left_hip"), up)
    chest = aim("Spine2", ("right_shoulder", "left_shoulder"), up)
    bend = quat_log(mat_to_quat(np.swapaxes(pelvis, -1, -2) @ chest))  # pelvis -> chest, rotation vector
    for k, name in ((1, "Spine"), (2, "Spine1")):
        G[:, r.joint(name)] = pelvis @ quat_to_mat(quat_exp(bend * (k / 3.0)))
    # the neck takes half the head's turn relative to the shoulders, the head the rest
    neck_twist = _unit(vec("right_ear", "left_ear")) + _unit(vec("right_shoulder", "left_shoulder"))
    G[:, r.joint("Neck")] = align(
        r.local_vector("Neck", "shoulder_mid", "ear_mid"),
        r.local_vector("Neck", "right_ear", "left_ear"),
        vec("shoulder_mid", "ear_mid"),
        neck_twist,
    )
    aim("Head", ("right_ear", "left_ear"), ("ear_mid", "nose"))
    chest_back = -chest[..., 1]  # trunk frames: y forward
    pelvis_right = -pelvis[..., 2]  # trunk frames: z left

    for s, J in (("left", "Left"), ("right", "Right")):
        aim(f"{J}Shoulder", ("shoulder_mid", f"{s}_shoulder"), up)
        upper, lower = vec(f"{s}_shoulder", f"{s}_elbow"), vec(f"{s}_elbow", f"{s}_wrist")
        H = ELBOW_AXES[s]
        arm = align(
            r.local_vector(f"{J}Arm", f"{s}_shoulder", f"{s}_elbow"),
            H,
            upper,
            _hinge_axis(upper, lower, np.cross(_unit(upper), chest_back)),
        )
        G[:, r.joint(f"{J}Arm")] = arm
        G[:, r.joint(f"{J}ForeArm")] = align(
            r.local_vector(f"{J}ForeArm", f"{s}_elbow", f"{s}_wrist"), H, lower, arm @ H
        )
        # hand: where the knuckle landmarks come close together (a fist seen edge-on, or landmarks made
        # without fingers) the hand keeps the neutral wrist: the forearm's frame takes over smoothly
        hand, fore = r.joint(f"{J}Hand"), G[:, r.joint(f"{J}ForeArm")]
        bone_l = r.local_vector(f"{J}Hand", f"{s}_wrist", f"{s}_hand_mid")
        twist_l = r.local_vector(f"{J}Hand", f"{s}_pinky", f"{s}_index")
        neutral = fore @ r.locals[hand]
        G[:, hand] = align(
            bone_l,
            twist_l,
            vec(f"{s}_wrist", f"{s}_hand_mid") + _HAND_FALLBACK * (neutral @ bone_l),
            vec(f"{s}_pinky", f"{s}_index") + _HAND_FALLBACK * (neutral @ twist_l),
        )

        thigh, shank = vec(f"{s}_hip", f"{s}_knee"), vec(f"{s}_knee", f"{s}_ankle")
        foot_dir = _unit(vec(f"{s}_heel", f"{s}_foot_index"))
        straight = np.cross(_unit(thigh), foot_dir) + 0.3 * pelvis_right
        upleg = align(
            r.local_vector(f"{J}UpLeg", f"{s}_hip", f"{s}_knee"), _Z, thigh, _hinge_axis(thigh, shank, straight)
        )
        G[:, r.joint(f"{J}UpLeg")] = upleg
        G[:, r.joint(f"{J}Leg")] = align(r.local_vector(f"{J}Leg", f"{s}_knee", f"{s}_ankle"), _Z, shank, upleg[..., 2])
        foot = aim(f"{J}Foot", (f"{s}_ankle", f"{s}_foot_index"), (f"{s}_ankle", f"{s}_heel"))
        G[:, r.joint(f"{J}Toe")] = foot @ r.locals[r.joint(f"{J}Toe")]
    return G


def local_rotations(G: np.ndarray) -> np.ndarray:
    """Local rotations (T, J, 4) wxyz of global frames (T, J, 3, 3) on the rig's skeleton."""
    parents = rig().skeleton.parents
    local = np.empty_like(G)
    local[:, 0] = G[:, 0]
    local[:, 1:] = np.swapaxes(G[:, parents[1:]], -1, -2) @ G[:, 1:]
    return mat_to_quat(local)


__all__ = ["align", "fit_globals", "local_rotations"]
