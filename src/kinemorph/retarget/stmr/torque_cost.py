"""The inner problem's torque cost: a servo asked for more torque than its motor gives.

The rollouts' controls are PD targets; each servo's torque is tau = kp (u - q) - kd v, clipped to
the motor's limit (sim/servo.py). Where the iLQR asks for a target whose torque the motor cannot
give, the clip cuts it, and kinemorph.sim's verdict counts the physics steps with a motor at its
limit (more than 20% fails it). This residual, evaluated on the rollout at each control step's
start state (optim.ilqr.ControlResidual), prices the torque above a share ``margin`` of the limit,
per servo, in units of the limit,

    r = sqrt(w) sign(tau) max(0, |tau| / limit - margin)

(a hinge: no pull below it; its Jacobians are exact: kp / limit on u, -kp / limit on the joint's
position, -kd / limit on its velocity). A hard box on the targets instead (each held where its
torque at the step's start is within the limit), tried while this was written, cut the saturation
but the rollouts fell: a soft price lets the tracking costs buy torque where they need it.
"""

from __future__ import annotations

import numpy as np

from .dynamics import ServoModel


class TorqueResidual:
    """Residual of the servos' torque over ``margin`` x their limit (module docstring); an
    optim.ilqr.ControlResidual.

    Args:
        sm: the servo model (gains, limits, joint addresses).
        weight: w (dimensionless: the torque is in units of the limit).
        margin: share of the limit where the cost sets in, in (0, 1].
    """

    def __init__(self, sm: ServoModel, *, weight: float, margin: float) -> None:
        if not (weight >= 0 and 0 < margin <= 1):
            raise ValueError(f"TorqueResidual: need weight >= 0 and margin in (0, 1], got {weight}, {margin}")
        limited = np.isfinite(sm.torque_limit) & (sm.torque_limit > 0)
        self.act = np.flatnonzero(limited)
        m = sm.model
        jnt = m.actuator_trnid[self.act, 0]
        self.qadr = sm.qpos_index[self.act]
        self.vadr = m.jnt_dofadr[jnt]
        self.nv, self.nu = m.nv, m.nu
        self.kp = sm.kp[self.act]
        self.kd = sm.kd[self.act]
        self.inv = 1.0 / sm.torque_limit[self.act]
        self.s = float(np.sqrt(weight))
        self.margin = float(margin)

    def __call__(
        self, k: int, qpos: np.ndarray, qvel: np.ndarray, u: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        tau = (self.kp * (u[self.act] - qpos[self.qadr]) - self.kd * qvel[self.vadr]) * self.inv
        over = np.abs(tau) - self.margin
        idx = np.flatnonzero(over > 0)
        jx = np.zeros((idx.size, 2 * self.nv))
        ju = np.zeros((idx.size, self.nu))
        if idx.size == 0:
            return np.zeros(0), jx, ju
        rows = np.arange(idx.size)
        g = self.s * self.inv[idx]
        ju[rows, self.act[idx]] = g * self.kp[idx]
        jx[rows, self.vadr[idx]] = -g * self.kp[idx]  # a hinge joint's tangent coordinate is its angle
        jx[rows, self.nv + self.vadr[idx]] = -g * self.kd[idx]
        return self.s * np.sign(tau[idx]) * over[idx], jx, ju
