"""Compiled pieces of the clean-up stage: capsule distances, world point Jacobians and the
per-frame QP (H, g, inequality rows, box) built around MuJoCo's mj_kinematics.

The QP of frame t over the tangent step dq (nv,) from the previous cleaned configuration q:

    minimise   sum_i w_i (dq_i - r_i)^2 + w_c sum_{planted points c} |p_c(q) + J_c dq - a_c|^2
    subject to z_e(q) + J_z,e dq >= floor_min        proxy ends within floor_margin of the floor
               d_k(q) + n_k'(J_a - J_b) dq >= pair_min  proxy pairs within pair_margin
               box: joint limits and the per-frame joint step limit

r = v_t + gain (q_src,t-1 (-) q): the engine's velocity plus a decaying pull back onto the
engine's motion. Rows already violated at q ask for at most ``push`` [m] of correction per frame,
so the problem stays feasible when the engine's frame starts inside the floor or itself.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from ...quality._capsules import _world, segment_closest
from ..ik import IkModel
from .jacobians import point_jacobian

# MuJoCo's C symbols are loaded by the ik module (imported above).
_mj_kinematics = types.ExternalFunction("mj_kinematics", types.void(types.intp, types.intp))
_mj_differentiatePos = types.ExternalFunction(
    "mj_differentiatePos", types.void(types.intp, types.intp, types.float64, types.intp, types.intp)
)
_mj_integratePos = types.ExternalFunction(
    "mj_integratePos", types.void(types.intp, types.intp, types.intp, types.float64)
)

ROW_FLOOR = 0
ROW_PAIR = 1


class Arrays(NamedTuple):
    """Everything the frame kernel reads and writes (built once per clip)."""

    pbody: np.ndarray  # (P,) proxy body
    pp0: np.ndarray  # (P, 3) proxy segment ends in the body frame [m]
    pp1: np.ndarray  # (P, 3)
    prad: np.ndarray  # (P,) [m]
    pbound: np.ndarray  # (P,) radius of the sphere about the segment's middle that holds the capsule [m]
    pfloor: np.ndarray  # (P,) bool: proxy checked against the floor
    pclear: np.ndarray  # (P,) nonzero: a foot contact proxy (lifted while free); > 0: it then moves
    #   sideways at most pclear x its height per frame
    pplanted: np.ndarray  # (P,) bool scratch: proxy planted this frame
    lift: np.ndarray  # (T, P) height a free foot contact proxy is pulled up to [m] (0: none)
    ftarget: np.ndarray  # (T, P, 3) the engine's world position of each proxy's first end [m]
    pairs: np.ndarray  # (K, 2) proxy pairs kept apart
    bchain: np.ndarray  # (nbody, nv) dofs moving each body, -1 padded
    bnchain: np.ndarray  # (nbody,)
    cbody: np.ndarray  # (C,) contact point body
    clocal: np.ndarray  # (C, 3) point in the body frame [m]
    crad: np.ndarray  # (C,) radius: the point is held this high above the floor [m]
    cstart: np.ndarray  # (C,) first planted frame
    cstop: np.ndarray  # (C,) frame after the last planted one
    cproxy: np.ndarray  # (C,) proxy the point belongs to (-1: none)
    anchor: np.ndarray  # (C, 3) [m], set at cstart
    cset: np.ndarray  # (C,) bool: anchor set
    callow: np.ndarray  # (C,) height above the anchor still allowed this frame (bounded touch-down) [m]
    wdiag: np.ndarray  # (nv,) tracking weights
    step_lo: np.ndarray  # (nv,) least step per frame (-inf: none)
    step_hi: np.ndarray  # (nv,) largest step per frame
    q_lo: np.ndarray  # (nv,) joint lower limit per dof (-inf: none)
    q_hi: np.ndarray  # (nv,)
    qadr: np.ndarray  # (nv,) qpos address of hinge/slide dofs (-1 otherwise)
    params: np.ndarray  # (11,) contact_weight, floor_margin, floor_min, pair_margin, pair_min, push, -, damping,
    #   lift_weight, lift_height, lift_step
    H: np.ndarray  # (nv, nv)
    g: np.ndarray  # (nv,)
    A: np.ndarray  # (M, nv)
    lo: np.ndarray  # (M,)
    hi: np.ndarray  # (M,)
    xl: np.ndarray  # (nv,)
    xu: np.ndarray  # (nv,)
    jt: np.ndarray  # (3, nv)
    jt2: np.ndarray  # (3, nv)
    ref: np.ndarray  # (nv,)
    err: np.ndarray  # (nv,)
    qtmp: np.ndarray  # (nq,)
    viol: np.ndarray  # (2,) advance(): planted points' distance from anchors, geometry violation [m]
    wend: np.ndarray  # (P, 2, 3) world positions of the proxies' segment ends [m] (scratch)
    stats: np.ndarray  # (T, 3): max contact residual [m], deepest floor violation [m], deepest pair violation [m]


@njit(cache=True, inline="always")
def _clear(out, chain, nchain) -> None:  # type: ignore[no-untyped-def]
    for a in range(nchain):
        d = chain[a]
        out[0, d] = 0.0
        out[1, d] = 0.0
        out[2, d] = 0.0


@njit(cache=True)
def _proxy_ends(ik: IkModel, ar: Arrays) -> None:
    """World positions of every proxy's two segment ends into ar.wend (P, 2, 3), once per kinematics."""
    for i in range(ar.pbody.shape[0]):
        _world(ik.xpos, ik.xmat, ar.pbody[i], ar.pp0[i], ar.wend[i, 0])
        _world(ik.xpos, ik.xmat, ar.pbody[i], ar.pp1[i], ar.wend[i, 1])


@njit(cache=True, inline="always")
def _far(ar: Arrays, i: int, j: int, margin: float) -> bool:
    """Broad phase: the bounding spheres of capsules i and j are more than ``margin`` apart."""
    dx = 0.5 * (ar.wend[i, 0, 0] + ar.wend[i, 1, 0] - ar.wend[j, 0, 0] - ar.wend[j, 1, 0])
    dy = 0.5 * (ar.wend[i, 0, 1] + ar.wend[i, 1, 1] - ar.wend[j, 0, 1] - ar.wend[j, 1, 1])
    dz = 0.5 * (ar.wend[i, 0, 2] + ar.wend[i, 1, 2] - ar.wend[j, 0, 2] - ar.wend[j, 1, 2])
    reach = ar.pbound[i] + ar.pbound[j] + margin
    return dx * dx + dy * dy + dz * dz > reach * reach


@njit(cache=True)
def _first_pass(moved: np.ndarray) -> bool:
    """No step taken yet this frame (moved is all zero)."""
    for i in range(moved.shape[0]):
        if moved[i] != 0.0:
            return False
    return True


@njit(cache=True)
def _bound(need: float, push: float) -> float:
    """Lower bound of a row J dq >= need, relaxed to at most ``push`` of correction per frame."""
    return need if need <= 0.0 else min(need, push)


@njit(cache=True)
def build_frame(
    ik: IkModel,
    ar: Arrays,
    t: int,
    q: np.ndarray,
    q_src_prev: np.ndarray,
    v_src: np.ndarray,
    gain: float,
    moved: np.ndarray,
) -> int:
    """Set MuJoCo's qpos to q, run kinematics and fill ar.H, ar.g, ar.A[:m], ar.lo[:m], ar.hi[:m],
    ar.xl, ar.xu for frame t. The tracking target is v_src + gain (q_src_prev (-) q); ``moved`` is the
    step already taken this frame (a second pass), which the step limit counts.
    Returns m, the number of inequality rows."""
    nv = ik.nv
    wc = ar.params[0]
    fmargin = ar.params[1]
    fmin = ar.params[2]
    pmargin = ar.params[3]
    pmin = ar.params[4]
    first = _first_pass(moved)
    # later passes correct their own overshoot in full, and so does the first frame (the engine's
    # frame may start inside the floor; nothing before it to keep continuous with)
    push = ar.params[5] if first and t > 0 else 1.0
    if ar.params[14] >= 0.0:  # a retry after an infeasible QP: violated rows only must not get worse
        push = ar.params[14]
    damp = ar.params[7]
    wl = ar.params[8]
    lift_step = ar.params[10]
    hard_lift = ar.params[11] > 0.0
    descend = ar.params[12]
    wf = ar.params[13]
    nlift = int(ar.params[15])
    for i in range(ik.nq):
        ik.qpos[i] = q[i]
    _mj_kinematics(ik.model_addr, ik.data_addr)  # type: ignore[call-overload]
    _proxy_ends(ik, ar)
    # tracking target: the engine's velocity plus a pull back onto its motion
    for i in range(ik.nq):
        ar.qtmp[i] = q_src_prev[i]
    _mj_differentiatePos(ik.model_addr, ar.err.ctypes.data, 1.0, q.ctypes.data, ar.qtmp.ctypes.data)  # type: ignore
    ar.H[:, :] = 0.0
    for i in range(nv):
        ar.ref[i] = v_src[i] + gain * ar.err[i]
        ar.H[i, i] = ar.wdiag[i] + damp
        ar.g[i] = -ar.wdiag[i] * ar.ref[i]
    # box: joint limits and the step limit
    for d in range(nv):
        lo = ar.step_lo[d] - moved[d]
        hi = ar.step_hi[d] - moved[d]
        a = ar.qadr[d]
        if a >= 0:
            lo = max(lo, ar.q_lo[d] - q[a])
            hi = min(hi, ar.q_hi[d] - q[a])
            if lo > 0.0:
                lo = 0.0
            if hi < 0.0:
                hi = 0.0
        ar.xl[d] = lo
        ar.xu[d] = hi
    p = np.empty(3)
    p2 = np.empty(3)
    # planted points held at their anchors (soft, heavy)
    worst_c = 0.0
    ar.pplanted[:] = False
    for c in range(ar.cbody.shape[0]):
        # planted over [start, stop); for nlift frames after stop it rises but does not move sideways
        if t < ar.cstart[c] or t >= ar.cstop[c] + nlift:
            continue
        lifting = t >= ar.cstop[c]
        b = ar.cbody[c]
        _world(ik.xpos, ik.xmat, b, ar.clocal[c], p)
        if ar.cproxy[c] >= 0 and not lifting:
            ar.pplanted[ar.cproxy[c]] = True
        if not ar.cset[c]:  # onset: held where it is, at the floor
            ar.anchor[c, 0] = p[0]
            ar.anchor[c, 1] = p[1]
            ar.anchor[c, 2] = ar.crad[c]
            ar.cset[c] = True
        ch = ar.bchain[b]
        n = ar.bnchain[b]
        point_jacobian(ik, ch, n, b, p, ar.jt)
        res = 0.0
        for r in range(2 if lifting else 3):
            e = p[r] - ar.anchor[c, r]
            res += e * e  # the full distance from the anchor is what the report shows
            if r == 2:  # a point planted high above the floor comes down at a bounded speed
                if first:
                    ar.callow[c] = max(0.0, e - descend)
                e -= ar.callow[c]
            for u in range(n):
                du = ch[u]
                ju = ar.jt[r, du]
                ar.g[du] += wc * ju * e
                for v in range(u + 1):
                    dv = ch[v]
                    ar.H[du, dv] += wc * ju * ar.jt[r, dv]
        worst_c = max(worst_c, np.sqrt(res))
    ar.stats[t, 0] = worst_c
    # floor rows
    m = 0
    mmax = ar.A.shape[0]
    worst_f = 0.0
    for i in range(ar.pbody.shape[0]):
        if not ar.pfloor[i]:
            continue
        b = ar.pbody[i]
        ch = ar.bchain[b]
        n = ar.bnchain[b]
        for end in range(2):
            if end == 1 and np.all(ar.pp0[i] == ar.pp1[i]):
                break
            _world(ik.xpos, ik.xmat, b, ar.pp0[i] if end == 0 else ar.pp1[i], p)
            z = p[2] - ar.prad[i]
            if z >= fmargin or m >= mmax:
                continue
            worst_f = max(worst_f, -z)
            point_jacobian(ik, ch, n, b, p, ar.jt)
            ar.A[m, :] = 0.0
            for u in range(n):
                ar.A[m, ch[u]] = ar.jt[2, ch[u]]
            need = fmin
            if hard_lift and not ar.pplanted[i] and ar.lift[t, i] > 0.0:
                need = min(ar.lift[t, i], max(z, 0.0) + lift_step)
            ar.lo[m] = _bound(need - z, max(push, lift_step) if need > fmin else push)
            ar.hi[m] = 1e30
            m += 1
            if ar.pclear[i] != 0.0 and not ar.pplanted[i] and wf > 0.0:
                # a free foot point follows the engine's foot over the floor (x, y), so that it lands
                # where the engine's does and the body is not left behind its planted feet
                for r in range(2):
                    e = p[r] - ar.ftarget[t, i, r]
                    for u in range(n):
                        du = ch[u]
                        ju = ar.jt[r, du]
                        ar.g[du] += wf * ju * e
                        for v in range(n):
                            ar.H[du, ch[v]] += wf * ju * ar.jt[r, ch[v]]
            if ar.lift[t, i] > z and not ar.pplanted[i]:
                # soft lift toward this frame's lift height at up to lift_step per frame
                target = min(ar.lift[t, i], z + lift_step)
                if target > z:
                    e = z - target
                    for u in range(n):
                        du = ch[u]
                        ju = ar.jt[2, du]
                        ar.g[du] += wl * ju * e
                        for v in range(n):
                            ar.H[du, ch[v]] += wl * ju * ar.jt[2, ch[v]]
            if ar.pclear[i] > 0.0 and not ar.pplanted[i] and m + 4 <= mmax:
                # a free contact point near the floor lifts before it moves: |step_xy| <= k (z + step_z)
                k = ar.pclear[i]
                zz = max(z, 0.0)
                for axis in range(2):
                    for sign in (1.0, -1.0):
                        ar.A[m, :] = 0.0
                        for u in range(n):
                            du = ch[u]
                            ar.A[m, du] = k * ar.jt[2, du] - sign * ar.jt[axis, du]
                        ar.lo[m] = -k * zz
                        ar.hi[m] = 1e30
                        m += 1
    ar.stats[t, 1] = worst_f
    for u in range(nv):
        for v in range(u):
            ar.H[v, u] = ar.H[u, v]
    # self-collision rows
    worst_p = 0.0
    for k in range(ar.pairs.shape[0]):
        i, j = ar.pairs[k, 0], ar.pairs[k, 1]
        if _far(ar, i, j, pmargin):
            continue
        bi, bj = ar.pbody[i], ar.pbody[j]
        segment_closest(ar.wend[i, 0], ar.wend[i, 1], ar.wend[j, 0], ar.wend[j, 1], p, p2)
        dist = np.sqrt((p[0] - p2[0]) ** 2 + (p[1] - p2[1]) ** 2 + (p[2] - p2[2]) ** 2)
        d = dist - ar.prad[i] - ar.prad[j]
        if d >= pmargin or m >= mmax or dist < 1e-9:
            continue
        worst_p = max(worst_p, -d)
        ci, ni = ar.bchain[bi], ar.bnchain[bi]
        cj, nj = ar.bchain[bj], ar.bnchain[bj]
        _clear(ar.jt, ci, ni)
        _clear(ar.jt2, cj, nj)
        point_jacobian(ik, ci, ni, bi, p, ar.jt)
        point_jacobian(ik, cj, nj, bj, p2, ar.jt2)
        nx = (p[0] - p2[0]) / dist
        ny = (p[1] - p2[1]) / dist
        nz = (p[2] - p2[2]) / dist
        ar.A[m, :] = 0.0
        for u in range(ni):
            du = ci[u]
            ar.A[m, du] += nx * ar.jt[0, du] + ny * ar.jt[1, du] + nz * ar.jt[2, du]
        for u in range(nj):
            du = cj[u]
            ar.A[m, du] -= nx * ar.jt2[0, du] + ny * ar.jt2[1, du] + nz * ar.jt2[2, du]
        ar.lo[m] = _bound(pmin - d, push)
        ar.hi[m] = 1e30
        m += 1
    ar.stats[t, 2] = worst_p
    return m


@njit(cache=True)
def advance(ik: IkModel, ar: Arrays, t: int, q: np.ndarray, dq: np.ndarray, out: np.ndarray) -> float:
    """out = q (+) dq (quaternion-aware, MuJoCo's mj_integratePos); returns the worst violation [m]
    at out: a planted point's distance from its anchor, a proxy's depth below the floor, a pair's
    overlap beyond half the kept distance."""
    for i in range(ik.nq):
        out[i] = q[i]
        ik.qpos[i] = q[i]
    _mj_integratePos(ik.model_addr, out.ctypes.data, dq.ctypes.data, 1.0)  # type: ignore[call-overload]
    for i in range(ik.nq):
        ik.qpos[i] = out[i]
    _mj_kinematics(ik.model_addr, ik.data_addr)  # type: ignore[call-overload]
    _proxy_ends(ik, ar)
    p = np.empty(3)
    worst = 0.0
    for c in range(ar.cbody.shape[0]):
        if t < ar.cstart[c] or t >= ar.cstop[c]:
            continue
        _world(ik.xpos, ik.xmat, ar.cbody[c], ar.clocal[c], p)
        e = (p[0] - ar.anchor[c, 0]) ** 2 + (p[1] - ar.anchor[c, 1]) ** 2
        if t < ar.cstop[c]:  # height, against this frame's (bounded) touch-down target
            e += (p[2] - ar.anchor[c, 2] - ar.callow[c]) ** 2
        worst = max(worst, e)
    worst = np.sqrt(worst)
    ar.viol[0] = worst
    geo = 0.0
    # geometry below the floor or inside another link (a linearisation error of the step)
    fmin = ar.params[2]
    for i in range(ar.pbody.shape[0]):
        if not ar.pfloor[i]:
            continue
        for end in range(2):
            geo = max(geo, fmin - (ar.wend[i, end, 2] - ar.prad[i]))
    p2 = np.empty(3)
    pmin = ar.params[4]
    for k in range(ar.pairs.shape[0]):
        i, j = ar.pairs[k, 0], ar.pairs[k, 1]
        if _far(ar, i, j, 0.5 * pmin):
            continue
        segment_closest(ar.wend[i, 0], ar.wend[i, 1], ar.wend[j, 0], ar.wend[j, 1], p, p2)
        d = np.sqrt((p[0] - p2[0]) ** 2 + (p[1] - p2[1]) ** 2 + (p[2] - p2[2]) ** 2) - ar.prad[i] - ar.prad[j]
        geo = max(geo, 0.5 * pmin - d)
    ar.viol[1] = geo
    return max(worst, geo)


@njit(cache=True)
def moved_since(ik: IkModel, q0: np.ndarray, q1: np.ndarray, out: np.ndarray) -> None:
    """out = q1 (-) q0, the tangent step from q0 to q1. (nv,)"""
    _mj_differentiatePos(ik.model_addr, out.ctypes.data, 1.0, q0.ctypes.data, q1.ctypes.data)  # type: ignore


@njit(cache=True)
def velocities(model_addr: int, qpos: np.ndarray, out: np.ndarray) -> None:
    """Tangent steps between consecutive frames: out[t] = qpos[t] (-) qpos[t-1], out[0] = 0. (T, nv)."""
    out[0, :] = 0.0
    for t in range(1, qpos.shape[0]):
        a = np.ascontiguousarray(qpos[t - 1])
        b = np.ascontiguousarray(qpos[t])
        row = np.empty(out.shape[1])
        _mj_differentiatePos(model_addr, row.ctypes.data, 1.0, a.ctypes.data, b.ctypes.data)  # type: ignore
        out[t, :] = row
