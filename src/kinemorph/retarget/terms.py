"""Optional extra objectives of the IK step, beside its frame tasks and posture pull.

:class:`PointTerm` keeps linear combinations of body points at targets: for vertex i with
neighbours N(i) and weights w_ij, L_i(q) = p_i - sum_j w_ij p_j (neighbours past the K bodies are
fixed points) should equal delta_i. The term 0.5 m^2 sum_i |L_i(q) + J_L_i dq - delta_i|^2 adds
m^2 J_L'J_L to H and m^2 J_L'(L - delta) to c, with J_L_i = J_i - sum_j w_ij J_j from world-frame
point Jacobians. The mesh engine (mesh.py) fills it with an interaction mesh's Laplacian
coordinates; the shared solver (solve.py) knows only this generic form.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from . import ik


class PointTerm(NamedTuple):
    """Per-frame point combinations. weight 0 disables the term.

    weight: the term's cost m [1/m]; bodies (K,) robot body per keypoint; chains (K, nv) and
    nchain (K,) the dofs moving each body; neighbours (T, K, M) vertex indices (-1 padded; index
    >= K is fixed point index - K); weights (T, K, M); delta (T, K, 3) the source's Laplacian
    targets; fixed (T, G, 3) positions of the fixed points; jac (K, 3, nv) scratch.
    """

    weight: float
    bodies: np.ndarray
    chains: np.ndarray
    nchain: np.ndarray
    neighbours: np.ndarray
    weights: np.ndarray
    delta: np.ndarray
    fixed: np.ndarray
    jac: np.ndarray


def no_term(nv: int) -> PointTerm:
    """The disabled term."""
    return PointTerm(
        0.0, np.zeros(0, np.int64), np.zeros((0, nv), np.int64), np.zeros(0, np.int64), np.zeros((1, 0, 1), np.int64),
        np.zeros((1, 0, 1)), np.zeros((1, 0, 3)), np.zeros((1, 1, 3)), np.zeros((0, 3, nv)),
    )  # fmt: skip


@njit(cache=True, inline="always")
def world_point_jacobian(model: ik.IkModel, b: int, chain: np.ndarray, nchain: int, out: np.ndarray) -> None:
    """World-frame linear Jacobian of body b's origin, dense: out (3, nv) (zero outside the chain)."""
    px, py, pz = model.xpos[b, 0], model.xpos[b, 1], model.xpos[b, 2]
    for r in range(3):
        for d in range(out.shape[1]):
            out[r, d] = 0.0
    for a in range(nchain):
        d = chain[a]
        k = model.dof_kind[d]
        j = model.dof_jnt[d]
        if k == ik.DOF_WORLD_TRANSLATION:
            out[model.dof_axis[d], d] = 1.0
            continue
        if k == ik.DOF_BODY_ROTATION:
            rb = model.xmat[model.dof_body[d]]
            i = model.dof_axis[d]
            ux, uy, uz = rb[i], rb[3 + i], rb[6 + i]
        else:
            ux, uy, uz = model.xaxis[j, 0], model.xaxis[j, 1], model.xaxis[j, 2]
        if k == ik.DOF_SLIDE:
            out[0, d], out[1, d], out[2, d] = ux, uy, uz
            continue
        dx, dy, dz = px - model.xanchor[j, 0], py - model.xanchor[j, 1], pz - model.xanchor[j, 2]
        out[0, d] = uy * dz - uz * dy
        out[1, d] = uz * dx - ux * dz
        out[2, d] = ux * dy - uy * dx


@njit(cache=True)
def accumulate_points(model: ik.IkModel, mesh: PointTerm, f: int, sc: ik.Scratch) -> None:
    """Add the term of frame f to sc.h (lower triangle) and sc.c."""
    if mesh.weight == 0.0:
        return
    k_count = mesh.bodies.shape[0]
    nv = model.nv
    for k in range(k_count):
        world_point_jacobian(model, mesh.bodies[k], mesh.chains[k], mesh.nchain[k], mesh.jac[k])
    m2 = mesh.weight * mesh.weight
    row = sc.jt  # (6, nv) scratch: rows 0-2 hold J_L_i
    for i in range(k_count):
        bi = mesh.bodies[i]
        res0 = model.xpos[bi, 0] - mesh.delta[f, i, 0]
        res1 = model.xpos[bi, 1] - mesh.delta[f, i, 1]
        res2 = model.xpos[bi, 2] - mesh.delta[f, i, 2]
        for r in range(3):
            for d in range(nv):
                row[r, d] = mesh.jac[i, r, d]
        for m in range(mesh.neighbours.shape[2]):
            j = mesh.neighbours[f, i, m]
            if j < 0:
                break
            w = mesh.weights[f, i, m]
            if j < k_count:
                bj = mesh.bodies[j]
                res0 -= w * model.xpos[bj, 0]
                res1 -= w * model.xpos[bj, 1]
                res2 -= w * model.xpos[bj, 2]
                for r in range(3):
                    for d in range(nv):
                        row[r, d] -= w * mesh.jac[j, r, d]
            else:
                g = j - k_count
                res0 -= w * mesh.fixed[f, g, 0]
                res1 -= w * mesh.fixed[f, g, 1]
                res2 -= w * mesh.fixed[f, g, 2]
        for a in range(nv):
            ra0, ra1, ra2 = row[0, a], row[1, a], row[2, a]
            if ra0 == 0.0 and ra1 == 0.0 and ra2 == 0.0:
                continue
            sc.c[a] += m2 * (ra0 * res0 + ra1 * res1 + ra2 * res2)
            for b in range(a + 1):
                sc.h[a, b] += m2 * (ra0 * row[0, b] + ra1 * row[1, b] + ra2 * row[2, b])
