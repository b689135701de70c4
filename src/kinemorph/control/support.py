"""Support geometry: the contact points of the soles and the convex support polygons of the footstep plan.

Each foot touches the floor through the four corners of its sole rectangle (the planner's
GaitBody: heel..toe by +-half_width, moved inwards by a margin), expressed in the foot body's
frame through the robot's measured sole frame (gait.robot_table.RobotGait). The same corners
bound the support polygons of the CoM planner: one foot's rectangle in single support, the
convex hull of both in double support.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import mujoco
import numpy as np

from ..gait.footsteps import GaitBody, Pose2, min_separation
from ..gait.robot_table import RobotGait
from ..transforms import quat_rotate, quat_to_mat


def sole_corners(body: GaitBody, margin: float) -> np.ndarray:
    """Sole-frame corners (heel-left, heel-right, toe-left, toe-right) [m]. Shape: (4, 3)."""
    h, t, w = body.heel + margin, body.toe - margin, body.half_width - margin
    return np.array([[h, w, 0.0], [h, -w, 0.0], [t, w, 0.0], [t, -w, 0.0]])


def contact_points(rg: RobotGait, margin: float) -> np.ndarray:
    """The four contact points of each foot in its foot body's frame [m]. Shape: (2, 4, 3)."""
    c = sole_corners(rg.body, margin)
    return np.stack([rg.sole_pos[f] + quat_rotate(rg.sole_rot[f], c) for f in range(2)])


@dataclass(frozen=True)
class Polygon:
    """A convex polygon as half-planes A p <= b.

    Attributes:
        A: outward normals. Shape: (K, 2).
        b: offsets [m]. Shape: (K,).
        centre: mean of the vertices [m]. Shape: (2,).
    """

    A: np.ndarray
    b: np.ndarray
    centre: np.ndarray

    def contains(self, p: np.ndarray, tol: float = 1e-9) -> bool:
        return bool(np.all(self.A @ p <= self.b + tol))

    def project(self, p: np.ndarray) -> np.ndarray:
        """A point inside the polygon near p (alternating projections on the violated half-planes)."""
        q = np.array(p, dtype=np.float64)
        for _ in range(20):
            viol = self.A @ q - self.b
            k = int(np.argmax(viol))
            if viol[k] <= 1e-9:
                break
            q = q - viol[k] * self.A[k]
        return q


def foot_vertices(pose: Pose2, body: GaitBody, margin: float) -> np.ndarray:
    """World x, y of a flat foot's sole corners at planar pose (x, y, yaw) [m]. Shape: (4, 2)."""
    c = sole_corners(body, margin)[:, :2]
    cy, sy = math.cos(pose[2]), math.sin(pose[2])
    return np.array([pose[0], pose[1]]) + c @ np.array([[cy, sy], [-sy, cy]])


def hull(points: np.ndarray) -> Polygon:
    """Convex hull of planar points (monotone chain) as half-planes. points (P, 2)."""
    pts = sorted(map(tuple, np.round(points, 12)))

    def cross(o: tuple, a: tuple, b: tuple) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    ring = np.array(lower[:-1] + upper[:-1])  # counter-clockwise
    edges = np.roll(ring, -1, axis=0) - ring
    normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return Polygon(normals, np.einsum("ij,ij->i", normals, ring), ring.mean(axis=0))


_CACHE: dict[tuple, Polygon] = {}
_CACHE_SIZE = 256


def support_polygon(feet: list[Pose2], contacts: list[bool], body: GaitBody, margin: float) -> Polygon:
    """Convex support polygon of the feet on the floor (one foot's rectangle, or the hull of both).
    Memoised: the same footholds recur over many planner ticks."""
    key = (tuple(feet[i] if contacts[i] else None for i in range(2)), body, margin)
    poly = _CACHE.get(key)
    if poly is None:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        down = [i for i in range(2) if contacts[i]]
        if len(down) == 1:
            poly = _rectangle(feet[down[0]], body, margin)
        else:
            poly = hull(np.concatenate([foot_vertices(feet[i], body, margin) for i in down]))
        _CACHE[key] = poly
    return poly


def _rectangle(pose: Pose2, body: GaitBody, margin: float) -> Polygon:
    """One flat foot's sole rectangle as four half-planes."""
    c, s = math.cos(pose[2]), math.sin(pose[2])
    x, y = np.array([c, s]), np.array([-s, c])
    p = np.array([pose[0], pose[1]])
    A = np.stack([x, -x, y, -y])
    off = np.array([body.toe - margin, -(body.heel + margin), body.half_width - margin, body.half_width - margin])
    b = A @ p + off
    centre = p + x * 0.5 * (body.toe + body.heel)
    return Polygon(A, b, centre)


def clamp_width(
    swing: tuple[float, float], stance: Pose2, side: int, max_width: float, min_width: float = -math.inf
) -> tuple[float, float]:
    """A swing foot's planar position (x, y) [m] on ``side`` (+1 left, -1 right) of the standing foot,
    moved sideways in the standing foot's frame so that it lies at least ``min_width`` (feet do not
    cross or overlap when the step adjustment moves a foothold inwards) and at most ``max_width``
    (how far a leg reaches sideways while the pelvis is over the other foot) to that side of it."""
    c, s = math.cos(stance[2]), math.sin(stance[2])
    dx, dy = swing[0] - stance[0], swing[1] - stance[1]
    lx, ly = c * dx + s * dy, -s * dx + c * dy
    if min_width <= side * ly <= max_width:
        return swing
    ly = side * min(max(side * ly, min_width), max_width)
    return stance[0] + c * lx - s * ly, stance[1] + s * lx + c * ly


def ankle_sole(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    rg: RobotGait,
    feet: tuple[int, int],
    act_dof: np.ndarray,
    torque_limit: np.ndarray,
    weight: float,
    *,
    share: float,
    near: float = 0.12,
) -> GaitBody:
    """The sole as far as the ankle motors can hold the CoP: the planner's sole rectangle cut to
    where the whole ``weight`` [N] on one foot needs at most ``share`` of the limit of each motor
    whose hinge lies within ``near`` [m] of the sole (the ankle joints). A vertical force F at the
    sole point r from a hinge at a with axis u needs the torque F |((r - a) x z) . u|, so each
    such motor bounds the CoP to a slab around its hinge; the slabs are taken along the sole's
    axes (pitch: heel..toe, roll: sideways). ``data``: the standing state (kinematics computed).
    The MPC plans the CoP inside these soles; G1's 50 N m ankles keep its whole sole, T1's 20 N m
    pitch and 15 N m roll ankles do not (its ankles saturated with the CoP near the toe)."""
    body = rg.body
    if share <= 0:
        return body
    heel, toe, half = body.heel, body.toe, body.half_width
    limits = dict(zip(np.asarray(act_dof).tolist(), np.asarray(torque_limit).tolist()))
    for f, fid in enumerate(feet):
        R = data.xmat[fid].reshape(3, 3) @ quat_to_mat(rg.sole_rot[f])  # sole axes in the world
        sole = data.xpos[fid] + data.xmat[fid].reshape(3, 3) @ rg.sole_pos[f]
        b = fid
        while b > 0:
            for j in range(model.body_jntadr[b], model.body_jntadr[b] + model.body_jntnum[b]):
                if model.jnt_type[j] != mujoco.mjtJoint.mjJNT_HINGE:
                    continue
                a, u = data.xanchor[j], data.xaxis[j]
                tau = limits.get(int(model.jnt_dofadr[j]))
                if tau is None or np.linalg.norm(a - sole) > near:
                    continue
                a_s = R.T @ (a - sole)  # hinge in the sole frame
                u_s = R.T @ u
                # (r - a) x z . u = (r - a)_y u_x - (r - a)_x u_y: slabs along the sole's x (pitch) and y (roll)
                reach = share * tau / weight
                if abs(u_s[1]) > 0.5:
                    heel, toe = max(heel, a_s[0] - reach / abs(u_s[1])), min(toe, a_s[0] + reach / abs(u_s[1]))
                if abs(u_s[0]) > 0.5:
                    half = min(half, abs(a_s[1]) + reach / abs(u_s[0]))
            b = int(model.body_parentid[b])
    return dataclasses.replace(body, heel=float(heel), toe=float(toe), half_width=float(half))


def reach_share(max_width: float, body: GaitBody, vy: float, timing: np.ndarray, share: float = 1.0) -> float:
    """The sideways stride of one gait cycle at ``vy`` [m/s] (|v_y| T) over ``share`` of the legs'
    sideways reach per cycle (``max_width`` less the feet's least separation; 0 when unlimited or
    standing still). Above 1 the planner's path runs ahead of the feet the reach limits hold back.
    ``timing``: [t_LTD, t_RLO, t_RTD, T] [s]."""
    reach = share * (max_width - min_separation(body, 0.0))
    if vy == 0.0 or not math.isfinite(max_width) or reach <= 0:
        return 0.0
    return abs(vy) * float(timing[3]) / reach


def sideways_pace(
    share: float, max_width: float, body: GaitBody, vy: float, timing: np.ndarray, lowest: tuple[float, float]
) -> float:
    """How much faster than real time the gait clock runs so that a sideways speed ``vy`` [m/s]
    steps within ``share`` of the legs' sideways reach per cycle (``max_width`` less the feet's
    least separation; controller.ControlConfig.sideways_reach; 1: as the style times it, also when
    ``share`` <= 0). ``timing``: [t_LTD, t_RLO, t_RTD, T] [s]; ``lowest``: the shortest single and
    double support the time scaling allows [s] (no phase gets shorter)."""
    if share <= 0:
        return 1.0
    ltd, rlo, rtd, cycle = (float(x) for x in timing)
    single, double = min(ltd, rtd - rlo), min(rlo - ltd, cycle - rtd)
    most = min(single / lowest[0], double / lowest[1])
    return min(max(1.0, reach_share(max_width, body, vy, timing, share)), max(1.0, most))
