"""The whole-body controller: task-space inverse dynamics as one QP per control tick.

After Hopkins et al. 2024 (appendix B). Variables: generalised accelerations qdd (nv) and, for
every contact point of a foot that the plan has on the floor, the non-negative weights rho (4)
on the edges of a 4-sided friction pyramid, f = B rho. Per tick::

    min  sum_t |J_t qdd - u_t|^2_{W_t} + l_q |qdd|^2 + l_r |rho|^2 + l_tau |Q_a rho|^2
    s.t. M_b qdd + h_b = Q_b rho                        (floating-base rows: Newton-Euler of the whole body)
         k_l (q_min - q) - b_l qd <= qdd_j <= k_l (q_max - q) - b_l qd    (soft joint limits)
         rho >= 0; inactive contacts have no columns (zero force)

with Q = sum_c J_c' B (the generalised force of the contact weights), Q_a its actuated rows
(the contact-induced torques, whose regularisation keeps internal forces small), M, h = the
mass matrix and bias forces, J_c, J_t from MuJoCo. The task targets u_t are PD laws plus
feed-forward: both feet (6-D poses; a standing foot's reference keeps its pivot still, and only
its points on the floor carry force), pelvis orientation (3-D) and height,
horizontal CoM (from the MPC), joint postures (upper body from the style). The torques
tau = M_a qdd + h_a - Q_a rho go to the motors. The Jacobians' time derivatives are left out
(J' qd is small at walking speeds; the PD terms absorb it).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ..errors import ConfigError
from ..optim.qp import solve_qp


@dataclass(frozen=True)
class WbcConfig:
    """Gains and weights of the whole-body QP (stiffness [1/s^2], damping [1/s], weights unitless).

    Attributes:
        foot_kp, foot_kd: swing-foot pose gains.
        stance_weight: weight of a standing foot's zero-acceleration task.
        swing_weight: weight of a swinging foot's pose task.
        pelvis_kp, pelvis_kd, pelvis_weight: pelvis orientation task.
        height_kp, height_kd, height_weight: pelvis height task.
        com_kp, com_kd, com_weight: horizontal CoM task around the MPC's trajectory.
        upper_kp, upper_kd, upper_weight: style-driven upper-body joints.
        posture_kp, posture_kd, posture_weight: every other joint toward its standing value.
        accel_reg, force_reg, torque_reg: regularisation of qdd, rho and contact-induced torques.
        limit_kp, limit_kd: soft joint-limit stiffness and damping.
        friction: friction coefficient of the pyramid (inside the floor's).
        max_force: upper bound on each pyramid weight [N].
        hard_contacts: a standing foot's acceleration target is an equality of the QP instead of a
            weighted task (falls back to the weighted task when the QP has no solution).
        torque_limits: the motors' torque limits are constraints of the QP (else the torques are
            clipped after it; falls back to clipping when the limits make the QP infeasible).
        stance_pivots: a standing foot follows the reference's heel/toe pitch and only its points on
            the floor carry force (off: it is held flat and still on all four points, which walked
            farther in the tests here).
        push_constraints: while the push recovery is engaged the controller runs the QP with hard
            contacts and torque limits (``WbcTargets.constrained``); default since 2026-12-06: G1
            1.5 N/kg from the front 1/7 -> 3/7 push times (README, pushes); in every walk they lost
            a sweep walk.
        jdot: every task's acceleration target has the Jacobian's rate term taken off (J qdd = u - dJ/dt
            qd; :meth:`WholeBody.task_bias`): the feet, pelvis and CoM accelerations the QP plans are
            then the ones the model makes (without it a standing foot held still by the hard
            contacts is asked for dJ/dt qd too much). Off: measured in docs/WALKING.md (pushes).
        ankle_share: share of each ankle motor's torque limit that the CoM planner's CoP may need
            with the whole weight on one foot: its soles are cut to where the ankles hold the CoP
            (support.ankle_sole; 0: the whole sole).
    """

    foot_kp: float = 400.0
    foot_kd: float = 40.0
    stance_weight: float = 100.0
    swing_weight: float = 300.0
    pelvis_kp: float = 200.0
    pelvis_kd: float = 28.0
    pelvis_weight: float = 30.0
    height_kp: float = 150.0
    height_kd: float = 25.0
    height_weight: float = 100.0
    com_kp: float = 60.0
    com_kd: float = 15.0
    com_weight: float = 300.0
    upper_kp: float = 150.0
    upper_kd: float = 25.0
    upper_weight: float = 1.0
    posture_kp: float = 50.0
    posture_kd: float = 14.0
    posture_weight: float = 0.3
    accel_reg: float = 1e-4
    force_reg: float = 1e-5
    torque_reg: float = 1e-5
    limit_kp: float = 200.0
    limit_kd: float = 30.0
    friction: float = 0.6
    max_force: float = 2000.0
    stance_pivots: bool = False
    hard_contacts: bool = False
    torque_limits: bool = False
    ankle_share: float = 0.0
    push_constraints: bool = True
    jdot: bool = False

    def __post_init__(self) -> None:
        if not 0.05 <= self.friction <= 2.0:
            raise ConfigError(f"WbcConfig.friction must be in [0.05, 2], got {self.friction}")


@dataclass
class WbcTargets:
    """What the whole-body QP tracks at one tick (world frame).

    Attributes:
        foot_pos: foot body origins [m]. Shape: (2, 3).
        foot_quat: foot body orientations, wxyz. Shape: (2, 4).
        foot_vel: foot linear and angular velocities [m/s, rad/s]. Shape: (2, 6).
        contacts: foot on the floor: held still where it stands (its reference pose tracked). Shape: (2,).
        points: contact points that carry force (the standing foot's points on the floor). Shape: (2, 4).
        pelvis_quat: pelvis orientation, wxyz. Shape: (4,).
        pelvis_omega: pelvis angular velocity [rad/s]. Shape: (3,).
        height: pelvis height [m] and its rate [m/s]. Shape: (2,).
        com: horizontal CoM position, velocity, acceleration [m, m/s, m/s^2]. Shape: (3, 2).
        joints: target value of every actuated joint [rad] (upper body from the style). Shape: (nj,).
        external: estimated external force on the pelvis [N] (the QP's dynamics include it). Shape: (3,).
        constrained: the QP runs with hard contacts and torque limits this tick whatever
            ``WbcConfig.hard_contacts`` and ``torque_limits`` say (the controller decides: the speed
            stance, and the push recovery with ``WbcConfig.push_constraints``).
    """

    foot_pos: np.ndarray
    foot_quat: np.ndarray
    foot_vel: np.ndarray
    contacts: np.ndarray
    points: np.ndarray
    pelvis_quat: np.ndarray
    pelvis_omega: np.ndarray
    height: np.ndarray
    com: np.ndarray
    joints: np.ndarray
    external: np.ndarray
    constrained: bool = False


@dataclass(frozen=True)
class WbcOutput:
    """One tick's solution.

    Attributes:
        torque: motor torques per actuator (clipped to the limits) [N m]. Shape: (nu,).
        qdd: generalised accelerations. Shape: (nv,).
        foot_force: world contact force on each foot [N]. Shape: (2, 3).
        status: the QP's status.
    """

    torque: np.ndarray
    qdd: np.ndarray
    foot_force: np.ndarray
    status: str


def _pyramid(mu: float) -> np.ndarray:
    """Unit edges of the 4-sided friction pyramid of a floor contact (normal +z). Shape: (3, 4)."""
    e = np.array([[mu, 0, 1], [-mu, 0, 1], [0, mu, 1], [0, -mu, 1]], dtype=np.float64)
    return (e / np.linalg.norm(e, axis=1, keepdims=True)).T


def _rot_error(target: np.ndarray, current: np.ndarray) -> np.ndarray:
    """World-frame rotation vector from ``current`` to ``target`` (quaternions wxyz) [rad]."""
    conj = np.empty(4)
    mujoco.mju_negQuat(conj, current)
    dq = np.empty(4)
    mujoco.mju_mulQuat(dq, target, conj)
    v = np.empty(3)
    mujoco.mju_quat2Vel(v, dq, 1.0)
    return v


class WholeBody:
    """The QP of the module docstring for one torque model.

    Args:
        model: the torque-controlled MuJoCo model (kinemorph.sim.TorqueModel.model).
        act_dof: velocity index driven by each actuator. Shape: (nu,).
        torque_limit: |torque| bound per actuator. Shape: (nu,).
        feet: foot body ids, left then right.
        pelvis: pelvis body id.
        points: contact points of each foot in its body frame [m]. Shape: (2, 4, 3).
        upper: velocity indices of the style-driven joints. Shape: (U,).
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        *,
        act_dof: np.ndarray,
        torque_limit: np.ndarray,
        feet: tuple[int, int],
        pelvis: int,
        points: np.ndarray,
        upper: np.ndarray,
        config: WbcConfig,
    ) -> None:
        self.m = model
        self.cfg = config
        self.act_dof = np.asarray(act_dof, dtype=np.int64)
        self.limit = np.asarray(torque_limit, dtype=np.float64)
        self.feet = feet
        self.pelvis = pelvis
        self.points = points
        nv = model.nv
        self.nv = nv
        self.B = _pyramid(config.friction)
        jnt = np.arange(6, nv)
        self.joint_dofs = jnt
        qadr = np.array([model.jnt_qposadr[model.dof_jntid[d]] for d in jnt])
        self.joint_qadr = qadr
        lim = model.jnt_limited[model.dof_jntid[jnt]].astype(bool)
        rng = model.jnt_range[model.dof_jntid[jnt]]
        self.q_min = np.where(lim, rng[:, 0], -np.inf)
        self.q_max = np.where(lim, rng[:, 1], np.inf)
        w = np.full(nv - 6, config.posture_weight)
        kp = np.full(nv - 6, config.posture_kp)
        kd = np.full(nv - 6, config.posture_kd)
        up = np.asarray(upper, dtype=np.int64) - 6
        w[up], kp[up], kd[up] = config.upper_weight, config.upper_kp, config.upper_kd
        self.joint_w, self.joint_kp, self.joint_kd = w, kp, kd
        self._M = np.zeros((nv, nv))
        # task rows: feet 2 x 6, pelvis rotation 3, pelvis height 1, CoM 2, joints nv - 6
        self.n_rows = 18 + nv - 6
        self._J = np.zeros((self.n_rows, nv))
        self._J[18:, 6:] = np.eye(nv - 6)
        self._u = np.zeros(self.n_rows)
        self._w = np.zeros(self.n_rows)  # the task rows' weights are set from ``cfg`` by every solve
        self._w[18:] = w
        self._jr = np.zeros((3, nv))
        self._jc = np.zeros((3, nv))
        self._reg = config.accel_reg * np.eye(nv)
        self._dj = np.zeros((6, nv))
        self._massive = [b for b in range(1, model.nbody) if model.body_mass[b] > 0 and model.body_rootid[b] == 1]

    def task_bias(self, d: mujoco.MjData) -> np.ndarray:
        """dJ/dt qd of every task row (feet, pelvis rotation, pelvis height, CoM; zero for the
        joints): a task's acceleration is J qdd plus this. The CoM's is the mass-weighted sum over
        the robot's bodies at their centres of mass. Shape: (n_rows,)."""
        m, qd, dj = self.m, d.qvel, self._dj
        out = np.zeros(self.n_rows)
        for f, body in enumerate(self.feet):
            mujoco.mj_jacDot(m, d, dj[:3], dj[3:], d.xpos[body], body)
            out[6 * f : 6 * f + 6] = dj @ qd
        mujoco.mj_jacDot(m, d, dj[:3], dj[3:], d.xpos[self.pelvis], self.pelvis)
        pelvis = dj @ qd
        out[12:15], out[15] = pelvis[3:], pelvis[2]
        acc = np.zeros(3)
        for b in self._massive:
            mujoco.mj_jacDot(m, d, dj[:3], None, d.xipos[b], b)
            acc += m.body_mass[b] * (dj[:3] @ qd)
        out[16:18] = acc[:2] / m.body_subtreemass[1]
        return out

    def solve(self, d: mujoco.MjData, tg: WbcTargets) -> WbcOutput:
        """Torques for the state in ``d`` (kinematics, mass matrix and bias forces computed, as
        after mj_step1 or mj_forward)."""
        m, cfg, nv = self.m, self.cfg, self.nv
        qd = d.qvel
        mujoco.mj_fullM(m, d, self._M)
        M = self._M
        h = d.qfrc_bias - d.qfrc_passive
        J, u, wt = self._J, self._u, self._w
        cols: list[np.ndarray] = []
        counts: list[tuple[int, int]] = []
        for f, body in enumerate(self.feet):
            r0 = 6 * f
            mujoco.mj_jacBody(m, d, J[r0 : r0 + 3], J[r0 + 3 : r0 + 6], body)
            Jf = J[r0 : r0 + 6]
            v = Jf @ qd
            if tg.contacts[f] and not cfg.stance_pivots:
                u[r0 : r0 + 6] = -cfg.foot_kd * v  # held still where it stands
            else:
                e_rot = _rot_error(tg.foot_quat[f], d.xquat[body])
                kp_lin = 0.0 if tg.contacts[f] else cfg.foot_kp  # a standing foot stays where it landed
                u[r0 : r0 + 3] = kp_lin * (tg.foot_pos[f] - d.xpos[body]) + cfg.foot_kd * (tg.foot_vel[f, :3] - v[:3])
                u[r0 + 3 : r0 + 6] = cfg.foot_kp * e_rot + cfg.foot_kd * (tg.foot_vel[f, 3:] - v[3:])
            wt[r0 : r0 + 6] = cfg.stance_weight if tg.contacts[f] else cfg.swing_weight
            on = (tg.points[f] if cfg.stance_pivots else np.ones(4, dtype=bool)) if tg.contacts[f] else None
            if on is not None and on.any():
                # contact points: J_p = J_lin - [r]x J_ang with r the point from the body origin
                r = self.points[f][on] @ d.xmat[body].reshape(3, 3).T  # (P, 3)
                Jl, Ja = Jf[:3], Jf[3:]
                S = np.zeros((len(r), 3, 3))
                S[:, 0, 1], S[:, 0, 2], S[:, 1, 2] = -r[:, 2], r[:, 1], -r[:, 0]
                S[:, 1, 0], S[:, 2, 0], S[:, 2, 1] = r[:, 2], -r[:, 1], r[:, 0]
                Jp = Jl[None] - S @ Ja  # (P, 3, nv)
                cols.append(np.einsum("pkn,ke->npe", Jp, self.B).reshape(nv, 4 * len(r)))
                counts.append((f, len(r)))
        mujoco.mj_jacBody(m, d, self._jc, J[12:15], self.pelvis)
        wt[12:15] = cfg.pelvis_weight
        h = h - self._jc.T @ tg.external  # the estimated push acts like a bias force
        u[12:15] = cfg.pelvis_kp * _rot_error(tg.pelvis_quat, d.xquat[self.pelvis]) + cfg.pelvis_kd * (
            tg.pelvis_omega - J[12:15] @ qd
        )
        wt[15] = cfg.height_weight
        J[15] = self._jc[2]
        u[15] = cfg.height_kp * (tg.height[0] - d.xpos[self.pelvis, 2]) + cfg.height_kd * (tg.height[1] - J[15] @ qd)
        mujoco.mj_jacSubtreeCom(m, d, self._jc, 1)
        wt[16:18] = cfg.com_weight
        J[16:18] = self._jc[:2]
        c, cv = d.subtree_com[1, :2], J[16:18] @ qd
        u[16:18] = tg.com[2] + cfg.com_kp * (tg.com[0] - c) + cfg.com_kd * (tg.com[1] - cv)
        q = d.qpos[self.joint_qadr]
        v = qd[6:]
        u[18:] = self.joint_kp * (tg.joints - q) - self.joint_kd * v
        if cfg.jdot:
            u -= self.task_bias(d)
        Jt, ut = J, u
        nc = sum(4 * c for _, c in counts)
        n = nv + nc
        H = np.zeros((n, n))
        g = np.zeros(n)
        WJ = Jt * wt[:, None]
        H[:nv, :nv] = Jt.T @ WJ + self._reg
        g[:nv] = -WJ.T @ ut
        Q = np.hstack(cols) if nc else np.zeros((nv, 0))
        if nc:
            Qa = Q[6:]
            H[nv:, nv:] = cfg.torque_reg * Qa.T @ Qa + cfg.force_reg * np.eye(nc)
        E = np.hstack([M[:6], -Q[:6]])
        b = -h[:6]
        if cfg.hard_contacts or tg.constrained:
            stance = [6 * f + i for f in range(2) if tg.contacts[f] for i in range(6)]
            if stance:
                E = np.vstack([E, np.hstack([J[stance], np.zeros((len(stance), nc))])])
                b = np.concatenate([b, u[stance]])
        lo = np.full(n, -np.inf)
        hi = np.full(n, np.inf)
        lo[6:nv] = cfg.limit_kp * (self.q_min - q) - cfg.limit_kd * v
        hi[6:nv] = cfg.limit_kp * (self.q_max - q) - cfg.limit_kd * v
        bad = lo[6:nv] > hi[6:nv]
        if bad.any():
            mid = 0.5 * (lo[6:nv] + hi[6:nv])
            lo[6:nv][bad] = hi[6:nv][bad] = mid[bad]
        lo[nv:] = 0.0
        hi[nv:] = cfg.max_force
        A_t = t_lo = t_hi = None
        if cfg.torque_limits or tg.constrained:  # |M_a qdd + h_a - Q_a rho| <= the motors' limits
            ad = self.act_dof
            A_t = np.hstack([M[ad], -Q[ad]])
            t_lo, t_hi = -self.limit - h[ad], self.limit - h[ad]
        res = solve_qp(H, g, A=A_t, lower=t_lo, upper=t_hi, A_eq=E, b_eq=b, x_lower=lo, x_upper=hi)
        if not res.solved and A_t is not None:  # limits the contacts cannot meet: clip afterwards
            res = solve_qp(H, g, A_eq=E, b_eq=b, x_lower=lo, x_upper=hi)
        if not res.solved and len(b) > 6:
            res = solve_qp(H, g, A_eq=E[:6], b_eq=b[:6], x_lower=lo, x_upper=hi)
        x = res.x
        qdd, rho = x[:nv], x[nv:]
        tau_full = M @ qdd + h - Q @ rho
        torque = np.clip(tau_full[self.act_dof], -self.limit, self.limit)
        force = np.zeros((2, 3))
        k = 0
        for f, c in counts:
            force[f] = self.B @ rho[k : k + 4 * c].reshape(c, 4).sum(axis=0)
            k += 4 * c
        return WbcOutput(torque=torque, qdd=qdd, foot_force=force, status=res.status)
