"""Motion sources: skeletons, BVH reading and writing, presets."""

from .bvh import BvhData, parse_bvh, read_bvh
from .files import load_motion, save_bvh
from .keypoints import keypoint_motion, read_keypoints, save_keypoints
from .motion import Motion, forward_kinematics
from .presets import PRESETS, Preset, apply_preset, detect_preset
from .skeleton import EndSite, Skeleton

__all__ = [
    "PRESETS",
    "BvhData",
    "EndSite",
    "Motion",
    "Preset",
    "Skeleton",
    "apply_preset",
    "detect_preset",
    "forward_kinematics",
    "keypoint_motion",
    "load_motion",
    "parse_bvh",
    "read_bvh",
    "read_keypoints",
    "save_bvh",
    "save_keypoints",
]
