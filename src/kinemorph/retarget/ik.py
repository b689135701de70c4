"""The shared weighted differential-IK step, compiled with numba around MuJoCo's kinematics.

Every engine that drives robot bodies toward pose targets uses this module. A step at
configuration q, for frame tasks k (robot body b_k, target pose T_k, costs w_k, LM damping l_k):

    e_k = log(T_b^-1 T_k)                      body-frame twist error [v; w] (6,)
    J_k = -Jlog(T_k^-1 T_b) J_b(q)             J_b: body Jacobian of b_k (6, nv)
    H   = damping I + sum_k (W_k J_k)'(W_k J_k) + l_k |W_k e_k|^2 I,   c = sum_k (W_k J_k)'(W_k e_k)
    dq  = argmin 0.5 dq'H dq + c'dq  s.t.  -g (q - q_lo) <= dq <= g (q_hi - q) on limited joints

with W_k = diag(w_k), g = 0.95, then q <- q (+) dq by mj_integratePos. This is the problem that
mink's solve_ik builds for FrameTasks with a ConfigurationLimit (the formulation GMR uses), solved
exactly by the box-QP solver in optim/. Two numerical details follow mink so that results match
GMR's: Jlog is taken as the identity when the rotation angle squared is below 1e-10, and the
SE(3) log uses the same small-angle switch.

MuJoCo's own mj_kinematics and mj_integratePos are called from compiled code through their C
symbols; Jacobian columns are formed from MuJoCo's joint axes and anchors exactly as mj_jacBody
forms them (checked against mj_jacBody and finite differences in tests).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..optim.boxqp import solve_box_qp
from .ik_model import (
    DOF_BODY_ROTATION,
    DOF_HINGE,
    DOF_SLIDE,
    DOF_WORLD_TRANSLATION,
    LIMIT_GAIN,
    IkModel,
    _mj_integratePos,
    _mj_kinematics,
    build_ik_model,
    kinematics,
    task_chains,
)
from .se3 import jlog, relative_log
from .settings import StageTasks

__all__ = [
    "DOF_BODY_ROTATION",
    "DOF_HINGE",
    "DOF_SLIDE",
    "DOF_WORLD_TRANSLATION",
    "LIMIT_GAIN",
    "IkModel",
    "build_ik_model",
    "kinematics",
    "task_chains",
]


# --------------------------------------------------------------------------------------------
# Kinematics and the step.
# --------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def body_jacobian_columns(
    b: int,
    chain: np.ndarray,
    nchain: int,
    xpos: np.ndarray,
    xmat: np.ndarray,
    xanchor: np.ndarray,
    xaxis: np.ndarray,
    dof_kind: np.ndarray,
    dof_jnt: np.ndarray,
    dof_axis: np.ndarray,
    dof_body: np.ndarray,
    out: np.ndarray,
) -> None:
    """Body-frame Jacobian of body b, columns for the dofs in chain[:nchain] only: out (6, nchain).
    Rows [linear; angular], both expressed in b's frame (mink's get_frame_jacobian)."""
    px, py, pz = xpos[b, 0], xpos[b, 1], xpos[b, 2]
    r = xmat[b]
    for a in range(nchain):
        d = chain[a]
        k = dof_kind[d]
        if k == DOF_WORLD_TRANSLATION:
            lx = ly = lz = 0.0
            if dof_axis[d] == 0:
                lx = 1.0
            elif dof_axis[d] == 1:
                ly = 1.0
            else:
                lz = 1.0
            ax = ay = az = 0.0
        else:
            if k == DOF_BODY_ROTATION:
                rb = xmat[dof_body[d]]
                i = dof_axis[d]
                ux, uy, uz = rb[i], rb[3 + i], rb[6 + i]
                j = dof_jnt[d]
                ox, oy, oz = xanchor[j, 0], xanchor[j, 1], xanchor[j, 2]
            else:
                j = dof_jnt[d]
                ux, uy, uz = xaxis[j, 0], xaxis[j, 1], xaxis[j, 2]
                ox, oy, oz = xanchor[j, 0], xanchor[j, 1], xanchor[j, 2]
            if k == DOF_SLIDE:
                lx, ly, lz = ux, uy, uz
                ax = ay = az = 0.0
            else:
                dx, dy, dz = px - ox, py - oy, pz - oz
                lx = uy * dz - uz * dy
                ly = uz * dx - ux * dz
                lz = ux * dy - uy * dx
                ax, ay, az = ux, uy, uz
        # rotate into the body frame: R^T v
        out[0, a] = r[0] * lx + r[3] * ly + r[6] * lz
        out[1, a] = r[1] * lx + r[4] * ly + r[7] * lz
        out[2, a] = r[2] * lx + r[5] * ly + r[8] * lz
        out[3, a] = r[0] * ax + r[3] * ay + r[6] * az
        out[4, a] = r[1] * ax + r[4] * ay + r[7] * az
        out[5, a] = r[2] * ax + r[5] * ay + r[8] * az


class TaskSet(NamedTuple):
    """Frame tasks of one or more stages, padded to K tasks per stage.

    bodies (S, K) int, ntask (S,) int, cost (S, K, 6) [pos x3, rot x3], lm (S, K) Levenberg-Marquardt
    damping, chains (S, K, nv) int (dofs moving each body, -1 padded), nchain (S, K) int.
    """

    bodies: np.ndarray
    ntask: np.ndarray
    cost: np.ndarray
    lm: np.ndarray
    chains: np.ndarray
    nchain: np.ndarray


def build_task_set(ik: IkModel, stages: list[StageTasks], lm_damping: float) -> TaskSet:
    """The kernels' padded arrays for the stages' tasks."""
    s = len(stages)
    k = max(1, max((len(st) for st in stages), default=1))
    bodies = np.zeros((s, k), dtype=np.int64)
    ntask = np.array([len(st) for st in stages], dtype=np.int64)
    cost = np.zeros((s, k, 6))
    lm = np.zeros((s, k))
    chains = np.full((s, k, ik.nv), -1, dtype=np.int64)
    nchain = np.zeros((s, k), dtype=np.int64)
    for i, st in enumerate(stages):
        n_i = len(st)
        bodies[i, :n_i] = st.bodies
        cost[i, :n_i, :3] = st.position_weights[:, None]
        cost[i, :n_i, 3:] = st.rotation_weights[:, None]
        lm[i, :n_i] = lm_damping
        ch, n = task_chains(ik, bodies[i, :n_i])
        chains[i, :n_i] = ch
        nchain[i, :n_i] = n
    return TaskSet(bodies, ntask, cost, lm, chains, nchain)


class Scratch(NamedTuple):
    """Work arrays of one solve (allocate once, reuse for every frame)."""

    h: np.ndarray  # (nv, nv)
    c: np.ndarray  # (nv,)
    lb: np.ndarray  # (nv,)
    ub: np.ndarray  # (nv,)
    dq: np.ndarray  # (nv,)
    vel: np.ndarray  # (nv,)
    state: np.ndarray  # (nv,) int8 active set guess
    qp_l: np.ndarray  # (nv, nv)
    qp_cols: np.ndarray  # (nv, nv)
    qp_v: np.ndarray  # (3, nv)
    qp_idx: np.ndarray  # (2, nv) int
    qp_s: np.ndarray  # (nv, nv + 1)
    jb: np.ndarray  # (6, nv)
    jt: np.ndarray  # (6, nv)
    jl: np.ndarray  # (6, 6)
    logs: np.ndarray  # (K, 6)
    q_prev: np.ndarray  # (nq,) the previous frame's solution (for the joint speed limit)


def make_scratch(nv: int, k: int, nq: int) -> Scratch:
    return Scratch(
        np.zeros((nv, nv)),
        np.zeros(nv),
        np.zeros(nv),
        np.zeros(nv),
        np.zeros(nv),
        np.zeros(nv),
        np.zeros(nv, dtype=np.int8),
        np.zeros((nv, nv)),
        np.zeros((nv, nv)),
        np.zeros((3, nv)),
        np.zeros((2, nv), dtype=np.int64),
        np.zeros((nv, nv + 1)),
        np.zeros((6, nv)),
        np.zeros((6, nv)),
        np.zeros((6, 6)),
        np.zeros((max(k, 1), 6)),
        np.zeros(nq),
    )


@njit(cache=True)
def task_errors(ik: IkModel, tasks: TaskSet, s: int, targets: np.ndarray, logs: np.ndarray) -> float:
    """log(T_t^-1 T_b) of every task of stage s into logs (K, 6); returns the norm of all errors.
    targets: (K, 7) [xyz wxyz] for this stage and frame."""
    total = 0.0
    for k in range(tasks.ntask[s]):
        b = tasks.bodies[s, k]
        relative_log(targets[k], ik.xpos[b], ik.xquat[b], logs[k])
        for r in range(6):
            total += logs[k, r] * logs[k, r]
    return np.sqrt(total)


@njit(cache=True)
def accumulate_tasks(ik: IkModel, tasks: TaskSet, s: int, sc: Scratch, scale: np.ndarray) -> float:
    """Add the frame tasks of stage s to sc.h (lower triangle) and sc.c, from the logs that
    task_errors left in sc.logs at this configuration; each task's cost is multiplied by
    scale[k] (this frame's factor). Rows with zero cost are skipped.
    Returns the summed Levenberg-Marquardt term (to add to the diagonal)."""
    mu_total = 0.0
    h, c, jb, jt, jl = sc.h, sc.c, sc.jb, sc.jt, sc.jl
    for k in range(tasks.ntask[s]):
        b = tasks.bodies[s, k]
        n = tasks.nchain[s, k]
        chain = tasks.chains[s, k]
        body_jacobian_columns(
            b, chain, n, ik.xpos, ik.xmat, ik.xanchor, ik.xaxis, ik.dof_kind, ik.dof_jnt, ik.dof_axis, ik.dof_body, jb
        )
        log = sc.logs[k]
        w = tasks.cost[s, k]
        full = jlog(log, jl)
        # Rows of -W Jlog Jb with non-zero weight, packed into jt[:nr, :n]; we = W e (e = -log).
        nr = 0
        mu = 0.0
        for r in range(6):
            wr = w[r] * scale[k]
            if wr == 0.0:
                continue
            if full:
                if r < 3:
                    for a in range(n):
                        jt[nr, a] = -wr * (
                            jl[r, 0] * jb[0, a]
                            + jl[r, 1] * jb[1, a]
                            + jl[r, 2] * jb[2, a]
                            + jl[r, 3] * jb[3, a]
                            + jl[r, 4] * jb[4, a]
                            + jl[r, 5] * jb[5, a]
                        )
                else:
                    for a in range(n):
                        jt[nr, a] = -wr * (jl[r, 3] * jb[3, a] + jl[r, 4] * jb[4, a] + jl[r, 5] * jb[5, a])
            else:
                for a in range(n):
                    jt[nr, a] = -wr * jb[r, a]
            we = -wr * log[r]
            sc.qp_v[2, nr] = we
            mu += we * we
            nr += 1
        for a in range(n):
            ca = chain[a]
            acc = 0.0
            for r in range(nr):
                acc += jt[r, a] * sc.qp_v[2, r]
            c[ca] += acc
            for bb in range(a + 1):
                acc = 0.0
                for r in range(nr):
                    acc += jt[r, a] * jt[r, bb]
                h[ca, chain[bb]] += acc
        mu_total += tasks.lm[s, k] * mu
    return mu_total


@njit(cache=True)
def begin_normal_equations(sc: Scratch, nv: int) -> None:
    for i in range(nv):
        sc.c[i] = 0.0
        for j in range(nv):
            sc.h[i, j] = 0.0


@njit(cache=True)
def finish_normal_equations(sc: Scratch, nv: int, diag: float) -> None:
    """Mirror the lower triangle and add diag to the diagonal."""
    for i in range(nv):
        sc.h[i, i] += diag
        for j in range(i):
            sc.h[j, i] = sc.h[i, j]


@njit(cache=True)
def solve_and_integrate(ik: IkModel, sc: Scratch, max_step: float) -> int:
    """Box QP over the joint-limit box, then qpos <- qpos (+) dq and kinematics. Returns the QP status.

    A finite max_step [rad or m] also keeps every joint within max_step of sc.q_prev (the previous
    frame's solution): a per-frame joint speed limit."""
    nv = ik.nv
    limit_speed = np.isfinite(max_step)
    for d in range(nv):
        a = ik.dof_qadr[d]
        if a >= 0:
            q = ik.qpos[a]
            sc.lb[d] = LIMIT_GAIN * (ik.lim_lower[d] - q) if np.isfinite(ik.lim_lower[d]) else -np.inf
            sc.ub[d] = LIMIT_GAIN * (ik.lim_upper[d] - q) if np.isfinite(ik.lim_upper[d]) else np.inf
            if limit_speed:
                sc.lb[d] = max(sc.lb[d], min(0.0, sc.q_prev[a] - max_step - q))
                sc.ub[d] = min(sc.ub[d], max(0.0, sc.q_prev[a] + max_step - q))
        else:
            sc.lb[d] = -np.inf
            sc.ub[d] = np.inf
    status = solve_box_qp(
        sc.h, ik.dof_parent, sc.c, sc.lb, sc.ub, sc.dq, sc.state, sc.qp_l, sc.qp_cols, sc.qp_v, sc.qp_idx, sc.qp_s
    )
    dt = ik.timestep
    for d in range(nv):
        sc.vel[d] = sc.dq[d] / dt
    _mj_integratePos(ik.model_addr, ik.qpos.ctypes.data, sc.vel.ctypes.data, dt)  # type: ignore[call-overload]
    _mj_kinematics(ik.model_addr, ik.data_addr)  # type: ignore[call-overload]
    return status


class Posture(NamedTuple):
    """A pull of the joints toward a configuration: cost 0.5 sum_d (w_d (q_d + dq_d - q*_d))^2.

    weight: (nv,) per tangent coordinate [1/rad or 1/m], zero for free-joint dofs and for joints
    left free; target: (nq,) the configuration q* (only hinge and slide entries are read).
    """

    weight: np.ndarray
    target: np.ndarray


def no_posture(ik: IkModel) -> Posture:
    return Posture(np.zeros(ik.nv), np.zeros(ik.nq))


@njit(cache=True)
def accumulate_posture(ik: IkModel, posture: Posture, sc: Scratch) -> None:
    """Add the posture pull to sc.h and sc.c (no-op where the weight is zero)."""
    for d in range(ik.nv):
        w = posture.weight[d]
        a = ik.dof_qadr[d]
        if w == 0.0 or a < 0:
            continue
        w2 = w * w
        sc.h[d, d] += w2
        sc.c[d] += w2 * (ik.qpos[a] - posture.target[a])
