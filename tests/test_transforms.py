"""Quaternion and Euler identities of kinemorph.transforms, as properties over random rotations."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinemorph.errors import ConfigError
from kinemorph.transforms import (
    axis_angle_to_quat,
    euler_to_quat,
    mat_to_quat,
    quat_angle,
    quat_conj,
    quat_continuous,
    quat_exp,
    quat_log,
    quat_mul,
    quat_normalize,
    quat_rotate,
    quat_to_euler,
    quat_to_mat,
    yaw_quat,
)

TAIT_BRYAN = tuple("".join(p) for p in itertools.permutations("xyz"))
PROPER_EULER = ("xyx", "xzx", "yxy", "yzy", "zxz", "zyz")
ALL_ORDERS = TAIT_BRYAN + PROPER_EULER
IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])

finite = st.floats(-1.0, 1.0, allow_nan=False)
vectors = st.tuples(*[st.floats(-10.0, 10.0, allow_nan=False)] * 3).map(np.array)
angles = st.floats(-np.pi, np.pi, allow_nan=False)


@st.composite
def unit_quats(draw: st.DrawFn) -> np.ndarray:
    """Unit quaternions with either sign of w (not normalised to w >= 0)."""
    q = np.array(draw(st.tuples(finite, finite, finite, finite)))
    n = np.linalg.norm(q)
    if n < 1e-3:
        q, n = IDENTITY.copy(), 1.0
    return q / n


def same_rotation(a: np.ndarray, b: np.ndarray, atol: float = 1e-12) -> bool:
    """a == b or a == -b (the double cover)."""
    return bool(np.allclose(a, b, atol=atol) or np.allclose(a, -b, atol=atol))


def rot_x(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


ROT = {"x": rot_x, "y": rot_y, "z": rot_z}


def assert_same_angles(a: np.ndarray, b: np.ndarray, atol: float = 1e-9) -> None:
    """Equal modulo 2 pi (pi and -pi are the same angle)."""
    np.testing.assert_allclose(np.angle(np.exp(1j * (a - b))), 0.0, atol=atol)


# -- Hamilton product -------------------------------------------------------------------------
@given(unit_quats(), unit_quats(), unit_quats())
def test_quat_mul_is_associative(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
    np.testing.assert_allclose(quat_mul(quat_mul(a, b), c), quat_mul(a, quat_mul(b, c)), atol=1e-12)


@given(unit_quats())
def test_quat_mul_identity_is_neutral(q: np.ndarray) -> None:
    np.testing.assert_allclose(quat_mul(IDENTITY, q), q, atol=1e-15)
    np.testing.assert_allclose(quat_mul(q, IDENTITY), q, atol=1e-15)


@given(unit_quats())
def test_quat_conj_is_the_inverse(q: np.ndarray) -> None:
    np.testing.assert_allclose(quat_mul(q, quat_conj(q)), IDENTITY, atol=1e-12)
    np.testing.assert_allclose(quat_mul(quat_conj(q), q), IDENTITY, atol=1e-12)


@given(unit_quats(), unit_quats())
def test_quat_conj_reverses_products(a: np.ndarray, b: np.ndarray) -> None:
    np.testing.assert_allclose(quat_conj(quat_mul(a, b)), quat_mul(quat_conj(b), quat_conj(a)), atol=1e-12)


@given(unit_quats(), unit_quats())
def test_quat_mul_composes_matrices(a: np.ndarray, b: np.ndarray) -> None:
    np.testing.assert_allclose(quat_to_mat(quat_mul(a, b)), quat_to_mat(a) @ quat_to_mat(b), atol=1e-12)


def test_quat_mul_broadcasts_over_leading_axes() -> None:
    rng = np.random.default_rng(0)
    a = quat_normalize(rng.normal(size=(5, 3, 4)))
    b = quat_normalize(rng.normal(size=(3, 4)))
    out = quat_mul(a, b)
    assert out.shape == (5, 3, 4)
    np.testing.assert_allclose(out[2, 1], quat_mul(a[2, 1], b[1]), atol=1e-15)


# -- rotation matrices ------------------------------------------------------------------------
@given(unit_quats())
def test_quat_to_mat_is_a_rotation(q: np.ndarray) -> None:
    m = quat_to_mat(q)
    np.testing.assert_allclose(m @ m.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(m) == pytest.approx(1.0, abs=1e-12)


@given(unit_quats(), vectors)
def test_quat_rotate_matches_matrix(q: np.ndarray, v: np.ndarray) -> None:
    np.testing.assert_allclose(quat_rotate(q, v), quat_to_mat(q) @ v, atol=1e-11)


@given(unit_quats(), vectors)
def test_quat_rotate_preserves_length(q: np.ndarray, v: np.ndarray) -> None:
    assert np.linalg.norm(quat_rotate(q, v)) == pytest.approx(np.linalg.norm(v), abs=1e-11)


@given(unit_quats())
def test_mat_to_quat_inverts_quat_to_mat_up_to_sign(q: np.ndarray) -> None:
    back = mat_to_quat(quat_to_mat(q))
    assert back[0] >= 0.0
    assert same_rotation(back, q, atol=1e-12)


@pytest.mark.parametrize("angle", [0.0, np.pi / 2, np.pi - 1e-9, np.pi])
@pytest.mark.parametrize("axis", ["x", "y", "z"])
def test_mat_to_quat_handles_every_branch(axis: str, angle: float) -> None:
    """Half-turns and identity select each of the four candidate branches."""
    q = axis_angle_to_quat(np.eye(3)["xyz".index(axis)], np.array(angle))
    assert same_rotation(mat_to_quat(ROT[axis](angle)), q, atol=1e-12)


@given(unit_quats())
def test_quat_normalize_gives_unit_and_nonnegative_w(q: np.ndarray) -> None:
    n = quat_normalize(3.0 * q)
    assert np.linalg.norm(n) == pytest.approx(1.0)
    assert n[0] >= 0.0
    assert same_rotation(n, q)


@given(st.tuples(finite, finite, finite).filter(lambda v: np.linalg.norm(v) > 1e-3).map(np.array), angles)
def test_axis_angle_matches_rodrigues(axis: np.ndarray, angle: float) -> None:
    u = axis / np.linalg.norm(axis)
    k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    rodrigues = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
    np.testing.assert_allclose(quat_to_mat(axis_angle_to_quat(u, np.array(angle))), rodrigues, atol=1e-12)


# -- Euler angles -----------------------------------------------------------------------------
@pytest.mark.parametrize("order", ALL_ORDERS)
@given(a=angles, b=angles, c=angles)
def test_euler_to_quat_is_the_intrinsic_product(order: str, a: float, b: float, c: float) -> None:
    """R = R_order[0](a) R_order[1](b) R_order[2](c), as BVH channels apply."""
    expect = ROT[order[0]](a) @ ROT[order[1]](b) @ ROT[order[2]](c)
    np.testing.assert_allclose(quat_to_mat(euler_to_quat(np.array([a, b, c]), order)), expect, atol=1e-12)


@pytest.mark.parametrize("order", ALL_ORDERS)
@given(q=unit_quats())
def test_quat_to_euler_round_trips_as_rotation(order: str, q: np.ndarray) -> None:
    back = euler_to_quat(quat_to_euler(q, order), order)
    np.testing.assert_allclose(quat_to_mat(back), quat_to_mat(q), atol=1e-12)


@pytest.mark.parametrize("order", ALL_ORDERS)
@given(
    a=angles,
    c=angles,
    sign=st.sampled_from([-1.0, 1.0]),
    eps=st.sampled_from([0.0, 1e-15, 1e-13, 1e-12, 1e-11, 1e-9, 1e-7, 1e-5]),
)
def test_quat_to_euler_round_trips_near_gimbal_lock(order: str, a: float, c: float, sign: float, eps: float) -> None:
    """Middle angle at (or within eps of) +-90 deg (Tait-Bryan) or 0 / 180 deg (proper Euler)."""
    if order[0] == order[2]:
        b = (np.pi - eps) if sign > 0 else eps
    else:
        b = sign * (np.pi / 2 - eps)
    q = euler_to_quat(np.array([a, b, c]), order)
    e = quat_to_euler(q, order)
    assert np.all(np.isfinite(e))
    np.testing.assert_allclose(quat_to_mat(euler_to_quat(e, order)), quat_to_mat(q), atol=1e-10)


@pytest.mark.parametrize("order", TAIT_BRYAN)
@given(a=angles, b=st.floats(-1.5, 1.5), c=angles)
def test_quat_to_euler_recovers_tait_bryan_angles_away_from_lock(order: str, a: float, b: float, c: float) -> None:
    """Angles in the canonical range (first and last in (-pi, pi], middle in (-pi/2, pi/2)) come back."""
    e = quat_to_euler(euler_to_quat(np.array([a, b, c]), order), order)
    assert_same_angles(e, np.array([a, b, c]))


@pytest.mark.parametrize("order", PROPER_EULER)
@given(a=angles, b=st.floats(0.05, np.pi - 0.05), c=angles)
def test_quat_to_euler_recovers_proper_euler_angles_away_from_lock(order: str, a: float, b: float, c: float) -> None:
    e = quat_to_euler(euler_to_quat(np.array([a, b, c]), order), order)
    assert_same_angles(e, np.array([a, b, c]))


@pytest.mark.parametrize("order", ["zyx", "xzx"])
def test_quat_to_euler_puts_gimbal_lock_into_first_angle(order: str) -> None:
    b = np.pi / 2 if order[0] != order[2] else 0.0
    e = quat_to_euler(euler_to_quat(np.array([0.3, b, 0.2]), order), order)
    assert e[2] == pytest.approx(0.0, abs=1e-12)
    assert e[1] == pytest.approx(b, abs=1e-12)


def test_quat_to_euler_is_vectorised() -> None:
    rng = np.random.default_rng(1)
    q = quat_normalize(rng.normal(size=(7, 2, 4)))
    e = quat_to_euler(q, "yzx")
    assert e.shape == (7, 2, 3)
    np.testing.assert_allclose(quat_to_mat(euler_to_quat(e, "yzx")), quat_to_mat(q), atol=1e-12)


@pytest.mark.parametrize("order", ["xy", "xxy", "xyy", "abc", "xyzx"])
def test_quat_to_euler_rejects_invalid_orders(order: str) -> None:
    with pytest.raises(ConfigError, match="Euler order"):
        quat_to_euler(IDENTITY, order)


@pytest.mark.parametrize("order", ["", "x", "zy"])
def test_euler_to_quat_accepts_fewer_axes(order: str) -> None:
    ang = np.array([0.4, -0.7][: len(order)])
    expect = np.eye(3)
    for axis, t in zip(order, ang):
        expect = expect @ ROT[axis](t)
    np.testing.assert_allclose(quat_to_mat(euler_to_quat(ang, order)), expect, atol=1e-12)


# -- log / exp --------------------------------------------------------------------------------
@given(unit_quats())
def test_quat_exp_inverts_quat_log(q: np.ndarray) -> None:
    assert same_rotation(quat_exp(quat_log(q)), q, atol=1e-12)


@given(st.tuples(finite, finite, finite).map(lambda v: np.array(v) * 3.0).filter(lambda v: np.linalg.norm(v) < 3.1))
def test_quat_log_inverts_quat_exp_within_half_turn(v: np.ndarray) -> None:
    np.testing.assert_allclose(quat_log(quat_exp(v)), v, atol=1e-12)


@given(unit_quats())
def test_quat_log_takes_the_shortest_way(q: np.ndarray) -> None:
    assert np.linalg.norm(quat_log(q)) <= np.pi + 1e-12
    if abs(q[0]) > 1e-9:  # a half-turn has two shortest logs, +-pi about the axis
        np.testing.assert_allclose(quat_log(q), quat_log(-q), atol=1e-12)


def test_quat_log_of_identity_and_tiny_rotations() -> None:
    np.testing.assert_array_equal(quat_log(IDENTITY), np.zeros(3))
    v = np.array([1e-14, -2e-14, 3e-14])
    np.testing.assert_allclose(quat_log(quat_exp(v)), v, rtol=1e-6, atol=0)
    np.testing.assert_allclose(quat_exp(np.zeros(3)), IDENTITY)


@given(unit_quats(), unit_quats())
def test_quat_angle_is_the_angle_of_the_relative_rotation(a: np.ndarray, b: np.ndarray) -> None:
    rel = quat_to_mat(a).T @ quat_to_mat(b)
    expect = np.arccos(np.clip((np.trace(rel) - 1.0) / 2.0, -1.0, 1.0))
    # The arccos of both forms limits the agreement near 0 and pi.
    assert quat_angle(a, b) == pytest.approx(expect, abs=1e-6)
    assert quat_angle(a, b) == pytest.approx(np.linalg.norm(quat_log(quat_mul(quat_conj(a), b))), abs=1e-6)


# -- sequences and heading --------------------------------------------------------------------
def test_quat_continuous_keeps_neighbours_in_one_hemisphere() -> None:
    rng = np.random.default_rng(2)
    base = quat_exp(np.cumsum(rng.normal(scale=0.1, size=(50, 3)), axis=0))
    flipped = base * rng.choice([-1.0, 1.0], size=(50, 1))
    out = quat_continuous(flipped)
    assert np.all(np.sum(out[1:] * out[:-1], axis=-1) > 0.0)
    for t in range(50):
        assert same_rotation(out[t], base[t])


@given(angles, st.floats(-1.2, 1.2), st.floats(-1.2, 1.2))
def test_yaw_quat_extracts_heading_of_zyx_euler(yaw: float, pitch: float, roll: float) -> None:
    q = euler_to_quat(np.array([yaw, pitch, roll]), "zyx")
    assert same_rotation(yaw_quat(q), euler_to_quat(np.array([yaw]), "z"), atol=1e-12)
