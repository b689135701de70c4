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
feed-forward: both feet (6-D, the standing foot held still), pelvis orientation (3-D) and height,
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
    """

    foot_kp: float = 400.0
    foot_kd: float = 40.0
    stance_weight: float = 100.0
    swing_weight: float = 30.0
    pelvis_kp: float = 200.0
    pelvis_kd: float = 28.0
    pelvis_weight: float = 10.0
    height_kp: float = 150.0
    height_kd: float = 25.0
    height_weight: float = 10.0
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
        contacts: foot on the floor (its contact points carry force). Shape: (2,).
        pelvis_quat: pelvis orientation, wxyz. Shape: (4,).
        pelvis_omega: pelvis angular velocity [rad/s]. Shape: (3,).
        height: pelvis height [m] and its rate [m/s]. Shape: (2,).
        com: horizontal CoM position, velocity, acceleration [m, m/s, m/s^2]. Shape: (3, 2).
        joints: target value of every actuated joint [rad] (upper body from the style). Shape: (nj,).
    """

    foot_pos: np.ndarray
    foot_quat: np.ndarray
    foot_vel: np.ndarray
    contacts: np.ndarray
    pelvis_quat: np.ndarray
    pelvis_omega: np.ndarray
    height: np.ndarray
    com: np.ndarray
    joints: np.ndarray


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
        self._jp = np.zeros((3, nv))
        self._jr = np.zeros((3, nv))
        self._jc = np.zeros((3, nv))
        self._warm: np.ndarray | None = None

    def solve(self, d: mujoco.MjData, tg: WbcTargets) -> WbcOutput:
        """Torques for the state in ``d`` (kinematics, mass matrix and bias forces computed, as
        after mj_step1 or mj_forward)."""
        m, cfg, nv = self.m, self.cfg, self.nv
        qd = d.qvel
        mujoco.mj_fullM(m, d, self._M)
        M = self._M
        h = d.qfrc_bias - d.qfrc_passive
        rows: list[np.ndarray] = []
        targets: list[np.ndarray] = []
        weights: list[np.ndarray] = []
        # feet
        pts_cols = []
        for f, body in enumerate(self.feet):
            mujoco.mj_jacBody(m, d, self._jp, self._jr, body)
            J = np.vstack([self._jp, self._jr])
            v = J @ qd
            if tg.contacts[f]:
                u = -cfg.foot_kd * v
                wt = cfg.stance_weight
            else:
                e = np.concatenate([tg.foot_pos[f] - d.xpos[body], _rot_error(tg.foot_quat[f], d.xquat[body])])
                u = cfg.foot_kp * e + cfg.foot_kd * (tg.foot_vel[f] - v)
                wt = cfg.swing_weight
            rows.append(J)
            targets.append(u)
            weights.append(np.full(6, wt))
            if tg.contacts[f]:
                R = d.xmat[body].reshape(3, 3)
                for p in self.points[f]:
                    mujoco.mj_jac(m, d, self._jc, None, d.xpos[body] + R @ p, body)
                    pts_cols.append(self._jc.T @ self.B)  # (nv, 4)
        # pelvis orientation and height
        mujoco.mj_jacBody(m, d, self._jp, self._jr, self.pelvis)
        w_p = self._jr @ qd
        u = cfg.pelvis_kp * _rot_error(tg.pelvis_quat, d.xquat[self.pelvis]) + cfg.pelvis_kd * (tg.pelvis_omega - w_p)
        rows.append(self._jr.copy())
        targets.append(u)
        weights.append(np.full(3, cfg.pelvis_weight))
        jz = self._jp[2:3].copy()
        u = cfg.height_kp * (tg.height[0] - d.xpos[self.pelvis, 2]) + cfg.height_kd * (tg.height[1] - jz[0] @ qd)
        rows.append(jz)
        targets.append(np.array([u]))
        weights.append(np.array([cfg.height_weight]))
        # CoM
        mujoco.mj_jacSubtreeCom(m, d, self._jc, 1)
        Jc = self._jc[:2].copy()
        c, cv = d.subtree_com[1, :2], Jc @ qd
        u = tg.com[2] + cfg.com_kp * (tg.com[0] - c) + cfg.com_kd * (tg.com[1] - cv)
        rows.append(Jc)
        targets.append(u)
        weights.append(np.full(2, cfg.com_weight))
        # joints
        q = d.qpos[self.joint_qadr]
        v = qd[6:]
        J = np.zeros((nv - 6, nv))
        J[:, 6:] = np.eye(nv - 6)
        rows.append(J)
        targets.append(self.joint_kp * (tg.joints - q) - self.joint_kd * v)
        weights.append(self.joint_w)

        Jt = np.vstack(rows)
        ut = np.concatenate(targets)
        wt = np.concatenate(weights)
        nc = 4 * len(pts_cols)
        n = nv + nc
        H = np.zeros((n, n))
        g = np.zeros(n)
        WJ = Jt * wt[:, None]
        H[:nv, :nv] = Jt.T @ WJ + cfg.accel_reg * np.eye(nv)
        g[:nv] = -WJ.T @ ut
        Q = np.hstack(pts_cols) if nc else np.zeros((nv, 0))
        if nc:
            Qa = Q[6:]
            H[nv:, nv:] = cfg.torque_reg * Qa.T @ Qa + cfg.force_reg * np.eye(nc)
        E = np.hstack([M[:6], -Q[:6]])
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
        res = solve_qp(H, g, A_eq=E, b_eq=-h[:6], x_lower=lo, x_upper=hi)
        x = res.x
        qdd, rho = x[:nv], x[nv:]
        tau_full = M @ qdd + h - Q @ rho
        torque = np.clip(tau_full[self.act_dof], -self.limit, self.limit)
        force = np.zeros((2, 3))
        k = 0
        for f in range(2):
            if tg.contacts[f]:
                force[f] = (self.B @ rho[k : k + 16].reshape(4, 4).T).sum(axis=1)
                k += 16
        return WbcOutput(torque=torque, qdd=qdd, foot_force=force, status=res.status)
