"""What the gait needs of each robot: the pelvis body, how low it walks, where its soles are, and
which of its joints the style's upper-body curves drive.

Styles name upper-body joints robot-independently (style.UPPER_BODY_JOINTS); each biped's registry entry
(kinemorph.robots.gait_info) maps them onto its's joints with a sign, so that, e.g., a positive shoulder_pitch swings
the arm forward on every robot (checked through forward kinematics in the tests). A curve is an
offset from the robot's rest pose; a joint a robot lacks is skipped.

The soles are measured from the robot's collision geometry at its rest pose: the sole point lies
below the foot body's origin at the height of the foot's lowest point, the sole frame is level
with the foot's heading, and the heel and toe points are the back and front of the foot's geoms.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ..errors import ConfigError
from ..robots.gait_info import GaitRobotInfo
from ..robots.geometry import collision_geoms, lowest_points
from ..robots.registry import KNOWN_ROBOTS
from ..robots.robot import Robot
from ..transforms import quat_conj, quat_mul, quat_rotate, quat_to_mat, yaw_quat
from .footsteps import GaitBody
from .style import UPPER_BODY_JOINTS

GAIT_ROBOTS: dict[str, GaitRobotInfo] = {name: info.gait for name, info in KNOWN_ROBOTS.items() if info.gait}
"""Gait settings of the known bipeds (from their registry entries); any other two-footed robot
walks with its root as the pelvis, a crouch of 8% of its standing pelvis height and no upper-body
curves."""


@dataclass(frozen=True)
class RobotGait:
    """A robot measured for walking.

    Attributes:
        body: the planner's view of it (standing geometry, sole shape).
        pelvis_body: body driven by r(t)'s pelvis pose.
        feet: foot bodies, left then right (the registry's).
        sole_pos: sole point in each foot body's frame [m]. Shape: (2, 3).
        sole_rot: sole frame in each foot body's frame, wxyz. Shape: (2, 4).
        joints: robot joint index (into dof_names) per mapped style joint. Shape: (J,).
        columns: index into style.UPPER_BODY_JOINTS per mapped joint. Shape: (J,).
        signs: sign per mapped joint. Shape: (J,).
        base: rest value per mapped joint [rad]. Shape: (J,).
    """

    body: GaitBody
    pelvis_body: str
    feet: tuple[str, str]
    sole_pos: np.ndarray
    sole_rot: np.ndarray
    joints: np.ndarray
    columns: np.ndarray
    signs: np.ndarray
    base: np.ndarray


def robot_gait_info(robot: Robot) -> GaitRobotInfo:
    """The table entry of a known biped, or defaults (root as pelvis, no upper-body map)."""
    if len(robot.feet) != 2:
        raise ConfigError(
            f"robot {robot.name}: gaits need a biped with two feet, it has {len(robot.feet)} "
            f"({', '.join(robot.feet) or 'none found'}); known bipeds: {', '.join(GAIT_ROBOTS)}"
        )
    if robot.name in GAIT_ROBOTS:
        return GAIT_ROBOTS[robot.name]
    return GaitRobotInfo(pelvis_body=robot.root_body, crouch=float("nan"))


def _foot_extent(robot: Robot, foot: str, to_sole: np.ndarray) -> np.ndarray:
    """x range and largest |y| of a foot's collision geoms in its sole frame: (heel, toe, half width).
    to_sole: (R (3, 3), p (3,)) stacked as 3x4, mapping foot-body coordinates to sole coordinates."""
    m = robot.model
    corners = []
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], dtype=float)
    for g in collision_geoms(robot, foot):
        centre, half = m.geom_aabb[g, :3], m.geom_aabb[g, 3:]
        local = centre + signs * half  # (8, 3) in the geom frame
        corners.append(m.geom_pos[g] + quat_rotate(m.geom_quat[g], local))
    if not corners:
        raise ConfigError(f"robot {robot.name}: foot {foot} has no collision geometry to find its sole from")
    pts = np.concatenate(corners) @ to_sole[:, :3].T + to_sole[:, 3]
    return np.array([pts[:, 0].min(), pts[:, 0].max(), np.abs(pts[:, 1]).max()])


def robot_gait(robot: Robot) -> RobotGait:
    """Measure a biped for walking (see the module docstring)."""
    info = robot_gait_info(robot)
    pelvis = robot.body_id(info.pelvis_body)
    feet = (robot.feet[0], robot.feet[1])
    rest = robot.rest_qpos()
    pose = robot.fk(rest)
    sole_z = lowest_points(robot, rest, feet)[0]  # (2,) world z of each foot's lowest point
    sole_pos, sole_rot, extents, soles_world = [], [], [], []
    for f, foot in enumerate(feet):
        b = robot.body_id(foot)
        p, q = pose.positions[0, b], pose.rotations[0, b]
        world = np.array([p[0], p[1], sole_z[f]])
        level = yaw_quat(q)
        rel_q = quat_mul(quat_conj(q), level)  # sole frame in the foot frame
        rel_p = quat_rotate(quat_conj(q), world - p)
        sole_pos.append(rel_p)
        sole_rot.append(rel_q)
        soles_world.append(world)
        r_sole = quat_to_mat(quat_conj(rel_q))  # foot-body coordinates -> sole coordinates
        extents.append(_foot_extent(robot, foot, np.concatenate([r_sole, (-r_sole @ rel_p)[:, None]], axis=1)))
    ext = np.array(extents)
    pelvis_p, pelvis_q = pose.positions[0, pelvis], pose.rotations[0, pelvis]
    in_pelvis = quat_rotate(quat_conj(yaw_quat(pelvis_q)), np.array(soles_world) - pelvis_p)  # (2, 3)
    standing = float(pelvis_p[2] - np.mean(sole_z))
    crouch = info.crouch if np.isfinite(info.crouch) else 0.08 * standing
    body = GaitBody(
        pelvis_height=standing - crouch,
        foot_spacing=float(in_pelvis[0, 1] - in_pelvis[1, 1]),
        foot_x=float(in_pelvis[:, 0].mean()),
        heel=float(min(ext[:, 0].max(), -0.01)),
        toe=float(max(ext[:, 1].min(), 0.01)),
        half_width=float(ext[:, 2].min()),
    )
    joints, columns, signs, base = [], [], [], []
    for c, name in enumerate(UPPER_BODY_JOINTS):
        if name not in info.upper:
            continue
        joint, sign = info.upper[name]
        if joint not in robot.dof_names:
            continue
        j = robot.dof_names.index(joint)
        joints.append(j)
        columns.append(c)
        signs.append(sign)
        base.append(rest[7 + j])
    return RobotGait(
        body=body,
        pelvis_body=info.pelvis_body,
        feet=feet,
        sole_pos=np.array(sole_pos),
        sole_rot=np.array(sole_rot),
        joints=np.array(joints, dtype=np.int64),
        columns=np.array(columns, dtype=np.int64),
        signs=np.array(signs),
        base=np.array(base),
    )


def gait_body(robot: Robot) -> GaitBody:
    """The planner's view of a biped (standing geometry and sole shape)."""
    return robot_gait(robot).body


def chain_joints(robot: Robot, root: int, body: int) -> list[int]:
    """Joint indices (into dof_names) on the path from ``root`` down to ``body``."""
    m = robot.model
    out = []
    b = body
    while b != root and b > 0:
        for j in range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b]):
            if int(m.jnt_type[j]) != int(mujoco.mjtJoint.mjJNT_FREE):
                out.append(int(np.nonzero(robot.joint_ids == j)[0][0]))
        b = int(m.body_parentid[b])
    return out
