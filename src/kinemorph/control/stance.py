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
On such a robot, at any command, the lag step (``lag_step``, ``shorten``) also shortens a step
whose foothold lies beyond what the CoM's predicted capture point can roll over (an ankle-limited
CoP cannot roll a slowed CoM over a foot placed for the speed it no longer has). Backward
steps get their own limits there (backstep.py: a capped step length, and fast backward swings
constrained).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..gait.footsteps import GaitBody, min_separation
from .backstep import fast_backward


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
        shorten: gain of the lag step (``lag_step``; 0: off) on such a robot, at any command: once
            per single support, 1/w before touch-down (w the pendulum frequency), the coming
            foothold moves back along the walking direction by this share of how far it lies beyond
            the capture point predicted at touch-down plus a slack, at most the length of the sole
            the ankle motors hold (``ankle_share``; T1 10.4 cm), held until touch-down. T1's
            neutral schedule walks 20 s with it (fell at 3.31 s); only while the speed stance is
            engaged it fell at 16.16 s (the next foothold 13 cm ahead of a CoM at 0.07 m/s after
            the schedule's backward-to-forward change), uncapped T1's relaxed fwd-0.5 fell at
            10.78 s (README).
        back_step: under a backward command, the coming foothold lies at most this many half
            strides (|v| T / 2) beyond the standing foot (backstep.py; 0: off).
        back_swing_speed: a backward command whose stride over its shortest swing exceeds this
            [m/s] runs the whole-body QP constrained and the CoM planner on the held soles, as at
            speed (backstep.py; 0: off). T1's injured backward walks 20 s with both (fell at 2.47 s).
    """

    enabled: bool = True
    crouch: float = 0.16
    narrow: float = 0.7
    low_speed: float = 0.3
    full_speed: float = 0.45
    qp_share: float = 0.5
    ankle_share: float = 0.8
    shorten: float = 1.0
    back_step: float = 1.0
    back_swing_speed: float = 0.9

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
        self.fast_back = False
        self._cache: dict[float, GaitBody] = {}

    def update(self, vx: float, timing: np.ndarray | None = None) -> GaitBody:
        """The body to walk on at forward command ``vx`` [m/s]; sets ``share`` (0..1) and, from the
        gait's timing [t_LTD, t_RLO, t_RTD, T] [s], ``fast_back`` (backstep.fast_backward)."""
        c = self.cfg
        self.fast_back = timing is not None and fast_backward(vx, timing, c.back_swing_speed)
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
        return self.shortfall > 0.0 and (self.share > self.cfg.qp_share or self.fast_back)


def lag_step(
    *,
    cp: np.ndarray,
    cop: np.ndarray,
    omega: float,
    to_touchdown: float,
    standing: np.ndarray,
    foothold: np.ndarray,
    heading: np.ndarray,
    step_time: float,
) -> float:
    """How far [m] the coming foothold lies beyond the capture point predicted at touch-down plus a
    slack (>= 0), along ``heading``.

    The capture point xi moves away from the CoP p as xi' = w (xi - p); held at the current CoP
    until touch-down (``to_touchdown`` [s]), it reaches xi_td = p + (xi - p) e^{w t}. The slack is
    c = L / (e^{w T} - 1) for the step length L and step time T [s]: in the LIPM's steady gait with
    the CoP held on each standing foot, xi_td lies c beyond the new foothold; here the foothold may
    lie up to c beyond xi_td (the CoP can still move back onto the new foot's heel). The lag is
    foothold - xi_td - c along the heading when positive: a CoM that lost speed over the standing
    foot gets a shorter step. An empirical threshold: with the LIPM's own condition (the foothold
    at most the held heel behind xi_td - c) T1's neutral walks fell sooner (README). Points
    horizontal (2,) [m]; ``heading`` a unit vector (2,) along the walking direction; ``standing``:
    the standing foot's sole point.
    """
    if to_touchdown <= 0.0 or step_time <= 0.0:
        return 0.0
    h = np.asarray(heading, float)
    xi_td = float(h @ cop) + float(h @ (cp - cop)) * math.exp(omega * to_touchdown)
    length = float(h @ (foothold - standing))
    if length <= 0.0:
        return 0.0
    c = length / math.expm1(omega * step_time)
    return max(0.0, float(h @ foothold) - xi_td - c)
