"""The iLQR's dynamics Jacobians: MuJoCo's finite differences along a trajectory, on threads.

Each control step's Jacobians are independent of the others', and ``mjd_transitionFD`` runs
without Python's lock, so the steps are split into contiguous runs, one per MjData, each run on
its own thread. Every step is computed from its own state, control and solver warm start, whatever
the split: the Jacobians are the same for any number of threads.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import mujoco
import numpy as np

if TYPE_CHECKING:
    from .ilqr import IlqrSettings


def fd_jacobians(
    m: mujoco.MjModel, physics: tuple[mujoco.MjModel, int], datas: list[mujoco.MjData], qs: np.ndarray,
    vs: np.ndarray, us: np.ndarray, warm: np.ndarray, s: IlqrSettings,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """A (T, 2nv, 2nv), B (T, 2nv, nu) of each control step k at state (qs[k], vs[k]), control
    us[k] and warm start warm[k]: one step of ``m`` (the control model), or composed from the fine
    physics (``physics`` = (fine model, substeps), IlqrSettings.jacobians). One thread per MjData
    of ``m`` in ``datas`` (each used by its thread alone)."""
    t, nx = us.shape[0], 2 * m.nv
    a = np.zeros((t, nx, nx))
    b = np.zeros((t, nx, m.nu))
    runs = np.array_split(np.arange(t), len(datas))
    if len(datas) == 1:
        _run(m, physics, datas[0], runs[0], qs, vs, us, warm, s, a, b)
        return a, b
    with ThreadPoolExecutor(max_workers=len(datas)) as pool:
        jobs = [pool.submit(_run, m, physics, d, r, qs, vs, us, warm, s, a, b) for d, r in zip(datas, runs)]
        for job in jobs:
            job.result()
    return a, b


def _run(
    m: mujoco.MjModel, physics: tuple[mujoco.MjModel, int], d: mujoco.MjData, steps: np.ndarray, qs: np.ndarray,
    vs: np.ndarray, us: np.ndarray, warm: np.ndarray, s: IlqrSettings, a: np.ndarray, b: np.ndarray,
) -> None:  # fmt: skip
    """a[k], b[k] for k in ``steps``, computed on ``d``."""
    fine_model, substeps = physics
    nx = 2 * m.nv
    fine = s.jacobians != "step" and substeps > 1
    a1, b1 = np.zeros((nx, nx)), np.zeros((nx, m.nu))
    for k in steps:
        d.qpos[:], d.qvel[:], d.ctrl[:] = qs[k], vs[k], us[k]
        d.qacc_warmstart[:] = warm[k]
        if not fine:
            mujoco.mjd_transitionFD(m, d, s.fd_eps, s.fd_centered, a[k], b[k], None, None)
            continue
        a[k] = np.eye(nx)
        for i in range(substeps):
            if i == 0 or s.jacobians == "chain":
                mujoco.mjd_transitionFD(fine_model, d, s.fd_eps, s.fd_centered, a1, b1, None, None)
            a[k] = a1 @ a[k]
            b[k] = a1 @ b[k] + b1
            if s.jacobians == "chain" and i + 1 < substeps:
                mujoco.mj_step(fine_model, d)
