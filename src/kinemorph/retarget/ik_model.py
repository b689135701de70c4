"""How a MuJoCo model is described to the compiled IK kernels (ik.py): the arrays of an
:class:`IkModel` (views of one MjData plus per-dof tables), the dof chains that move each body,
and MuJoCo's own mj_kinematics and mj_integratePos reached from compiled code through their C
symbols."""

from __future__ import annotations

import ctypes
import os
from typing import NamedTuple

import llvmlite.binding as llvm
import mujoco
import numpy as np
from numba import njit, types


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


@njit(cache=True)
def kinematics(model_addr: int, data_addr: int) -> None:
    _mj_kinematics(model_addr, data_addr)  # type: ignore[call-overload]
