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

import ctypes
import os
from typing import NamedTuple

import llvmlite.binding as llvm
import mujoco
import numpy as np
from numba import njit, types

from ..optim.boxqp import solve_box_qp


def _load_mujoco_symbols() -> None:
    folder = os.path.dirname(mujoco.__file__)
    libs = sorted(
        f
        for f in os.listdir(folder)
        if f.startswith("libmujoco.so") or (f.startswith("libmujoco.") and f.endswith(".dylib"))
    )
    if not libs:  # pragma: no cover - depends on the wheel's layout
        raise ImportError(f"libmujoco not found in {folder}")
    path = os.path.join(folder, libs[0])
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    llvm.load_library_permanently(path)


_load_mujoco_symbols()
_mj_kinematics = types.ExternalFunction("mj_kinematics", types.void(types.intp, types.intp))
_mj_integratePos = types.ExternalFunction(
    "mj_integratePos", types.void(types.intp, types.intp, types.intp, types.float64)
)

# Kinds of tangent-space coordinates (one per dof).
DOF_WORLD_TRANSLATION = 0  # free joint linear dofs: world axes
DOF_BODY_ROTATION = 1  # free joint angular dofs: axes of the root body frame
DOF_HINGE = 2
DOF_SLIDE = 3

JLOG_EPS = 1e-10
LIMIT_GAIN = 0.95


class IkModel(NamedTuple):
    """Arrays describing a robot to the compiled kernels (built once per robot and MjData)."""

    model_addr: int
    data_addr: int
    qpos: np.ndarray  # view of MjData.qpos (nq,)
    xpos: np.ndarray  # view (nbody, 3)
    xquat: np.ndarray  # view (nbody, 4)
    xmat: np.ndarray  # view (nbody, 9)
    xanchor: np.ndarray  # view (njnt, 3)
    xaxis: np.ndarray  # view (njnt, 3)
    dof_kind: np.ndarray  # (nv,) int
    dof_jnt: np.ndarray  # (nv,) int
    dof_axis: np.ndarray  # (nv,) int: axis index for free-joint dofs
    dof_body: np.ndarray  # (nv,) int: body whose frame holds free-joint rotations
    dof_parent: np.ndarray  # (nv,) int: MuJoCo's dof_parentid
    body_last_dof: np.ndarray  # (nbody,) int: last dof moving the body (-1 for none)
    lim_lower: np.ndarray  # (nv,) [rad or m], -inf where unlimited
    lim_upper: np.ndarray  # (nv,)
    dof_qadr: np.ndarray  # (nv,) qpos address of limited hinge/slide dofs, -1 otherwise
    timestep: float
    nq: int
    nv: int


def build_ik_model(model: mujoco.MjModel, data: mujoco.MjData) -> IkModel:
    """Describe a MuJoCo model (free, hinge and slide joints) to the kernels."""
    nv = model.nv
    kind = np.zeros(nv, dtype=np.int64)
    axis = np.zeros(nv, dtype=np.int64)
    body = np.zeros(nv, dtype=np.int64)
    lower = np.full(nv, -np.inf)
    upper = np.full(nv, np.inf)
    qadr = np.full(nv, -1, dtype=np.int64)
    for d in range(nv):
        j = int(model.dof_jntid[d])
        jt = int(model.jnt_type[j])
        k = d - int(model.jnt_dofadr[j])
        body[d] = int(model.jnt_bodyid[j])
        if jt == int(mujoco.mjtJoint.mjJNT_FREE):
            kind[d] = DOF_WORLD_TRANSLATION if k < 3 else DOF_BODY_ROTATION
            axis[d] = k % 3
        elif jt == int(mujoco.mjtJoint.mjJNT_HINGE):
            kind[d] = DOF_HINGE
        elif jt == int(mujoco.mjtJoint.mjJNT_SLIDE):
            kind[d] = DOF_SLIDE
        else:
            raise ValueError(f"joint {model.joint(j).name}: ball joints are not supported by the IK kernels")
        if kind[d] in (DOF_HINGE, DOF_SLIDE):
            qadr[d] = int(model.jnt_qposadr[j])
            if model.jnt_limited[j]:
                lower[d], upper[d] = model.jnt_range[j]
    last = np.full(model.nbody, -1, dtype=np.int64)
    for b in range(1, model.nbody):
        n = int(model.body_dofnum[b])
        last[b] = int(model.body_dofadr[b]) + n - 1 if n > 0 else last[int(model.body_parentid[b])]
    return IkModel(
        model_addr=int(model._address),
        data_addr=int(data._address),
        qpos=data.qpos,
        xpos=data.xpos,
        xquat=data.xquat,
        xmat=data.xmat,
        xanchor=data.xanchor,
        xaxis=data.xaxis,
        dof_kind=kind,
        dof_jnt=model.dof_jntid.astype(np.int64),
        dof_axis=axis,
        dof_body=body,
        dof_parent=model.dof_parentid.astype(np.int64),
        body_last_dof=last,
        lim_lower=lower,
        lim_upper=upper,
        dof_qadr=qadr,
        timestep=float(model.opt.timestep),
        nq=int(model.nq),
        nv=int(nv),
    )


def task_chains(ik: IkModel, bodies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dofs that move each body (ancestors' dofs), ascending. Returns (chains (K, nv) padded with -1, counts (K,))."""
    chains = np.full((len(bodies), ik.nv), -1, dtype=np.int64)
    counts = np.zeros(len(bodies), dtype=np.int64)
    for k, b in enumerate(bodies):
        dofs = []
        d = int(ik.body_last_dof[b])
        while d >= 0:
            dofs.append(d)
            d = int(ik.dof_parent[d])
        dofs.reverse()
        chains[k, : len(dofs)] = dofs
        counts[k] = len(dofs)
    return chains, counts


# --------------------------------------------------------------------------------------------
# SE(3) pieces (wxyz quaternions, twists [v; w]).
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# Kinematics and the step.
# --------------------------------------------------------------------------------------------
@njit(cache=True)
def kinematics(model_addr: int, data_addr: int) -> None:
    _mj_kinematics(model_addr, data_addr)  # type: ignore[call-overload]


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


def build_task_set(ik: IkModel, stages: list[list[tuple[int, float, float]]], lm_damping: float) -> TaskSet:
    """Stages given as lists of (body id, position cost, rotation cost)."""
    s = len(stages)
    k = max(1, max((len(st) for st in stages), default=1))
    bodies = np.zeros((s, k), dtype=np.int64)
    ntask = np.array([len(st) for st in stages], dtype=np.int64)
    cost = np.zeros((s, k, 6))
    lm = np.zeros((s, k))
    chains = np.full((s, k, ik.nv), -1, dtype=np.int64)
    nchain = np.zeros((s, k), dtype=np.int64)
    for i, st in enumerate(stages):
        for j, (b, pw, rw) in enumerate(st):
            bodies[i, j] = b
            cost[i, j, :3] = pw
            cost[i, j, 3:] = rw
            lm[i, j] = lm_damping
        ch, n = task_chains(ik, bodies[i, : len(st)])
        chains[i, : len(st)] = ch
        nchain[i, : len(st)] = n
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


def make_scratch(nv: int, k: int) -> Scratch:
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
def accumulate_tasks(ik: IkModel, tasks: TaskSet, s: int, sc: Scratch) -> float:
    """Add the frame tasks of stage s to sc.h (lower triangle) and sc.c, from the logs that
    task_errors left in sc.logs at this configuration. Rows with zero cost are skipped.
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
            wr = w[r]
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
def solve_and_integrate(ik: IkModel, sc: Scratch) -> int:
    """Box QP over the joint-limit box, then qpos <- qpos (+) dq and kinematics. Returns the QP status."""
    nv = ik.nv
    for d in range(nv):
        a = ik.dof_qadr[d]
        if a >= 0:
            q = ik.qpos[a]
            sc.lb[d] = LIMIT_GAIN * (ik.lim_lower[d] - q) if np.isfinite(ik.lim_lower[d]) else -np.inf
            sc.ub[d] = LIMIT_GAIN * (ik.lim_upper[d] - q) if np.isfinite(ik.lim_upper[d]) else np.inf
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


@njit(cache=True)
def ik_step(ik: IkModel, tasks: TaskSet, s: int, damping: float, sc: Scratch) -> int:
    """One weighted damped differential-IK step for stage s, using sc.logs from task_errors."""
    begin_normal_equations(sc, ik.nv)
    mu = accumulate_tasks(ik, tasks, s, sc)
    finish_normal_equations(sc, ik.nv, damping + mu)
    return solve_and_integrate(ik, sc)
