"""The whole-body QP's options (control/wbc.py): hard contacts and torque limits while the controller
constrains it (``WbcTargets.constrained``: the speed stance, and the push recovery with
``push_constraints``), the tasks' rate term (``jdot``)."""

from __future__ import annotations

import copy
import dataclasses

import mujoco
import numpy as np
import pytest

from kinemorph.control.wbc import WbcTargets


@pytest.fixture(scope="module")
def standing():  # type: ignore[no-untyped-def]
    """G1 standing in the gait's first pose, with its controller (the QP is ctl.wbc)."""
    from conftest import robot_or_skip
    from kinemorph.control import ControlConfig
    from kinemorph.control.controller import GaitController
    from kinemorph.control.loop import _standing
    from kinemorph.gait import load_style
    from kinemorph.gait.robot_table import robot_gait
    from kinemorph.sim import build_torque_model

    robot = robot_or_skip("unitree_g1")
    rg = robot_gait(robot)
    tm = build_torque_model(robot)
    style = load_style("neutral")
    q0 = _standing(style, robot, rg, np.zeros(3))
    d = mujoco.MjData(tm.model)
    d.qpos[:] = q0
    mujoco.mj_forward(tm.model, d)
    ctl = GaitController(style, robot, rg, tm, q0[7:], ControlConfig())
    return tm, d, ctl


def _targets(d: mujoco.MjData, ctl, *, com_acc: float = 8.0, constrained: bool = False) -> WbcTargets:  # type: ignore[no-untyped-def]
    feet = list(ctl.feet)
    quat = d.xquat[ctl.pelvis].copy()
    com = np.zeros((3, 2))
    com[0] = d.subtree_com[1, :2]
    com[2] = [-com_acc, 0.0]  # a CoM acceleration far beyond what the soles can give
    return WbcTargets(
        foot_pos=d.xpos[feet].copy(), foot_quat=d.xquat[feet].copy(), foot_vel=np.zeros((2, 6)),
        contacts=np.array([True, True]), points=np.ones((2, 4), dtype=bool), pelvis_quat=quat,
        pelvis_omega=np.zeros(3), height=np.array([d.xpos[ctl.pelvis, 2], 0.0]), com=com,
        joints=d.qpos[ctl.wbc.joint_qadr].copy(), external=np.zeros(3),
        constrained=constrained,
    )  # fmt: skip


def _foot_accel(tm, d: mujoco.MjData, ctl, qdd: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    """Largest standing-foot acceleration the QP planned (the robot is at rest: J qdd)."""
    jp, jr = np.zeros((3, tm.model.nv)), np.zeros((3, tm.model.nv))
    out = 0.0
    for body in ctl.feet:
        mujoco.mj_jacBody(tm.model, d, jp, jr, body)
        out = max(out, float(np.abs(np.vstack([jp, jr]) @ qdd).max()))
    return out


def test_constrained_targets_hold_the_standing_feet(standing) -> None:  # type: ignore[no-untyped-def]
    tm, d, ctl = standing
    wbc = ctl.wbc
    soft = wbc.solve(d, _targets(d, ctl))
    hard = wbc.solve(d, _targets(d, ctl, constrained=True))
    assert soft.status == "solved" and hard.status == "solved"
    # the soft stance task gives way to the CoM task; the equality does not
    assert _foot_accel(tm, d, ctl, soft.qdd) > 1e-2
    assert _foot_accel(tm, d, ctl, hard.qdd) < 1e-5
    assert np.all(np.abs(hard.torque) <= wbc.limit + 1e-9)


def test_controller_constrains_the_qp_only_while_pushed_with_push_constraints(standing) -> None:  # type: ignore[no-untyped-def]
    _, d, ctl = standing
    ctl.start(copy.copy(d), np.zeros(3))  # the speed stance and the push recovery exist from the start
    base, engaged = ctl.wbc.cfg, ctl.recovery.engaged
    try:
        assert not ctl.stance.constrained  # standing still: the speed stance does not constrain it
        ctl.recovery.engaged = False
        assert not ctl.qp_constrained()
        ctl.recovery.engaged = True
        assert ctl.qp_constrained()
        ctl.wbc.cfg = dataclasses.replace(base, push_constraints=False)
        assert not ctl.qp_constrained()
    finally:
        ctl.wbc.cfg, ctl.recovery.engaged = base, engaged


def _moving(tm, d: mujoco.MjData, seed: int = 0) -> mujoco.MjData:  # type: ignore[no-untyped-def]
    """A copy of ``d`` with random velocities (every task's Jacobian changes with time)."""
    dm = mujoco.MjData(tm.model)
    dm.qpos[:] = d.qpos
    dm.qvel[:] = np.random.default_rng(seed).normal(scale=0.5, size=tm.model.nv)
    mujoco.mj_forward(tm.model, dm)
    return dm


def _task_rows(tm, d: mujoco.MjData, ctl) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The Jacobian rows of the feet, pelvis rotation, pelvis height and CoM tasks (18, nv)."""
    m, nv = tm.model, tm.model.nv
    J = np.zeros((18, nv))
    for f, body in enumerate(ctl.feet):
        mujoco.mj_jacBody(m, d, J[6 * f : 6 * f + 3], J[6 * f + 3 : 6 * f + 6], body)
    jp = np.zeros((3, nv))
    mujoco.mj_jacBody(m, d, jp, J[12:15], ctl.pelvis)
    J[15] = jp[2]
    jc = np.zeros((3, nv))
    mujoco.mj_jacSubtreeCom(m, d, jc, 1)
    J[16:18] = jc[:2]
    return J


def test_task_bias_is_the_rate_of_the_task_jacobians(standing) -> None:  # type: ignore[no-untyped-def]
    tm, d, ctl = standing
    dm = _moving(tm, d)
    h = 1e-6
    later = mujoco.MjData(tm.model)
    later.qpos[:] = dm.qpos
    mujoco.mj_integratePos(tm.model, later.qpos, dm.qvel, h)
    later.qvel[:] = dm.qvel
    mujoco.mj_forward(tm.model, later)
    numeric = (_task_rows(tm, later, ctl) - _task_rows(tm, dm, ctl)) @ dm.qvel / h
    bias = ctl.wbc.task_bias(dm)
    assert np.abs(bias[18:]).max() == 0.0
    assert np.abs(bias[:18]).max() > 0.1  # the velocities make it matter
    np.testing.assert_allclose(bias[:18], numeric, atol=1e-4 * np.abs(numeric).max())


def test_jdot_hard_contacts_plan_the_feet_acceleration_the_model_makes(standing) -> None:  # type: ignore[no-untyped-def]
    """With hard contacts a standing foot's acceleration J qdd + dJ/dt qd is -foot_kd v (damped
    still) only when the rate term is taken off the targets (``jdot``)."""
    tm, d, ctl = standing
    dm = _moving(tm, d, seed=1)
    wbc = ctl.wbc
    base = wbc.cfg
    bias = wbc.task_bias(dm)[:12]
    J = _task_rows(tm, dm, ctl)[:12]
    want = -base.foot_kd * (J @ dm.qvel)
    errors = []
    try:
        for jdot in (False, True):
            wbc.cfg = dataclasses.replace(base, hard_contacts=True, jdot=jdot)
            out = wbc.solve(dm, _targets(dm, ctl, com_acc=0.0))
            assert out.status == "solved"
            errors.append(float(np.abs(J @ out.qdd + bias - want).max()))
    finally:
        wbc.cfg = base
    assert errors[1] < 1e-6 < 0.1 < errors[0]
