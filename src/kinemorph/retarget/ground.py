"""Ground fit: put the robot's feet on the floor when the source's feet are on the floor.

GMR users report robots floating above or sinking into the floor (GMR shifts targets by a fixed
offset). Here the clip gets one vertical shift of the root: the median lowest point of the
robot's foot geometry over the frames where the mapped source foot is planted is moved to the
floor (z = 0). IK is translation-equivariant, so shifting the solution equals solving shifted
targets.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..mapping.mapping import Mapping
from ..motion.contacts import detect_contacts
from ..motion.motion import Motion
from ..robots.geometry import lowest_points
from ..robots.robot import Robot
from ..robots.robot_motion import Keypoints, RobotMotion


def source_foot_contacts(motion: Motion, mapping: Mapping, robot: Robot) -> np.ndarray:
    """Planted frames of the source body mapped onto each robot foot (T, F); a foot with no
    mapped source body gets the frames where it is lowest."""
    by_robot_body = {t.robot_body: t.source_body for st in mapping.stages for t in st}
    out = np.zeros((motion.num_frames, len(robot.feet)), dtype=bool)
    for f, foot in enumerate(robot.feet):
        src = by_robot_body.get(foot)
        if src is not None:
            out[:, f] = detect_contacts(motion.body(src)[0], motion.fps)
    return out


def ground_shift(motion: Motion, robot: Robot, mapping: Mapping, result: RobotMotion) -> float:
    """Vertical shift [m] that puts the robot's planted feet on the floor."""
    low = lowest_points(robot, result.qpos)  # (T, F)
    contacts = source_foot_contacts(motion, mapping, robot)
    if not contacts.any():
        # No mapped foot is ever planted (or none is mapped): use the lowest frames of each foot.
        contacts = low <= np.percentile(low, 10, axis=0, keepdims=True)
    return float(-np.median(low[contacts]))


def apply_ground_shift(result: RobotMotion, dz: float) -> RobotMotion:
    root = result.root_pos.copy()
    root[:, 2] += dz
    kp = result.keypoints
    if kp is not None:
        pos = kp.positions.copy()
        pos[..., 2] += dz
        kp = Keypoints(kp.robot_bodies, pos)
    return replace(result, root_pos=root, keypoints=kp, info={**result.info, "ground_shift_m": dz})
