"""A lower, narrower stance at speed for robots whose ankle motors cannot hold the CoP over the sole.

The CoM planner may put the CoP anywhere on the sole; an ankle motor with limit tau holds the
whole weight m g only within tau / (m g) of its hinge (support.ankle_sole). Where that reach is
shorter than the sole's toe (T1: 20 N m ankle pitch, 6.5 cm of its 12.2 cm toe; G1's 50 N m motors
hold its whole sole), a forward or backward command from ``low_speed`` on lowers the pelvis and
brings the feet closer, fully from ``full_speed``: a lower CoM needs a smaller CoP offset for the
same CoM acceleration (x'' = g (x - p) / z), and closer feet a smaller lateral sway. The amounts
scale with the ankle's shortfall s = 1 - reach / toe (0 when the ankle holds the toe): the pelvis
``crouch`` s times its walking height lower, the feet ``narrow`` s times their spare spacing (the
spacing beyond the least separation of the soles) closer. While it is engaged beyond ``qp_share``
the whole-body QP holds the standing feet as equalities and the motors' limits as constraints
(``WbcConfig.hard_contacts``, ``torque_limits``): with clipped torques the QP's plan and the robot
part (on T1 the standing foot rolled over its edge in the first step), and the CoM planner plans
the CoP inside the soles the ankle motors hold (``ankle_share``). The planner walks on the
adjusted GaitBody, so footholds, the MPC's preview and the pelvis height reference follow it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..errors import ConfigError
from ..gait.footsteps import GaitBody, min_separation


@dataclass(frozen=True)
class StanceConfig:
    """Settings of the speed stance (module docstring).

    Attributes:
        enabled: apply it (it engages only on robots whose ankles cannot hold the CoP at the toe).
        crouch: the pelvis lowers by this share of its walking height times the ankle's shortfall.
        narrow: the feet come closer by this share of their spare spacing times the shortfall.
        low_speed, full_speed: |forward command| [m/s] where it starts and where it is complete.
        qp_share: engaged beyond this share, the whole-body QP runs with hard contacts and the
            motors' torque limits as constraints.
        ankle_share: while so engaged, the CoM planner's soles are cut to where this share of each
            ankle motor's limit holds the whole weight (support.ankle_sole; 0: the whole sole). T1's
            relaxed style at 0.5 m/s walks with 0.8 (fell at 2.50 s with the whole sole, 2.91 s at 1.0).
    """

    enabled: bool = True
    crouch: float = 0.16
    narrow: float = 0.7
    low_speed: float = 0.3
    full_speed: float = 0.45
    qp_share: float = 0.5
    ankle_share: float = 0.8

    def __post_init__(self) -> None:
        if not 0 <= self.low_speed < self.full_speed:
            raise ConfigError(
                f"StanceConfig: need 0 <= low_speed < full_speed, got {self.low_speed} and {self.full_speed}"
            )
        if not (0 <= self.crouch < 0.5 and 0 <= self.narrow <= 1):
            raise ConfigError(
                f"StanceConfig: need crouch in [0, 0.5) and narrow in [0, 1], got {self.crouch} and {self.narrow}"
            )


def ankle_shortfall(body: GaitBody, held: GaitBody) -> float:
    """1 - (the toe the ankle motors hold) / (the sole's toe), in [0, 1]; ``held``: support.ankle_sole
    at share 1 (the sole cut to where the ankle motors hold the whole weight)."""
    return min(1.0, max(0.0, 1.0 - held.toe / body.toe))


class SpeedStance:
    """The planner's GaitBody for a command (module docstring)."""

    def __init__(self, config: StanceConfig, body: GaitBody, shortfall: float) -> None:
        self.cfg = config
        self.body = body
        self.shortfall = shortfall if config.enabled else 0.0
        self.share = 0.0
        self._cache: dict[float, GaitBody] = {}

    def update(self, vx: float) -> GaitBody:
        """The body to walk on at forward command ``vx`` [m/s]; sets ``share`` (0..1)."""
        c = self.cfg
        self.share = min(1.0, max(0.0, (abs(vx) - c.low_speed) / (c.full_speed - c.low_speed)))
        amount = round(self.share * self.shortfall, 3)  # 1 mm steps: the bodies are reused
        if amount <= 0.0:
            return self.body
        body = self._cache.get(amount)
        if body is None:
            spare = max(0.0, self.body.foot_spacing - min_separation(self.body, 0.0))
            body = dataclasses.replace(
                self.body,
                pelvis_height=self.body.pelvis_height * (1.0 - c.crouch * amount),
                foot_spacing=self.body.foot_spacing - c.narrow * amount * spare,
            )
            self._cache[amount] = body
        return body

    @property
    def constrained(self) -> bool:
        """Whether the whole-body QP runs with hard contacts and torque limits now."""
        return self.shortfall > 0.0 and self.share > self.cfg.qp_share
