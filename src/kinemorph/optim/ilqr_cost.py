"""The cost of :func:`kinemorph.optim.ilqr.ilqr`: a weighted tracking cost in the state's tangent
space, with optional extra quadratic forms per step and a residual evaluated on the trajectory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


class StateResidual(Protocol):
    """A residual r_k(q, v) evaluated on the trajectory itself (not linearised at the reference):
    cost 1/2 |r|^2 per step, Gauss-Newton Hessian J' J with J = dr/dx in the tangent space."""

    def __call__(self, k: int, qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(r (m,), J (m, 2 nv)) at step k and state (qpos (nq,), qvel (nv,))."""
        ...


class ControlResidual(Protocol):
    """A residual r_k(q, v, u) of the state and the control evaluated on the trajectory (e.g. a
    servo's torque over its motor's limit): cost 1/2 |r|^2 per step, Gauss-Newton terms from
    J_x = dr/dx (tangent space) and J_u = dr/du."""

    def __call__(
        self, k: int, qpos: np.ndarray, qvel: np.ndarray, u: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(r (m,), J_x (m, 2 nv), J_u (m, nu)) at step k, state (qpos, qvel) and control u (nu,)."""
        ...


@dataclass(frozen=True)
class TrackingCost:
    """Weighted tracking cost over a horizon of T control steps, in the state's tangent space.

    cost = sum_k 1/2 |dx_k|^2_Wx[k] + 1/2 |u_k - u_ref_k|^2_Wu[k]  +  1/2 |dx_T|^2_Wx[T]
    with dx = [mj_differentiatePos(q_ref, q), v - v_ref] (2 nv; no actuator activations), and
    with ``state_hessian`` P also 1/2 dx_k' P[k] dx_k per step: quadratic forms of task-space
    residuals linearised at the reference (e.g. a planted foot's position and velocity,
    r = J_foot dx, P = w J'J), which a diagonal weight cannot express; and with ``residual`` also
    1/2 |r_k(q_k, v_k)|^2, evaluated on the trajectory (e.g. a foot's speed while it is on the
    floor, wherever and whenever the rollout puts it down); with ``control_residual`` also
    1/2 |r_k(q_k, v_k, u_k)|^2 per control step.

    Attributes:
        qpos: reference positions. Shape: (T+1, nq).
        qvel: reference velocities. Shape: (T+1, nv).
        state_weight: diagonal weight per step on dx. Shape: (T+1, 2 nv).
        controls: reference controls. Shape: (T, nu).
        control_weight: diagonal weight per step on u - u_ref. Shape: (T, nu).
        state_hessian: extra symmetric positive semidefinite weight per step on dx, or None.
            Shape: (T+1, 2 nv, 2 nv).
        residual: a :class:`StateResidual`, or None.
        control_residual: a :class:`ControlResidual`, or None.
    """

    qpos: np.ndarray
    qvel: np.ndarray
    state_weight: np.ndarray
    controls: np.ndarray
    control_weight: np.ndarray
    state_hessian: np.ndarray | None = None
    residual: StateResidual | None = None
    control_residual: ControlResidual | None = None

    def state_cost(self, k: int, e: np.ndarray) -> float:
        """1/2 dx' (W + P) dx at step k."""
        c = float(e @ (self.state_weight[k] * e))
        if self.state_hessian is not None:
            c += float(e @ self.state_hessian[k] @ e)
        return 0.5 * c

    def state_gradient(self, k: int, e: np.ndarray) -> np.ndarray:
        g = self.state_weight[k] * e
        return g if self.state_hessian is None else g + self.state_hessian[k] @ e

    def state_hess(self, k: int) -> np.ndarray:
        h = np.diag(self.state_weight[k])
        return h if self.state_hessian is None else h + self.state_hessian[k]

    @property
    def horizon(self) -> int:
        return int(self.controls.shape[0])
