"""iLQR over MuJoCo dynamics (kinemorph.optim.ilqr) on small systems with known optima."""

from __future__ import annotations

import itertools

import mujoco
import numpy as np
import pytest

from kinemorph.errors import ConfigError
from kinemorph.optim.ilqr import IlqrSettings, TrackingCost, ilqr
from kinemorph.optim.qp import solve_qp

SLIDER = """
<mujoco>
  <option timestep="0.05" gravity="0 0 0" integrator="Euler"/>
  <worldbody>
    <body name="cart"><joint name="x" type="slide" axis="1 0 0"/><geom type="box" size=".1 .1 .1" mass="2"/></body>
  </worldbody>
  <actuator><motor joint="x" ctrllimited="true" ctrlrange="{lo} {hi}"/></actuator>
</mujoco>
"""

PENDULUM = """
<mujoco>
  <option timestep="0.02" integrator="Euler"/>
  <worldbody>
    <body name="pole"><joint name="hinge" type="hinge" axis="0 1 0" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03" mass="1"/></body>
  </worldbody>
  <actuator><motor joint="hinge" ctrllimited="true" ctrlrange="-2 2"/></actuator>
</mujoco>
"""


def _cost(t: int, goal: float, w_run: float, w_final: float, w_u: float) -> TrackingCost:
    wx = np.full((t + 1, 2), w_run)
    wx[-1] = w_final
    return TrackingCost(
        qpos=np.full((t + 1, 1), goal), qvel=np.zeros((t + 1, 1)), state_weight=wx,
        controls=np.zeros((t, 1)), control_weight=np.full((t, 1), w_u),
    )  # fmt: skip


def _qp_optimum(m: mujoco.MjModel, cost: TrackingCost, x0: np.ndarray) -> tuple[np.ndarray, float]:
    """The exact optimum of the linear slider: states are affine in the controls; one convex QP."""
    d = mujoco.MjData(m)
    a = np.zeros((2, 2))
    b = np.zeros((2, 1))
    mujoco.mjd_transitionFD(m, d, 1e-6, True, a, b, None, None)
    t = cost.horizon
    # x_k = Phi_k x0 + G_k U
    phi, g = np.eye(2), np.zeros((2, t))
    h = np.diag(cost.control_weight[:, 0]).astype(float)
    lin = np.zeros(t)
    const = 0.0
    ref = np.array([cost.qpos[0, 0], 0.0])
    for k in range(t + 1):
        w = cost.state_hess(k)
        off = phi @ x0 - ref
        h += g.T @ w @ g
        lin += g.T @ w @ off
        const += 0.5 * off @ w @ off
        if k < t:
            phi, g = a @ phi, a @ g
            g[:, k] += b[:, 0]
    lo, hi = m.actuator_ctrlrange[0]
    r = solve_qp(h, lin, x_lower=np.full(t, lo), x_upper=np.full(t, hi), tolerance=1e-10)
    assert r.solved
    return r.x, r.objective + const


@pytest.mark.parametrize("limit", [100.0, 3.0])
def test_linear_slider_reaches_the_qp_optimum(limit: float) -> None:
    """Linear dynamics and quadratic cost: iLQR must reach the constrained optimum (box QP over
    all controls) to solver precision, with and without active control limits."""
    m = mujoco.MjModel.from_xml_string(SLIDER.format(lo=-limit, hi=limit))
    cost = _cost(40, 1.0, 1.0, 100.0, 0.01)
    x0 = np.zeros(2)
    u_star, j_star = _qp_optimum(m, cost, x0)
    res = ilqr(m, (np.zeros(1), np.zeros(1)), np.zeros((40, 1)), cost, settings=IlqrSettings(tolerance=1e-10))
    assert res.cost == pytest.approx(j_star, rel=1e-5)
    np.testing.assert_allclose(res.controls[:, 0], u_star, atol=2e-3 * max(1.0, np.abs(u_star).max()))
    assert np.all(np.abs(res.controls) <= limit + 1e-9)
    if limit < 10:
        assert np.isclose(np.abs(res.controls).max(), limit)  # the limit is active


def test_a_dense_state_hessian_is_optimised_exactly() -> None:
    """The extra quadratic form 1/2 dx' P dx (here P couples position and velocity: a cost on
    (x - goal) + 0.5 v, the kind of a task-space residual J dx) is part of the optimum."""
    m = mujoco.MjModel.from_xml_string(SLIDER.format(lo=-3.0, hi=3.0))
    base = _cost(40, 1.0, 0.1, 10.0, 0.01)
    j = np.array([[1.0, 0.5]])
    p = np.tile(20.0 * j.T @ j, (41, 1, 1))
    cost = TrackingCost(base.qpos, base.qvel, base.state_weight, base.controls, base.control_weight, p)
    u_star, j_star = _qp_optimum(m, cost, np.zeros(2))
    res = ilqr(m, (np.zeros(1), np.zeros(1)), np.zeros((40, 1)), cost, settings=IlqrSettings(tolerance=1e-10))
    assert res.cost == pytest.approx(j_star, rel=1e-5)
    np.testing.assert_allclose(res.controls[:, 0], u_star, atol=2e-3 * max(1.0, np.abs(u_star).max()))
    plain = ilqr(m, (np.zeros(1), np.zeros(1)), np.zeros((40, 1)), base, settings=IlqrSettings(tolerance=1e-10))
    assert np.abs(plain.controls - res.controls).max() > 0.05  # the form changes the answer


def test_pendulum_swings_up_within_torque_limits() -> None:
    """A torque-limited pendulum (max torque below m g l / 2: it must pump) ends upright."""
    m = mujoco.MjModel.from_xml_string(PENDULUM)
    t = 150
    cost = _cost(t, np.pi, 0.0, 1000.0, 0.01)
    seen: list[float] = []
    res = ilqr(
        m, (np.zeros(1), np.zeros(1)), np.zeros((t, 1)), cost,
        settings=IlqrSettings(max_iterations=100, tolerance=1e-7), callback=lambda it: seen.append(it.cost),
    )  # fmt: skip
    assert abs(res.qpos[-1, 0] - np.pi) < 0.05
    assert abs(res.qvel[-1, 0]) < 0.2
    assert np.abs(res.controls).max() <= 2.0 + 1e-9
    assert seen and all(b <= a for a, b in itertools.pairwise(seen))  # monotone decrease
    assert res.gains.shape == (t, 1, 2)


def test_warm_start_from_a_solution_needs_no_iteration() -> None:
    m = mujoco.MjModel.from_xml_string(SLIDER.format(lo=-3, hi=3))
    cost = _cost(40, 1.0, 1.0, 100.0, 0.01)
    x0 = (np.zeros(1), np.zeros(1))
    first = ilqr(m, x0, np.zeros((40, 1)), cost, settings=IlqrSettings(tolerance=1e-10))
    again = ilqr(m, x0, first.controls, cost, gains=first.gains, warm_states=(first.qpos, first.qvel))
    assert again.history[0] == pytest.approx(first.cost, rel=1e-9)
    assert again.cost == pytest.approx(first.cost, rel=1e-6)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ConfigError):
        IlqrSettings(step_sizes=())
    m = mujoco.MjModel.from_xml_string(SLIDER.format(lo=-3, hi=3))
    with pytest.raises(ConfigError, match="controls have shape"):
        ilqr(m, (np.zeros(1), np.zeros(1)), np.zeros((5, 1)), _cost(40, 1.0, 1.0, 1.0, 0.01))


def _fine_step_jacobian(fine: mujoco.MjModel, n: int, q: float, v: float, u: float, eps: float = 1e-6) -> np.ndarray:
    """[A | B] of one control step made of n steps of ``fine`` (a hinge: its tangent is its angle),
    by centred differences of the whole step."""
    d = mujoco.MjData(fine)

    def step(x: np.ndarray) -> np.ndarray:
        mujoco.mj_resetData(fine, d)
        d.qpos[0], d.qvel[0], d.ctrl[0] = x
        for _ in range(n):
            mujoco.mj_step(fine, d)
        return np.array([d.qpos[0], d.qvel[0]])

    x0 = np.array([q, v, u])
    return np.column_stack([(step(x0 + eps * e) - step(x0 - eps * e)) / (2 * eps) for e in np.eye(3)])


@pytest.mark.parametrize("mode", ["step", "frozen", "chain"])
def test_jacobians_of_fine_physics_are_those_of_the_control_step(mode: str) -> None:
    """With physics=(fine, n) a control step is n fine steps: "chain" differentiates exactly those,
    "frozen" applies the first fine step's n times (exact where the dynamics are linear), "step"
    differentiates one step of the control model (a different map)."""
    from kinemorph.optim.ilqr import _Dynamics

    n = 5
    coarse = mujoco.MjModel.from_xml_string(PENDULUM)
    fine = mujoco.MjModel.from_xml_string(PENDULUM)
    fine.opt.timestep = coarse.opt.timestep / n
    q, v, u = 1.2, 2.5, 0.8  # swinging fast: the pendulum's Jacobian changes within the control step
    truth = _fine_step_jacobian(fine, n, q, v, u)
    dyn = _Dynamics(coarse, _cost(1, 0.0, 1.0, 1.0, 0.01), (fine, n))
    s = IlqrSettings(jacobians=mode, fd_centered=True)
    a, b = dyn.derivatives(np.array([[q]]), np.array([[v]]), np.array([[u]]), np.zeros((1, 1)), s)
    err = np.abs(np.column_stack([a[0], b[0]]) - truth).max()
    if mode == "chain":
        assert err < 1e-6
    else:  # the coarse step and the frozen Jacobian both miss the change within the step
        assert err > 1e-3
    if mode == "frozen":  # ... but on a linear system freezing it is exact
        slider = mujoco.MjModel.from_xml_string(SLIDER.format(lo=-3, hi=3))
        fine_slider = mujoco.MjModel.from_xml_string(SLIDER.format(lo=-3, hi=3))
        fine_slider.opt.timestep = slider.opt.timestep / n
        lin = _Dynamics(slider, _cost(1, 0.0, 1.0, 1.0, 0.01), (fine_slider, n))
        args = (np.array([[0.3]]), np.array([[-0.4]]), np.array([[1.0]]), np.zeros((1, 1)))
        fa, fb = lin.derivatives(*args, s)
        ca, cb = lin.derivatives(*args, IlqrSettings(jacobians="chain", fd_centered=True))
        np.testing.assert_allclose(np.column_stack([fa[0], fb[0]]), np.column_stack([ca[0], cb[0]]), atol=1e-7)
    with pytest.raises(ConfigError, match="jacobians"):
        IlqrSettings(jacobians="exact")


@pytest.mark.parametrize("mode", ["step", "chain"])
def test_jacobians_are_the_same_on_any_number_of_threads(mode: str) -> None:
    """The steps' Jacobians split over threads (each its own MjData) equal those of one thread,
    bit for bit, in the steps' order; a thread count below 1 is refused."""
    from kinemorph.optim.ilqr import _Dynamics

    n = 3
    coarse = mujoco.MjModel.from_xml_string(PENDULUM)
    fine = mujoco.MjModel.from_xml_string(PENDULUM)
    fine.opt.timestep = coarse.opt.timestep / n
    rng = np.random.default_rng(3)
    t = 40
    qs, vs, us = rng.uniform(-0.6, 0.6, (t + 1, 1)), rng.normal(0, 1, (t + 1, 1)), rng.normal(0, 1, (t, 1))
    warm = rng.normal(0, 0.1, (t + 1, 1))
    out = []
    for threads in (1, 2, 3):
        dyn = _Dynamics(coarse, _cost(t, 0.0, 1.0, 1.0, 0.01), (fine, n))
        out.append(dyn.derivatives(qs, vs, us, warm, IlqrSettings(jacobians=mode, threads=threads)))
        assert len(dyn.spare) == threads - 1
    assert np.ptp(out[0][0][:, 1, 0]) > 1e-3  # the pendulum's Jacobian differs from step to step
    for a, b in out[1:]:
        np.testing.assert_array_equal(a, out[0][0])
        np.testing.assert_array_equal(b, out[0][1])
    with pytest.raises(ConfigError, match="threads"):
        IlqrSettings(threads=0)
