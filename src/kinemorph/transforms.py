"""Vectorised rotation helpers. Quaternions are wxyz (MuJoCo's order), arrays broadcast
over leading axes: a quaternion array has shape (..., 4), a vector array (..., 3)."""

from __future__ import annotations

import numpy as np

from .errors import ConfigError

_AXES = {"x": np.array([1.0, 0.0, 0.0]), "y": np.array([0.0, 1.0, 0.0]), "z": np.array([0.0, 0.0, 1.0])}


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a * b. Shape: (..., 4)."""
    aw, ax, ay, az = np.moveaxis(np.asarray(a, dtype=np.float64), -1, 0)
    bw, bx, by, bz = np.moveaxis(np.asarray(b, dtype=np.float64), -1, 0)
    return np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=-1,
    )


def quat_conj(q: np.ndarray) -> np.ndarray:
    """Conjugate (the inverse of a unit quaternion). Shape: (..., 4)."""
    out = np.array(q, dtype=np.float64, copy=True)
    out[..., 1:] *= -1.0
    return out


def quat_normalize(q: np.ndarray) -> np.ndarray:
    """Unit quaternion with w >= 0. Shape: (..., 4)."""
    q = np.asarray(q, dtype=np.float64)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., :1] < 0.0, -q, q)


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors v by unit quaternions q. Shapes: q (..., 4), v (..., 3)."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    w = q[..., :1]
    u = q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def axis_angle_to_quat(axis: np.ndarray, angle: np.ndarray | float) -> np.ndarray:
    """Quaternion of a rotation by angle [rad] about a unit axis. axis (3,) or (..., 3)."""
    angle = np.asarray(angle, dtype=np.float64)
    half = 0.5 * angle[..., None]
    return np.concatenate([np.cos(half), np.sin(half) * np.asarray(axis, dtype=np.float64)], axis=-1)


def euler_to_quat(angles: np.ndarray, order: str) -> np.ndarray:
    """Intrinsic Euler angles [rad] to quaternions, as BVH channels are applied.

    ``order`` names the axes in channel order (e.g. "zyx"); the rotation is
    R = R_order[0] @ R_order[1] @ R_order[2]. angles: shape (..., len(order)); any
    number of axes from 0 to 3 is accepted.
    """
    angles = np.asarray(angles, dtype=np.float64)
    q = np.zeros((*angles.shape[:-1], 4))
    q[..., 0] = 1.0
    for k, axis in enumerate(order):
        q = quat_mul(q, axis_angle_to_quat(_AXES[axis], angles[..., k]))
    return q


def quat_to_euler(q: np.ndarray, order: str) -> np.ndarray:
    """Inverse of :func:`euler_to_quat` for the same order [rad]. Shape: (..., 4) -> (..., 3).

    ``order`` is any of the 12 three-axis orders: Tait-Bryan ("zyx", ...) or proper Euler
    ("zxz", ...). Angles come back in [-pi, pi], the middle one in [-pi/2, pi/2] (Tait-Bryan) or
    [0, pi] (proper Euler). The third angle is computed from the first, so the rotation is
    reproduced to rounding even at and near gimbal lock, where the first angle takes everything
    and the third is 0.
    """
    if len(order) != 3 or any(c not in _AXES for c in order) or order[0] == order[1] or order[1] == order[2]:
        raise ConfigError(f"Euler order must be 3 axes from x, y, z without repeats in a row, got {order!r}")
    m = quat_to_mat(q)
    i, j = "xyz".index(order[0]), "xyz".index(order[1])
    k = 3 - i - j  # the axis not among the first two
    # e_i x e_j = s e_k with s = +1 for a cyclic pair.
    s = 1.0 if (j - i) % 3 == 1 else -1.0
    if order[2] == order[0]:  # proper Euler R_i(a) R_j(b) R_i(c)
        sin_b = np.hypot(m[..., j, i], m[..., k, i])
        b = np.arctan2(sin_b, m[..., i, i])
        a = np.arctan2(m[..., j, i], -s * m[..., k, i])
        lock = sin_b < 1e-12
    else:  # Tait-Bryan R_i(a) R_j(b) R_k(c)
        cos_b = np.hypot(m[..., j, k], m[..., k, k])
        b = np.arctan2(s * m[..., i, k], cos_b)
        a = np.arctan2(-s * m[..., j, k], m[..., k, k])
        lock = cos_b < 1e-12
    # Gimbal lock: R = R_i(a) R_j(b) with c = 0; column j is R_i(a) e_j.
    a = np.where(lock, np.arctan2(s * m[..., k, j], m[..., j, j]), a)
    # c from N = R_i(a)^T R = R_j(b) R_last(c): row j of N is row j of R_last(c).
    ca, sa = np.cos(a), np.sin(a)
    n_jj = ca * m[..., j, j] + s * sa * m[..., k, j]
    if order[2] == order[0]:
        c = np.arctan2(-s * ca * m[..., j, k] - sa * m[..., k, k], n_jj)
    else:
        c = np.arctan2(s * ca * m[..., j, i] + sa * m[..., k, i], n_jj)
    return np.stack([a, b, c], axis=-1)


def quat_to_mat(q: np.ndarray) -> np.ndarray:
    """Rotation matrices of unit quaternions. Shape: (..., 4) -> (..., 3, 3)."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=np.float64), -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
        ],
        axis=-2,
    )


def mat_to_quat(m: np.ndarray) -> np.ndarray:
    """Unit quaternions (w >= 0) of rotation matrices. Shape: (..., 3, 3) -> (..., 4)."""
    m = np.asarray(m, dtype=np.float64)
    tr = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    cand = np.stack(
        [
            np.stack(
                [1 + tr, m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]], -1
            ),
            np.stack(
                [
                    m[..., 2, 1] - m[..., 1, 2],
                    1 + 2 * m[..., 0, 0] - tr,
                    m[..., 0, 1] + m[..., 1, 0],
                    m[..., 0, 2] + m[..., 2, 0],
                ],
                -1,
            ),
            np.stack(
                [
                    m[..., 0, 2] - m[..., 2, 0],
                    m[..., 0, 1] + m[..., 1, 0],
                    1 + 2 * m[..., 1, 1] - tr,
                    m[..., 1, 2] + m[..., 2, 1],
                ],
                -1,
            ),
            np.stack(
                [
                    m[..., 1, 0] - m[..., 0, 1],
                    m[..., 0, 2] + m[..., 2, 0],
                    m[..., 1, 2] + m[..., 2, 1],
                    1 + 2 * m[..., 2, 2] - tr,
                ],
                -1,
            ),
        ],
        axis=-2,
    )
    diag = np.stack([tr, m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]], axis=-1)
    best = np.argmax(diag, axis=-1)
    q = np.take_along_axis(cand, best[..., None, None], axis=-2)[..., 0, :]
    return quat_normalize(q)


def quat_angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angle [rad] of the rotation between unit quaternions a and b, in [0, pi]. Shape: (...,).

    Computed as 2 atan2(|v|, |w|) of a^-1 b, which stays accurate for tiny angles (arccos of the
    dot product loses half the digits there)."""
    d = quat_mul(quat_conj(a), b)
    return 2.0 * np.arctan2(np.linalg.norm(d[..., 1:], axis=-1), np.abs(d[..., 0]))


def quat_log(q: np.ndarray) -> np.ndarray:
    """Rotation vector [rad] of unit quaternions (shortest way). Shape: (..., 4) -> (..., 3)."""
    q = quat_normalize(q)
    n = np.linalg.norm(q[..., 1:], axis=-1)
    angle = 2.0 * np.arctan2(n, q[..., 0])
    scale = np.where(n > 1e-12, angle / np.maximum(n, 1e-12), 2.0)
    return q[..., 1:] * scale[..., None]


def quat_exp(v: np.ndarray) -> np.ndarray:
    """Unit quaternions of rotation vectors [rad]. Shape: (..., 3) -> (..., 4)."""
    v = np.asarray(v, dtype=np.float64)
    angle = np.linalg.norm(v, axis=-1)
    # sin(angle / 2) / angle, exact down to angle 0 (np.sinc(x) = sin(pi x) / (pi x)).
    scale = 0.5 * np.sinc(angle / (2.0 * np.pi))
    return np.concatenate([np.cos(0.5 * angle)[..., None], v * scale[..., None]], axis=-1)


def quat_continuous(q: np.ndarray) -> np.ndarray:
    """Flip signs along axis 0 so consecutive quaternions lie in the same hemisphere. Shape: (T, ..., 4)."""
    q = np.array(q, dtype=np.float64, copy=True)
    for t in range(1, q.shape[0]):
        flip = np.sum(q[t] * q[t - 1], axis=-1) < 0.0
        q[t][flip] *= -1.0
    return q


def yaw_quat(q: np.ndarray) -> np.ndarray:
    """Heading part (rotation about world Z) of quaternions. Shape: (..., 4)."""
    fwd = quat_rotate(q, np.array([1.0, 0.0, 0.0]))
    yaw = np.arctan2(fwd[..., 1], fwd[..., 0])
    return axis_angle_to_quat(_AXES["z"], yaw)


# -- rotation matrices and poses ----------------------------------------------------------------
def _rot(a: np.ndarray | float, i: int) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    c, s = np.cos(a), np.sin(a)
    m = np.zeros((*a.shape, 3, 3))
    j, k = (i + 1) % 3, (i + 2) % 3
    m[..., i, i] = 1.0
    m[..., j, j] = c
    m[..., k, k] = c
    m[..., k, j] = s
    m[..., j, k] = -s
    return m


def rot_x(a: np.ndarray | float) -> np.ndarray:
    """Rotation matrices about x by a [rad]. Shape: a.shape + (3, 3)."""
    return _rot(a, 0)


def rot_y(a: np.ndarray | float) -> np.ndarray:
    """Rotation matrices about y by a [rad]. Shape: a.shape + (3, 3)."""
    return _rot(a, 1)


def rot_z(a: np.ndarray | float) -> np.ndarray:
    """Rotation matrices about z by a [rad]. Shape: a.shape + (3, 3)."""
    return _rot(a, 2)


def unit_vectors(v: np.ndarray) -> np.ndarray:
    """v scaled to length 1 along its last axis."""
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def frame_xy(x: np.ndarray, y_hint: np.ndarray) -> np.ndarray:
    """Rotation matrices with columns x, y (y_hint made orthogonal to x), z = x × y. (..., 3) -> (..., 3, 3)."""
    x = unit_vectors(np.broadcast_to(x, np.broadcast_shapes(np.shape(x), np.shape(y_hint))))
    y = y_hint - np.sum(y_hint * x, axis=-1, keepdims=True) * x
    y = unit_vectors(y)
    return np.stack([x, y, np.cross(x, y)], axis=-1)


def pose_compose(pa: np.ndarray, qa: np.ndarray, pb: np.ndarray, qb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pose a then b (positions [m], quaternions wxyz): (pa + qa pb, qa qb)."""
    return pa + quat_rotate(qa, pb), quat_mul(qa, qb)


def pose_inverse(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The inverse pose: (-q^-1 p, q^-1)."""
    qi = quat_conj(q)
    return -quat_rotate(qi, p), qi
