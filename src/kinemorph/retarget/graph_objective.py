"""The graph engine's per-frame objective and its analytic gradient, compiled with numba around
MuJoCo's kinematics (see graph.py for the method; the gradient is checked against finite
differences in tests/test_relations.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from . import ik


@njit(cache=True)
def graph_objective(
    model: ik.IkModel,
    x: np.ndarray,
    root: np.ndarray,
    lm_bodies: np.ndarray,
    lm_offsets: np.ndarray,
    chains: np.ndarray,
    nchain: np.ndarray,
    x_of_dof: np.ndarray,
    src_edges: np.ndarray,
    weights: np.ndarray,
    pair_lengths: np.ndarray,
    height: float,
    pairs: np.ndarray,
    q_rest: np.ndarray,
    q_prev: np.ndarray,
    rest_weight: float,
    smooth_weight: float,
    floor_weight: float,
    anchors: np.ndarray,
    anchor_weights: np.ndarray,
    grad: np.ndarray,
) -> float:
    """f(x) and its gradient into grad. x = [root z, joints]; root = [x, y, qw, qx, qy, qz];
    anchors (N, 3): horizontal positions holding landmarks of planted feet (anchor_weights (N,),
    0 where free)."""
    q = model.qpos
    q[0] = root[0]
    q[1] = root[1]
    q[2] = x[0]
    for i in range(4):
        q[3 + i] = root[2 + i]
    for i in range(1, x.shape[0]):
        q[6 + i] = x[i]
    ik.kinematics(model.model_addr, model.data_addr)
    n_lm = lm_bodies.shape[0]
    pts = np.empty((n_lm, 3))
    for i in range(n_lm):
        b = lm_bodies[i]
        r = model.xmat[b]
        o = lm_offsets[i]
        for a in range(3):
            pts[i, a] = model.xpos[b, a] + r[3 * a] * o[0] + r[3 * a + 1] * o[1] + r[3 * a + 2] * o[2]
    g = np.zeros((n_lm, 3))  # df/dp per landmark
    f = 0.0
    for e in range(pairs.shape[0]):
        i, j = pairs[e, 0], pairs[e, 1]
        inv = 1.0 / pair_lengths[e]
        for a in range(3):
            r_ = (pts[j, a] - pts[i, a]) * inv - src_edges[e, a]
            f += weights[e] * r_ * r_
            d = 2.0 * weights[e] * r_ * inv
            g[j, a] += d
            g[i, a] -= d
    base = pairs.shape[0]
    for i in range(n_lm):
        e = base + i
        w = weights[e]
        rz = -pts[i, 2] / height - src_edges[e, 2]
        f += w * rz * rz  # ground edges are vertical on both sides
        g[i, 2] += 2.0 * w * rz * (-1.0 / height)
        if pts[i, 2] < 0.0:
            f += floor_weight * pts[i, 2] * pts[i, 2]
            g[i, 2] += 2.0 * floor_weight * pts[i, 2]
        wa = anchor_weights[i]
        if wa > 0.0:
            for a in range(2):
                r_ = pts[i, a] - anchors[i, a]
                f += wa * r_ * r_
                g[i, a] += 2.0 * wa * r_
    for k in range(grad.shape[0]):
        grad[k] = 0.0
    for i in range(n_lm):
        px, py, pz = pts[i, 0], pts[i, 1], pts[i, 2]
        for c in range(nchain[i]):
            d = chains[i, c]
            k = x_of_dof[d]
            if k < 0:
                continue
            if d == 2:  # root height: translation along z
                grad[k] += g[i, 2]
                continue
            jnt = model.dof_jnt[d]
            ux, uy, uz = model.xaxis[jnt, 0], model.xaxis[jnt, 1], model.xaxis[jnt, 2]
            dx, dy, dz = px - model.xanchor[jnt, 0], py - model.xanchor[jnt, 1], pz - model.xanchor[jnt, 2]
            grad[k] += g[i, 0] * (uy * dz - uz * dy) + g[i, 1] * (uz * dx - ux * dz) + g[i, 2] * (ux * dy - uy * dx)
    for k in range(1, x.shape[0]):
        a = 6 + k
        dr = x[k] - q_rest[a]
        dp = x[k] - q_prev[a]
        f += rest_weight * dr * dr + smooth_weight * dp * dp
        grad[k] += 2.0 * rest_weight * dr + 2.0 * smooth_weight * dp
    return f
