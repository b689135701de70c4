"""Foot slip: how fast planted feet slide over the floor [cm/s].

What slides is the point that touches. A flat foot (a humanoid's sole of several spheres, a box,
a mesh) touches with an area that stays put when the foot does not slip: its slip is the foot
body origin's horizontal speed. A round foot (one sphere, such as a quadruped's paw, or one
capsule, such as a bare calf tip standing on its end) touches at one point and rolls: a ball
rolling without slipping has a contact point whose material velocity is zero while its centre
moves at radius x turn rate. Its slip is the horizontal *material* velocity of its lowest point,

    v_c = v_o + omega x (p_low - p_o)

(p_o, v_o the geom's body origin and its velocity, omega the body's angular velocity, p_low the
lowest point of the sphere, or of a capsule's lower end sphere): computed by central differences
of the body-fixed point that is lowest on frame t, carried by the body's frames t - 1 and t + 1,
which is v_o + omega x (p_low - p_o) with omega from the frames' rotations by central differences.
This is the slip that kinemorph.sim's replay measures (the contact point's material speed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..motion.contacts import detect_contacts, speeds
from ..robots.geometry import lowest_points, round_geom
from ..robots.robot import Robot, RobotPose
from ..robots.robot_motion import RobotMotion
from ._common import CM_PER_M, check_motion, clip_pose, nan_max, nan_mean
from .contact_slip import _slip_points
from .proxies import pose_frames

CONTACT_HEIGHT = 0.03
"""[m] A foot can be planted while its lowest collision point is at most this high above z = 0.
A few cm: a standing robot's soles sit within millimetres of the floor, a swinging foot clears it by more."""

CONTACT_MAX_SPEED = 1.0
"""[m/s] ...and while it moves slower than this. It separates swing from slip, so it lies well above
the slips a retargeter makes (tenths of m/s) and below a swing foot's speed (2-4 m/s); a slip faster
than this reads as swing and is not counted."""

SIZE_HEIGHTS = {"humanoid": 0.6, "quadruped": 0.25}
"""[m] standing height (humanoids: the root body above the floor at rest; quadrupeds: the hips) at
and above which CONTACT_HEIGHT and CONTACT_MAX_SPEED hold as they are (the sizes of the robots
they were set on: G1 0.79, H1 1.04, T1 0.67; Go2 0.29, A1 0.27). A smaller robot scales both by its
height over this: a 0.44 m child-size robot's swinging foot never rises 3 cm, so the fixed band
would count its swings as planted."""
CONTACT_MIN_FRAMES = 3
"""Contacts shorter than this many frames are ignored (a foot brushing the floor mid-swing)."""


@dataclass(frozen=True)
class FootSlip:
    """Horizontal speed of planted feet.

    Attributes:
        mean_cm_s: mean over feet of each foot's mean slip [cm/s]; NaN when no foot is ever planted.
        max_cm_s: largest per-foot slip [cm/s]; NaN when no foot is ever planted.
        per_foot_cm_s: each foot's mean horizontal speed over its planted frames [cm/s], NaN for a
            foot that is never planted. Shape: (F,), in ``robot.feet`` order.
        planted: frames where each foot is planted. Shape: (T, F) bool.
        speed_cm_s: each foot's horizontal slip speed on every frame [cm/s] (the origin's for a
            flat foot, the contact point's material speed for a round one). Shape: (T, F).
        round_feet: which feet are round (one sphere or capsule: slip at the contact point).
            Shape: (F,) bool.
    """

    mean_cm_s: float
    max_cm_s: float
    per_foot_cm_s: np.ndarray
    planted: np.ndarray
    speed_cm_s: np.ndarray
    round_feet: np.ndarray

    @property
    def planted_fraction(self) -> float:
        """Share of (frame, foot) entries that are planted, in [0, 1]."""
        return float(self.planted.mean()) if self.planted.size else 0.0


def foot_slip(
    motion: RobotMotion,
    robot: Robot,
    *,
    pose: RobotPose | None = None,
    feet_lowest: np.ndarray | None = None,
    contact_height: float | None = None,
    contact_max_speed: float | None = None,
    contact_min_frames: int = CONTACT_MIN_FRAMES,
) -> FootSlip:
    """Mean horizontal slip speed [cm/s] of each foot over the frames where that foot is planted: the
    foot body origin's speed for a flat foot, its contact point's material speed for a round one
    (one sphere or capsule geom; module docstring).

    A foot is planted where the lowest point of its collision geometry is within ``contact_height`` [m]
    of the floor (z = 0) and the point (foot origin in x, y; lowest point in z) is slower than
    ``contact_max_speed`` [m/s], in runs of at least ``contact_min_frames`` frames
    (:func:`kinemorph.motion.contacts.detect_contacts` with the floor at 0). Speeds are central
    differences. ``pose`` (from ``robot.fk(motion.qpos)``) and ``feet_lowest`` (the feet's lowest
    points (T, F), from kinemorph.robots.geometry) are computed when not given.

    ``contact_height`` and ``contact_max_speed`` default to CONTACT_HEIGHT and CONTACT_MAX_SPEED
    times :func:`size_factor` of the robot.

    A flat foot rolling onto its toe moves its origin while the toe stays put; that counts as slip
    here. A round foot that rolls does not slip; one that turns in place (its centre held still
    while the calf turns) slides its contact point at radius x turn rate, and that counts.
    """
    if contact_height is None or contact_max_speed is None:
        k = size_factor(robot)
        contact_height = CONTACT_HEIGHT * k if contact_height is None else contact_height
        contact_max_speed = CONTACT_MAX_SPEED * k if contact_max_speed is None else contact_max_speed
    if contact_height < 0 or contact_max_speed <= 0 or contact_min_frames < 1:
        raise ConfigError(
            f"foot_slip: need contact_height >= 0, contact_max_speed > 0, contact_min_frames >= 1; got "
            f"{contact_height}, {contact_max_speed}, {contact_min_frames}"
        )
    check_motion(motion, robot)
    pose = clip_pose(motion, robot, pose)
    feet = [robot.body_id(f) for f in robot.feet]
    origin = pose.positions[:, feet]  # (T, F, 3) [m]
    low_z = lowest_points(robot, motion.qpos, robot.feet) if feet_lowest is None else feet_lowest  # (T, F) [m]
    planted = np.zeros(low_z.shape, dtype=bool)
    per_foot = np.full(len(feet), np.nan)
    slide_all = np.zeros(low_z.shape)
    rolling = np.zeros(len(feet), dtype=bool)
    frames = None
    for f in range(len(feet)):
        point = np.column_stack([origin[:, f, :2], low_z[:, f]])  # (T, 3) [m]
        planted[:, f] = detect_contacts(
            point,
            motion.fps,
            floor=0.0,
            height_margin=contact_height,
            max_speed=contact_max_speed,
            min_frames=contact_min_frames,
        )
        geom = round_geom(robot, robot.feet[f])
        if geom is None:
            slide = speeds(origin[:, f], motion.fps, horizontal=True)  # (T,) [m/s]
        else:
            frames = pose_frames(pose) if frames is None else frames
            slide = contact_point_speed(robot, geom, *frames, motion.fps)
            rolling[f] = True
        slide_all[:, f] = slide * CM_PER_M
        if planted[:, f].any():
            per_foot[f] = float(slide[planted[:, f]].mean()) * CM_PER_M
    return FootSlip(nan_mean(per_foot), nan_max(per_foot), per_foot, planted, slide_all, rolling)


def contact_point_speed(robot: Robot, geom: int, xpos: np.ndarray, xmat: np.ndarray, fps: float) -> np.ndarray:
    """Horizontal material speed [m/s] of a round geom's lowest point per frame (module docstring),
    from body positions (T, nbody, 3) and rotation matrices (T, nbody, 9). Shape: (T,).

    The lowest point is the sphere's (or the capsule's lower end sphere's, kinemorph.quality.
    contact_slip's rule) centre minus its radius in z. Its body-frame coordinates on frame t are
    carried by the body's frames t - 1 and t + 1 (one-sided at the ends, as numpy.gradient)."""
    m = robot.model
    n = xpos.shape[0]
    if n < 2:
        return np.zeros(n)
    b = int(m.geom_bodyid[geom])
    low = _slip_points(robot, np.array([geom]), xpos, xmat)[:, 0] - np.array([0.0, 0.0, m.geom_size[geom, 0]])
    o = xpos[:, b]  # (T, 3)
    rot = xmat[:, b].reshape(n, 3, 3)
    local = np.einsum("tji,tj->ti", rot, low - o)  # R_t^T (p_low - p_o): body-fixed coordinates (T, 3)
    nxt, prv = np.minimum(np.arange(n) + 1, n - 1), np.maximum(np.arange(n) - 1, 0)
    ahead = o[nxt] + np.einsum("tij,tj->ti", rot[nxt], local)  # the same material point a frame later
    behind = o[prv] + np.einsum("tij,tj->ti", rot[prv], local)
    vel = (ahead - behind) * fps / (nxt - prv)[:, None]  # (T, 3) [m/s]
    return np.linalg.norm(vel[:, :2], axis=1)


_FACTORS: dict[tuple[str, str, bytes], float] = {}


def size_factor(robot: Robot) -> float:
    """min(1, standing height / SIZE_HEIGHTS[family]) (1 for other families): how much smaller than
    the robots the contact thresholds were set on ``robot`` is. Cached per model and rest pose."""
    ref = SIZE_HEIGHTS.get(robot.family)
    if ref is None:
        return 1.0
    q = robot.rest_qpos()
    key = (str(robot.path), robot.family, q.tobytes())
    if key not in _FACTORS:
        pos = robot.fk(q).positions[0]
        floor = float(lowest_points(robot, q, robot.feet).min())
        if robot.family == "quadruped" and robot.legs:
            height = float(np.mean([pos[robot.body_id(hip), 2] for hip, _ in robot.legs])) - floor
        else:
            height = float(pos[1, 2]) - floor  # the root body
        _FACTORS[key] = float(np.clip(height / ref, 0.05, 1.0))
    return _FACTORS[key]
