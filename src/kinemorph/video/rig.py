"""The LAFAN1 rig the solver fits: skeleton, neutral stance and the points it aims bones at.

Points are the 33 BlazePose landmarks followed by a few derived ones (mid-points). Every joint's
neutral vectors (a bone, a twist reference) are read from the markers of
:mod:`~kinemorph.video.blazepose` on the neutral stance of the procedural generator, expressed in
that joint's own frame, so the solver needs no hand-written per-joint axes except the hinge axes
of knees and elbows (local z, as the LAFAN1 convention has them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..motion.motion import Motion
from ..motion.presets import _Y_UP_TO_Z_UP, PRESETS, change_frame
from ..motion.procedural import procedural_skeleton, procedural_stand
from ..motion.skeleton import Skeleton
from ..transforms import quat_to_mat
from .blazepose import INDEX, NAMES, marker_positions

# Elbow flexion axes (flexion is a negative turn about them) in the upper arm's frame, as the LAFAN1
# capture rig has them: the median rotation axis of LAFAN1's elbows, about 18-22° off the local z
# that the procedural rig uses. Aiming the arm's twist by them gives LAFAN1-like arm frames, which
# the robots' LAFAN1 mappings (rotation targets on the arms) expect. Knees bend about local z.
ELBOW_AXES = {
    side: np.array(v) / np.linalg.norm(v)
    for side, v in (("left", (0.055, 0.30, 0.952)), ("right", (-0.077, -0.376, 0.923)))
}

DERIVED = {
    "hip_mid": ("left_hip", "right_hip"),
    "shoulder_mid": ("left_shoulder", "right_shoulder"),
    "ear_mid": ("left_ear", "right_ear"),
    "left_hand_mid": ("left_index", "left_pinky"),
    "right_hand_mid": ("right_index", "right_pinky"),
}
POINTS = NAMES + tuple(DERIVED)
P = {name: i for i, name in enumerate(POINTS)}


def with_derived(landmarks: np.ndarray) -> np.ndarray:
    """Landmarks (T, 33, 3) followed by the DERIVED mid-points: (T, len(POINTS), 3)."""
    mids = [0.5 * (landmarks[:, INDEX[a]] + landmarks[:, INDEX[b]]) for a, b in DERIVED.values()]
    return np.concatenate([landmarks, np.stack(mids, axis=1)], axis=1)


def lafan1_skeleton() -> Skeleton:
    """The procedural LAFAN1 skeleton in the library's convention (Z-up, metres)."""
    sk = procedural_skeleton()
    one = np.zeros((1, sk.num_joints, 4))
    one[..., 0] = 1.0
    pos = np.broadcast_to(sk.offsets, (1, sk.num_joints, 3)).copy()
    out, _, _ = change_frame(sk, one, pos, rotation=_Y_UP_TO_Z_UP, scale=0.01)
    return out


def motion_from_local(local_rot: np.ndarray, root_pos: np.ndarray, fps: float, *, source: str) -> Motion:
    """A LAFAN1-preset Motion (virtual foot bodies, landmarks) from local rotations (T, J, 4) wxyz
    and root positions (T, 3) [m] on :func:`lafan1_skeleton`."""
    sk = lafan1_skeleton()
    pos = np.broadcast_to(sk.offsets, (local_rot.shape[0], sk.num_joints, 3)).copy()
    pos[:, 0] = root_pos
    pre = PRESETS["lafan1"]
    return Motion.from_local(
        sk,
        fps,
        local_rot,
        pos,
        virtual=pre.virtual,
        family=pre.family,
        source=source,
        preset=pre.name,
        landmarks=pre.landmarks,
    )


@dataclass(frozen=True)
class Rig:
    """Neutral data of the rig.

    Attributes:
        skeleton: the LAFAN1 skeleton (Z-up, metres).
        globals: neutral global joint frames (columns: local axes in the world). Shape: (J, 3, 3).
        locals: neutral local rotations. Shape: (J, 3, 3).
        points: neutral positions of POINTS [m], standing on the floor z = 0. Shape: (N, 3).
        floor_height: height of the lowest foot marker in the neutral stance [m].
    """

    skeleton: Skeleton
    globals: np.ndarray
    locals: np.ndarray
    points: np.ndarray
    floor_height: float

    def local_vector(self, joint: str, a: str, b: str) -> np.ndarray:
        """Neutral vector from point a to point b in a joint's frame, unit length. Shape: (3,)."""
        v = self.globals[self.skeleton.index(joint)].T @ (self.points[P[b]] - self.points[P[a]])
        return v / np.linalg.norm(v)

    def joint(self, name: str) -> int:
        return self.skeleton.index(name)


@lru_cache(maxsize=1)
def rig() -> Rig:
    """The neutral stance (frame 0 of the procedural stand, turned to face +y), computed once."""
    stand = procedural_stand(duration=0.1, fps=30.0).slice(0, 1)
    j = stand.skeleton.num_joints
    glob = quat_to_mat(stand.rotations[0, :j])
    loc = quat_to_mat(stand.local_rotations[0])
    pts = with_derived(marker_positions(stand))[0]
    foot = [P[n] for n in ("left_heel", "right_heel", "left_foot_index", "right_foot_index")]
    return Rig(
        skeleton=lafan1_skeleton(),
        globals=glob,
        locals=loc,
        points=pts,
        floor_height=float(pts[foot, 2].min()),
    )


FOOT_POINTS = ("left_heel", "right_heel", "left_foot_index", "right_foot_index")

__all__ = [
    "DERIVED",
    "ELBOW_AXES",
    "FOOT_POINTS",
    "POINTS",
    "Rig",
    "lafan1_skeleton",
    "motion_from_local",
    "rig",
    "with_derived",
]
