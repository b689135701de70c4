"""Push recovery (opt-in, ``CaptureConfig.enabled``): a push estimate, footholds chosen by the
CoM planner, and step timing from the measured capture point.

The gait feedback of feedback.py reacts to the error from the CoM planner's reference; a push
that lasts (1.5 N/kg for 1 s carries the CoM 1.5 m/s if nothing resists it) needs the robot to
lean into it and to put its feet where the measured state can be caught:

- **push estimate** (a disturbance observer): the horizontal force the contact forces do not
  explain, F = m c'' - f_contacts (c'' from the measured CoM velocity, f_contacts the QP's forces
  of the last planner interval), through a median of ``MEDIAN`` ticks (a touch-down's impact is
  not in the QP's forces) and a low-pass at ``observer_hz``. Above ``engage_force`` per kg it
  engages the recovery, which ends ``hold`` seconds after the estimate fell below
  ``release_force``. While engaged the MPC and the whole-body QP include F (the MPC as the CoP
  offset d = F / (m w^2) of x'' = w^2 (x - p + d): the CoP stays d behind the CoM, the lean), and
  the MPC starts from the measured CoM state;
- **footholds** (mpc.StepFreedom, after Herdt et al. 2010): one shift of all coming footholds is a
  variable of the MPC, limited to the leg's reach from the standing foot (``reach_forward``,
  ``reach_back``, ``reach_side``, the feet's least separation); a swinging foot within
  ``freeze`` seconds of its touch-down lands where it is going;
- **step timing** (after Khadiv et al. 2016), from the capture point xi = c + c'/w: in a double
  support the trailing foot stays down (kappa ``hold_kappa``) while both feet can hold the CoP at
  xi + d and the foot to carry the robot next cannot; when neither can, or the MPC's shift lies
  on the reach limits, the step comes sooner (kappa ``max_kappa``).

Measured on G1 (README, "Walking under physics"): the estimate matches a 1.5 N/kg push within
about 5% 0.2 s after it starts, but the recovery did not save 0.75-1.5 N/kg pushes and lost a
0.5 N/kg front push the default controller rides out, so it is off by default.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from ..gait.footsteps import GaitBody, Pose2, min_separation, wrap_angle
from .feedback import FeedbackState
from .mpc import MpcPlan, StepFreedom
from .preview import SupportPhase
from .support import support_polygon

if TYPE_CHECKING:
    from .controller import GaitController
    from .targets import FrameMaker


@dataclass(frozen=True)
class CaptureConfig:
    """Settings of the push recovery.

    Attributes:
        enabled: use the push estimate and recover from pushes (off, the default: the gait
            feedback alone; the estimate is still computed).
        observer_hz: bandwidth of the push estimate [Hz].
        engage_force: estimate per kg of robot mass that engages the recovery [N/kg].
        release_force: estimate per kg below which the recovery starts to end [N/kg].
        hold: the recovery lasts this long after the estimate fell below ``release_force`` [s].
        reach_forward, reach_back: how far ahead of / behind the standing foot a foot may land,
            along the standing foot [m].
        reach_side: how far sideways of the standing foot a foot may land [m].
        max_kappa: gait clock rate of an early step.
        move_footholds: the MPC moves the coming footholds (off: timing and lean only).
        step_weight, step_pull: the MPC's weights on the shift's change and on the shift [1/m^2].
        freeze: a swinging foot this close to its touch-down lands where it is going [s].
        hold_kappa: gait clock rate of a double support held while the foot that would carry the
            robot next cannot hold the CoP at xi + d (the lean the push needs), within ``hold_tolerance`` [m].
    """

    enabled: bool = False
    observer_hz: float = 4.0
    engage_force: float = 0.35
    release_force: float = 0.15
    hold: float = 1.5
    reach_forward: float = 0.35
    reach_back: float = 0.3
    reach_side: float = 0.42
    max_kappa: float = 1.3
    step_weight: float = 10.0
    step_pull: float = 1.0
    freeze: float = 0.12
    hold_kappa: float = 0.1
    move_footholds: bool = True
    hold_tolerance: float = 0.01

    def __post_init__(self) -> None:
        if not 0 <= self.release_force <= self.engage_force:
            raise ConfigError(
                f"CaptureConfig: need 0 <= release_force <= engage_force, got {self.release_force}, {self.engage_force}"
            )
        if not (self.observer_hz > 0 and self.max_kappa >= 1):
            raise ConfigError(f"CaptureConfig: need observer_hz > 0 and max_kappa >= 1, got {self}")


@dataclass(frozen=True)
class Touchdown:
    """A previewed landing: when [s from now], which foot (0 left, 1 right), where (x, y, yaw) [m, rad]."""

    time: float
    foot: int
    pose: Pose2


def touchdowns(phases: list[SupportPhase]) -> list[Touchdown]:
    """The landings of the preview in time order."""
    out: list[Touchdown] = []
    for prev, ph in itertools.pairwise(phases):
        for f in range(2):
            if ph.contacts[f] and not prev.contacts[f]:
                out.append(Touchdown(ph.start, f, ph.feet[f]))
    return out


MEDIAN = 7
"""Planner ticks in the push estimate's median filter (a touch-down's impact is not in the QP's forces)."""


class PushObserver:
    """The push estimate of the module docstring, updated once per planner tick."""

    def __init__(self, mass: float, dt: float, hz: float) -> None:
        self.mass = mass
        self.dt = dt
        self.alpha = 1.0 - math.exp(-2.0 * math.pi * hz * dt)
        self.estimate = np.zeros(2)
        self._last: np.ndarray | None = None
        self._raw: list[np.ndarray] = []

    def update(self, velocity: np.ndarray, contact_force: np.ndarray) -> np.ndarray:
        """CoM velocity now [m/s] (2,) and the mean horizontal contact force over the last tick [N] (2,)."""
        if self._last is not None:
            self._raw = [*self._raw[-(MEDIAN - 1) :], self.mass * (velocity - self._last) / self.dt - contact_force]
            raw = np.median(np.array(self._raw), axis=0)  # drops the touch-downs' short impacts
            self.estimate = self.estimate + self.alpha * (raw - self.estimate)
        self._last = np.array(velocity, dtype=np.float64)
        return self.estimate


class Recovery:
    """Engages and ends the push recovery and turns it into the controller's step, lean and timing."""

    def __init__(self, cfg: CaptureConfig, mass: float, dt: float, maker: FrameMaker) -> None:
        self.cfg = cfg
        self.maker = maker  # its sideways reach widens while engaged
        self.width = maker.max_width
        self.mass = mass
        self.observer = PushObserver(mass, dt, cfg.observer_hz)
        self.engaged = False
        self.quiet = 0.0  # time the estimate has been below release_force [s]
        self.dt = dt
        self.anchor = np.zeros(2)  # foothold shift kept after a recovery ends [m]
        self.shift = np.zeros(2)
        self.saturated = False
        self.frozen = False
        self.last = np.zeros(2)  # the foothold shift the frame maker got last [m]

    def observe(self, velocity: np.ndarray, contact_force: np.ndarray) -> np.ndarray:
        """Update the estimate; the external force [N] (3,) the MPC and QP use (zero when not engaged)."""
        est = self.observer.update(velocity, contact_force)
        per_kg = float(np.linalg.norm(est)) / self.mass
        if not self.cfg.enabled:
            return np.zeros(3)
        if per_kg > self.cfg.engage_force:
            self.engaged, self.quiet = True, 0.0
        elif self.engaged:
            self.quiet = self.quiet + self.dt if per_kg < self.cfg.release_force else 0.0
            if self.quiet > self.cfg.hold:
                self.engaged = False
                self.anchor = self.shift.copy()
                self.maker.max_width = self.width
        if self.engaged:
            self.maker.max_width = max(self.width, self.cfg.reach_side)
        return np.array([est[0], est[1], 0.0]) if self.engaged else np.zeros(3)


def reach_limits(
    phases: list[SupportPhase], body: GaitBody, cfg: CaptureConfig
) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows A s <= b on the foothold shift s (2,) [m] that keep the first previewed landing within
    the reach of the foot standing meanwhile (in that foot's frame: ``reach_back`` behind to
    ``reach_forward`` ahead; sideways from the feet's least separation to ``reach_side``). None
    when the preview has no landing or the standing foot is not on the floor now."""
    steps = touchdowns(phases)
    if not steps:
        return None
    first = steps[0]
    other = 1 - first.foot
    if not phases[0].contacts[other]:
        return None
    stance = phases[0].feet[other]
    side = 1.0 if first.foot == 0 else -1.0
    c, s = math.cos(stance[2]), math.sin(stance[2])
    ex, ey = np.array([c, s]), np.array([-s, c])
    rel = np.array([first.pose[0] - stance[0], first.pose[1] - stance[1]])
    lx, ly = float(ex @ rel), float(side * (ey @ rel))
    need = min_separation(body, wrap_angle(first.pose[2] - stance[2]))
    A = np.stack([ex, -ex, side * ey, -side * ey])
    b = np.array([cfg.reach_forward - lx, cfg.reach_back + lx, cfg.reach_side - ly, ly - need])
    return A, b


def recover(
    ctl: GaitController, meas: np.ndarray, fb: FeedbackState, phases: list[SupportPhase]
) -> tuple[FeedbackState, StepFreedom | None]:
    """The engaged recovery at a planner tick of ``ctl``: the gait feedback ``fb`` with the step
    timing, and the MPC's foothold freedom over the nominal preview ``phases`` (no step adjustment)."""
    rec = ctl.recovery
    limits = reach_limits(phases, ctl.rg.body, rec.cfg)
    if limits is None:
        return fb, None
    steps = touchdowns(phases)
    foot = steps[0].foot
    if not phases[0].contacts[foot] and steps[0].time < rec.cfg.freeze:  # about to land: where it goes now
        o = rec.last
        rec.frozen = True
        return fb, StepFreedom(o.copy(), np.vstack([np.eye(2), -np.eye(2)]), np.concatenate([o, -o]))
    rec.frozen = False
    w = ctl.feedback.omega  # type: ignore[union-attr]
    xi = meas[:, 0] + meas[:, 1] / w
    d = ctl.external[:2] / (ctl.mass * w * w)
    ph, nxt = phases[0], phases[1] if len(phases) > 1 else phases[0]
    if all(ph.contacts) and not all(nxt.contacts):  # lift off only onto a foot that can hold the lean
        body, margin, tol = ctl.rg.body, ctl.cfg.mpc.margin, rec.cfg.hold_tolerance
        onto = support_polygon(list(nxt.feet), list(nxt.contacts), body, margin).contains(xi + d, tol=tol)
        both = support_polygon(list(ph.feet), [True, True], body, margin).contains(xi + d, tol=tol)
        if both and not onto:  # held while both feet can hold it: no step to move meanwhile
            rec.shift = np.zeros(2)
            return dataclasses.replace(fb, kappa=min(fb.kappa, rec.cfg.hold_kappa), time_engaged=True), None
        if not both and fb.kappa < rec.cfg.max_kappa:  # neither: the step comes sooner
            fb = dataclasses.replace(fb, kappa=rec.cfg.max_kappa, time_engaged=True)
    if not rec.cfg.move_footholds:
        return fb, None
    if not all(ph.contacts) and rec.saturated and fb.kappa < rec.cfg.max_kappa:  # out of reach: step sooner
        fb = dataclasses.replace(fb, kappa=rec.cfg.max_kappa, time_engaged=True)
    return fb, StepFreedom(rec.shift.copy(), limits[0], limits[1], rec.cfg.step_weight, rec.cfg.step_pull)


def chosen(ctl: GaitController, plan: MpcPlan, freedom: StepFreedom) -> np.ndarray:
    """Record the MPC's foothold shift [m] (2,) and whether it lies on the reach limits."""
    rec = ctl.recovery
    rec.shift = plan.shift.copy()
    rec.saturated = not rec.frozen and bool(np.any(freedom.A @ plan.shift >= freedom.b - 1e-3))
    return rec.shift.copy()
