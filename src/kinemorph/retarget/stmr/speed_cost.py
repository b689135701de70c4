"""The inner problem's joint speed cost: a servo joint faster than the clip's joint speed cap.

Measured on the rollouts of the four dog cases (Go2 and A1, dog_walk and dog_idle): every joint
jump of the output (kinemorph.quality, > 0.25 rad per 30 fps frame, i.e. > 7.5 rad/s over a
frame) is the rollout's own joint speed: 8-13 rad/s for several control steps, continuous at the
180 Hz control rate (0.05-0.075 rad per step), where the spatial stage's targets stay under the cap
(7 rad/s; at most 6.9 on Go2 dog_walk) and the rollout has left them (30-50 cm in the gallop). They
are neither the output's interpolation to the source's fps nor PD target steps at the
receding-horizon windows' seams (the targets change as much inside the windows): the tracking
terms ask for corrections the legs make at any speed. This residual, evaluated on the rollout
(optim.ilqr.StateResidual), prices the speed over the cap, per actuated joint,

    r = sqrt(w) sign(v) max(0, |v| - limit)

(a hinge: zero, so no pull, below the cap; Gauss-Newton Jacobian sqrt(w) on the joint's velocity).
"""

from __future__ import annotations

import numpy as np


class JointSpeedResidual:
    """Residual of the actuated joints' speed over ``limit`` (module docstring); an optim.ilqr.StateResidual.

    Args:
        nv: the model's velocity dimension.
        dofs: velocity addresses of the actuated joints. Shape: (n,).
        weight: w [s^2/rad^2].
        limit: joint speed above which the cost sets in [rad/s].
    """

    def __init__(self, nv: int, dofs: np.ndarray, *, weight: float, limit: float) -> None:
        if not (weight >= 0 and limit > 0):
            raise ValueError(f"JointSpeedResidual: need weight >= 0 and limit > 0, got {weight}, {limit}")
        self.nv = int(nv)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.s = float(np.sqrt(weight))
        self.limit = float(limit)

    def __call__(self, k: int, qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        v = qvel[self.dofs]
        over = np.abs(v) - self.limit
        idx = np.flatnonzero(over > 0)
        jac = np.zeros((idx.size, 2 * self.nv))
        if idx.size == 0:
            return np.zeros(0), jac
        jac[np.arange(idx.size), self.nv + self.dofs[idx]] = self.s
        return self.s * np.sign(v[idx]) * over[idx], jac
