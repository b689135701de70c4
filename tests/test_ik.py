"""The compiled differential-IK kernels (ik.py, se3.py): body Jacobians, the SE(3) log and its Jacobian."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from conftest import needs_menagerie
from kinemorph.retarget.ik import IkModel, body_jacobian_columns, build_ik_model, kinematics, task_chains
from kinemorph.retarget.se3 import JLOG_EPS, jlog, relative_log
from kinemorph.robots import Robot, load_robot
from kinemorph.transforms import quat_normalize, quat_to_mat

G1_BODIES = ("pelvis", "left_ankle_roll_link", "right_wrist_yaw_link", "torso_link", "left_knee_link")
seeds = st.integers(0, 2**32 - 1)


# -- test-side SE(3), tangent [v; w] ----------------------------------------------------------
def skew(w: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def so3_v(w: np.ndarray) -> np.ndarray:
    """V(w) of the SE(3) exponential: t = V(w) v (series below 1e-4 rad)."""
    t = np.linalg.norm(w)
    k = skew(w)
    if t < 1e-4:
        a, b = 0.5 - t**2 / 24.0, 1.0 / 6.0 - t**2 / 120.0
    else:
        a, b = (1.0 - np.cos(t)) / t**2, (t - np.sin(t)) / t**3
    return np.eye(3) + a * k + b * k @ k


def se3_exp(xi: np.ndarray) -> np.ndarray:
    """4x4 homogeneous transform of a twist [v; w]."""
    out = np.eye(4)
    out[:3, :3] = Rotation.from_rotvec(xi[3:]).as_matrix()
    out[:3, 3] = so3_v(xi[3:]) @ xi[:3]
    return out


def se3_log(t: np.ndarray) -> np.ndarray:
    w = Rotation.from_matrix(t[:3, :3]).as_rotvec()
    return np.concatenate([np.linalg.solve(so3_v(w), t[:3, 3]), w])


def homogeneous(pos: np.ndarray, quat: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = quat_to_mat(quat)
    out[:3, 3] = pos
    return out


def call_relative_log(target: np.ndarray, pos: np.ndarray, quat: np.ndarray) -> np.ndarray:
    out = np.zeros(6)
    relative_log(np.ascontiguousarray(target), np.ascontiguousarray(pos), np.ascontiguousarray(quat), out)
    return out


def log_of(t: np.ndarray) -> np.ndarray:
    """log(T) through the kernel: relative_log with the identity as target."""
    quat = Rotation.from_matrix(t[:3, :3]).as_quat(scalar_first=True)
    return call_relative_log(np.array([0.0, 0, 0, 1, 0, 0, 0]), t[:3, 3].copy(), quat)


@st.composite
def twists(draw: st.DrawFn, min_angle: float = 0.0, max_angle: float = 3.1) -> np.ndarray:
    """Twists [v; w] with |w| in [min_angle, max_angle]."""
    rng = np.random.default_rng(draw(seeds))
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    tiny = [x for x in (0.0, 1e-12, 1e-9, 1e-6, 1e-4) if min_angle <= x <= max_angle]
    wide = st.floats(max(min_angle, 1e-3), max_angle)
    angle = draw(st.sampled_from(tiny) | wide if tiny else wide)
    return np.concatenate([rng.normal(scale=0.5, size=3), angle * axis])


# -- the test-side SE(3) itself ---------------------------------------------------------------
@given(twists())
def test_test_side_exp_and_log_are_inverse(xi: np.ndarray) -> None:
    np.testing.assert_allclose(se3_log(se3_exp(xi)), xi, atol=1e-10)


# -- relative_log -----------------------------------------------------------------------------
@given(target=twists(), rel=twists())
def test_relative_log_is_the_log_of_the_relative_pose(target: np.ndarray, rel: np.ndarray) -> None:
    """exp(relative_log(T_t, T_b)) = T_t^-1 T_b, for T_b = T_t exp(rel)."""
    t_t = se3_exp(target)
    t_b = t_t @ se3_exp(rel)
    q_t = Rotation.from_matrix(t_t[:3, :3]).as_quat(scalar_first=True)
    q_b = Rotation.from_matrix(t_b[:3, :3]).as_quat(scalar_first=True)
    out = call_relative_log(np.concatenate([t_t[:3, 3], q_t]), t_b[:3, 3].copy(), q_b)
    np.testing.assert_allclose(se3_exp(out), np.linalg.inv(t_t) @ t_b, atol=1e-9)
    np.testing.assert_allclose(out, rel, atol=1e-8)  # |w| < pi: the log is the twist itself


@given(rel=twists(min_angle=3.2, max_angle=6.0))
def test_relative_log_takes_the_shortest_rotation(rel: np.ndarray) -> None:
    out = log_of(se3_exp(rel))
    assert np.linalg.norm(out[3:]) <= np.pi + 1e-12
    np.testing.assert_allclose(se3_exp(out), se3_exp(rel), atol=1e-9)


def test_relative_log_ignores_the_quaternion_sign() -> None:
    rng = np.random.default_rng(0)
    target = np.concatenate([rng.normal(size=3), quat_normalize(rng.normal(size=4))])
    pos, quat = rng.normal(size=3), quat_normalize(rng.normal(size=4))
    flipped = target.copy()
    flipped[3:] *= -1
    np.testing.assert_allclose(call_relative_log(target, pos, quat), call_relative_log(flipped, pos, -quat), atol=1e-14)


def test_relative_log_of_equal_poses_is_zero() -> None:
    target = np.array([0.3, -0.2, 1.0, *quat_normalize(np.array([0.9, 0.1, -0.3, 0.2]))])
    np.testing.assert_allclose(call_relative_log(target, target[:3].copy(), target[3:].copy()), 0.0, atol=1e-15)


def _assert_is_log_derivative(out: np.ndarray, t: np.ndarray, log) -> None:
    """``out`` equals d log(T exp(xi)) / d xi at xi = 0, by central differences of ``log``."""
    h = 1e-6
    fd = np.zeros((6, 6))
    for i in range(6):
        e = np.zeros(6)
        e[i] = h
        fd[:, i] = (log(t @ se3_exp(e)) - log(t @ se3_exp(-e))) / (2 * h)
    np.testing.assert_allclose(out, fd, atol=2e-7 * (1 + np.abs(fd).max()))


# -- jlog -------------------------------------------------------------------------------------
@settings(max_examples=30)
@given(tau=twists(min_angle=1e-4, max_angle=3.0))
def test_jlog_is_the_right_jacobian_inverse(tau: np.ndarray) -> None:
    """jlog(log T) = d log(T exp(xi)) / d xi at xi = 0, by central differences."""
    out = np.zeros((6, 6))
    assert jlog(tau, out)
    _assert_is_log_derivative(out, se3_exp(tau), se3_log)


@settings(max_examples=15)
@given(tau=twists(min_angle=1e-4, max_angle=3.0))
def test_jlog_matches_finite_differences_of_the_kernel_log(tau: np.ndarray) -> None:
    """The same derivative, with relative_log supplying the log: the two kernels agree with each other."""
    out = np.zeros((6, 6))
    assert jlog(log_of(se3_exp(tau)), out)
    _assert_is_log_derivative(out, se3_exp(tau), log_of)


def test_jlog_defers_to_identity_below_the_threshold() -> None:
    """Below angle^2 = 1e-10 jlog reports False and leaves out untouched (the caller uses identity)."""
    out = np.full((6, 6), 7.0)
    tau = np.array([0.3, -0.1, 0.2, 0.5 * np.sqrt(JLOG_EPS), 0.0, 0.0])
    assert not jlog(tau, out)
    assert np.all(out == 7.0)
    tau[3] = 2.0 * np.sqrt(JLOG_EPS)
    assert jlog(tau, out)


# -- body Jacobians on the G1 -----------------------------------------------------------------
@pytest.fixture(scope="module")
def g1() -> tuple[Robot, IkModel]:
    """The G1 and its kernel description (tests using it carry needs_menagerie)."""
    robot = load_robot("unitree_g1")
    return robot, build_ik_model(robot.model, robot.data)


def set_random_configuration(robot: Robot, ik: IkModel, seed: int) -> None:
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(robot.lower), robot.lower, -1.0)
    hi = np.where(np.isfinite(robot.upper), robot.upper, 1.0)
    ik.qpos[:] = robot.qpos(rng.uniform(-1, 1, 3), quat_normalize(rng.normal(size=4)), rng.uniform(lo, hi))
    kinematics(ik.model_addr, ik.data_addr)


def kernel_jacobian(ik: IkModel, b: int) -> tuple[np.ndarray, np.ndarray]:
    chains, counts = task_chains(ik, np.array([b]))
    n = int(counts[0])
    out = np.zeros((6, n))
    body_jacobian_columns(
        b, chains[0], n, ik.xpos, ik.xmat, ik.xanchor, ik.xaxis, ik.dof_kind, ik.dof_jnt, ik.dof_axis, ik.dof_body, out
    )
    return chains[0, :n], out


@needs_menagerie
def test_task_chains_are_the_ancestor_dofs(g1: tuple[Robot, IkModel]) -> None:
    robot, ik = g1
    m = robot.model
    for name in G1_BODIES:
        b = robot.body_id(name)
        chains, counts = task_chains(ik, np.array([b]))
        chain = chains[0, : counts[0]]
        assert np.all(chains[0, counts[0] :] == -1)
        assert np.all(np.diff(chain) > 0)
        np.testing.assert_array_equal(chain[:6], np.arange(6))  # the free joint moves every body
        expect = set()
        body = b
        while body > 0:
            expect.update(range(int(m.body_dofadr[body]), int(m.body_dofadr[body]) + int(m.body_dofnum[body])))
            body = int(m.body_parentid[body])
        assert set(chain.tolist()) == expect


@needs_menagerie
@settings(max_examples=8)
@given(seed=seeds)
def test_body_jacobian_columns_equal_rotated_mj_jac_body(g1: tuple[Robot, IkModel], seed: int) -> None:
    """Kernel columns = (R' Jp, R' Jr) of mj_jacBody on the chain; every other column of mj_jacBody is 0."""
    robot, ik = g1
    m, d = robot.model, robot.data
    set_random_configuration(robot, ik, seed)
    mujoco.mj_comPos(m, d)
    for name in G1_BODIES:
        b = robot.body_id(name)
        chain, out = kernel_jacobian(ik, b)
        jp = np.zeros((3, m.nv))
        jr = np.zeros((3, m.nv))
        mujoco.mj_jacBody(m, d, jp, jr, b)
        r = d.xmat[b].reshape(3, 3)
        np.testing.assert_allclose(out[:3], r.T @ jp[:, chain], atol=1e-12, err_msg=name)
        np.testing.assert_allclose(out[3:], r.T @ jr[:, chain], atol=1e-12, err_msg=name)
        others = np.setdiff1d(np.arange(m.nv), chain)
        assert np.all(jp[:, others] == 0.0) and np.all(jr[:, others] == 0.0)


@needs_menagerie
@settings(max_examples=4)
@given(seed=seeds)
def test_body_jacobian_is_the_derivative_of_the_body_frame_log(g1: tuple[Robot, IkModel], seed: int) -> None:
    """Column a = d log(T_b(q)^-1 T_b(q (+) h e_a)) / dh at 0, with relative_log and mj_integratePos."""
    robot, ik = g1
    set_random_configuration(robot, ik, seed)
    q0 = ik.qpos.copy()
    h = 1e-6
    for name in ("left_ankle_roll_link", "right_wrist_yaw_link"):
        b = robot.body_id(name)
        ik.qpos[:] = q0
        kinematics(ik.model_addr, ik.data_addr)
        chain, out = kernel_jacobian(ik, b)
        base = np.concatenate([ik.xpos[b], ik.xquat[b]])
        fd = np.zeros_like(out)
        for a, dof in enumerate(chain):
            logs = []
            for sign in (1.0, -1.0):
                v = np.zeros(robot.nv)
                v[dof] = sign
                ik.qpos[:] = robot.integrate(q0, v, h)
                kinematics(ik.model_addr, ik.data_addr)
                logs.append(call_relative_log(base, ik.xpos[b].copy(), ik.xquat[b].copy()))
            fd[:, a] = (logs[0] - logs[1]) / (2 * h)
        np.testing.assert_allclose(out, fd, atol=1e-6, err_msg=name)
