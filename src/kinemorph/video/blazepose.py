"""MediaPipe BlazePose's 33 landmarks, its world-landmark axes, and where each landmark sits on
the LAFAN1 skeleton.

Landmark order and names follow the BlazePose topology (Bazarevsky et al., "BlazePose: On-device
Real-time Body Pose tracking", 2020). World landmarks are metres, origin at the hip centre,
x to the image's right, y down, z away from the camera (a right-handed camera frame).
:data:`MP_TO_WORLD` turns them into the library's Z-up world: x stays, the camera's viewing
direction becomes +y, up becomes +z.

:data:`MARKERS` places every landmark on a joint of the LAFAN1 skeleton (the one
:func:`~kinemorph.motion.procedural.procedural_skeleton` builds) as an offset in that joint's
frame. The solver reads its neutral bone and twist vectors from these markers on the neutral
stance, and :func:`landmarks_from_motion` makes BlazePose landmarks from any LAFAN1-rigged clip
(tests, benchmarks, figures).
"""

from __future__ import annotations

import numpy as np

from ..motion.motion import Motion
from ..transforms import quat_rotate

NAMES: tuple[str, ...] = (
    "nose", "left_eye_inner", "left_eye", "left_eye_outer", "right_eye_inner", "right_eye", "right_eye_outer",
    "left_ear", "right_ear", "mouth_left", "mouth_right", "left_shoulder", "right_shoulder",
    "left_elbow", "right_elbow", "left_wrist", "right_wrist", "left_pinky", "right_pinky",
    "left_index", "right_index", "left_thumb", "right_thumb", "left_hip", "right_hip",
    "left_knee", "right_knee", "left_ankle", "right_ankle", "left_heel", "right_heel",
    "left_foot_index", "right_foot_index",
)  # fmt: skip
NUM_LANDMARKS = len(NAMES)
INDEX = {name: i for i, name in enumerate(NAMES)}

MP_TO_WORLD = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])
"""Rotation from MediaPipe's world-landmark axes (x right, y down, z depth) to Z-up: w = M @ p."""

_SIDES = (("left", "Left", 1.0), ("right", "Right", -1.0))


def _markers() -> dict[str, tuple[str, tuple[float, float, float]]]:
    """landmark -> (joint, offset [m] in the joint's frame). Frames as in motion/procedural.py:
    trunk and head x up, y forward, z left; legs x down the bone, z right; arms x along the bone,
    y backward (palm down in a T-pose); foot x from ankle to ball, z right, y up the instep."""
    m: dict[str, tuple[str, tuple[float, float, float]]] = {
        "nose": ("Head", (0.06, 0.115, 0.0)),
    }
    for side, joint, s in _SIDES:
        m[f"{side}_eye_inner"] = ("Head", (0.095, 0.095, s * 0.015))
        m[f"{side}_eye"] = ("Head", (0.095, 0.09, s * 0.032))
        m[f"{side}_eye_outer"] = ("Head", (0.095, 0.085, s * 0.048))
        m[f"{side}_ear"] = ("Head", (0.075, 0.0, s * 0.075))
        m[f"mouth_{side}"] = ("Head", (0.02, 0.095, s * 0.025))
        m[f"{side}_shoulder"] = (f"{joint}Arm", (0.0, 0.0, 0.0))
        m[f"{side}_elbow"] = (f"{joint}ForeArm", (0.0, 0.0, 0.0))
        m[f"{side}_wrist"] = (f"{joint}Hand", (0.0, 0.0, 0.0))
        m[f"{side}_pinky"] = (f"{joint}Hand", (0.075, 0.035, 0.0))
        m[f"{side}_index"] = (f"{joint}Hand", (0.085, -0.03, 0.0))
        m[f"{side}_thumb"] = (f"{joint}Hand", (0.04, -0.045, -s * 0.02))
        m[f"{side}_hip"] = (f"{joint}UpLeg", (0.0, 0.0, 0.0))
        m[f"{side}_knee"] = (f"{joint}Leg", (0.0, 0.0, 0.0))
        m[f"{side}_ankle"] = (f"{joint}Foot", (0.0, 0.0, 0.0))
        # heel: 6 cm behind and 7 cm below the ankle on a flat foot; toe tip: 4 cm past the ball
        m[f"{side}_heel"] = (f"{joint}Foot", (-0.028, -0.088, 0.0))
        m[f"{side}_foot_index"] = (f"{joint}Toe", (0.04, -0.01, 0.0))
    return {name: m[name] for name in NAMES}


MARKERS = _markers()


def marker_positions(motion: Motion) -> np.ndarray:
    """World positions [m] of the 33 markers on a LAFAN1-rigged motion. Shape: (T, 33, 3)."""
    joints = [motion.index(MARKERS[n][0]) for n in NAMES]
    offsets = np.array([MARKERS[n][1] for n in NAMES])
    return motion.positions[:, joints] + quat_rotate(motion.rotations[:, joints], offsets[None])


__all__ = ["INDEX", "MARKERS", "MP_TO_WORLD", "NAMES", "NUM_LANDMARKS", "marker_positions"]
