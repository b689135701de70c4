"""Calibrate a mapping: per-body scales and rotation offsets from rest poses.

GMR's users hand-tune scale tables and offsets. Here they are derived:

1. The robot's rest pose is its zero-joint configuration, root upright at the origin.
2. The source's rest pose is its most neutral standing frame (limb segments hanging down, root
   still), faced like the robot, then *posture transfer*: every mapped source segment
   (a mapped body to its nearest mapped descendant, or to its first child joint when the robot
   body's own geometry shows where its segment points) is swung onto the robot segment's
   direction, so that e.g. a T-posed robot and an arms-down human are compared in one posture.
3. Rotation offset of each pair = q_source^-1 q_robot in that common posture, snapped to the
   nearest of the 24 axis-aligned rotations when within ``snap_deg`` (joint frames of rigs and
   robots are axis-aligned with each other in a common posture; snapping removes the noise of
   an imperfect rest frame).
4. Scale of each body = least-squares ratio of its offset from the root, robot over source; the
   root's scale is the ratio of root heights above the floor; a body within 5 cm of the root
   (on either side) takes the root's scale.

5. Position offset of each body = what its scale leaves unexplained, in the target's own frame,
   so that at rest every target lies on its robot body (a robot's thigh link may sit 20 cm down
   the thigh, where a human hip joint is not).

Weights come from the template mapping unchanged.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import mujoco
import numpy as np

from ..errors import MappingError
from ..motion.motion import Motion, forward_kinematics
from ..robots.geometry import collision_geoms, lowest_point_all
from ..robots.robot import Robot
from ..transforms import axis_angle_to_quat, quat_angle, quat_conj, quat_mul, quat_normalize, quat_rotate
from .mapping import BodyTask, Mapping


def _grid_rotations() -> np.ndarray:
    """The 24 rotations that map coordinate axes onto coordinate axes, as quaternions (24, 4)."""
    from ..transforms import mat_to_quat

    mats = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1.0, -1.0), repeat=3):
            m = np.zeros((3, 3))
            for i, (p, s) in enumerate(zip(perm, signs)):
                m[i, p] = s
            if np.linalg.det(m) > 0:
                mats.append(m)
    return mat_to_quat(np.array(mats))


GRID = _grid_rotations()
MIN_SCALE_LENGTH = 0.25  # [m] bodies nearer the root than this take the root's scale


def snap_rotation(q: np.ndarray, max_deg: float) -> tuple[np.ndarray, float]:
    """Nearest axis-aligned rotation to q and the angle [deg] to it; q itself when farther than max_deg."""
    ang = np.degrees(quat_angle(GRID, q[None]))
    i = int(np.argmin(ang))
    if ang[i] <= max_deg:
        return GRID[i].copy(), float(ang[i])
    return quat_normalize(q), float(ang[i])


def _grid_twist(q_src: np.ndarray, q_rob: np.ndarray, axis: np.ndarray, max_deg: float) -> np.ndarray:
    """Rotation about ``axis`` (world) to apply to q_src so that q_src^-1 q_rob becomes the nearest
    axis-aligned rotation reachable by a twist; identity when none is within max_deg of swing.

    For each grid rotation g the needed correction is D = q_rob g^-1 q_src^-1 (so that
    (D q_src)^-1 q_rob = g); its twist about the axis is applied, its swing is the residual."""
    u = axis / np.linalg.norm(axis)
    d = quat_mul(quat_mul(q_rob[None], quat_conj(GRID)), quat_conj(q_src)[None])  # (24, 4)
    d = quat_normalize(d)
    proj = (d[:, 1:] @ u)[:, None] * u[None]
    twist = np.concatenate([d[:, :1], proj], axis=1)
    tn = np.linalg.norm(twist, axis=1, keepdims=True)
    # a half turn about an axis across the segment has no twist part: identity there
    twist = quat_normalize(np.where(tn > 1e-12, twist, [1.0, 0.0, 0.0, 0.0]))
    swing_angle = np.degrees(quat_angle(d, twist))
    twist_angle = np.degrees(quat_angle(twist, np.array([[1.0, 0.0, 0.0, 0.0]])))
    ok = (swing_angle <= max_deg) & (twist_angle <= 90.0)
    if not ok.any():
        return np.array([1.0, 0.0, 0.0, 0.0])
    i = int(np.argmin(np.where(ok, swing_angle + 0.1 * twist_angle, np.inf)))
    return twist[i]


def _swing(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Minimal rotation (quaternion) taking direction a onto direction b."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b)
    axis = np.cross(a, b)
    s = np.linalg.norm(axis)
    c = float(np.dot(a, b))
    if s < 1e-12:
        if c > 0:
            return np.array([1.0, 0.0, 0.0, 0.0])
        perp = np.cross(a, [1.0, 0.0, 0.0] if abs(a[0]) < 0.9 else [0.0, 1.0, 0.0])
        return axis_angle_to_quat(perp / np.linalg.norm(perp), np.pi)
    return axis_angle_to_quat(axis / s, np.arctan2(s, c))


@dataclass(frozen=True)
class Calibration:
    """What calibrate measured (for reports and tests).

    Attributes:
        frame: source frame used as the rest pose.
        yaw: rotation about z [rad] that faced the source like the robot.
        snap_deg: per robot body, angle [deg] between the measured offset and the grid rotation used
            (above the threshold, the measured offset was kept).
        stature: the source's stature [m] (Motion.stature), stored as human_height_assumption.
    """

    frame: int
    yaw: float
    snap_deg: dict[str, float]
    stature: float


def _pairs(template: Mapping) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for st in (template.stage1, template.stage2):
        for t in st:
            if (t.robot_body, t.source_body) not in out:
                out.append((t.robot_body, t.source_body))
    return out


def _robot_rest(robot: Robot, pose: str = "zero") -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """Body positions, rotations, floor height and qpos of the robot's rest pose (root upright at
    its rest position)."""
    q = robot.model.qpos0.copy() if pose == "zero" else robot.rest_qpos()
    q[3:7] = [1.0, 0.0, 0.0, 0.0]
    rest = robot.fk(q)
    floor = float(lowest_point_all(robot, q)[0])
    return rest.positions[0], rest.rotations[0], floor, q


def _robot_distal_point(robot: Robot, body: str, rest_pos: np.ndarray, q: np.ndarray) -> np.ndarray | None:
    """Farthest collision-geom centre of a body at rest (where its segment points), if any."""
    geoms = collision_geoms(robot, body)
    if len(geoms) == 0:
        return None
    robot.data.qpos[:] = q
    mujoco.mj_kinematics(robot.model, robot.data)
    centres = robot.data.geom_xpos[geoms]
    d = np.linalg.norm(centres - rest_pos[robot.body_id(body)], axis=1)
    if d.max() < 0.05:
        return None
    return centres[int(np.argmax(d))].copy()


def _segments(
    template: Mapping, motion: Motion, robot: Robot, rest_pos: np.ndarray, rest_q: np.ndarray
) -> list[tuple[str, int, np.ndarray]]:
    """Segments to align: (source joint to swing, source joint or body index it points to, robot direction)."""
    pairs = _pairs(template)
    src_of = {s: r for r, s in pairs}
    sk = motion.skeleton
    out = []
    for r, s in pairs:
        if s == template.source_root or s not in sk.names:
            continue  # the root is faced by the yaw; virtual bodies are not joints
        j = sk.index(s)
        # nearest mapped descendants of j in the skeleton
        mapped_desc = []
        stack = sk.children(j)
        while stack:
            c = stack.pop()
            name = sk.names[c]
            if name in src_of:
                mapped_desc.append(c)
            else:
                stack.extend(sk.children(c))
        # virtual bodies whose position joint is a descendant also count (e.g. FootMod = Foot position)
        if len(mapped_desc) == 1:
            c = mapped_desc[0]
            d = rest_pos[robot.body_id(src_of[sk.names[c]])] - rest_pos[robot.body_id(r)]
            out.append((s, c, d))
        elif not mapped_desc:
            virt = [b for b in src_of if b not in sk.names and b in motion.body_names]
            hit = None
            for v in virt:
                vi = motion.index(v)
                # a virtual body positioned at a child joint of j
                for c in sk.children(j):
                    if np.allclose(motion.positions[:, vi], motion.positions[:, c]):
                        hit = (c, v)
            if hit is not None:
                c, v = hit
                d = rest_pos[robot.body_id(src_of[v])] - rest_pos[robot.body_id(r)]
                out.append((s, c, d))
                continue
            # the child the segment runs to: the farthest one (rigs hang zero-length twist and
            # share bones beside the next limb joint, e.g. iClone's ForearmTwist01 beside Hand)
            children = sorted(sk.children(j), key=lambda c: -float(np.linalg.norm(motion.local_positions[0, c])))
            tip = _robot_distal_point(robot, r, rest_pos, rest_q)
            if children and tip is not None and np.linalg.norm(motion.local_positions[0, children[0]]) > 1e-3:
                out.append((s, children[0], tip - rest_pos[robot.body_id(r)]))
    return out


def rest_frame(motion: Motion, segments: list[tuple[int, int]]) -> int:
    """The most neutral standing frame: the sum of the angles [rad] between each limb segment
    (joint a to joint b) and straight down, plus the root's horizontal speed [m/s], is smallest."""
    score = np.zeros(motion.num_frames)
    down = np.array([0.0, 0.0, -1.0])
    for a, b in segments:
        v = motion.positions[:, b] - motion.positions[:, a]
        cos = (v @ down) / (np.linalg.norm(v, axis=1) + 1e-12)
        score += np.arccos(np.clip(cos, -1.0, 1.0))
    root = motion.positions[:, 0, :2]
    if motion.num_frames > 1:
        score += np.linalg.norm(np.gradient(root, axis=0), axis=1) * motion.fps
    return int(np.argmin(score))


def _facing_yaw(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Yaw angles [rad] rotating horizontal point sets src (T, N, 2) onto dst (N, 2) (2-D Kabsch)."""
    a = np.sum(src[..., 0] * dst[:, 0] + src[..., 1] * dst[:, 1], axis=-1)
    b = np.sum(src[..., 0] * dst[:, 1] - src[..., 1] * dst[:, 0], axis=-1)
    return np.arctan2(b, a)


def calibrate(
    template: Mapping,
    motion: Motion,
    robot: Robot,
    *,
    frame: int | None = None,
    snap_deg: float = 35.0,
    position_offsets: bool = False,
    robot_pose: str = "zero",
    uniform_scale: bool = False,
) -> tuple[Mapping, Calibration]:
    """Scales and rotation offsets of ``template`` derived from the motion's and the robot's rest poses.

    frame: the source frame to use as rest pose; None picks the most neutral standing frame
    (see rest_frame). snap_deg [deg]: largest residual snapped to an axis-aligned offset.
    position_offsets: derive each body's position offset (False keeps the template's).
    robot_pose: the robot's rest pose: "zero" (all joints at 0: humanoids stand straight there) or
    "rest" (its standing keyframe: quadrupeds' zero pose is not a standing one).
    uniform_scale: one scale for every body, the root's (a body scale, as for animals).
    A template over canonical landmark names (mapping/landmarks.py) is first renamed to the
    motion's recognised joints. Returns the calibrated mapping and what was measured.
    """
    from .landmarks import over_rig

    template = over_rig(template, motion)  # a template over landmark names: the rig's joints
    template.check(motion, robot, where="calibration template")
    pairs = _pairs(template)
    if robot_pose not in ("zero", "rest"):
        raise MappingError(f"robot_pose must be 'zero' or 'rest', got {robot_pose!r}")
    rest_pos, rest_rot, floor_r, rest_q = _robot_rest(robot, robot_pose)
    root_pair = next((r for r, s in pairs if s == template.source_root), None)
    if root_pair is None:
        raise MappingError(f"calibration needs a robot body mapped to the source root {template.source_root!r}")
    r_root = robot.body_id(root_pair)
    segs = _segments(template, motion, robot, rest_pos, rest_q)

    # Facing: yaw that best maps the source's root-relative horizontal layout onto the robot's.
    names = [s for _, s in pairs]
    idx = [motion.index(s) for s in names]
    rel_src = motion.positions[:, idx, :2] - motion.body(template.source_root)[0][:, None, :2]
    rel_dst = np.array([rest_pos[robot.body_id(r), :2] - rest_pos[r_root, :2] for r, _ in pairs])
    yaws = _facing_yaw(rel_src, rel_dst)

    sk = motion.skeleton
    if frame is None:
        frame = rest_frame(motion, [(sk.index(s), c) for s, c, _ in segs])
    if not 0 <= frame < motion.num_frames:
        raise MappingError(f"calibration frame {frame} is outside the clip (0..{motion.num_frames - 1})")
    yaw = float(yaws[frame])

    # Posture transfer on the chosen frame.
    local_rot = motion.local_rotations[frame : frame + 1].copy()
    local_pos = motion.local_positions[frame : frame + 1].copy()
    qyaw = axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), np.array(yaw))
    local_rot[0, 0] = quat_mul(qyaw, local_rot[0, 0])
    local_pos[0, 0] = quat_rotate(qyaw, local_pos[0, 0])
    robot_of = {s: r for r, s in pairs}
    for s, c, d in sorted(segs, key=lambda x: sk.index(x[0])):
        j = sk.index(s)
        gpos, grot = forward_kinematics(sk, local_rot, local_pos)
        new_global = quat_mul(_swing(gpos[0, c] - gpos[0, j], d), grot[0, j])
        # Twist about the segment: the one that makes the offset axis-aligned, if one is near.
        new_global = quat_mul(_grid_twist(new_global, rest_rot[robot.body_id(robot_of[s])], d, snap_deg), new_global)
        parent = sk.parents[j]
        local_rot[0, j] = quat_mul(quat_conj(grot[0, parent]), new_global) if parent >= 0 else new_global
    rest = Motion.from_local(
        sk,
        motion.fps,
        local_rot,
        local_pos,
        virtual={b: _virtual_source(motion, b) for b in motion.body_names[sk.num_joints :]} or None,
        family=motion.family,
        source=motion.source,
        preset=motion.preset,
    )

    # Offsets and scales.
    snapped: dict[str, float] = {}
    offsets: dict[tuple[str, str], np.ndarray] = {}
    for r, s in pairs:
        q_src = rest.rotations[0, rest.index(s)]
        q_rob = rest_rot[robot.body_id(r)]
        offsets[(r, s)], snapped[r] = snap_rotation(quat_mul(quat_conj(q_src), q_rob), snap_deg)
    src_root = rest.positions[0, rest.index(template.source_root)]
    floor_s = float(rest.positions[0, :, 2].min())
    scales = {template.source_root: float((rest_pos[r_root, 2] - floor_r) / (src_root[2] - floor_s))}
    for r, s in pairs:
        if s == template.source_root:
            continue
        v_s = rest.positions[0, rest.index(s)] - src_root
        v_r = rest_pos[robot.body_id(r)] - rest_pos[r_root]
        if uniform_scale or min(np.linalg.norm(v_s), np.linalg.norm(v_r)) < MIN_SCALE_LENGTH:
            scales[s] = scales[template.source_root]  # too close to the root to measure a ratio
        else:
            scales[s] = max(float(v_s @ v_r / (v_s @ v_s)), 1e-3)

    # Position offsets: what the scale cannot explain, in the target's own frame, so that at rest
    # every target sits exactly on its robot body (relative to the root target).
    pos_offsets: dict[tuple[str, str], np.ndarray] = {}
    for r, s in pairs:
        if s == template.source_root or not position_offsets:
            pos_offsets[(r, s)] = np.zeros(3)
            continue
        v_s = rest.positions[0, rest.index(s)] - src_root
        v_r = rest_pos[robot.body_id(r)] - rest_pos[r_root]
        q_t = quat_mul(rest.rotations[0, rest.index(s)], offsets[(r, s)])
        pos_offsets[(r, s)] = np.round(quat_rotate(quat_conj(q_t), v_r - scales[s] * v_s), 6)

    def fix(stage: tuple[BodyTask, ...]) -> tuple[BodyTask, ...]:
        out = []
        for t in stage:
            key = (t.robot_body, t.source_body)
            po = pos_offsets[key] if position_offsets else t.position_offset
            out.append(replace(t, rotation_offset=offsets[key], position_offset=po))
        return tuple(out)

    stature = motion.stature()
    mapping = replace(
        template,
        scales=scales,
        stage1=fix(template.stage1),
        stage2=fix(template.stage2),
        human_height_assumption=round(stature, 4),
    )
    return mapping, Calibration(frame=frame, yaw=yaw, snap_deg=snapped, stature=stature)


def _virtual_source(motion: Motion, body: str) -> tuple:  # type: ignore[type-arg]
    """(position joint, orientation joint[, offset]) of a virtual body: the motion's own
    definition, else its preset's."""
    from ..motion.presets import PRESETS

    if body in motion.virtual:
        return tuple(motion.virtual[body])

    preset = PRESETS.get(motion.preset)
    if preset is None or body not in preset.virtual:
        raise MappingError(f"virtual body {body!r} of {motion.source} has no definition in preset {motion.preset}")
    return preset.virtual[body]
