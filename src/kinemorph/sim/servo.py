"""PD position servos on a torque-controlled model: the motors of "pd_targets" controls.

Each motor of a :class:`~kinemorph.sim.model.TorqueModel` copy becomes MuJoCo's affine position
servo, tau = clip(kp (u - q) - kd v, -limit, limit), with u the control clamped to its joint's
range ((-pi, pi) for an unlimited joint), integrated by MuJoCo's implicit-in-velocity integrator
(``implicitfast``, so the damping kd is stable at any step). STMR's rollouts (retarget.stmr.dynamics)
and kinemorph.sim's replay of their controls (controlled.py) build their servos here, so that the
replay runs the very arithmetic the rollout ran: on the model the controls name (their physics
step and floor) it reproduces the rollout's states.
"""

from __future__ import annotations

import mujoco
import numpy as np


def make_servos(m: mujoco.MjModel, kp: np.ndarray, kd: np.ndarray, torque_limit: np.ndarray) -> np.ndarray:
    """Turn the joint motors of ``m`` into position servos in place: gains kp [N m / rad], kd
    [N m s / rad] and |torque| bounds (inf: none) per actuator, shapes (nu,). Returns the qpos
    address of each actuator's joint (nu,)."""
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    qidx = np.zeros(m.nu, dtype=np.int64)
    for i in range(m.nu):
        j = int(m.actuator_trnid[i, 0])
        qidx[i] = m.jnt_qposadr[j]
        m.actuator_gaintype[i] = mujoco.mjtGain.mjGAIN_FIXED
        m.actuator_biastype[i] = mujoco.mjtBias.mjBIAS_AFFINE
        m.actuator_gainprm[i, :] = 0.0
        m.actuator_gainprm[i, 0] = kp[i]
        m.actuator_biasprm[i, :] = 0.0
        m.actuator_biasprm[i, 1:3] = -kp[i], -kd[i]
        m.actuator_ctrllimited[i] = 1
        m.actuator_ctrlrange[i] = m.jnt_range[j] if m.jnt_limited[j] else (-np.pi, np.pi)
        lim = float(torque_limit[i])
        m.actuator_forcelimited[i] = int(np.isfinite(lim))
        m.actuator_forcerange[i] = (-lim, lim) if np.isfinite(lim) else (0.0, 0.0)
    return qidx
