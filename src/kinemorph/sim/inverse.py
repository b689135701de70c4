"""Inverse dynamics of a robot motion with floor contacts.

Velocities and accelerations come from finite differences in MuJoCo's tangent space
(``mj_differentiatePos``): central first differences for velocity and the second difference
(q[t+1] - q[t]) - (q[t] - q[t-1]) for acceleration (what MuJoCo's semi-implicit Euler step
integrates, so a simulated rollout is recovered exactly up to the velocity used in Coriolis and
damping terms). ``mj_inverse`` (floor contacts disabled) gives the generalized force the motion
needs; contact forces at the points on the floor, inside the friction pyramid, explain as much of
it as they can (contacts.solve_contact_forces); the rest on the floating base is the residual
wrench, a force no real robot has. It is measured by the base acceleration it causes (the base
block of the mass matrix as the metric), so that the split between residual force and residual
torque does not depend on a chosen exchange rate. Joint torques are what remains on the actuated
joints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np

from ..errors import ConfigError
from ..robots.robot_motion import RobotMotion
from .contacts import ContactPoints, lowest_points, solve_contact_forces
from .model import TorqueModel


@dataclass(frozen=True)
class ContactSettings:
    """Which points are contacts in the analysis.

    Attributes:
        height_tol: a collision point within this height of the floor is a contact [m].
        mask_height_tol: with a contact mask, a planted body's point within this height [m] of the
            floor, on its frame or on the one before or after (_neighbour_reach).
        use_mask: use the motion's contact mask when it has one.
        torque_weight: weight of joint torques (relative to their limits) against the base
            residual when distributing forces over several contacts.
    """

    height_tol: float = 0.01
    mask_height_tol: float = 0.03
    use_mask: bool = True
    torque_weight: float = 1e-3


@dataclass(frozen=True)
class Derivatives:
    """Tangent-space derivatives of a motion. qvel, qacc: Shape (T, nv) [rad/s, rad/s^2, m/s...]."""

    qvel: np.ndarray
    qacc: np.ndarray


VELOCITY_SCHEMES = ("central", "backward")


def derivatives(model: mujoco.MjModel, qpos: np.ndarray, fps: float, *, velocity: str = "central") -> Derivatives:
    """Finite-difference velocity and acceleration of qpos (T, nq) sampled at fps [1/s].

    velocity: "central" (second-order, for recorded or retargeted motion) or "backward" (the
    velocity MuJoCo's Euler step has at the start of a step: exact for a simulated rollout)."""
    if velocity not in VELOCITY_SCHEMES:
        raise ConfigError(f"unknown velocity scheme {velocity!r}; valid: {', '.join(VELOCITY_SCHEMES)}")
    t = qpos.shape[0]
    dt = 1.0 / fps
    step = np.zeros((max(t - 1, 0), model.nv))  # tangent step from frame i to i+1, per second
    for i in range(t - 1):
        mujoco.mj_differentiatePos(model, step[i], dt, qpos[i], qpos[i + 1])
    qvel = np.zeros((t, model.nv))
    qacc = np.zeros((t, model.nv))
    if t >= 2:
        qvel[1:-1] = 0.5 * (step[1:] + step[:-1]) if velocity == "central" else step[:-1]
        qvel[0], qvel[-1] = step[0], step[-1]
    if t >= 3:
        qacc[1:-1] = (step[1:] - step[:-1]) / dt
        qacc[0], qacc[-1] = qacc[1], qacc[-2]
    return Derivatives(qvel, qacc)


@dataclass(frozen=True)
class Dynamics:
    """Inverse dynamics of a motion, per frame.

    Attributes:
        qvel, qacc: tangent-space derivatives. Shape: (T, nv).
        joint_torque: torque per actuator [N m] (actuator order of the TorqueModel). Shape: (T, nu).
        torque_ratio: |joint_torque| / limit (0 when unlimited). Shape: (T, nu).
        residual_force: unexplained world force on the base [N]. Shape: (T, 3).
        residual_torque: unexplained torque on the base (base frame) [N m]. Shape: (T, 3).
        residual_force_fraction: |residual_force| / body weight. Shape: (T,).
        residual_acceleration: base acceleration the residual wrench gives, M_bb^-1 r: linear
            (world) [m/s^2] and angular (base frame) [rad/s^2]. Shape: (T, 6).
        contact_force: summed contact force per contact body [N]. Shape: (T, B, 3).
        contact_bodies: bodies that had contact points. Shape: (B,).
        required_friction: |F_xy| / F_z of the net floor force the motion needs (the generalized
            force on the base's translation; 0 when F_z < 10% of the weight): the friction
            coefficient it asks of the floor, whatever the contact forces. Shape: (T,).
        friction_used: max |f_t| / f_n over the frame's loaded contact points of the QP's
            solution (at most mu sqrt(2) at a pyramid's corner). Shape: (T,).
        num_contacts: contact points per frame. Shape: (T,).
        penetration: deepest collision point below the floor (0 when none) [m]. Shape: (T,).
        qp_failures: frames whose contact QP did not report success.
        floor_bodies: bodies outside the motion's contact mask (not a contact body nor below one)
            with a collision point on or under the floor (z <= 0), and on how many frames: they
            touch the floor but may not push (empty without a mask, where every body may).
    """

    qvel: np.ndarray
    qacc: np.ndarray
    joint_torque: np.ndarray
    torque_ratio: np.ndarray
    residual_force: np.ndarray
    residual_torque: np.ndarray
    residual_force_fraction: np.ndarray
    residual_acceleration: np.ndarray
    contact_force: np.ndarray
    contact_bodies: tuple[str, ...]
    required_friction: np.ndarray
    friction_used: np.ndarray
    num_contacts: np.ndarray
    penetration: np.ndarray
    qp_failures: int
    floor_bodies: dict[str, int] = field(default_factory=dict)


def _base_metric(m_bb: np.ndarray, mass: float, weight: float) -> np.ndarray:
    """W with ||W r||^2 = mass r' M_bb^-1 r / weight^2: the residual wrench r measured by the base
    acceleration it causes (the mass matrix's metric, so that forces and torques need no
    arbitrary exchange rate), scaled so that a pure force counts about |f|^2 / weight^2."""
    chol = np.linalg.cholesky(np.linalg.inv(m_bb))  # M^-1 = L L'
    return chol.T * (np.sqrt(mass) / weight)


def _geom_contact_body(tm: TorqueModel, motion: RobotMotion) -> np.ndarray:
    """Per collision geom: the index of the motion's contact body it belongs to (on that body or
    below it), or -1."""
    m = tm.model
    ids = [tm.robot.body_id(b) for b in motion.contact_bodies]
    out = np.full(len(tm.collision_geoms), -1)
    for k, g in enumerate(tm.collision_geoms):
        b = int(m.geom_bodyid[g])
        while b > 0 and b not in ids:  # a geom on the body or below it belongs to that foot
            b = int(m.body_parentid[b])
        if b > 0:
            out[k] = ids.index(b)
    return out


def _planted_bodies(motion: RobotMotion, geom_col: np.ndarray) -> np.ndarray:
    """Per frame and collision geom: may it be a contact (its contact body is planted on that
    frame); ``geom_col``: _geom_contact_body."""
    mask = np.zeros((motion.num_frames, len(geom_col)), dtype=bool)
    ok = geom_col >= 0
    mask[:, ok] = motion.contacts[:, geom_col[ok]]  # type: ignore[index]
    return mask


def _frame_points(m: mujoco.MjModel, data: mujoco.MjData, qpos: np.ndarray, geoms: np.ndarray) -> list[ContactPoints]:
    """The candidate contact points (contacts.lowest_points) of every frame of qpos (T, nq)."""
    out = []
    for q in qpos:
        data.qpos[:] = q
        mujoco.mj_kinematics(m, data)
        out.append(lowest_points(m, data, geoms))
    return out


def _neighbour_reach(points: list[ContactPoints], geoms: np.ndarray) -> np.ndarray:
    """How much lower each geom's lowest point is on a neighbouring frame than on its own [m]
    (``points``: _frame_points): a planted body's point may push when it is within the tolerance of
    the floor on its frame or, by this much more, on the frame before or after (the
    central-difference acceleration of frame t spans t - 1 to t + 1, so an impact between frames
    shows on a frame where the landing paw is still up to its speed over the frame rate above the
    floor: 1 m/s at 30 fps, 3.3 cm). Shape: (T, len(geoms)); 0 where the geom is lowest on its own
    frame."""
    col = {int(g): k for k, g in enumerate(geoms)}
    low = np.full((len(points), len(geoms)), np.inf)
    for t, cp in enumerate(points):
        for z, g in zip(cp.points[:, 2], cp.geoms, strict=True):
            k = col[int(g)]
            low[t, k] = min(low[t, k], z)
    near = low.copy()
    near[1:] = np.minimum(near[1:], low[:-1])
    near[:-1] = np.minimum(near[:-1], low[1:])
    out = low - near
    out[~np.isfinite(out)] = 0.0
    return out


def inverse_dynamics(
    tm: TorqueModel, motion: RobotMotion, settings: ContactSettings | None = None, *, velocity: str = "central"
) -> Dynamics:
    """Per-frame joint torques, contact forces and base residual of ``motion`` (see module doc);
    ``velocity`` as in :func:`derivatives`."""
    s = settings or ContactSettings()
    m = tm.model
    qpos = motion.qpos
    d_ = derivatives(m, qpos, motion.fps, velocity=velocity)
    data = mujoco.MjData(m)
    m_flags = m.opt.disableflags
    m.opt.disableflags = m_flags | int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    t_frames, nv, nu = motion.num_frames, m.nv, m.nu
    act = tm.act_dof
    joint_w = np.full(nv, 1.0 / tm.weight)  # passive joints: like the base
    lim = np.where(np.isfinite(tm.torque_limit), tm.torque_limit, tm.weight)
    joint_w[act] = np.sqrt(s.torque_weight) / lim
    weights = np.diag(joint_w)
    full = np.zeros((nv, nv))
    masked = s.use_mask and motion.contacts is not None and bool(motion.contact_bodies)
    geom_col = _geom_contact_body(tm, motion) if masked else None
    planted = None if geom_col is None else _planted_bodies(motion, geom_col)  # None: every geom may push
    contact_geom = np.zeros(0, dtype=bool) if geom_col is None else geom_col >= 0
    floor_bodies: dict[int, int] = {}
    tol = s.mask_height_tol if planted is not None else s.height_tol
    body_of_geom = m.geom_bodyid[tm.collision_geoms]
    contact_body_ids = sorted({int(b) for b in body_of_geom})
    body_col = {b: k for k, b in enumerate(contact_body_ids)}
    out_tau = np.zeros((t_frames, nu))
    res_f = np.zeros((t_frames, 3))
    res_t = np.zeros((t_frames, 3))
    res_a = np.zeros((t_frames, 6))
    cforce = np.zeros((t_frames, len(contact_body_ids), 3))
    friction = np.zeros(t_frames)
    required = np.zeros(t_frames)
    ncon = np.zeros(t_frames, dtype=np.int64)
    pen = np.zeros(t_frames)
    failures = 0
    jacp = np.zeros((3, nv))
    geom_index = {int(g): k for k, g in enumerate(tm.collision_geoms)}
    points = _frame_points(m, data, qpos, tm.collision_geoms)  # kinematics only: mj_inverse gives the same
    reach = _neighbour_reach(points, tm.collision_geoms) if planted is not None else None
    try:
        for t in range(t_frames):
            data.qpos[:] = qpos[t]
            data.qvel[:] = d_.qvel[t]
            data.qacc[:] = d_.qacc[t]
            mujoco.mj_inverse(m, data)
            qfrc = data.qfrc_inverse.copy()
            mujoco.mj_fullM(m, data, full)
            weights[:6, :6] = _base_metric(full[:6, :6], tm.mass, tm.weight)
            if qfrc[2] > 0.1 * tm.weight:
                required[t] = float(np.hypot(qfrc[0], qfrc[1]) / qfrc[2])
            pts, owner = points[t].points, points[t].geoms
            if len(pts):
                pen[t] = max(0.0, -float(pts[:, 2].min()))
            cols = [geom_index[int(g)] for g in owner]
            keep = pts[:, 2] <= tol + (0.0 if reach is None else reach[t, cols])
            if planted is not None and len(pts):
                keep &= planted[t, cols]
                outside = (pts[:, 2] <= 0.0) & ~contact_geom[cols]
                for b in {int(m.geom_bodyid[g]) for g in owner[outside]}:
                    floor_bodies[b] = floor_bodies.get(b, 0) + 1
            pts, owner = pts[keep], owner[keep]
            jac = np.zeros((3 * len(pts), nv))
            for k, (p, g) in enumerate(zip(pts, owner, strict=True)):
                mujoco.mj_jac(m, data, jacp, None, p, int(m.geom_bodyid[g]))
                jac[3 * k : 3 * k + 3] = jacp
            sol = solve_contact_forces(qfrc, jac, weights, mu=tm.friction)
            failures += not sol.solved
            tau = qfrc - jac.T @ sol.forces.reshape(-1) if len(pts) else qfrc
            out_tau[t] = tau[act]
            res_f[t] = sol.residual[:3]
            res_t[t] = sol.residual[3:6]
            res_a[t] = np.linalg.solve(full[:6, :6], sol.residual[:6])
            ncon[t] = len(pts)
            for f, g in zip(sol.forces, owner, strict=True):
                cforce[t, body_col[int(m.geom_bodyid[g])]] += f
            loaded = sol.forces[:, 2] > 1e-3 * tm.weight if len(pts) else np.zeros(0, dtype=bool)
            if loaded.any():
                fl = sol.forces[loaded]
                friction[t] = float(np.max(np.linalg.norm(fl[:, :2], axis=1) / fl[:, 2]))
    finally:
        m.opt.disableflags = m_flags
    ratio = np.where(np.isfinite(tm.torque_limit), np.abs(out_tau) / lim, 0.0)
    return Dynamics(
        qvel=d_.qvel,
        qacc=d_.qacc,
        joint_torque=out_tau,
        torque_ratio=ratio,
        residual_force=res_f,
        residual_torque=res_t,
        residual_force_fraction=np.linalg.norm(res_f, axis=1) / tm.weight,
        residual_acceleration=res_a,
        contact_force=cforce,
        contact_bodies=tuple(m.body(b).name for b in contact_body_ids),
        required_friction=required,
        friction_used=friction,
        num_contacts=ncon,
        penetration=pen,
        qp_failures=failures,
        floor_bodies={m.body(b).name: n for b, n in sorted(floor_bodies.items(), key=lambda kv: -kv[1])},
    )
