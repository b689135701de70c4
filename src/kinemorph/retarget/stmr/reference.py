"""The spatial stage's initial reference: unit-vector keypoints, then unconstrained IK.

Unit-vector method (Yoon et al., T-RO 2025, Sec. IV): each robot keypoint is its parent's plus
the source's direction between the corresponding points, scaled by the robot's own link length.
16 keypoints, per leg (FL FR RL RR): hip, thigh, knee (calf body), foot. The chain's root is the
base, placed by the quadruped planner's trunk frame (base at the leg roots' centre, heading from
hips to shoulders, levelled, at the robot's standing height): hips and thighs are rigid in it.
The source leg (root joint ... paw joint) has more joints than the robot's (a dog's hind leg has
a hock); its knee is the first joint below the leg root, and the robot foot follows the
direction from the source knee to the paw. Legs of other proportions put the feet above or
below the floor: each leg's knee and foot keypoints are shifted up or down by one height that puts
its planted feet (median over the stances) on the floor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...motion.motion import Motion
from ...robots.robot import Robot
from ...transforms import quat_to_mat
from ..quadruped.config import QuadrupedConfig
from ..quadruped.planner import RobotLegs, plan
from ..settings import StageTasks
from ..solve import solve_sequence
from .config import StmrConfig
from .contacts_file import read_contacts
from .landing import ease_swings
from .stance import complete_contacts

PARTS = ("hip", "thigh", "knee", "foot")


@dataclass(frozen=True)
class LegChains:
    """The robot's 16 keypoint bodies and link lengths.

    Attributes:
        bodies: body names per leg and part (hip, thigh, calf, foot). Shape: (4, 4).
        offsets: hip and thigh body positions in the base frame at rest [m]. Shape: (4, 2, 3).
        lengths: thigh-to-knee and knee-to-foot lengths [m]. Shape: (4, 2).
    """

    bodies: tuple[tuple[str, ...], ...]
    offsets: np.ndarray
    lengths: np.ndarray

    @classmethod
    def of(cls, robot: Robot) -> LegChains:
        q = robot.rest_qpos()
        q[:3] = 0.0
        q[3:7] = [1.0, 0.0, 0.0, 0.0]
        pos = robot.fk(q).positions[0]
        m = robot.model
        bodies, offsets, lengths = [], np.zeros((4, 2, 3)), np.zeros((4, 2))
        for leg, (_, foot) in enumerate(robot.legs):
            chain = [robot.body_id(foot)]
            while len(chain) < 4:
                chain.append(int(m.body_parentid[chain[-1]]))
            hip, thigh, calf, ft = chain[::-1]
            bodies.append(tuple(m.body(b).name for b in (hip, thigh, calf, ft)))
            offsets[leg] = pos[[hip, thigh]]
            lengths[leg] = np.linalg.norm(pos[calf] - pos[thigh]), np.linalg.norm(pos[ft] - pos[calf])
        return cls(tuple(bodies), offsets, lengths)


@dataclass(frozen=True)
class Reference:
    """The unconstrained reference of the spatial stage.

    Attributes:
        keypoints: unit-vector keypoints per frame, leg and part [m]. Shape: (T, 4, 4, 3).
        base_pos: base position targets [m]. Shape: (T, 3).
        base_quat: base orientation targets, wxyz. Shape: (T, 4).
        qpos: unconstrained IK solution. Shape: (T, nq).
        contacts: detected contacts (from the source), FL FR RL RR. Shape: (T, 4) bool.
        chains: the robot's keypoint bodies.
        foot_height: foot body height above the floor when it rests on it [m]. Shape: (4,).
    """

    keypoints: np.ndarray
    base_pos: np.ndarray
    base_quat: np.ndarray
    qpos: np.ndarray
    contacts: np.ndarray
    chains: LegChains
    foot_height: np.ndarray


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-9)


def source_chain(motion: Motion, root: str, paw: str) -> list[str]:
    """Body names from a leg's root down to its paw (inclusive); [root, paw] when the paw is not
    below the root in the skeleton (keypoint files have no tree). A virtual paw (an End Site below
    the leg's last joint, ``Motion.virtual``) hangs below the joint that gives its position."""
    sk = motion.skeleton
    names = list(sk.names)
    chain = [paw]
    if paw in motion.virtual:
        chain.append(str(motion.virtual[paw][0]))
    while chain[-1] != root:
        if chain[-1] not in names:
            return [root, paw]
        p = int(sk.parents[names.index(chain[-1])])
        if p < 0:
            return [root, paw]
        chain.append(names[p])
    return chain[::-1]


def unit_vector_keypoints(motion: Motion, robot: Robot, base_pos: np.ndarray, rot: np.ndarray) -> np.ndarray:
    """Keypoints (T, 4, 4, 3) from the source's leg directions and the robot's link lengths, with the
    base at ``base_pos`` (T, 3) and orientation matrices ``rot`` (T, 3, 3)."""
    chains = LegChains.of(robot)
    t = motion.num_frames
    out = np.zeros((t, 4, 4, 3))
    for leg, (root, paw) in enumerate(motion.legs):
        chain = source_chain(motion, root, paw)
        knee_src = motion.body(chain[1])[0] if len(chain) > 2 else 0.5 * (motion.body(root)[0] + motion.body(paw)[0])
        root_src, paw_src = motion.body(root)[0], motion.body(paw)[0]
        for part in range(2):  # hip, thigh: rigid in the trunk frame
            out[:, leg, part] = base_pos + np.einsum("tij,j->ti", rot, chains.offsets[leg, part])
        out[:, leg, 2] = out[:, leg, 1] + chains.lengths[leg, 0] * _unit(knee_src - root_src)
        out[:, leg, 3] = out[:, leg, 2] + chains.lengths[leg, 1] * _unit(paw_src - knee_src)
    return out


def build_reference(motion: Motion, robot: Robot, cfg: StmrConfig) -> Reference:
    """Base from the planner's trunk frame, unit-vector keypoints, unconstrained IK for every frame."""
    p = plan(motion, robot, QuadrupedConfig())
    contacts = complete_contacts(motion, p.contacts)
    n = motion.num_frames
    rot = quat_to_mat(p.base_quat)
    keys = unit_vector_keypoints(motion, robot, p.base_pos, rot)
    chains = LegChains.of(robot)
    foot_height = RobotLegs.measure(robot).foot_radius
    for leg in range(4):  # legs of other proportions: planted feet calibrated onto the floor
        planted = contacts[:, leg] if contacts[:, leg].any() else np.ones(n, dtype=bool)
        lift = float(np.median(keys[planted, leg, 3, 2])) - foot_height[leg]
        keys[:, leg, 2:, 2] -= lift
    if cfg.swing_ease:  # swings that leave and land with no horizontal speed (the schedule the stages use)
        schedule = read_contacts(cfg.contacts, n) if cfg.contacts else contacts
        keys[:, :, 2:] = ease_swings(keys[:, :, 2:], schedule, hold=cfg.swing_hold)
    weights = {"hip": cfg.hip_weight, "thigh": cfg.hip_weight, "knee": cfg.knee_weight, "foot": cfg.foot_weight}
    tasks = [(robot.root_body_id, cfg.base_position_weight, cfg.base_rotation_weight)]
    targets = np.zeros((n, 1, 17, 7))
    targets[:, 0, 0, :3] = p.base_pos
    targets[:, 0, 0, 3:] = p.base_quat
    k = 1
    for leg in range(4):
        for part, name in enumerate(PARTS):
            tasks.append((robot.body_id(chains.bodies[leg][part]), weights[name], 0.0))
            targets[:, 0, k, :3] = keys[:, leg, part]
            targets[:, 0, k, 3] = 1.0
            k += 1
    rest = robot.rest_qpos()
    posture = np.zeros(robot.nv)
    posture[6:] = cfg.posture_weight
    init = rest.copy()
    init[:3], init[3:7] = p.base_pos[0], p.base_quat[0]
    sol = solve_sequence(
        robot, [StageTasks.of(tasks)], targets, init, settings=cfg, fps=motion.fps, posture=(posture, rest)
    )
    return Reference(keys, p.base_pos, p.base_quat, sol.qpos, contacts, chains, foot_height)
