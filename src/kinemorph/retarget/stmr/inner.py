"""The temporal stage's inner problem: track the warped targets through the robot's dynamics.

For one alpha, the spatial stage's trajectory warped to the control grid (warp.py) is tracked
by iLQR (optim/ilqr.py) over the PD-servo model (dynamics.py): controls are joint targets within
the joint ranges, torques clamped at the motors' limits, contacts MuJoCo's own. The cost weights
base position and orientation, joint angles and velocities against the targets, plus effort: the
control's distance from the nominal control, the PD target that produces the targets' own
inverse-dynamics torques (kinemorph.sim) at the target state: what the motion asks of the motors
is free, only corrections on top of it cost. Costs evaluated on the rollout itself come from
temporal.py: a joint's speed over the cap, a servo's torque over its motor's limit
(torque_cost.py), and the optional floor and clearance terms.

The horizon is solved receding-horizon style: iLQR over a window of ``window_s`` from the
committed state, its first ``commit_s`` committed, the rest warm-starting the next window. The
whole result is one rollout of the dynamics (feasible by construction): each window's rollout
continues the committed simulation, MuJoCo's solver warm start included, so that the controls
replayed on the same physics (kinemorph.sim, on the model the output's controls name) give its
states back. Its controls and feedback gains are kept for the output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...optim.ilqr import ControlResidual, IlqrSettings, StateResidual, TrackingCost, ilqr
from .dynamics import ServoModel
from .floor_cost import foot_sphere, lowest_point_jacobian


@dataclass(frozen=True)
class InnerWeights:
    """Cost weights of the inner problem (see StmrConfig)."""

    base: float
    base_rot: float
    joints: float
    velocity: float
    effort: float
    foot: float = 0.0
    foot_velocity: float = 0.0
    landing: float = 0.0
    swing: float = 0.0


@dataclass(frozen=True)
class InnerResult:
    """One inner solve on a control grid of K steps.

    Attributes:
        qpos: rollout positions. Shape: (K + 1, nq).
        qvel: rollout velocities. Shape: (K + 1, nv).
        controls: PD targets. Shape: (K, nu).
        gains: feedback gains on the tangent state error. Shape: (K, nu, 2 nv).
        cost: total tracking cost.
        base_rms_m: base position error against the targets [m].
        iterations: iLQR iterations over all windows.
    """

    qpos: np.ndarray
    qvel: np.ndarray
    controls: np.ndarray
    gains: np.ndarray
    cost: float
    base_rms_m: float
    iterations: int


LANDING_S = 0.06
TOUCHDOWN_S = 0.03
_DEBUG = bool(__import__("os").environ.get("KINEMORPH_STMR_DEBUG"))


def feedforward_controls(sm: ServoModel, qref: np.ndarray, contacts: np.ndarray, feet: tuple[str, ...]) -> np.ndarray:
    """PD targets (K, nu) that give the reference's inverse-dynamics torques (kinemorph.sim, with
    the planted feet of ``contacts`` (K + 1, 4)) at the reference state: u = q + (tau + kd v) / kp."""
    from ...robots.robot_motion import RobotMotion
    from ...sim.inverse import inverse_dynamics

    tm = sm.torque_model
    motion = RobotMotion.from_qpos(
        tm.robot.name, 1.0 / sm.dt, qref, tm.robot.dof_names, contacts=contacts, contact_bodies=feet
    )
    dyn = inverse_dynamics(tm, motion)
    tau = np.clip(dyn.joint_torque, -sm.torque_limit, sm.torque_limit)
    u = qref[:, sm.qpos_index] + (tau + sm.kd * dyn.qvel[:, tm.act_dof]) / sm.kp
    lo, hi = sm.model.actuator_ctrlrange[:, 0], sm.model.actuator_ctrlrange[:, 1]
    return np.clip(u[:-1], lo, hi)


def tracking_weights(sm: ServoModel, steps: int, w: InnerWeights) -> tuple[np.ndarray, np.ndarray]:
    """(state weights (steps + 1, 2 nv), control weights (steps, nu))."""
    nv = sm.model.nv
    ws = np.zeros((steps + 1, 2 * nv))
    ws[:, :3] = w.base
    ws[:, 3:6] = w.base_rot
    ws[:, 6:nv] = w.joints
    ws[:, nv:] = w.velocity
    ws[:, nv : nv + 3] = 10.0 * w.velocity  # base velocity: what keeps the base from drifting
    return ws, np.full((steps, sm.model.nu), w.effort)


def foot_hessians(
    sm: ServoModel, qref: np.ndarray, contacts: np.ndarray, feet: tuple[str, ...], w: InnerWeights
) -> np.ndarray | None:
    """Per step (K + 1, 2 nv, 2 nv) the quadratic form of the feet's task-space residuals (J: the
    3 x nv Jacobian at the target state of the foot's contact point, the lowest point of its
    sphere, on the sphere's body: a paw that follows a rolling target rolls and its contact point
    does not slide; of the foot body's origin for other feet): a planted foot's position and
    velocity, J dq and J dv (it stays on its anchor and does not slide; weights ``foot``,
    ``foot_velocity``); a
    landing foot's velocity J dv in the last LANDING_S of its swing and the first TOUCHDOWN_S of its
    stance (``landing``: it comes down where and as slowly as the targets do, so it neither lands
    with horizontal speed and slides nor stamps into the floor: a foot arriving at 1 m/s sinks
    about 0.7 cm into the stiff floor); a swinging foot's position J dq (``swing``: it keeps its
    clearance instead of brushing the floor). None without weights."""
    import mujoco

    if w.foot <= 0 and w.foot_velocity <= 0 and w.landing <= 0 and w.swing <= 0:
        return None  # (the vertical landing speed is weighted by foot_velocity)
    m = sm.model
    d = mujoco.MjData(m)
    nv = m.nv
    ids = [m.body(f).id for f in feet]
    spheres = [foot_sphere(m, f) for f in feet]
    out = np.zeros((qref.shape[0], 2 * nv, 2 * nv))
    jac = np.zeros((3, nv))
    n = qref.shape[0]
    ahead = max(1, round(LANDING_S / sm.dt))
    behind = max(1, round(TOUCHDOWN_S / sm.dt))
    landing = np.zeros_like(contacts)  # swinging now, planted within LANDING_S; or planted for under TOUCHDOWN_S
    lifting = np.zeros_like(contacts)  # the mirror image: lifted off within LANDING_S; or lifting within TOUCHDOWN_S
    for k in range(n):
        landing[k] = ~contacts[k] & contacts[k + 1 : k + 1 + ahead].any(axis=0)
        landing[k] |= contacts[k] & ~contacts[max(0, k - behind) : k + 1].all(axis=0)
        lifting[k] = ~contacts[k] & contacts[max(0, k - ahead) : k].any(axis=0)
        lifting[k] |= contacts[k] & ~contacts[k : k + 1 + behind].all(axis=0)
    for k in range(n):
        if w.swing <= 0 and not (contacts[k].any() or landing[k].any() or lifting[k].any()):
            continue  # nothing weighted at this step
        d.qpos[:] = qref[k]
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        pos = np.zeros((nv, nv))
        vel = np.zeros((nv, nv))
        for leg in range(len(feet)):
            g = spheres[leg]
            if g is None:
                mujoco.mj_jacBody(m, d, jac, None, ids[leg])
            else:
                lowest_point_jacobian(m, d, g, jac)
            jtj = jac.T @ jac
            if contacts[k, leg]:
                pos += w.foot * jtj
                vel += w.foot_velocity * jtj
            elif w.swing > 0:
                pos += w.swing * jtj
            if landing[k, leg] or lifting[k, leg]:
                vel += w.landing * jtj
                if not contacts[k, leg]:  # its vertical speed (soft landing) as the planted feet's speed
                    vel += w.foot_velocity * np.outer(jac[2], jac[2])
        out[k, :nv, :nv] = pos
        out[k, nv:, nv:] = vel
    return out


def solve_inner(
    sm: ServoModel,
    qref: np.ndarray,
    vref: np.ndarray,
    weights: InnerWeights,
    *,
    init_controls: np.ndarray,
    nominal_controls: np.ndarray | None = None,
    iterations: int,
    window_s: float,
    commit_s: float,
    on_window: Callable[[int, int], None] | None = None,
    state_hessian: np.ndarray | None = None,
    residual: StateResidual | None = None,
    control_residual: ControlResidual | None = None,
    jacobians: str = "step",
    threads: int = 1,
) -> InnerResult:
    """Track qref (K + 1, nq), vref (K + 1, nv) from qref[0] (see the module docstring):
    iLQR over ``window_s`` from the committed state, ``commit_s`` of it committed, repeated.
    nominal_controls (K, nu): what effort is measured from (None: the target joint angles).
    state_hessian (K + 1, 2 nv, 2 nv): extra state cost (foot_hessians), or None; residual: a
    cost evaluated on the rollout itself (floor_cost.FloorSlipResidual), or None; control_residual:
    one of the state and the control (torque_cost.TorqueResidual), or None; jacobians, threads: the
    iLQR's (optim.ilqr.IlqrSettings)."""
    steps = qref.shape[0] - 1
    uref = qref[:-1, sm.qpos_index] if nominal_controls is None else nominal_controls
    ws, wu = tracking_weights(sm, steps, weights)
    horizon = max(2, round(window_s / sm.dt))
    commit = max(1, min(horizon, round(commit_s / sm.dt)))
    q_out = np.zeros_like(qref)
    v_out = np.zeros_like(vref)
    u_out = np.array(init_controls, dtype=np.float64, copy=True)
    k_out = np.zeros((steps, sm.model.nu, 2 * sm.model.nv))
    x = (qref[0].copy(), vref[0].copy())
    warm = np.zeros(sm.model.nv)
    q_out[0], v_out[0] = x
    settings = IlqrSettings(
        max_iterations=iterations,
        tolerance=1e-3,
        mu_init=1000.0,
        mu_min=100.0,
        jacobians=jacobians,
        threads=threads,
    )
    total_iters = 0
    a = 0
    while a < steps:
        c = min(steps, a + horizon)
        b = min(c, a + commit)
        sl = slice(a, c + 1)
        extra = None if state_hessian is None else state_hessian[sl]
        if residual is not None and hasattr(residual, "offset"):
            residual.offset = a  # its step index runs over the whole horizon
        tc = TrackingCost(qref[sl], vref[sl], ws[sl].copy(), uref[a:c], wu[a:c], extra, residual, control_residual)
        res = ilqr(sm.model, x, u_out[a:c], tc, settings=settings, physics=(sm.physics, sm.substeps), warmstart=warm)
        n = b - a
        q_out[a : b + 1], v_out[a : b + 1] = res.qpos[: n + 1], res.qvel[: n + 1]
        u_out[a:c] = res.controls  # the rest of the window warm-starts the next solve
        k_out[a:b] = res.gains[:n]
        total_iters += res.iterations
        if _DEBUG:
            err = np.linalg.norm(res.qpos[n, :3] - qref[b, :3])
            print(f"DBG {a} {b} {res.iterations} {res.reason} {res.history[0]:.1f}->{res.cost:.1f} err {err:.3f}")
        x = (res.qpos[n].copy(), res.qvel[n].copy())
        # the committed steps are one simulation (kinemorph.sim's replay reproduces it)
        warm = np.array(res.warm[n]) if res.warm is not None else np.zeros(sm.model.nv)
        a = b
        if on_window is not None:
            on_window(b, steps)
    err = np.linalg.norm(q_out[:, :3] - qref[:, :3], axis=1)
    cost = _cost(sm, q_out, v_out, u_out, qref, vref, uref, ws, wu, state_hessian)
    return InnerResult(q_out, v_out, u_out, k_out, cost, float(np.sqrt(np.mean(err**2))), total_iters)


def _cost(sm, q, v, u, qref, vref, uref, ws, wu, hess) -> float:  # type: ignore[no-untyped-def]
    import mujoco

    nv = sm.model.nv
    dx = np.zeros(2 * nv)
    total = 0.0
    for k in range(q.shape[0]):
        mujoco.mj_differentiatePos(sm.model, dx[:nv], 1.0, qref[k], q[k])
        dx[nv:] = v[k] - vref[k]
        total += 0.5 * float(dx @ (ws[k] * dx))
        if hess is not None:
            total += 0.5 * float(dx @ hess[k] @ dx)
        if k < u.shape[0]:
            du = u[k] - uref[k]
            total += 0.5 * float(du @ (wu[k] * du))
    return total
