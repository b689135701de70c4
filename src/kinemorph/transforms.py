"""Vectorised rotation helpers. Quaternions are wxyz (MuJoCo's order), arrays broadcast
over leading axes: a quaternion array has shape (..., 4), a vector array (..., 3)."""

from __future__ import annotations

import numpy as np

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


def axis_angle_to_quat(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
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
    q = np.zeros(angles.shape[:-1] + (4,))
    q[..., 0] = 1.0
    for k, axis in enumerate(order):
        q = quat_mul(q, axis_angle_to_quat(_AXES[axis], angles[..., k]))
    return q


def quat_to_euler(q: np.ndarray, order: str) -> np.ndarray:
    """Inverse of :func:`euler_to_quat` for the same order [rad]. Shape: (..., 4) -> (..., 3)."""
    m = quat_to_mat(q)
    i, j, k = ("xyz".index(c) for c in order)
    # Sign of the permutation decides the signs in the closed form (Tait-Bryan angles).
    sign = 1.0 if (j - i) % 3 == 1 else -1.0
    # For R = R_i(a) R_j(b) R_k(c): m[i,k] = sign * sin(b)
    b = np.arcsin(np.clip(sign * m[..., i, k], -1.0, 1.0))
    a = np.arctan2(-sign * m[..., j, k], m[..., k, k])
    c = np.arctan2(-sign * m[..., i, j], m[..., i, i])
    # Gimbal lock: cos(b) ~ 0, put everything into a.
    lock = np.abs(np.cos(b)) < 1e-9
    if np.any(lock):
        a = np.where(lock, np.arctan2(sign * m[..., k, j], m[..., j, j]), a)
        c = np.where(lock, 0.0, c)
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
            np.stack([1 + tr, m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]], -1),
            np.stack([m[..., 2, 1] - m[..., 1, 2], 1 + 2 * m[..., 0, 0] - tr, m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0]], -1),
            np.stack([m[..., 0, 2] - m[..., 2, 0], m[..., 0, 1] + m[..., 1, 0], 1 + 2 * m[..., 1, 1] - tr, m[..., 1, 2] + m[..., 2, 1]], -1),
            np.stack([m[..., 1, 0] - m[..., 0, 1], m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1], 1 + 2 * m[..., 2, 2] - tr], -1),
        ],
        axis=-2,
    )
    diag = np.stack([tr, m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]], axis=-1)
    best = np.argmax(diag, axis=-1)
    q = np.take_along_axis(cand, best[..., None, None], axis=-2)[..., 0, :]
    return quat_normalize(q)


def quat_angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angle [rad] of the rotation between unit quaternions a and b. Shape: (...,)."""
    d = np.abs(np.sum(np.asarray(a) * np.asarray(b), axis=-1))
    return 2.0 * np.arccos(np.clip(d, 0.0, 1.0))


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
    axis = v / np.maximum(angle, 1e-12)[..., None]
    return axis_angle_to_quat(axis, angle)


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
