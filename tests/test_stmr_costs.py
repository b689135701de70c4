"""STMR's temporal-stage cost pieces: the joint-speed floor on alpha, the contact-implicit floor
slip residual (stmr/floor_cost.py), the body clearance residual (stmr/clearance_cost.py), the
servo torque residual (stmr/torque_cost.py) and iLQR's residual costs on the trajectory itself."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.optim.ilqr import IlqrSettings, TrackingCost, ilqr
from kinemorph.retarget.stmr.clearance_cost import BodyClearanceResidual, body_geoms
from kinemorph.retarget.stmr.dynamics import servo_model
from kinemorph.retarget.stmr.floor_cost import FloorSlipResidual, foot_sphere
from kinemorph.retarget.stmr.temporal import speed_floor
from kinemorph.retarget.stmr.torque_cost import TorqueResidual


@pytest.fixture(scope="module")
def go2():  # type: ignore[no-untyped-def]
    return robot_or_skip("unitree_go2")


def test_segments_at_the_joint_speed_cap_are_not_sped_up() -> None:
    fps, cap = 30.0, 7.0
    q = np.zeros((91, 19))
    t = np.arange(91) / fps
    q[:31, 10] = 0.05 * np.sin(2 * np.pi * t[:31])  # slow: ~0.3 rad/s (frames 0-30: segment 0)
    q[31:61, 10] = q[30, 10] + cap * (t[31:61] - t[30])  # at the cap
    q[61:, 10] = q[60, 10] + 0.5 * cap * (t[61:] - t[60])  # half the cap
    lo = speed_floor(q, np.array([0, 30, 60, 90]), fps, cap, 0.5, 2.0)
    assert lo[0] == pytest.approx(0.5)
    assert lo[1] == pytest.approx(1.0, abs=1e-6)
    assert lo[2] == pytest.approx(0.5, abs=0.01)
    assert speed_floor(3 * q, np.array([0, 30, 60, 90]), fps, cap, 0.5, 2.0)[1] == pytest.approx(2.0)  # hi wins
    assert (speed_floor(q, np.array([0, 90]), fps, np.inf, 0.5, 2.0) == 0.5).all()


def _foot_on_floor(go2):  # type: ignore[no-untyped-def]
    sm = servo_model(go2, dt=1 / 180, kp=40.0, kd=1.0)
    m, d = sm.model, mujoco.MjData(sm.model)
    d.qpos[:] = go2.rest_qpos()
    mujoco.mj_kinematics(m, d)
    feet = go2.feet
    g = foot_sphere(m, feet[0])
    d.qpos[2] -= d.geom_xpos[g, 2] - m.geom_size[g, 0]  # FL's sphere touches z = 0
    return sm, feet, d.qpos.copy()


def test_floor_slip_residual_weights_a_touching_foot_by_its_contact_point_speed(go2) -> None:  # type: ignore[no-untyped-def]
    sm, feet, q = _foot_on_floor(go2)
    m = sm.model
    res = FloorSlipResidual(m, feet, weight=100.0, band=0.02, sideways=True)
    v = np.zeros(m.nv)
    v[0], v[2] = 0.3, 0.2  # the whole robot sliding forward and rising
    r, jac = res(0, q, v)
    assert r.size >= 3 and jac.shape == (r.size, 2 * m.nv)
    assert r[0] == pytest.approx(10.0 * 0.3, rel=1e-6)  # sqrt(w) v_x at full gate
    assert r[1] == pytest.approx(0.0, abs=1e-9) and r[2] == 0.0  # rising: no vertical term
    assert np.allclose(jac[:, : m.nv], 0.0)
    v[2] = -0.2  # falling onto the floor: its downward speed counts
    r2, jac2 = res(0, q, v)
    assert r2[2] == pytest.approx(-10.0 * 0.2, rel=1e-6)
    assert np.allclose(jac2 @ np.r_[np.zeros(m.nv), v], r2)  # linear in the velocity
    q_high = q.copy()
    q_high[2] += 0.2  # every foot far above the band
    r3, jac3 = res(0, q_high, v)
    assert r3.size == 0 and jac3.shape == (0, 2 * m.nv)


def test_the_default_floor_residual_weights_only_a_touching_foots_downward_speed(go2) -> None:  # type: ignore[no-untyped-def]
    sm, feet, q = _foot_on_floor(go2)
    m = sm.model
    res = FloorSlipResidual(m, feet, weight=100.0, band=0.02)
    v = np.zeros(m.nv)
    v[0], v[2] = 0.3, 0.2  # sliding forward and rising: nothing to pay
    r, jac = res(0, q, v)
    assert r.size >= 1 and jac.shape == (r.size, 2 * m.nv)
    assert np.allclose(r, 0.0)
    v[2] = -0.2  # coming down onto the floor: one row per foot near it, sqrt(w g) v_z
    r2, jac2 = res(0, q, v)
    assert r2.size == r.size and r2[0] == pytest.approx(-10.0 * 0.2, rel=1e-6)
    assert np.allclose(jac2 @ np.r_[np.zeros(m.nv), v], r2)
    full, _ = FloorSlipResidual(m, feet, weight=100.0, band=0.02, sideways=True)(0, q, v)
    np.testing.assert_allclose(r2, full[2::3])  # the sideways residual's downward rows


def test_floor_slip_is_the_contact_points_speed_not_the_centres(go2) -> None:  # type: ignore[no-untyped-def]
    """A paw turning on the floor (its calf swinging about the knee): the residual is the speed of
    the sphere's lowest point, which the centre's speed overstates by the turn (radius x rate)."""
    sm, feet, q = _foot_on_floor(go2)
    m, d = sm.model, mujoco.MjData(sm.model)
    res = FloorSlipResidual(m, feet, weight=100.0, band=0.02, sideways=True)
    d.qpos[:] = q
    mujoco.mj_kinematics(m, d)
    mujoco.mj_comPos(m, d)
    g = foot_sphere(m, feet[0])
    body = int(m.geom_bodyid[g])
    point, centre = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    mujoco.mj_jac(m, d, point, None, d.geom_xpos[g] - np.array([0.0, 0.0, m.geom_size[g, 0]]), body)
    mujoco.mj_jac(m, d, centre, None, d.geom_xpos[g], body)
    v = np.zeros(m.nv)
    calf = body
    while m.body_jntnum[calf] == 0:  # the paw is fixed to its calf
        calf = int(m.body_parentid[calf])
    v[int(m.jnt_dofadr[m.body_jntadr[calf]])] = 2.0  # the knee at 2 rad/s
    r, _ = res(0, q, v)
    assert np.allclose(r[:2], 10.0 * (point[:2] @ v))
    gap = np.linalg.norm(centre[:2] @ v - point[:2] @ v)
    assert gap == pytest.approx(2.0 * m.geom_size[g, 0], rel=0.05)  # omega x radius


def test_ilqr_residual_cost_is_optimised_on_the_trajectory() -> None:
    """A slider pushed to a goal, with a residual that penalises speed beyond x = 0.5: the solution
    slows down there (a state-dependent cost no fixed quadratic form expresses)."""
    xml = """<mujoco><option timestep="0.05" gravity="0 0 0" integrator="Euler"/><worldbody>
      <body><joint name="x" type="slide" axis="1 0 0"/><geom type="box" size=".1 .1 .1" mass="1"/></body></worldbody>
      <actuator><motor joint="x" ctrllimited="true" ctrlrange="-5 5"/></actuator></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    t = 40
    wx = np.zeros((t + 1, 2))
    wx[-1] = 100.0
    base = dict(qpos=np.full((t + 1, 1), 1.0), qvel=np.zeros((t + 1, 1)), state_weight=wx,
                controls=np.zeros((t, 1)), control_weight=np.full((t, 1), 0.01))  # fmt: skip

    def slow_zone(k: int, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if q[0] < 0.5:
            return np.zeros(0), np.zeros((0, 2))
        return np.array([3.0 * v[0]]), np.array([[0.0, 3.0]])

    x0 = (np.zeros(1), np.zeros(1))
    s = IlqrSettings(max_iterations=60, tolerance=1e-8)
    plain = ilqr(m, x0, np.zeros((t, 1)), TrackingCost(**base), settings=s)
    zoned = ilqr(m, x0, np.zeros((t, 1)), TrackingCost(**base, residual=slow_zone), settings=s)
    fast = lambda res: float(np.abs(res.qvel[res.qpos[:, 0] >= 0.5, 0]).mean())  # noqa: E731
    assert zoned.history[-1] < zoned.history[0]
    assert fast(zoned) < 0.6 * fast(plain)
    assert zoned.qpos[-1, 0] > 0.6  # still goes into the zone
    zone_cost = TrackingCost(**base, residual=slow_zone)
    as_plain = ilqr(m, x0, plain.controls, zone_cost, settings=IlqrSettings(max_iterations=0))
    assert zoned.cost < 0.9 * as_plain.cost  # the plain optimum is not optimal under the residual


def test_planted_slip_residual_follows_the_schedule_and_the_window_offset(go2) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.retarget.stmr.floor_cost import PlantedSlipResidual, Residuals

    sm, feet, q = _foot_on_floor(go2)
    m = sm.model
    planted = np.zeros((10, 4), dtype=bool)
    planted[5, 0] = True
    planted[5:, 2] = True
    res = Residuals([PlantedSlipResidual(m, feet, planted, weight=25.0)])
    v = np.zeros(m.nv)
    v[0] = 0.2
    assert res(0, q, v)[0].size == 0
    res.offset = 5  # a window starting at step 5
    r, jac = res(0, q, v)
    assert r.size == 6 and jac.shape == (6, 2 * m.nv)
    assert r[0] == pytest.approx(5.0 * 0.2) and r[3] == pytest.approx(5.0 * 0.2)  # sqrt(w) v, both feet
    assert np.allclose(jac @ np.r_[np.zeros(m.nv), v], r)


def test_body_clearance_residual_prices_legs_near_the_floor_and_never_the_feet(go2) -> None:  # type: ignore[no-untyped-def]
    sm, feet, q = _foot_on_floor(go2)  # the paws on the floor: the calves stand ~5 cm above it
    m = sm.model
    coll = sm.torque_model.collision_geoms
    geoms = body_geoms(m, coll, feet, go2.rest_qpos(), 0.02)
    spheres = {foot_sphere(m, f) for f in feet}
    assert len(geoms) == len(coll) - len(spheres) and not spheres & set(geoms.tolist())
    assert {m.body(int(m.geom_bodyid[g])).name for g in geoms} >= {"FL_calf", "RR_thigh"}
    assert len(body_geoms(m, coll, feet, go2.rest_qpos(), 0.06)) == len(geoms) - 4  # calves 5 cm above the soles
    res = BodyClearanceResidual(m, geoms, weight=1e6, clearance=0.02)
    v = np.zeros(m.nv)
    r, jac = res(0, q, v)
    assert r.size == 0 and jac.shape == (0, 2 * m.nv)  # clear of the floor: no pull
    low = q.copy()
    low[2] -= 0.045  # the body sags 4.5 cm (the paws would be in the floor): the calves come down
    r, jac = res(0, low, v)
    assert r.size >= 4 and (r < 0).all() and jac.shape == (r.size, 2 * m.nv)
    assert np.allclose(jac[:, 2], 1e3) and np.allclose(jac[:, m.nv :], 0.0)  # sqrt(w) dz / d(base z)
    up = low.copy()
    up[2] += 1e-4
    r2, _ = res(0, up, v)
    assert r2.size == r.size and np.allclose(r2 - r, 1e3 * 1e-4, atol=1e-9)
    with pytest.raises(ValueError):
        BodyClearanceResidual(m, geoms, weight=-1.0, clearance=0.02)


def test_ilqr_control_residual_is_optimised_with_its_cross_terms() -> None:
    """A slider with a residual of state and control, r = 3 (u + 2 x + v) (a servo's torque has
    this form): iLQR reaches the optimum that a direct minimisation over the controls finds."""
    from scipy.optimize import minimize

    xml = """<mujoco><option timestep="0.05" gravity="0 0 0" integrator="Euler"/><worldbody>
      <body><joint name="x" type="slide" axis="1 0 0"/><geom type="box" size=".1 .1 .1" mass="1"/></body></worldbody>
      <actuator><motor joint="x" ctrllimited="true" ctrlrange="-5 5"/></actuator></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    t = 30
    wx = np.full((t + 1, 2), 0.1)
    wx[-1] = 100.0
    cost = TrackingCost(
        qpos=np.full((t + 1, 1), 1.0), qvel=np.zeros((t + 1, 1)), state_weight=wx, controls=np.zeros((t, 1)),
        control_weight=np.full((t, 1), 0.01),
        control_residual=lambda k, q, v, u: (3.0 * (u + 2.0 * q + v), np.array([[6.0, 3.0]]), np.array([[3.0]])),
    )  # fmt: skip
    x0 = (np.zeros(1), np.zeros(1))
    res = ilqr(m, x0, np.zeros((t, 1)), cost, settings=IlqrSettings(max_iterations=50, tolerance=1e-12))
    direct = minimize(
        lambda u: ilqr(m, x0, u.reshape(t, 1), cost, settings=IlqrSettings(max_iterations=0)).cost,
        np.zeros(t), method="L-BFGS-B", bounds=[(-5, 5)] * t, options={"ftol": 1e-14, "gtol": 1e-10},
    )  # fmt: skip
    assert res.cost == pytest.approx(direct.fun, rel=1e-5)
    plain = ilqr(m, x0, np.zeros((t, 1)), TrackingCost(cost.qpos, cost.qvel, wx, cost.controls, cost.control_weight),
                 settings=IlqrSettings(max_iterations=50, tolerance=1e-12))  # fmt: skip
    assert np.abs(plain.controls - res.controls).max() > 0.1  # the residual changes the answer


def test_torque_residual_prices_only_torque_over_the_margin(go2) -> None:  # type: ignore[no-untyped-def]
    sm, _, q = _foot_on_floor(go2)
    m = sm.model
    res = TorqueResidual(sm, weight=100.0, margin=0.9)
    v = np.zeros(m.nv)
    u = q[sm.qpos_index].copy()
    r, jx, ju = res(0, q, v, u)
    assert r.size == 0 and jx.shape == (0, 2 * m.nv) and ju.shape == (0, m.nu)  # no torque: no pull
    i = 2  # a calf: its torque 1.2 x its limit
    u[i] += 1.2 * sm.torque_limit[i] / sm.kp[i]
    r, jx, ju = res(0, q, v, u)
    assert r.shape == (1,) and r[0] == pytest.approx(10.0 * 0.3)  # sqrt(w) (1.2 - 0.9)
    u2 = u.copy()
    u2[i] -= 1e-4
    q2 = q.copy()
    q2[sm.qpos_index[i]] += 1e-4
    v2 = v.copy()
    v2[m.jnt_dofadr[m.actuator_trnid[i, 0]]] += 1e-3
    assert res(0, q, v, u2)[0][0] - r[0] == pytest.approx(-1e-4 * ju[0, i], rel=1e-6)
    dof = m.jnt_dofadr[m.actuator_trnid[i, 0]]
    assert res(0, q2, v, u)[0][0] - r[0] == pytest.approx(1e-4 * jx[0, dof], rel=1e-6)
    assert res(0, q, v2, u)[0][0] - r[0] == pytest.approx(1e-3 * jx[0, m.nv + dof], rel=1e-6)
    u[i] = q[sm.qpos_index[i]] - 1.2 * sm.torque_limit[i] / sm.kp[i]  # the other way: a negative residual
    assert res(0, q, v, u)[0][0] == pytest.approx(-3.0)
    with pytest.raises(ValueError):
        TorqueResidual(sm, weight=1.0, margin=0.0)
