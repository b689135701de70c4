"""Gait feedback: the gait changes when the whole-body controller cannot follow the CoM reference.

After Hopkins et al. 2024 (section 6, "Gait feedback"); e is the CoM position error and e' the
velocity error (measured minus the CoM planner's reference), horizontal, world frame:

- velocity adjustment: the command gets an offset Delta_vel = lowpass(deadband(k_p e + k_v e')),
  a first-order low-pass at ``velocity_cutoff_hz`` (0.15 Hz in the paper), clipped to ``max_velocity``;
- step adjustment: upcoming footholds move by Delta_step = k_s (e + e' / w) e^{w t_td} (the
  capture-point error, w the pendulum frequency, extrapolated to the next touch-down t_td seconds
  ahead: the capture point diverges as e^{w t} from the CoP, so the error a step must absorb is the
  one at touch-down, at most ``step_horizon`` ahead) through a dead-band, clipped to ``max_step``;
- time scaling: the reference runs at kappa = exp(k_p eps + k_d eps') times real time, eps and
  eps' the errors projected on the axis from the current foothold to the next one (kappa > 1: the
  next step comes sooner), limited so that the current phase's scaled duration stays inside the
  single- or double-support limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError


@dataclass(frozen=True)
class FeedbackConfig:
    """Gains and limits of the gait feedback.

    Attributes:
        enabled: apply the feedback (off: the gait runs as planned).
        velocity_kp, velocity_kv: gains of the velocity offset on e [1/s] and e' [unitless].
        velocity_deadband: dead-band on the velocity offset before filtering [m/s].
        velocity_cutoff_hz: low-pass cutoff [Hz].
        max_velocity: largest velocity offset [m/s].
        step_gain: gain on the capture-point error [unitless].
        step_deadband: dead-band on the step offset [m].
        max_step: largest foothold shift [m].
        step_horizon: longest time [s] over which the capture-point error is extrapolated to the
            next touch-down (0: the current error, as in the paper's form).
        time_kp, time_kd: gains of kappa on eps [1/m] and eps' [s/m].
        single_support_limits: shortest and longest single support under scaling [s].
        double_support_limits: shortest and longest double support under scaling [s].
        engaged_threshold: |kappa - 1| above which time scaling counts as engaged.
    """

    enabled: bool = True
    velocity_kp: float = 1.0
    velocity_kv: float = 0.5
    velocity_deadband: float = 0.03
    velocity_cutoff_hz: float = 0.15
    max_velocity: float = 0.3
    step_gain: float = 1.0
    step_deadband: float = 0.015
    max_step: float = 0.15
    step_horizon: float = 0.0
    time_kp: float = 4.0
    time_kd: float = 1.0
    single_support_limits: tuple[float, float] = (0.25, 1.0)
    double_support_limits: tuple[float, float] = (0.06, 0.6)
    engaged_threshold: float = 0.03

    def __post_init__(self) -> None:
        for name in ("single_support_limits", "double_support_limits"):
            lo, hi = getattr(self, name)
            if not 0 < lo < hi:
                raise ConfigError(f"FeedbackConfig.{name} must be 0 < shortest < longest, got {(lo, hi)}")
        if not self.velocity_cutoff_hz > 0:
            raise ConfigError(f"FeedbackConfig.velocity_cutoff_hz must be positive, got {self.velocity_cutoff_hz}")


def deadband(v: np.ndarray, width: float) -> np.ndarray:
    """Shrink a vector's length by ``width`` (zero inside the band); continuous."""
    n = float(np.linalg.norm(v))
    return v * (max(0.0, n - width) / n) if n > 1e-12 else np.zeros_like(v)


def clip_norm(v: np.ndarray, limit: float) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v * (limit / n) if n > limit else v


@dataclass(frozen=True)
class FeedbackState:
    """One update's output.

    Attributes:
        kappa: time-scaling rate (1: real time).
        step: foothold shift [m]. Shape: (2,).
        velocity: velocity offset, world frame [m/s]. Shape: (2,).
        time_engaged, step_engaged, velocity_engaged: whether each mechanism acts.
    """

    kappa: float
    step: np.ndarray
    velocity: np.ndarray
    time_engaged: bool
    step_engaged: bool
    velocity_engaged: bool


class GaitFeedback:
    """The three mechanisms of the module docstring, updated at the planner's rate ``dt`` [s]."""

    def __init__(self, config: FeedbackConfig, *, dt: float, omega: float) -> None:
        self.cfg = config
        self.omega = omega
        self.alpha = 1.0 - math.exp(-2.0 * math.pi * config.velocity_cutoff_hz * dt)
        self.velocity = np.zeros(2)

    def update(
        self,
        e: np.ndarray,
        ed: np.ndarray,
        axis: np.ndarray,
        phase_duration: float,
        single: bool,
        to_touchdown: float = 0.0,
    ) -> FeedbackState:
        """e, ed: CoM position and velocity errors (2,); axis: unit vector from the current foothold
        to the next (2,); phase_duration: the current phase's nominal duration [s]; single: in
        single support; to_touchdown: time to the next touch-down [s]."""
        c = self.cfg
        if not c.enabled:
            return FeedbackState(1.0, np.zeros(2), np.zeros(2), False, False, False)
        raw = deadband(c.velocity_kp * e + c.velocity_kv * ed, c.velocity_deadband)
        self.velocity = clip_norm(self.velocity + self.alpha * (raw - self.velocity), c.max_velocity)
        grow = math.exp(self.omega * min(max(to_touchdown, 0.0), c.step_horizon))
        step = clip_norm(deadband(c.step_gain * grow * (e + ed / self.omega), c.step_deadband), c.max_step)
        eps, epsd = float(axis @ e), float(axis @ ed)
        lo, hi = c.single_support_limits if single else c.double_support_limits
        kappa = math.exp(max(-5.0, min(5.0, c.time_kp * eps + c.time_kd * epsd)))
        kappa = min(max(kappa, phase_duration / hi), phase_duration / lo)
        kappa = min(max(kappa, 0.5), 2.0)
        return FeedbackState(
            kappa=kappa,
            step=step,
            velocity=self.velocity.copy(),
            time_engaged=abs(kappa - 1.0) > c.engaged_threshold,
            step_engaged=bool(np.linalg.norm(step) > 1e-6),
            velocity_engaged=bool(np.linalg.norm(self.velocity) > 1e-3),
        )
