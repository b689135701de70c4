"""Compiled capsule geometry: world points of body-frame points, segment closest points, pair
distances and lowest points over clips (used by the self-collision and floor metrics and by the
clean-up stage)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _world(xpos: np.ndarray, xmat: np.ndarray, b: int, p: np.ndarray, out: np.ndarray) -> None:
    r = xmat[b]
    for i in range(3):
        out[i] = xpos[b, i] + r[3 * i] * p[0] + r[3 * i + 1] * p[1] + r[3 * i + 2] * p[2]


@njit(cache=True)
def segment_closest(a0, a1, b0, b1, pa, pb) -> None:  # type: ignore[no-untyped-def]
    """Closest points pa on segment a0-a1 and pb on b0-b1 (Ericson, Real-Time Collision Detection 5.1.9)."""
    d1x, d1y, d1z = a1[0] - a0[0], a1[1] - a0[1], a1[2] - a0[2]
    d2x, d2y, d2z = b1[0] - b0[0], b1[1] - b0[1], b1[2] - b0[2]
    rx, ry, rz = a0[0] - b0[0], a0[1] - b0[1], a0[2] - b0[2]
    a = d1x * d1x + d1y * d1y + d1z * d1z
    e = d2x * d2x + d2y * d2y + d2z * d2z
    f = d2x * rx + d2y * ry + d2z * rz
    eps = 1e-12
    if a <= eps and e <= eps:
        s = t = 0.0
    elif a <= eps:
        s = 0.0
        t = min(max(f / e, 0.0), 1.0)
    else:
        c = d1x * rx + d1y * ry + d1z * rz
        if e <= eps:
            t = 0.0
            s = min(max(-c / a, 0.0), 1.0)
        else:
            b = d1x * d2x + d1y * d2y + d1z * d2z
            den = a * e - b * b
            s = min(max((b * f - c * e) / den, 0.0), 1.0) if den > eps else 0.0
            t = (b * s + f) / e
            if t < 0.0:
                t = 0.0
                s = min(max(-c / a, 0.0), 1.0)
            elif t > 1.0:
                t = 1.0
                s = min(max((b - c) / a, 0.0), 1.0)
    pa[0] = a0[0] + s * d1x
    pa[1] = a0[1] + s * d1y
    pa[2] = a0[2] + s * d1z
    pb[0] = b0[0] + t * d2x
    pb[1] = b0[1] + t * d2y
    pb[2] = b0[2] + t * d2z


@njit(cache=True)
def pair_distances(xpos, xmat, pbody, pp0, pp1, prad, pairs, out) -> None:  # type: ignore[no-untyped-def]
    """Signed distance [m] between the capsules of each pair (negative: overlap depth) into out (K,)."""
    a0 = np.empty(3)
    a1 = np.empty(3)
    b0 = np.empty(3)
    b1 = np.empty(3)
    pa = np.empty(3)
    pb = np.empty(3)
    for k in range(pairs.shape[0]):
        i, j = pairs[k, 0], pairs[k, 1]
        _world(xpos, xmat, pbody[i], pp0[i], a0)
        _world(xpos, xmat, pbody[i], pp1[i], a1)
        _world(xpos, xmat, pbody[j], pp0[j], b0)
        _world(xpos, xmat, pbody[j], pp1[j], b1)
        segment_closest(a0, a1, b0, b1, pa, pb)
        out[k] = np.sqrt((pa[0] - pb[0]) ** 2 + (pa[1] - pb[1]) ** 2 + (pa[2] - pb[2]) ** 2) - prad[i] - prad[j]


@njit(cache=True)
def clip_pair_distances(xpos, xmat, pbody, pp0, pp1, prad, pairs):  # type: ignore[no-untyped-def]
    """pair_distances for every frame: xpos (T, nbody, 3), xmat (T, nbody, 9). Returns (T, K) [m]."""
    out = np.empty((xpos.shape[0], pairs.shape[0]))
    for t in range(xpos.shape[0]):
        pair_distances(xpos[t], xmat[t], pbody, pp0, pp1, prad, pairs, out[t])
    return out


@njit(cache=True)
def clip_proxy_lowest(xpos, xmat, pbody, pp0, pp1, prad):  # type: ignore[no-untyped-def]
    """Lowest world z [m] of each capsule per frame: xpos (T, nbody, 3), xmat (T, nbody, 9). (T, P)."""
    out = np.empty((xpos.shape[0], pbody.shape[0]))
    p = np.empty(3)
    for t in range(xpos.shape[0]):
        for i in range(pbody.shape[0]):
            _world(xpos[t], xmat[t], pbody[i], pp0[i], p)
            z = p[2]
            _world(xpos[t], xmat[t], pbody[i], pp1[i], p)
            out[t, i] = min(z, p[2]) - prad[i]
    return out
