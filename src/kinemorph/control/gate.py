"""The lift-off gate: a trailing foot does not lift off while the robot's capture point is still
behind the foot that will carry it.

A form of the gait feedback's time scaling (feedback.py), from the measured state rather than the
tracking error: in the second half of a double support, the capture point xi = c + c' / w (CoM c,
pendulum frequency w) is compared with the leading foot's sole, in that foot's frame. Past the sole
edge that faces the trailing foot (the heel when walking forward, the toe backward) by ``out_x``,
or more than ``lateral`` beyond its inner side edge (by ``out_y``), the single support to come
could not hold the CoM over the foot (the capture point would leave the sole behind it), so the
gait is slowed, kappa <= max(floor, exp(-gain (out_x + out_y))), while the capture point is
inside the two feet's polygon (where waiting lets the CoP bring the CoM onto the leading foot;
outside both feet only a step can catch it). The double support lasts until the CoM has come onto
the leading foot, or the floor lets the step go on. The lateral allowance grows with the
sideways command (strafing carries the CoM on over the new foot), and a capture point already past
the leading foot's far edge is not held for its lateral distance (the CoM would run on meanwhile).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..gait.footsteps import GaitBody, Pose2
from .preview import _to_next_event, phase_duration
from .support import support_polygon


@dataclass(frozen=True)
class GateConfig:
    """Settings of the lift-off gate.

    Attributes:
        enabled: apply the gate.
        gain: slow-down per metre the capture point is out [1/m].
        floor: least time-scaling rate the gate sets (> 0: the gait never stops).
        margin: inward margin of the sole edge the capture point must reach [m].
        lateral: how far past the inner side edge the capture point may be at lift-off [m]
            (the CoM sways onto the standing foot during the single support).
        from_share: the gate acts once this share of the double support has passed.
        lateral_per_speed: ``lateral`` grows by this much per m/s of sideways command [s] (when
            strafing the CoM moves on sideways over the new foot after lift-off). 0.2 since
            2026-12-06 (0.4 before: G1 neutral strafing at 0.1 m/s lifted with the capture point
            6.7 cm inside the new foot and fell; none: neutral strafing at 0.2 m/s fell at 3 s).
        ahead_free: a capture point already past the leading foot's far edge (toe walking
            forward) is not held for its lateral distance (the CoM would run on while waiting).
    """

    enabled: bool = True
    gain: float = 40.0
    floor: float = 0.1
    margin: float = 0.01
    lateral: float = 0.0
    from_share: float = 0.5
    lateral_per_speed: float = 0.2
    ahead_free: bool = True

    def __post_init__(self) -> None:
        if not 0 < self.floor <= 1:
            raise ConfigError(f"GateConfig.floor must be in (0, 1], got {self.floor}")
        if not 0 <= self.from_share < 1:
            raise ConfigError(f"GateConfig.from_share must be in [0, 1), got {self.from_share}")


def capture_out(cp: np.ndarray, lead: Pose2, trail: Pose2, body: GaitBody, cfg: GateConfig) -> float:
    """How far [m] the capture point cp (2,) lies behind the leading foot's sole towards the
    trailing foot (0 when over it): sagittal distance past the facing edge plus lateral distance
    past the inner side edge beyond ``cfg.lateral``."""
    c, s = math.cos(lead[2]), math.sin(lead[2])
    dx, dy = float(cp[0]) - lead[0], float(cp[1]) - lead[1]
    x, y = c * dx + s * dy, -s * dx + c * dy
    tx, ty = c * (trail[0] - lead[0]) + s * (trail[1] - lead[1]), -s * (trail[0] - lead[0]) + c * (trail[1] - lead[1])
    out_x = max(0.0, body.heel + cfg.margin - x) if tx < 0 else max(0.0, x - (body.toe - cfg.margin))
    side = 1.0 if ty > 0 else -1.0
    out_y = max(0.0, side * y - (body.half_width + cfg.lateral))
    ahead = x > body.toe - cfg.margin if tx < 0 else x < body.heel + cfg.margin
    if ahead and cfg.ahead_free:  # running on past the leading foot: waiting would not help
        out_y = 0.0
    return out_x + out_y


def gate_kappa(out: float, cfg: GateConfig) -> float:
    """The largest time-scaling rate the gate allows for a capture point ``out`` metres out."""
    return max(cfg.floor, math.exp(-cfg.gain * out))


def liftoff_cap(
    cp: np.ndarray, phase: float, timing: np.ndarray, standing: list[Pose2], body: GaitBody, cfg: GateConfig
) -> float:
    """The largest kappa the gate allows in a double support at gait ``phase`` (left leads in
    [0.1, 0.5), right in [0.6, 1)), from the capture point cp (2,) and where the feet stand: 1
    before ``from_share`` of the phase has passed and when cp is outside both feet's polygon."""
    if not cfg.enabled:
        return 1.0
    lead = 0 if phase < 0.5 else 1
    if _to_next_event(phase, timing) > (1.0 - cfg.from_share) * phase_duration(phase, timing):
        return 1.0
    if not support_polygon(list(standing), [True, True], body, 0.0).contains(cp, tol=cfg.margin):
        return 1.0  # outside both feet: only a step can catch it
    return gate_kappa(capture_out(cp, standing[lead], standing[1 - lead], body, cfg), cfg)
