"""Natural-motion planner for quadrupeds: the whole clip is planned before any IK.

1. Trunk frame from the source's leg roots (trunk.py): base at their centre, heading from hips to
   shoulders, roll removed, mean pitch levelled, zero-phase low-pass.
2. Hip-relative feet: each foot target is the robot's own hip plus the animal's hip-to-paw offset
   (in the trunk frame, scaled per leg by the ratio of standing leg heights), with each stride
   centred under the hip (the offset's running mean over a gait cycle is replaced by the robot's
   own stance offset), so a longer animal trunk does not drag the legs out of stance.
3. Contacts from the source: a paw low and slow is planted, with hysteresis (motion/contacts.py).
4. Foot locking, after the spatial stage of STMR ("Spatio-Temporal Motion Retargeting for
   Quadruped Robots", T-RO 2025): a planted foot is held at one point on the floor; between two
   holds the swing carries it along a smoothstep, lifting before it moves and setting down after,
   with the source's (scaled) paw height and a minimum clearance above the floor. Feet never go
   below the floor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.ndimage import uniform_filter1d

from ...motion.contacts import contact_intervals, detect_contacts_hysteresis
from ...motion.motion import Motion
from ...robots.robot import Robot
from .config import QuadrupedConfig
from .trunk import TrunkFrame, trunk_from_roots


@dataclass(frozen=True)
class RobotLegs:
    """What the planner needs of the robot, measured at its rest keyframe (base upright at the origin).

    Attributes:
        hip_offsets: hip positions in the base frame [m]. Shape: (4, 3).
        foot_offsets: stance foot positions relative to their hip, in the base frame [m]. Shape: (4, 3).
        foot_radius: height of each foot body above the floor when its foot rests on it [m]. Shape: (4,).
        base_height: base height above the floor when standing at rest [m].
        leg_heights: hip height above the floor at rest [m]. Shape: (4,).
        reach: longest hip-to-foot distance a leg can take, the sum of its link lengths [m]. Shape: (4,).
    """

    hip_offsets: np.ndarray
    foot_offsets: np.ndarray
    foot_radius: np.ndarray
    base_height: float
    leg_heights: np.ndarray
    reach: np.ndarray

    @classmethod
    def measure(cls, robot: Robot) -> RobotLegs:
        from ...robots.geometry import lowest_points

        q = robot.rest_qpos()
        q[:3] = 0.0
        q[3:7] = [1.0, 0.0, 0.0, 0.0]
        pose = robot.fk(q)
        pos = pose.positions[0]
        hips = np.array([pos[robot.body_id(h)] for h, _ in robot.legs])
        feet = np.array([pos[robot.body_id(f)] for _, f in robot.legs])
        low = lowest_points(robot, q, tuple(f for _, f in robot.legs))[0]
        radius = feet[:, 2] - low
        floor = float(low.mean())
        reach = np.zeros(4)
        for leg, (hip, foot) in enumerate(robot.legs):  # sum of link lengths along the chain
            b, prev = robot.body_id(foot), pos[robot.body_id(foot)]
            while b != robot.body_id(hip):
                b = int(robot.model.body_parentid[b])
                reach[leg] += np.linalg.norm(prev - pos[b])
                prev = pos[b]
        return cls(
            hip_offsets=hips,
            foot_offsets=feet - hips,
            foot_radius=radius,
            base_height=float(-floor),
            leg_heights=hips[:, 2] - floor,
            reach=reach,
        )


@dataclass(frozen=True)
class QuadrupedPlan:
    """Planned targets for the whole clip.

    Attributes:
        base_pos: base position targets [m]. Shape: (T, 3).
        base_quat: base orientation targets, wxyz. Shape: (T, 4).
        feet: foot body position targets [m], legs FL, FR, RL, RR. Shape: (T, 4, 3).
        contacts: planted frames per foot (from the source). Shape: (T, 4) bool.
        raw_trunk: the unfiltered trunk frame of the source (for reports).
        leg_scale: per-leg scale from the source's to the robot's leg height. Shape: (4,).
    """

    base_pos: np.ndarray
    base_quat: np.ndarray
    feet: np.ndarray
    contacts: np.ndarray
    raw_trunk: TrunkFrame
    leg_scale: np.ndarray


def trapezoid_progress(x: np.ndarray, ramp: float = 0.25) -> np.ndarray:
    """Progress in [0, 1] along a move whose speed ramps up over the first ``ramp`` of the time,
    stays constant, and ramps down over the last ``ramp``: zero speed at both ends and a peak speed
    only 1/(1 - ramp) times the mean (a smoothstep peaks at 1.5 times the mean). x in [0, 1]."""
    x = np.clip(x, 0.0, 1.0)
    area = 1.0 - ramp
    return np.where(
        x < ramp,
        x * x / (2.0 * ramp) / area,
        np.where(x > 1.0 - ramp, 1.0 - (1.0 - x) ** 2 / (2.0 * ramp) / area, (x - 0.5 * ramp) / area),
    )


def _smoothstep(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


FLOOR_SPREAD = 0.05
"""[m] A paw's floor is at most this far above its partner's (paw_floors), whatever the leg's size."""
FLOOR_SHARE = 0.3
"""Share of a leg's height (its root above the lowest paw's floor) its paw's floor may be above that floor."""


def paw_floors(paws: np.ndarray, roots: np.ndarray | None = None) -> np.ndarray:
    """Each paw's floor level (F,) [m] from paw trajectories (T, F, 3) and the leg roots' (T, F, 3).

    A paw's floor is its 5th-percentile height (paws, not the world origin, say where the ground
    is: paw joints sit at different heights above their soles; an elephant rig's front legs end at
    the wrist, 22 cm above the floor its hind toes stand on), but a paw held up through the whole
    clip is not planted in the air: with four legs (FL FR RL RR) its floor is at most
    ``FLOOR_SPREAD`` above its partner's (FL-FR, RL-RR), and at most the larger of
    ``FLOOR_SPREAD`` and ``FLOOR_SHARE`` of its leg's height (without roots: ``FLOOR_SPREAD``)
    above the lowest paw's floor."""
    floors = np.percentile(paws[:, :, 2], 5, axis=0)
    low = float(floors.min())
    if floors.shape[0] == 4:
        floors = np.minimum(floors, floors[[1, 0, 3, 2]] + FLOOR_SPREAD)
    cap = np.full(floors.shape, FLOOR_SPREAD)
    if roots is not None:
        cap = np.maximum(cap, FLOOR_SHARE * (np.median(roots[:, :, 2], axis=0) - low))
    return np.minimum(floors, low + cap)


def source_contacts(
    paws: np.ndarray, fps: float, cfg: QuadrupedConfig, roots: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(contacts (T, 4) bool, per-paw floor level (4,) [m] of paw_floors) from paw trajectories
    (T, 4, 3) and, for the legs' size, the leg roots' (T, 4, 3)."""
    floors = paw_floors(paws, roots)
    contacts = np.zeros(paws.shape[:2], dtype=bool)
    for leg in range(4):
        contacts[:, leg] = detect_contacts_hysteresis(
            paws[:, leg], fps, floor=float(floors[leg]),
            enter_height=cfg.contact_enter_height, exit_height=cfg.contact_exit_height,
            enter_speed=cfg.contact_enter_speed, exit_speed=cfg.contact_exit_speed, min_stance=2,
        )  # fmt: skip
    return contacts, floors


def lock_feet(feet: np.ndarray, contacts: np.ndarray, floor_z: np.ndarray, *, max_swing: int) -> np.ndarray:
    """Hold each planted foot at one point (its stance's mean position, at floor_z (4,)) and carry it
    between consecutive holds during the swing. feet: (T, 4, 3). Returns new targets.

    A swing of at most ``max_swing`` frames moves horizontally with a trapezoidal speed profile
    (trapezoid_progress: the lowest peak speed for a smooth start and stop) from its first frame
    (lifted in place above the last hold) to its last (hanging above the next hold), so a foot near
    the floor never slides. A longer gap (contacts missed, or the paw really in the air that long) follows the
    source, with the correction easing from the previous hold's to the next one's. Before the
    first and after the last stance the feet follow the source, shifted by that stance's
    correction. Heights are set by the caller."""
    out = feet.copy()
    for leg in range(feet.shape[1]):
        stances = contact_intervals(contacts[:, leg])
        if not stances:
            continue
        points = []
        for a, b in stances:
            point = feet[a:b, leg].mean(axis=0)
            point[2] = floor_z[leg]
            out[a:b, leg] = point
            points.append(point)
        first, last = stances[0], stances[-1]
        out[: first[0], leg] = feet[: first[0], leg] + (points[0] - feet[first[0], leg])
        out[last[1] :, leg] = feet[last[1] :, leg] + (points[-1] - feet[last[1] - 1, leg])
        for k in range(len(stances) - 1):
            b, a_next = stances[k][1], stances[k + 1][0]
            n = a_next - b
            # first swing frame lifts in place, last one hangs above the next hold
            w = trapezoid_progress(np.arange(n) / max(n - 1, 1))[:, None]
            if n <= max_swing:
                out[b:a_next, leg, :2] = (1.0 - w) * points[k][:2] + w * points[k + 1][:2]
            else:
                before = points[k][:2] - feet[b - 1, leg, :2]
                after = points[k + 1][:2] - feet[a_next, leg, :2]
                out[b:a_next, leg, :2] = feet[b:a_next, leg, :2] + (1.0 - w) * before + w * after
    return out


def clamp_reach(feet: np.ndarray, hips: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """Pull each foot target horizontally toward its hip where it lies farther than reach (4,) [m]."""
    out = feet.copy()
    d = feet - hips
    dz2 = d[..., 2] ** 2
    horiz = np.linalg.norm(d[..., :2], axis=-1)
    allowed = np.sqrt(np.maximum(reach[None] ** 2 - dz2, 0.0))
    shrink = np.where(horiz > allowed, allowed / np.maximum(horiz, 1e-12), 1.0)
    out[..., :2] = hips[..., :2] + d[..., :2] * shrink[..., None]
    return out


def swing_clearance(contacts: np.ndarray, lift: float, clearance: float, ramp: float) -> np.ndarray:
    """Least height above the floor of each swinging foot [m]: ``lift`` on every swing frame (off the
    floor from the first frame: a lifted foot is not a sliding one), rising to ``clearance`` within
    ``ramp`` of the swing's length after liftoff and falling before touchdown; 0 in stance.
    contacts: (T, 4). Returns (T, 4)."""
    prof = np.zeros(contacts.shape)
    for leg in range(contacts.shape[1]):
        for a, b in contact_intervals(~contacts[:, leg]):
            n = b - a
            phase = (np.arange(n) + 0.5) / n
            up = phase / ramp if a > 0 else np.ones(n)  # a clip starting mid-swing starts in the air
            down = (1.0 - phase) / ramp if b < contacts.shape[0] else np.ones(n)
            prof[a:b, leg] = lift + (clearance - lift) * _smoothstep(np.minimum(up, down))
    return prof


def plan(motion: Motion, robot: Robot, cfg: QuadrupedConfig) -> QuadrupedPlan:
    """Plan base and foot targets for the whole clip (see the module docstring)."""
    fps = motion.fps
    roots = np.stack([motion.body(r)[0] for r, _ in motion.legs], axis=1)  # (T, 4, 3)
    paws = np.stack([motion.body(p)[0] for _, p in motion.legs], axis=1)
    legs = RobotLegs.measure(robot)
    contacts, paw_floor = source_contacts(paws, fps, cfg, roots)

    # Scale per leg: robot hip height over the source root's height above its paw's floor, taken
    # while planted (standing legs), or over the whole clip when a paw never touches down.
    src_height = np.empty(4)
    for leg in range(4):
        h = roots[:, leg, 2] - paw_floor[leg]
        src_height[leg] = np.median(h[contacts[:, leg]]) if contacts[:, leg].any() else np.median(h)
    scale = legs.leg_heights / np.maximum(src_height, 1e-3)
    s_mean = float(scale.mean())

    raw, trunk = trunk_from_roots(roots, fps, cutoff_hz=cfg.cutoff_hz)
    rot = trunk.matrices()  # (T, 3, 3)
    # The robot's hip centre follows the source's leg-root centre: horizontally scaled, vertically
    # the robot's own standing height plus the source's scaled ups and downs.
    hip_centre = legs.hip_offsets.mean(axis=0)  # in the base frame
    src_height_centre = trunk.origin[:, 2] - float(np.mean(paw_floor))
    centre = np.empty_like(trunk.origin)
    centre[:, :2] = s_mean * trunk.origin[:, :2]
    centre[:, 2] = legs.base_height + hip_centre[2] + s_mean * (src_height_centre - np.median(src_height_centre))
    base = centre - np.einsum("tij,j->ti", rot, hip_centre)
    # The bounds are for robots of Go2's size; a robot standing outside them has them scaled by its own height.
    k = legs.base_height / float(np.clip(legs.base_height, cfg.base_height_min, cfg.base_height_max))
    base[:, 2] = np.clip(base[:, 2], k * cfg.base_height_min, k * cfg.base_height_max)
    hips = base[:, None, :] + np.einsum("tij,lj->tli", rot, legs.hip_offsets)  # (T, 4, 3)

    # Hip-to-paw offsets in the (smoothed) trunk frame, scaled per leg, strides centred.
    local = np.einsum("tji,tlj->tli", rot, paws - roots) * scale[None, :, None]
    window = max(1, round(cfg.stride_window_s * fps))
    stride_centre = uniform_filter1d(local[..., :2], size=window, axis=0, mode="nearest")
    local[..., :2] += legs.foot_offsets[None, :, :2] - stride_centre
    feet = hips + np.einsum("tij,tlj->tli", rot, local)
    # Heights: scaled height of the paw above its own floor; a foot never goes below the floor.
    lift = np.maximum(0.0, paws[..., 2] - paw_floor[None]) * scale[None]
    feet[..., 2] = legs.foot_radius[None] + lift
    feet = lock_feet(
        feet, contacts, legs.foot_radius + cfg.stance_height, max_swing=max(2, round(cfg.max_swing_s * fps))
    )
    floor_min = legs.foot_radius[None] + swing_clearance(contacts, cfg.swing_lift, cfg.clearance, cfg.clearance_ramp)
    feet[..., 2] = np.maximum(feet[..., 2], floor_min)
    feet = clamp_reach(feet, hips, cfg.reach_margin * legs.reach)
    return QuadrupedPlan(base, trunk.quat, feet, contacts, raw, scale)
