"""Per-frame pose targets from a motion and a mapping, for all frames at once.

GMR's recipe, vectorised over frames: positions are scaled about the source root (the root's
own position by the root's scale, every other body as root + s (p - root)), each orientation is
multiplied on the right by the task's rotation offset, and the position offset is added in the
rotated frame (GMR subtracts ground_height from that local offset). ``height_ratio`` multiplies
every scale (GMR: actual human height / human_height_assumption).
"""

from __future__ import annotations

import numpy as np

from ..mapping.mapping import BodyTask, Mapping
from ..motion.motion import Motion
from ..transforms import quat_mul, quat_rotate


def scaled_positions(motion: Motion, mapping: Mapping, *, height_ratio: float = 1.0) -> dict[str, np.ndarray]:
    """Scaled global positions (T, 3) [m] of every source body the mapping reads."""
    root = motion.body(mapping.source_root)[0]
    s_root = mapping.scales[mapping.source_root] * height_ratio
    scaled_root = s_root * root
    out = {mapping.source_root: scaled_root}
    for name in mapping.source_bodies()[1:]:
        p = motion.body(name)[0]
        out[name] = scaled_root + (p - root) * (mapping.scales[name] * height_ratio)
    return out


def stage_targets(
    motion: Motion,
    mapping: Mapping,
    stage: tuple[BodyTask, ...],
    *,
    height_ratio: float = 1.0,
    z_shift: float = 0.0,
    scaled: dict[str, np.ndarray] | None = None,
) -> np.ndarray:
    """Targets [x y z qw qx qy qz] of each task of a stage. Shape: (T, K, 7).

    z_shift [m] is added to every target height (GMR's ground offset, or kinemorph's ground fit).
    """
    if scaled is None:
        scaled = scaled_positions(motion, mapping, height_ratio=height_ratio)
    out = np.empty((motion.num_frames, len(stage), 7))
    ground = np.array([0.0, 0.0, mapping.ground_height])
    for k, task in enumerate(stage):
        q = quat_mul(motion.body(task.source_body)[1], task.rotation_offset)
        out[:, k, 3:] = q
        out[:, k, :3] = scaled[task.source_body] + quat_rotate(q, task.position_offset - ground)
        out[:, k, 2] += z_shift
    return out
