"""Brace hold: against a strong side push the walk stops in a double support that can hold it, and
goes on from the stance the push left once the push is over.

A steady horizontal force F on the CoM is held without stepping while the CoP p lies d = F / (m w^2)
beyond the DCM xi along the push (stepping.py's pendulum, 10.4 cm for 1.5 N/kg on G1), which a
double support of G1's walk (feet 24 cm apart) allows. The capture stepping (stepping.py) brings
the feet there; what it did not do is stop: with a walk still in the CoM planner's preview the
planner moved the CoM into the push by d, onto the windward foot, to prepare that foot's next
single support, so when the push ended the CoM fell back to the windward side, and the first step
after it lifted the leeward foot from under a CoM that was over the windward one.

While the capture stepping acts against a push more than 60 degrees off the walk's heading and the
current double support holds xi + d (within ``margin``), the hold:

- stops the gait clock (``kappa``) and previews that double support alone, so the CoM planner
  keeps the CoM over the stance and puts the CoP ``lean`` times d towards the push (the CoM stays
  where the push's end leaves it standing);
- lets go (the capture stepping goes on) if xi + d leaves the stance by ``margin + slack`` while
  the push still acts;
- once the estimate has been below ``release`` for ``settle`` seconds, moves the CoM onto the foot
  that leads in the gait's double support (the gait's lift-off gate criterion, gate.capture_out)
  and, when it is there and slower than ``speed``, re-seats the plan on the measured feet
  (Planner.reseat: the feet where they stand, the path between them) and lets the walk go on.

Measured on G1 (README and docs/WALKING.md, pushes): it catches the side pushes that meet the
leeward foot standing (its sole holds xi + d until the windward swing foot lands), which the capture
stepping alone lost after the push, and, since it acts on the estimate's 20 Hz twin
(capture.CaptureConfig.fast_hz) with the CoP free to jump onto the leeward sole (``free_cop``) and
from 0.6 N/kg (``min_push``), those whose leeward swing foot lands wide enough in time (left 4.0 s);
a push that comes while xi + d lies beyond the leeward sole with the leeward foot standing (left
4.1-4.4 s) still falls: the windward foot can then only land beside the leeward one, and the leeward
step that follows lifts from under a DCM it cannot catch (the pendulum needs a crossover step
there).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from .feedback import FeedbackState
from .gate import capture_out, gate_kappa
from .preview import SupportPhase
from .support import support_polygon

if TYPE_CHECKING:
    from .controller import GaitController

LIFTOFF_RATE = 0.8
"""The walk goes on once the lift-off gate (gate.py) would let the leading foot's double support end
at least this fast."""


@dataclass(frozen=True)
class HoldConfig:
    """Settings of the brace hold (on by default; it needs the capture stepping, SteppingConfig).

    Attributes:
        enabled: hold a double support against a side push.
        kappa: gait clock rate while held (> 0).
        lean: share of the push offset d by which the CoM planner's CoP targets lean into the
            push (1: the CoM stays over the stance's centre and the CoP takes the push; 0: the
            CoP stays at the centre and the CoM leans into the push by d).
        release: the push is over below this estimate [N/kg].
        settle: how long the estimate stays below ``release`` before the CoM moves onto the
            leading foot [s].
        speed: the walk goes on once the CoM is slower than this [m/s] over the leading foot.
        margin: a double support holds the push while xi + d lies at most this far outside it [m].
        slack: a held double support is let go while the push acts once xi + d lies ``margin + slack``
            outside it [m].
        free_cop: while held, the CoM planner's first CoP waypoint may jump anywhere in the stance
            (mpc.solve_mpc's ``free_start``) instead of going on from the CoP now: the leeward sole
            takes the push at once (with the CoP ramping over the first node, 0.1 s, the DCM ran on
            and the hold let go).
        min_push: the hold also engages while the capture stepping does not act, once the
            estimate is above this [N/kg] (0: only while the stepping acts).
    """

    enabled: bool = True
    kappa: float = 0.001
    lean: float = 1.0
    release: float = 0.3
    settle: float = 0.3
    speed: float = 0.1
    margin: float = 0.02
    slack: float = 0.03
    free_cop: bool = True
    min_push: float = 0.6

    def __post_init__(self) -> None:
        if not (0 < self.kappa <= 1 and 0 <= self.lean <= 1):
            raise ConfigError(f"HoldConfig: need 0 < kappa <= 1 and 0 <= lean <= 1, got {self}")
        if min(self.release, self.settle, self.speed, self.margin, self.slack) < 0:
            raise ConfigError(f"HoldConfig: release, settle, speed, margin and slack must be >= 0, got {self}")


def from_side(push: np.ndarray, heading: np.ndarray) -> bool:
    """Whether a horizontal push (2,) lies more than 60 degrees off a unit ``heading`` (2,)."""
    return abs(float(push @ heading)) < 0.5 * float(np.linalg.norm(push))


class BraceHold:
    """The hold of the module docstring for one controller (``update`` per planner tick)."""

    def __init__(self, cfg: HoldConfig) -> None:
        self.cfg = cfg
        self.braced = False
        self.quiet = 0.0  # time the estimate has been below ``release`` while held [s]
        self.goal: np.ndarray | None = None  # where the CoM goes before the walk goes on [m]

    def preview(self, ctl: GaitController, phases: list[SupportPhase]) -> list[SupportPhase]:
        """The CoM planner's preview: the held double support alone while held, else ``phases``."""
        if not self.braced or ctl._standing is None or None in ctl._standing:
            return phases
        feet = tuple(ctl._standing)
        return [SupportPhase(0.0, ctl.cfg.mpc.preview, feet, (True, True), (False, False))]  # type: ignore[arg-type]

    def update(self, ctl: GaitController, acting: bool, meas: np.ndarray, cmd: tuple[float, float, float],
               push: float, step: np.ndarray,
               fb: FeedbackState) -> tuple[np.ndarray, FeedbackState] | None:  # fmt: skip
        """This tick's foothold shift and feedback while held (None: the capture stepping decides).
        ``acting``: the capture stepping acts; ``push``: the estimate [N/kg]; ``step``, ``fb``: the
        gait feedback's shift (2,) [m] and state."""
        standing = ctl._standing
        if standing is None or None in standing or not all(ctl.planner.contacts):
            self.braced, self.goal = False, None
            return None
        w = ctl.feedback.omega  # type: ignore[union-attr]
        est = ctl.recovery.observer.fast
        xi = meas[:, 0] + meas[:, 1] / w
        p = xi + est / (ctl.mass * w * w)
        poly = support_polygon(list(standing), [True, True], ctl.rg.body, ctl.cfg.mpc.margin)  # type: ignore[arg-type]
        out = float(np.linalg.norm(p - poly.project(p)))
        pushed = push >= self.cfg.release
        if not self.braced:
            yaw = ctl.planner.path[2]
            side = from_side(est, np.array([math.cos(yaw), math.sin(yaw)]))
            strong = acting or (0 < self.cfg.min_push <= push)
            if not (strong and pushed and side and out <= self.cfg.margin):
                return None
            self.braced, self.quiet, self.goal = True, 0.0, None
        elif pushed and out > self.cfg.margin + self.cfg.slack:  # the push outgrew the stance: step on
            self.braced = False
            return None
        self.quiet = 0.0 if pushed else self.quiet + ctl.dt_plan
        held = ctl.maker.offset.mean(axis=0)  # the shift the standing feet have
        if self.quiet >= self.cfg.settle:  # the push is over: the CoM onto the leading foot, then walk on
            lead = 0 if ctl.planner.phase % 1.0 < 0.5 else 1
            self.goal = support_polygon(list(standing), [lead == 0, lead == 1], ctl.rg.body, 0.0).centre  # type: ignore[arg-type]
            out_lead = capture_out(xi, standing[lead], standing[1 - lead], ctl.rg.body, ctl.cfg.gate)  # type: ignore[index,arg-type]
            ready = gate_kappa(out_lead, ctl.cfg.gate) >= LIFTOFF_RATE  # the lift-off gate lets the step go
            if ready and float(np.linalg.norm(meas[:, 1])) < self.cfg.speed:
                self.braced, self.goal = False, None
                return walk_on(ctl, list(standing), cmd, step), fb  # type: ignore[arg-type]
        fb = dataclasses.replace(fb, kappa=self.cfg.kappa, step=held.copy(), step_engaged=True, time_engaged=True)
        return held.copy(), fb


def walk_on(ctl: GaitController, feet: list, cmd: tuple[float, float, float], step: np.ndarray) -> np.ndarray:
    """Re-seat the controller's plan on the measured ``feet`` (the feet keep no foothold shift, the
    push recovery's carried shift is dropped); the gait feedback's shift ``step`` (2,) less that."""
    ctl.planner.reseat(feet, cmd)
    ctl.maker.offset[:] = 0.0
    ctl.maker.lift_offset[:] = 0.0
    step = step - ctl.recovery.anchor
    ctl.recovery.anchor = np.zeros(2)
    return step
