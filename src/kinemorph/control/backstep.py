"""Backward steps on robots whose ankle motors cannot hold the CoP at the toe.

Two parts, both engaged only on such robots (the speed stance's shortfall > 0; G1 is unchanged)
and only under a backward command:

- the back-step cap (``StanceConfig.back_step``): the planner places a foothold at the path pose
  of its contact interval's midpoint, so the first step from standing lands about 0.84 |v| T
  beyond the standing foot instead of the steady gait's |v| T / 2 (T the gait cycle); T1's
  injured first backward step was 27.6 cm planned, 35 cm with the step adjustment, swung in the
  style's 0.3 s left swing. The coming foothold (the planner's, before the step adjustment) lies
  at most ``back_step`` |v| T / 2 beyond the standing foot along the walking direction; the excess
  moves it back towards the standing foot, in single and double support (the CoM planner's preview
  sees the shorter step before lift-off), and the feedback's step adjustment adds to it.
- a fast backward swing (``StanceConfig.back_swing_speed``): a command whose stride over its
  shortest swing, |v| T / swing, exceeds this speed runs the whole-body QP with hard contacts and
  the motors' torque limits and plans the CoP inside the soles the ankle motors hold, as the speed
  stance does at speed (stance.SpeedStance.constrained). T1's injured backward swing at 0.3 m/s:
  1.10 m/s (neutral and relaxed 0.75 m/s).

Why (T1, injured at 0.3 m/s backward, the log): in the first single support the whole-body QP
asked the floor for 66-104 N backwards (the CoM's plan needed a few N): the swing leg's backward
acceleration carried the CoM with it at -2.5 m/s^2 while hip and ankle roll motors saturated and
the standing foot slid outwards, the CoM ran backwards at 0.5 m/s, and the robot fell forwards
over the far foot. Each part alone does not save it (README).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .preview import preview

if TYPE_CHECKING:
    from .controller import GaitController


def step_excess(*, standing: np.ndarray, foothold: np.ndarray, heading: np.ndarray, limit: float) -> float:
    """How far [m] (>= 0) ``foothold`` lies beyond ``limit`` [m] from ``standing`` along the unit
    vector ``heading``. Points and heading horizontal (2,)."""
    return max(0.0, float(np.asarray(heading) @ (np.asarray(foothold) - np.asarray(standing))) - limit)


def fast_backward(vx: float, timing: np.ndarray, speed: float) -> bool:
    """Whether a backward command ``vx`` [m/s] swings faster than ``speed`` [m/s]: the stride per
    cycle |vx| T over the shortest swing (timing [t_LTD, t_RLO, t_RTD, T] [s]); False for speed <= 0."""
    if vx >= 0.0 or speed <= 0.0:
        return False
    swing = min(float(timing[0]), float(timing[2] - timing[1]))
    return swing > 0.0 and abs(vx) * float(timing[3]) / swing > speed


def back_step_shift(ctrl: GaitController, command: np.ndarray, timing: np.ndarray, pace: float) -> np.ndarray:
    """The back-step cap's foothold shift (2,) [m] for the controller's coming foothold (module
    docstring): zero unless walking backward on a robot with an ankle shortfall and no push."""
    gain = ctrl.cfg.stance.back_step
    vx = float(command[0])
    if gain <= 0 or vx >= 0.0 or ctrl.stance.shortfall <= 0 or ctrl.recovery.engaged:
        return np.zeros(2)
    if ctrl._standing is None or not ctrl.phases:
        return np.zeros(2)
    contacts = ctrl.phases[0].contacts
    if sum(contacts) == 1:
        f = 0 if not contacts[0] else 1  # the swinging foot
    else:
        f = 0 if ctrl.planner.phase >= 0.5 else 1  # the foot that lifts off next
    stand = ctrl._standing[1 - f]
    if stand is None:
        return np.zeros(2)
    raw = preview(ctrl.planner, ctrl.maker.offset, tuple(command / pace), ctrl.cfg.mpc.preview, ctrl._standing,
                  ctrl.maker.max_width)  # fmt: skip
    land = next((ph.feet[f] for ph in raw[1:] if ph.landed[f]), None)
    if land is None:
        return np.zeros(2)
    yaw = ctrl.next.yaw  # type: ignore[union-attr]
    heading = -np.array([math.cos(yaw), math.sin(yaw)])
    limit = gain * abs(vx) * float(timing[3]) / 2.0
    excess = step_excess(standing=np.array(stand[:2]), foothold=np.array(land[:2]), heading=heading, limit=limit)
    return -excess * heading
