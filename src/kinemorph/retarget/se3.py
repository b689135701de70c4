"""SE(3) pieces of the IK step, compiled with numba: the body-frame log of a relative pose and
the right-Jacobian inverse of the log (Jlog). Quaternions wxyz, twists [v; w].

The formulas follow "A micro Lie theory for state estimation in robotics" (Sola et al., 2018);
the small-angle switches use mink's threshold (angle squared below 1e-10), which GMR's results
depend on to the last digit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

JLOG_EPS = 1e-10


@njit(cache=True, inline="always")
def _quat_mul(a0, a1, a2, a3, b0, b1, b2, b3):  # type: ignore[no-untyped-def]
    return (
        a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
        a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
        a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
        a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0,
    )


@njit(cache=True, inline="always")
def _rotate(q0, q1, q2, q3, v0, v1, v2):  # type: ignore[no-untyped-def]
    # v + 2w (u x v) + 2 u x (u x v)
    t0 = 2.0 * (q2 * v2 - q3 * v1)
    t1 = 2.0 * (q3 * v0 - q1 * v2)
    t2 = 2.0 * (q1 * v1 - q2 * v0)
    return (
        v0 + q0 * t0 + (q2 * t2 - q3 * t1),
        v1 + q0 * t1 + (q3 * t0 - q1 * t2),
        v2 + q0 * t2 + (q1 * t1 - q2 * t0),
    )


@njit(cache=True, inline="always")
def relative_log(target: np.ndarray, pos: np.ndarray, quat: np.ndarray, out: np.ndarray) -> None:
    """out = log(T_t^-1 T_b) as [v; w] (6,), for target (7,) [xyz wxyz] and body pose pos (3,), quat (4,)."""
    # T_t^-1 T_b: rotation q_t^* q_b, translation q_t^* (p_b - p_t)
    qt0, qt1, qt2, qt3 = target[3], -target[4], -target[5], -target[6]
    r0, r1, r2, r3 = _quat_mul(qt0, qt1, qt2, qt3, quat[0], quat[1], quat[2], quat[3])
    t0, t1, t2 = _rotate(qt0, qt1, qt2, qt3, pos[0] - target[0], pos[1] - target[1], pos[2] - target[2])
    if r0 < 0.0:
        r0, r1, r2, r3 = -r0, -r1, -r2, -r3
    nrm = np.sqrt(r1 * r1 + r2 * r2 + r3 * r3)
    if nrm < JLOG_EPS:
        w0 = w1 = w2 = 0.0
    else:
        ang = 2.0 * np.arctan2(nrm, r0)
        w0, w1, w2 = ang * r1 / nrm, ang * r2 / nrm, ang * r3 / nrm
    theta2 = w0 * w0 + w1 * w1 + w2 * w2
    # V^-1 = I - 0.5 W + coeff W^2, with W = skew(w)
    if theta2 < JLOG_EPS:
        coeff = 1.0 / 12.0
    else:
        theta = np.sqrt(theta2)
        half = 0.5 * theta
        coeff = (1.0 - 0.5 * theta * np.cos(half) / np.sin(half)) / theta2
    # W t = w x t ; W^2 t = w x (w x t)
    c0 = w1 * t2 - w2 * t1
    c1 = w2 * t0 - w0 * t2
    c2 = w0 * t1 - w1 * t0
    cc0 = w1 * c2 - w2 * c1
    cc1 = w2 * c0 - w0 * c2
    cc2 = w0 * c1 - w1 * c0
    out[0] = t0 - 0.5 * c0 + coeff * cc0
    out[1] = t1 - 0.5 * c1 + coeff * cc1
    out[2] = t2 - 0.5 * c2 + coeff * cc2
    out[3] = w0
    out[4] = w1
    out[5] = w2


@njit(cache=True, inline="always")
def _m3(a, b):  # type: ignore[no-untyped-def]
    """Product of 3x3 matrices held as row-major 9-tuples."""
    return (
        a[0] * b[0] + a[1] * b[3] + a[2] * b[6],
        a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
        a[0] * b[2] + a[1] * b[5] + a[2] * b[8],
        a[3] * b[0] + a[4] * b[3] + a[5] * b[6],
        a[3] * b[1] + a[4] * b[4] + a[5] * b[7],
        a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
        a[6] * b[0] + a[7] * b[3] + a[8] * b[6],
        a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
        a[6] * b[2] + a[7] * b[5] + a[8] * b[8],
    )


@njit(cache=True, inline="always")
def _t3(a):  # type: ignore[no-untyped-def]
    return (a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8])


@njit(cache=True, inline="always")
def jlog(log_tb: np.ndarray, out: np.ndarray) -> bool:
    """Right-Jacobian inverse of SE(3) at the tangent log_tb (6,) [v; w], into out (6, 6):
    [[A, -A Q A], [0, A]] with A the SO(3) left-Jacobian inverse at -w and Q the coupling block
    (Sola et al., "A micro Lie theory", eq. 180). Returns False (out untouched) when the rotation
    angle squared is below 1e-10: the caller then uses the identity, as mink does."""
    v0, v1, v2 = -log_tb[0], -log_tb[1], -log_tb[2]
    w0, w1, w2 = -log_tb[3], -log_tb[4], -log_tb[5]
    t2 = w0 * w0 + w1 * w1 + w2 * w2
    if t2 < JLOG_EPS:
        return False
    theta = np.sqrt(t2)
    t4 = t2 * t2
    st = np.sin(theta)
    ct = np.cos(theta)
    b = (theta - st) / (t2 * theta)
    cf = (1.0 - 0.5 * t2 - ct) / t4
    df = (2.0 * theta - 3.0 * st + theta * ct) / (2.0 * t4 * theta)
    vm = (0.0, -v2, v1, v2, 0.0, -v0, -v1, v0, 0.0)
    wm = (0.0, -w2, w1, w2, 0.0, -w0, -w1, w0, 0.0)
    vw = _m3(vm, wm)
    wv = _t3(vw)
    wvw = _m3(wv, wm)
    vww = _m3(vw, wm)
    vwwt = _t3(vww)
    wvww = _m3(wvw, wm)
    wwvw = _m3(wm, wvw)
    q = (
        0.5 * vm[0] + b * (wv[0] + vw[0] + wvw[0]) - cf * (vww[0] - vwwt[0] - 3.0 * wvw[0]) + df * (wvww[0] + wwvw[0]),
        0.5 * vm[1] + b * (wv[1] + vw[1] + wvw[1]) - cf * (vww[1] - vwwt[1] - 3.0 * wvw[1]) + df * (wvww[1] + wwvw[1]),
        0.5 * vm[2] + b * (wv[2] + vw[2] + wvw[2]) - cf * (vww[2] - vwwt[2] - 3.0 * wvw[2]) + df * (wvww[2] + wwvw[2]),
        0.5 * vm[3] + b * (wv[3] + vw[3] + wvw[3]) - cf * (vww[3] - vwwt[3] - 3.0 * wvw[3]) + df * (wvww[3] + wwvw[3]),
        0.5 * vm[4] + b * (wv[4] + vw[4] + wvw[4]) - cf * (vww[4] - vwwt[4] - 3.0 * wvw[4]) + df * (wvww[4] + wwvw[4]),
        0.5 * vm[5] + b * (wv[5] + vw[5] + wvw[5]) - cf * (vww[5] - vwwt[5] - 3.0 * wvw[5]) + df * (wvww[5] + wwvw[5]),
        0.5 * vm[6] + b * (wv[6] + vw[6] + wvw[6]) - cf * (vww[6] - vwwt[6] - 3.0 * wvw[6]) + df * (wvww[6] + wwvw[6]),
        0.5 * vm[7] + b * (wv[7] + vw[7] + wvw[7]) - cf * (vww[7] - vwwt[7] - 3.0 * wvw[7]) + df * (wvww[7] + wwvw[7]),
        0.5 * vm[8] + b * (wv[8] + vw[8] + wvw[8]) - cf * (vww[8] - vwwt[8] - 3.0 * wvw[8]) + df * (wvww[8] + wwvw[8]),
    )
    # SO(3) left-Jacobian inverse at w: I - 0.5 W + beta (w w' - |w|^2 I)
    if theta < JLOG_EPS:
        beta = (1.0 / 12.0) * (1.0 + t2 / 60.0 * (1.0 + t2 / 42.0 * (1.0 + t2 / 40.0)))
    else:
        beta = (1.0 / t2) * (1.0 - (theta * st / (2.0 * (1.0 - ct))))
    a = (
        1.0 + beta * (w0 * w0 - t2),
        beta * w0 * w1 + 0.5 * w2,
        beta * w0 * w2 - 0.5 * w1,
        beta * w1 * w0 - 0.5 * w2,
        1.0 + beta * (w1 * w1 - t2),
        beta * w1 * w2 + 0.5 * w0,
        beta * w2 * w0 + 0.5 * w1,
        beta * w2 * w1 - 0.5 * w0,
        1.0 + beta * (w2 * w2 - t2),
    )
    aqa = _m3(a, _m3(q, a))
    for i in range(3):
        for j in range(3):
            out[i, j] = a[3 * i + j]
            out[3 + i, 3 + j] = a[3 * i + j]
            out[i, 3 + j] = -aqa[3 * i + j]
            out[3 + i, j] = 0.0
    return True
