"""Contact schedule of a humanoid clip, from the source: which robot points are planted when.

Per source foot, the heel (ankle joint) and the toe are planted while they are low (above their
own floor: each point's 5th height percentile) and slow, with hysteresis
(:func:`kinemorph.motion.contacts.detect_contacts_hysteresis`). Knees, hands, hips and back
count as touching the floor while their source joint is within ``body_contact_height`` of the
floor (the lower of the toes' floors) and slow. On the robot, a heel is the rear half of the
foot body's contact points (its collision spheres, or its proxies' ends), a toe the front half;
any other body touches with the lowest end of its proxies.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ...motion.contacts import contact_intervals, detect_contacts_hysteresis
from ...motion.motion import Motion
from ...quality.proxies import LinkProxies, body_frames
from ...robots.robot import Robot
from .config import CleanupConfig

_FEET = (("ankle_l", "toe_l"), ("ankle_r", "toe_r"))
SOLE_BAND = 0.003
"""[m] a foot's floor proxy ends whose lowest point is within this of the foot's lowest (in the
foot's frame; soles are flat at rest) are its sole points. Tight: an end higher than the sole (the
ankle end of a sloped heel capsule) held on the floor with the rest would tilt the foot."""
_BODIES = ("knee_l", "knee_r", "wrist_l", "wrist_r", "pelvis", "neck")


@dataclass(frozen=True)
class ContactPoints:
    """Robot points held at anchors over frame intervals.

    Attributes:
        body: robot body of each point. Shape: (C,) int.
        local: the point in its body's frame [m]. Shape: (C, 3).
        radius: height above the floor at which the point is held [m]. Shape: (C,).
        start: first planted frame. Shape: (C,) int.
        stop: frame after the last planted one. Shape: (C,) int.
        label: what the point is ("left heel", "right knee", "FL foot"...). Shape: (C,).
        at_engine: held where the engine's motion has it at the first planted frame (True), or
            where the cleaned motion brings it then (False). Shape: (C,) bool.
    """

    body: np.ndarray
    local: np.ndarray
    radius: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    label: tuple[str, ...]
    at_engine: np.ndarray

    @property
    def count(self) -> int:
        return int(self.body.shape[0])

    @staticmethod
    def empty() -> ContactPoints:
        z = np.zeros(0, dtype=np.int64)
        return ContactPoints(z, np.zeros((0, 3)), np.zeros(0), z, z, (), np.zeros(0, dtype=bool))

    def planted(self, num_frames: int) -> np.ndarray:
        """Frames with at least one planted point. Shape: (T,) bool."""
        out = np.zeros(num_frames, dtype=bool)
        for a, b in zip(self.start, self.stop):
            out[a:b] = True
        return out

    def mask(self, num_frames: int, robot: Robot) -> tuple[np.ndarray, tuple[str, ...]]:
        """Per-body contact mask (T, F) and the F robot body names, feet first."""
        names: list[str] = []
        for f in robot.feet:
            names.append(f)
        for b in self.body:
            n = robot.body_names[int(b)]
            if n not in names:
                names.append(n)
        out = np.zeros((num_frames, len(names)), dtype=bool)
        for b, a, e in zip(self.body, self.start, self.stop):
            out[a:e, names.index(robot.body_names[int(b)])] = True
        return out, tuple(names)


def _rest_data(robot: Robot) -> mujoco.MjData:
    """Kinematics of the robot's rest pose on a MjData of our own."""
    d = mujoco.MjData(robot.model)
    d.qpos[:] = robot.rest_qpos()
    mujoco.mj_kinematics(robot.model, d)
    return d


def rest_up(robot: Robot, body: int) -> np.ndarray:
    """The world's up direction in ``body``'s frame at the rest pose (a foot frame need not have z
    up: Berkeley Humanoid's has its length along z). Shape: (3,)."""
    return _rest_data(robot).xmat[body].reshape(3, 3).T @ np.array([0.0, 0.0, 1.0])


def sole_ends(prox: LinkProxies, sel: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Which of the proxies ``sel`` of one foot have an end on its sole: within SOLE_BAND of the
    foot's lowest along ``up`` (the foot's up direction at rest). Shape: (len(sel),) bool."""
    low = np.minimum(prox.p0[sel] @ up, prox.p1[sel] @ up) - prox.radius[sel]
    return low <= low.min() + SOLE_BAND


def _rolls(robot: Robot, foot: int, knee: int, forward: np.ndarray) -> bool:
    """Whether a joint between the knee and the foot turns the foot about its long axis (an ankle
    roll): a hinge within 30 deg of ``forward`` (the foot's heel-to-toe direction in its frame) at
    the rest pose."""
    m = robot.model
    d = _rest_data(robot)
    fwd = d.xmat[foot].reshape(3, 3) @ forward
    b = foot
    while b > 0 and b != knee:
        for j in range(int(m.body_jntadr[b]), int(m.body_jntadr[b] + m.body_jntnum[b])):
            if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE and abs(float(d.xaxis[j] @ fwd)) > np.cos(np.radians(30)):
                return True
        b = int(m.body_parentid[b])
    return False


def _point_sets(
    robot: Robot, prox: LinkProxies, body: int, forward: np.ndarray, *, rolls: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Heel and toe points (local (N, 3), radius (N,)) of a foot body from the ends of its floor
    proxies (its sole points when the foot is flat). A foot that cannot roll (no ankle roll: its
    sideways tilt follows the leg) keeps only the points on its long axis, so that holding it
    does not fix its tilt as well."""
    sel = np.nonzero((prox.body == body) & prox.floor)[0]
    pts, rad = [], []
    for i in sel:
        pts.append(prox.p0[i])
        rad.append(prox.radius[i])
        if not np.allclose(prox.p0[i], prox.p1[i]):
            pts.append(prox.p1[i])
            rad.append(prox.radius[i])
    if not pts:
        return np.zeros((1, 3)), np.zeros(1), np.zeros((1, 3)), np.zeros(1)
    p = np.array(pts)
    r = np.array(rad)
    # keep the points on the sole (SOLE_BAND), heights along the foot's up direction at rest
    up = rest_up(robot, body)
    low = p @ up - r
    keep = low <= low.min() + SOLE_BAND
    p, r = p[keep], r[keep]
    if not rolls and len(p) > 1:
        side = np.abs(p @ np.cross(up, forward))
        keep = side <= side.min() + SOLE_BAND
        p, r = p[keep], r[keep]
    s = p @ forward
    heel = s <= s.mean() if len(s) > 1 else np.ones(len(s), dtype=bool)
    toe = ~heel if heel.any() and (~heel).any() else heel
    return p[heel], r[heel], p[toe], r[toe]


def humanoid_contacts(
    motion: Motion, robot: Robot, prox: LinkProxies, qpos: np.ndarray, *, config: CleanupConfig
) -> ContactPoints:
    """The clip's contact schedule on ``robot`` (see the module docstring). qpos: the engine's
    result (T, nq), used to pick the touching end of non-foot bodies."""
    if len(motion.landmarks) != 14 or len(robot.landmarks) != 14:
        return ContactPoints.empty()
    from ...conventions import LANDMARKS

    src = {name: motion.body_names.index(b) for name, b in zip(LANDMARKS, motion.landmarks)}
    dst = {name: robot.body_id(b) for name, (b, _) in zip(LANDMARKS, robot.landmarks)}
    off = {name: np.array(o, dtype=float) for name, (_, o) in zip(LANDMARKS, robot.landmarks)}
    fps = motion.fps
    T = motion.positions.shape[0]
    min_stance = max(2, round(config.min_contact_s * fps))
    bodies, locals_, radii, starts, stops, labels, engine = [], [], [], [], [], [], []

    def add(b: int, pts: np.ndarray, rad: np.ndarray, mask: np.ndarray, label: str, at_engine: bool = False) -> None:
        for a, e in contact_intervals(mask):
            for p, r in zip(pts, rad):
                bodies.append(b)
                locals_.append(p)
                radii.append(r)
                starts.append(a)
                stops.append(e)
                labels.append(label)
                engine.append(at_engine)

    floors = []
    for side, (heel_name, toe_name) in zip(("left", "right"), _FEET):
        foot = dst[heel_name]
        fwd = off[toe_name] - off[heel_name] if dst[toe_name] == foot else np.array([1.0, 0.0, 0.0])
        fwd = fwd / (np.linalg.norm(fwd) or 1.0)
        rolls = _rolls(robot, foot, dst["knee_l" if side == "left" else "knee_r"], fwd)
        heel_pts, heel_r, toe_pts, toe_r = _point_sets(robot, prox, foot, fwd, rolls=rolls)
        for name, pts, rad, enter, part in (
            (heel_name, heel_pts, heel_r, config.heel_enter_height, "heel"),
            (toe_name, toe_pts, toe_r, config.toe_enter_height, "toe"),
        ):
            traj = motion.positions[:, src[name]]
            floor = float(np.percentile(traj[:, 2], 5))
            if part == "toe":
                floors.append(floor)
            mask = detect_contacts_hysteresis(
                traj, fps, floor=floor, enter_height=enter, exit_height=enter + config.exit_height,
                enter_speed=config.enter_speed, exit_speed=config.exit_speed, min_stance=min_stance,
            )  # fmt: skip
            # a foot that cannot roll cannot step under a pelvis that is off to the side: where it
            # touches down follows the leg's tilt, and holding it there lets the offset build up
            # step after step, so it is held where the engine put it
            add(foot, pts, rad, mask, f"{side} {part}", at_engine=not rolls)
    if config.body_contacts and floors:
        floor = min(floors)
        xpos = xmat = None
        for name in _BODIES:
            traj = motion.positions[:, src[name]]
            h = config.body_contact_height
            mask = detect_contacts_hysteresis(
                traj, fps, floor=floor, enter_height=h, exit_height=h + config.exit_height,
                enter_speed=config.enter_speed, exit_speed=config.exit_speed, min_stance=min_stance,
            )  # fmt: skip
            if not mask.any():
                continue
            b = dst[name]
            sel = np.nonzero((prox.body == b) & prox.floor)[0]
            if xpos is None or xmat is None:
                xpos, xmat = body_frames(robot, qpos)
            for a, e in contact_intervals(mask):
                mid = (a + e) // 2
                best, best_z, best_r = off[name], np.inf, 0.0
                for i in sel:
                    for p in (prox.p0[i], prox.p1[i]):
                        z = (xpos[mid, b] + xmat[mid, b].reshape(3, 3) @ p)[2] - prox.radius[i]
                        if z < best_z:
                            best, best_z, best_r = p, z, float(prox.radius[i])
                one = np.zeros(T, dtype=bool)
                one[a:e] = True
                add(b, np.array([best]), np.array([best_r]), one, name.replace("_l", " left").replace("_r", " right"))
    if not bodies:
        return ContactPoints.empty()
    return ContactPoints(
        np.array(bodies, dtype=np.int64),
        np.array(locals_, dtype=np.float64).reshape(-1, 3),
        np.array(radii, dtype=np.float64),
        np.array(starts, dtype=np.int64),
        np.array(stops, dtype=np.int64),
        tuple(labels),
        np.array(engine, dtype=bool),
    )


def mask_contacts(robot: Robot, prox: LinkProxies, contacts: np.ndarray, bodies: tuple[str, ...]) -> ContactPoints:
    """Contact points from an engine's own mask (the quadruped's: (T, F) over ``bodies``): each
    planted interval holds the lowest end of the body's proxies (its foot sphere)."""
    out_b, out_p, out_r, out_s, out_e, out_l = [], [], [], [], [], []
    for f, name in enumerate(bodies):
        b = robot.body_id(name)
        sel = np.nonzero((prox.body == b) & prox.floor)[0]
        if sel.size:
            i = int(sel[np.argmin(prox.p0[sel, 2] - prox.radius[sel])])
            p, r = prox.p0[i], float(prox.radius[i])
        else:
            p, r = np.zeros(3), 0.0
        for a, e in contact_intervals(contacts[:, f]):
            out_b.append(b)
            out_p.append(p)
            out_r.append(r)
            out_s.append(a)
            out_e.append(e)
            out_l.append(name)
    if not out_b:
        return ContactPoints.empty()
    return ContactPoints(
        np.array(out_b, dtype=np.int64), np.array(out_p).reshape(-1, 3), np.array(out_r),
        np.array(out_s, dtype=np.int64), np.array(out_e, dtype=np.int64), tuple(out_l),
        np.ones(len(out_b), dtype=bool),  # the engine planned its holds
    )  # fmt: skip
