"""iLQR (the DDP family's Gauss-Newton variant) over MuJoCo dynamics, with control limits.

    result = ilqr(model, x0, controls, cost, settings=IlqrSettings())

One control step is one ``mj_step`` of ``model`` (its timestep is the control step), or, with
``physics=(fine, n)``, n steps of ``fine`` (the same model at a timestep n times shorter: the
rollouts then are the fine physics; the Jacobians are those of one step of ``model``, or with
``IlqrSettings.jacobians`` those of the fine physics, see there). The
dynamics' Jacobians come from MuJoCo's finite differences (``mjd_transitionFD``) in the state's
tangent space (2 nv + na: positions differentiate with ``mj_differentiatePos``, so free joints'
quaternions are handled), the cost is a weighted tracking cost in the same tangent space
(:class:`TrackingCost`), so its Hessians are exact and the method is Gauss-Newton on the tracking
problem. The backward pass is control-limited DDP (Tassa, Mansard and Todorov, ICRA 2014): each
step solves the box QP of the control change within the limits (``mju_boxQP``) and the feedback
gains act on the free controls only. Regularisation on Quu and the line search over step sizes
follow Tassa, Erez and Todorov (IROS 2012): mu grows by a factor when the backward pass fails or
no step size reduces the cost, shrinks after a success; a step is accepted when the actual cost
decrease is at least ``accept_ratio`` times the expected one.

Warm start: pass the previous solution's controls (and optionally its gains with its states, so
the first rollout closes the loop around the old trajectory).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import mujoco
import numpy as np

from ..errors import ConfigError
from .ilqr_cost import ControlResidual, StateResidual, TrackingCost
from .ilqr_jacobians import fd_jacobians

__all__ = [
    "ControlResidual",
    "IlqrIteration",
    "IlqrResult",
    "IlqrSettings",
    "StateResidual",
    "TrackingCost",
    "ilqr",
]

JACOBIANS = ("step", "frozen", "chain")


@dataclass(frozen=True)
class IlqrSettings:
    """Options of :func:`ilqr`.

    Attributes:
        max_iterations: outer iterations (backward + forward pass) at most.
        tolerance: stop when the full step's expected cost decrease, relative to the cost, is below
            this (a small accepted step alone does not stop it: contacts often force short steps).
        mu_init: initial regularisation on Quu.
        mu_min: the regularisation never falls below this (0 allows plain Gauss-Newton steps;
            contacts make the local model poor: a floor keeps steps trusted-region-like).
        mu_max: stop (no progress possible) when the regularisation exceeds this.
        mu_factor: growth factor of the regularisation's multiplier (Tassa 2012's delta_0).
        step_sizes: line-search step sizes tried in order (largest first).
        accept_ratio: least actual / expected cost decrease of an accepted step.
        fd_eps: finite-difference perturbation of mjd_transitionFD.
        fd_centered: centred finite differences (twice the cost).
        jacobians: with fine physics (``physics=(fine, n)``), what the Jacobians of a control step
            are: "step", those of one step of the control model (its contacts' time constants are
            at least two control steps: softer than the fine physics'); "frozen", the fine step's
            at the control step's start state applied n times (A = A1^n, B = (A1^(n-1) + ... + I)
            B1: the fine floor's stiffness at the cost of one); "chain", the product of the n fine
            steps' own (n times the cost).
        threads: the Jacobians along the trajectory are computed on this many threads (MuJoCo
            releases Python's lock in ``mjd_transitionFD``; each thread its own MjData, so the
            result is the same for any count); 1: in the calling thread.
    """

    max_iterations: int = 30
    tolerance: float = 1e-4
    mu_init: float = 1e-3
    mu_min: float = 0.0
    mu_max: float = 1e10
    mu_factor: float = 1.6
    step_sizes: tuple[float, ...] = tuple(float(a) for a in 10.0 ** np.linspace(0.0, -3.0, 8))
    accept_ratio: float = 1e-4
    fd_eps: float = 1e-6
    fd_centered: bool = False
    jacobians: str = "step"
    threads: int = 1

    def __post_init__(self) -> None:
        if self.max_iterations < 0:
            raise ConfigError(f"IlqrSettings.max_iterations must be >= 0, got {self.max_iterations}")
        if not self.step_sizes or any(not 0 < a <= 1 for a in self.step_sizes):
            raise ConfigError("IlqrSettings.step_sizes must be non-empty, each in (0, 1]")
        if not (self.mu_factor > 1 and self.mu_max > self.mu_init >= 0 and self.fd_eps > 0):
            raise ConfigError("IlqrSettings: need mu_factor > 1, 0 <= mu_init < mu_max, fd_eps > 0")
        if self.jacobians not in JACOBIANS:
            raise ConfigError(f"IlqrSettings.jacobians must be one of {', '.join(JACOBIANS)}; got {self.jacobians!r}")
        if self.threads < 1:
            raise ConfigError(f"IlqrSettings.threads must be >= 1, got {self.threads}")


@dataclass(frozen=True)
class IlqrIteration:
    """One iteration's figures, given to the progress callback."""

    iteration: int
    cost: float
    step_size: float
    mu: float
    improvement: float
    seconds: float


@dataclass(frozen=True)
class IlqrResult:
    """The optimised trajectory.

    Attributes:
        qpos: states' positions along the rollout. Shape: (T+1, nq).
        qvel: velocities. Shape: (T+1, nv).
        controls: the control sequence. Shape: (T, nu).
        gains: feedback gains on the tangent state error (u = u_k + K_k dx). Shape: (T, nu, 2 nv).
        cost: final cost.
        iterations: iterations run.
        converged: the relative decrease fell below the tolerance.
        reason: why it stopped.
        history: cost after each iteration (index 0: the initial rollout).
        seconds: wall time [s].
        warm: MuJoCo's solver warm start (qacc_warmstart) before each control step and after the
            last: a rollout from state k with warm[k] continues the simulation exactly. Shape: (T+1, nv).
    """

    qpos: np.ndarray
    qvel: np.ndarray
    controls: np.ndarray
    gains: np.ndarray
    cost: float
    iterations: int
    converged: bool
    reason: str
    history: tuple[float, ...] = field(default=())
    seconds: float = 0.0
    warm: np.ndarray | None = None


class _Dynamics:
    """Rollouts and derivatives on one MjData."""

    def __init__(
        self, model: mujoco.MjModel, cost: TrackingCost, physics: tuple[mujoco.MjModel, int] | None = None
    ) -> None:
        if model.na:
            raise ConfigError("ilqr: models with actuator activations are not supported")
        self.m = model
        self.physics, self.substeps = physics or (model, 1)
        if self.substeps < 1 or self.physics.nq != model.nq or self.physics.nu != model.nu:
            raise ConfigError(f"ilqr: physics needs substeps >= 1 and the same model, got {self.substeps} substeps")
        self.d = mujoco.MjData(model)
        self.spare: list[mujoco.MjData] = []  # the Jacobians' other threads' data
        self.cost = cost
        self.warm0 = np.zeros(model.nv)
        self.nv, self.nu = model.nv, model.nu
        self.lo = np.where(model.actuator_ctrllimited, model.actuator_ctrlrange[:, 0], -np.inf)
        self.hi = np.where(model.actuator_ctrllimited, model.actuator_ctrlrange[:, 1], np.inf)

    def dx(self, k: int, q: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
        mujoco.mj_differentiatePos(self.m, out[: self.nv], 1.0, self.cost.qpos[k], q)
        out[self.nv :] = v - self.cost.qvel[k]

    def rollout(
        self, x0: tuple[np.ndarray, np.ndarray], u: np.ndarray,
        ref: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None, k_ff: np.ndarray | None = None,
        gains: np.ndarray | None = None, step: float = 1.0,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:  # fmt: skip
        """(qpos (T+1,nq), qvel, controls (T,nu), warm starts (T+1,nv), cost); with ``ref`` (qpos, qvel,
        controls) the feedback law u = u_ref + step k + K (x - x_ref) is applied. MuJoCo's solver
        warm start begins at ``self.warm0`` (zero: a fresh simulation)."""
        m, d, c = self.m, self.d, self.cost
        t = c.horizon
        qs = np.zeros((t + 1, m.nq))
        vs = np.zeros((t + 1, self.nv))
        us = np.zeros((t, self.nu))
        warm = np.zeros((t + 1, self.nv))
        d.qpos[:], d.qvel[:] = x0
        d.qacc_warmstart[:] = self.warm0
        d.time = 0.0
        mujoco.mj_forward(m, d)
        e = np.zeros(2 * self.nv)
        err = np.zeros(2 * self.nv)
        total = 0.0
        for k in range(t):
            qs[k], vs[k] = d.qpos, d.qvel
            if ref is None:
                uk = u[k]
            else:
                mujoco.mj_differentiatePos(m, err[: self.nv], 1.0, ref[0][k], d.qpos)
                err[self.nv :] = d.qvel - ref[1][k]
                uk = ref[2][k] + step * k_ff[k] + gains[k] @ err  # type: ignore[index]
            us[k] = np.clip(uk, self.lo, self.hi)
            self.dx(k, qs[k], vs[k], e)
            du = us[k] - c.controls[k]
            total += c.state_cost(k, e) + 0.5 * float(du @ (c.control_weight[k] * du))
            if c.residual is not None:
                total += 0.5 * float(np.sum(c.residual(k, qs[k], vs[k])[0] ** 2))
            if c.control_residual is not None:
                total += 0.5 * float(np.sum(c.control_residual(k, qs[k], vs[k], us[k])[0] ** 2))
            warm[k] = d.qacc_warmstart
            d.ctrl[:] = us[k]
            for _ in range(self.substeps):
                mujoco.mj_step(self.physics, d)
            if not (np.isfinite(d.qpos).all() and np.isfinite(d.qvel).all()):
                return qs, vs, us, warm, float("inf")
        qs[t], vs[t] = d.qpos, d.qvel
        warm[t] = d.qacc_warmstart
        self.dx(t, qs[t], vs[t], e)
        total += c.state_cost(t, e)
        if c.residual is not None:
            total += 0.5 * float(np.sum(c.residual(t, qs[t], vs[t])[0] ** 2))
        return qs, vs, us, warm, total

    def state_terms(self, k: int, q: np.ndarray, v: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Gradient (2 nv,) and Gauss-Newton Hessian (2 nv, 2 nv) of step k's state cost at (q, v)."""
        c = self.cost
        g, h = c.state_gradient(k, e), c.state_hess(k)
        if c.residual is not None:
            r, jac = c.residual(k, q, v)
            if r.size:
                g = g + jac.T @ r
                h = h + jac.T @ jac
        return g, h

    def derivatives(self, qs: np.ndarray, vs: np.ndarray, us: np.ndarray, warm: np.ndarray, s: IlqrSettings):
        """A (T, 2nv, 2nv), B (T, 2nv, nu) along the trajectory (ilqr_jacobians.fd_jacobians)."""
        n = max(1, min(s.threads, us.shape[0] // 8))  # a few steps per thread at least
        while len(self.spare) < n - 1:
            self.spare.append(mujoco.MjData(self.m))
        datas = [self.d, *self.spare[: n - 1]]
        return fd_jacobians(self.m, (self.physics, self.substeps), datas, qs, vs, us, warm, s)


def _backward(
    a: np.ndarray, b: np.ndarray, dyn: _Dynamics, qs: np.ndarray, vs: np.ndarray, us: np.ndarray, mu: float
) -> tuple[np.ndarray, np.ndarray, float, float] | None:
    """Feedforward k (T, nu), gains K (T, nu, nx), expected decrease terms; None when Quu is not PD."""
    c = dyn.cost
    t, nx, nu = us.shape[0], a.shape[1], us.shape[1]
    e = np.zeros(nx)
    dyn.dx(t, qs[t], vs[t], e)
    vx, vxx = dyn.state_terms(t, qs[t], vs[t], e)
    kff = np.zeros((t, nu))
    kfb = np.zeros((t, nu, nx))
    d1 = d2 = 0.0
    res = np.zeros(nu)
    r_scratch = np.zeros((nu, nu + 7))
    index = np.zeros(nu, dtype=np.int32)
    for k in range(t - 1, -1, -1):
        dyn.dx(k, qs[k], vs[k], e)
        ak, bk = a[k], b[k]
        lx, lxx = dyn.state_terms(k, qs[k], vs[k], e)
        qx = lx + ak.T @ vx
        qu = c.control_weight[k] * (us[k] - c.controls[k]) + bk.T @ vx
        vb = vxx @ bk
        qxx = lxx + ak.T @ vxx @ ak
        quu = np.diag(c.control_weight[k]) + bk.T @ vb
        qux = vb.T @ ak
        if c.control_residual is not None:
            r, jx, ju = c.control_residual(k, qs[k], vs[k], us[k])
            if r.size:
                qx, qu = qx + jx.T @ r, qu + ju.T @ r
                qxx, quu, qux = qxx + jx.T @ jx, quu + ju.T @ ju, qux + ju.T @ jx
        quu_reg = quu + mu * np.eye(nu)
        lower, upper = dyn.lo - us[k], dyn.hi - us[k]
        res[:] = kff[k + 1] if k + 1 < t else 0.0
        np.clip(res, lower, upper, out=res)
        rank = mujoco.mju_boxQP(res, r_scratch, index, np.ascontiguousarray(quu_reg), qu, lower, upper)
        if rank < 0:
            return None
        kk = np.zeros((nu, nx))
        if rank > 0:
            free = index[:rank]
            try:
                chol = np.linalg.cholesky(quu_reg[np.ix_(free, free)])
            except np.linalg.LinAlgError:
                return None
            kk[free] = -np.linalg.solve(chol.T, np.linalg.solve(chol, qux[free]))
        kff[k], kfb[k] = res, kk
        d1 += float(res @ qu)
        d2 += 0.5 * float(res @ quu @ res)
        vx = qx + kk.T @ quu @ res + kk.T @ qu + qux.T @ res
        vxx = qxx + kk.T @ quu @ kk + kk.T @ qux + qux.T @ kk
        vxx = 0.5 * (vxx + vxx.T)
    return kff, kfb, d1, d2


def ilqr(
    model: mujoco.MjModel,
    x0: tuple[np.ndarray, np.ndarray],
    controls: np.ndarray,
    cost: TrackingCost,
    *,
    settings: IlqrSettings | None = None,
    gains: np.ndarray | None = None,
    warm_states: tuple[np.ndarray, np.ndarray] | None = None,
    callback: Callable[[IlqrIteration], None] | None = None,
    physics: tuple[mujoco.MjModel, int] | None = None,
    warmstart: np.ndarray | None = None,
) -> IlqrResult:
    """Minimise ``cost`` over the controls (T, nu) from state x0 = (qpos (nq,), qvel (nv,)).

    Warm start: ``controls`` from a previous solution; with its ``gains`` (T, nu, 2nv) and
    ``warm_states`` (qpos (T+1, nq), qvel (T+1, nv)) the first rollout applies that feedback law.
    ``callback`` receives an :class:`IlqrIteration` after every iteration. ``physics`` = (fine, n):
    every rollout simulates a control step as n steps of ``fine`` (module docstring).
    ``warmstart`` (nv,): MuJoCo's solver warm start at x0 (an earlier result's ``warm[k]``, to continue
    that simulation exactly; None: zero, a fresh one).
    """
    s = settings or IlqrSettings()
    start = time.perf_counter()
    t = cost.horizon
    u0 = np.asarray(controls, dtype=np.float64)
    if u0.shape != (t, model.nu):
        raise ConfigError(f"ilqr: controls have shape {u0.shape}, expected {(t, model.nu)}")
    dyn = _Dynamics(model, cost, physics)
    if warmstart is not None:
        dyn.warm0 = np.array(warmstart, dtype=np.float64)
    if gains is not None and warm_states is not None:
        qs, vs, us, warm, j = dyn.rollout(x0, u0, (*warm_states, u0), np.zeros_like(u0), gains, 0.0)
    else:
        qs, vs, us, warm, j = dyn.rollout(x0, u0)
    if not np.isfinite(j):
        raise ConfigError("ilqr: the initial rollout diverged (NaN state)")
    kfb = np.zeros((t, model.nu, 2 * model.nv))
    mu, delta = s.mu_init, 1.0
    history = [j]
    converged, reason, it = False, "max_iterations", 0
    for it in range(1, s.max_iterations + 1):
        a, b = dyn.derivatives(qs, vs, us, warm, s)
        accepted = False
        while not accepted:
            back = _backward(a, b, dyn, qs, vs, us, mu)
            if back is None:
                delta = max(s.mu_factor, delta * s.mu_factor)
                mu = max(s.mu_min, 1e-6, mu * delta)
                if mu > s.mu_max:
                    break
                continue
            kff, gain, d1, d2 = back
            if -(d1 + d2) < s.tolerance * abs(j):  # the full step promises too little: a local optimum
                converged = True
                break
            for alpha in s.step_sizes:
                trial = dyn.rollout(x0, us, (qs, vs, us), kff, gain, alpha)
                expected = -(alpha * d1 + alpha * alpha * d2)
                actual = j - trial[4]
                if np.isfinite(trial[4]) and actual > 0 and (expected <= 0 or actual >= s.accept_ratio * expected):
                    accepted = True
                    break
            if accepted:
                break
            delta = max(s.mu_factor, delta * s.mu_factor)
            mu = max(s.mu_min, 1e-6, mu * delta)
            if mu > s.mu_max:
                break
        if converged:
            reason = "converged"
            it -= 1
            break
        if not accepted:
            reason = "no descent (regularisation exceeded mu_max)"
            it -= 1
            break
        improvement = (j - trial[4]) / max(abs(j), 1e-300)
        qs, vs, us, warm, j = trial
        kfb = gain
        history.append(j)
        delta = min(1.0 / s.mu_factor, delta / s.mu_factor)
        mu = max(s.mu_min, mu * delta)
        if callback is not None:
            callback(IlqrIteration(it, j, alpha, mu, improvement, time.perf_counter() - start))
    return IlqrResult(
        qpos=qs, qvel=vs, controls=us, gains=kfb, cost=j, iterations=it, converged=converged, reason=reason,
        history=tuple(history), seconds=time.perf_counter() - start, warm=warm,
    )  # fmt: skip
