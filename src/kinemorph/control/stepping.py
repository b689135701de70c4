"""Capture stepping: while a strong push acts, the coming foothold goes where the robot's divergent
component of motion (DCM) will need it, and the step comes sooner when it cannot reach that far.

Under a horizontal force F on the CoM the pendulum x'' = w^2 (x - p) + F / m has the DCM
xi = x + x' / w with xi' = w (xi - (p - d)), d = F / (m w^2) (Englsberger et al.'s DCM with an
external force): the CoP p must lie d beyond xi (along the push) to hold it, 10.4 cm for
1.5 N/kg on G1, more than a sole's half-length or half-width, so the robot has to step. Every
planner tick while the push recovery (capture.py) is engaged and its estimate is above
``min_push`` (the gait feedback handles the smaller pushes):

- **prediction**: xi at the coming touch-down (the rest of a double support, then the next
  foot's single support) with the CoP between the support's centre leaning into the push and
  its point nearest xi + d (``ankle``);
- **foothold** (after Khadiv et al. 2016): the landing foot goes to xi_T + d - b, b the DCM's
  offset from a landed foot in the nominal gait (b_x = L / (e^{wT} - 1) ahead,
  b_y = W / (e^{wT} + 1) inwards for steps of length L, width W, period T, from the planner's own
  next foothold); only its component along the push (across it the feedback's step stays), within
  the reach of the standing foot (``reach_*``, in its frame; sideways at least the feet's least
  separation: the feet never cross or collide). The result is the controller's foothold shift
  (every coming foothold moves with it), blended from the feedback's between ``min_push`` and
  ``full_push``;
- **step timing**: a single support ends sooner (kappa up to ``max_kappa``, the rate on a grid
  with the least foothold shortfall plus ``timing_cost`` per unit of kappa - 1) when the foothold
  is out of reach, and at once when it lies across the standing foot (the push is towards the
  standing foot's side and the swinging foot can only land beside it: the other foot steps out
  sooner); a double support ends at ``max_kappa`` while xi + d lies outside both feet. A swing
  keeps its landing point over its last ``freeze`` seconds;
- meanwhile the CoM planner (as its CoP offset) and the QP (in the centroidal dynamics) model the
  estimated push (``model_push``).

On by default since 2026-12-05 (``ControlConfig.stepping``; with ``latch`` 1 s, the brace hold and
the push estimate's 20 Hz twin, capture.CaptureConfig.fast_hz; and since 2026-12-06 the QP's
``push_constraints``): on G1 over push times 4.0-4.6 s, 1.5 N/kg: front 3 of 7, left 3, right 4
(before: 1, 0, 0); 1.0 N/kg: 5, 5, 6 (5, 0, 0); 0.75 N/kg: 7, 7, 7 (7, 2, 1); the sweeps walk as
before (README and docs/WALKING.md, pushes). Alone, as it was (off, 4 Hz estimate, no latch, no
hold), it recovered 1.5 N/kg from the front pushed at 4 s, but not at later push times nor from the
side; with the whole-body QP's hard contacts and torque limits, ``latch`` 1 s and ``min_time``
0.1 s, 9 of 13 front push times 4.0-4.6 s and no side push. Options measured on side pushes and off
(docs/WALKING.md, the fourth push session): the foothold along the walk from the DCM
(``across_heading``; it and ``across_share``, the share of the DCM's foothold across the push, were
removed on 2026-12-06); a bracing double support (``brace``) and no lift-off while the landing foot
is in the air (``late_hold``) were removed, as were the QP's weights while stepping. Against a side
push, the brace hold (hold.py, ``hold``) stops the walk in a double support that holds the push and
walks on from that stance after it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from ..gait.footsteps import GaitBody, Pose2, min_separation, wrap_angle
from .capture import touchdowns
from .feedback import FeedbackState
from .hold import BraceHold, HoldConfig
from .preview import SupportPhase, preview
from .support import Polygon, support_polygon

if TYPE_CHECKING:
    from .controller import GaitController


@dataclass(frozen=True)
class SteppingConfig:
    """Settings of the capture stepping.

    Attributes:
        enabled: place the footholds and time the steps by the DCM while a strong push acts (and
            let the brace hold act; module docstring for what it recovers).
        max_kappa: fastest gait clock rate for an earlier step.
        kappa_steps: rates tried from 1 to ``max_kappa`` for a foothold within reach.
        timing_cost: what a step earlier by kappa - 1 costs against the foothold's distance
            from the DCM's one when out of reach [m] (the rate with the least sum is taken).
        reach_forward, reach_back: how far ahead of / behind the standing foot a foot may land,
            along the standing foot [m].
        reach_side: largest sideways distance of a landing from the standing foot [m].
        push_share: share of the push offset d added to the foothold.
        min_push, full_push: the stepping acts while the push estimate is above ``min_push``
            [N/kg] (the gait feedback's footholds take over from where it left them); from there
            to ``full_push`` [N/kg] its foothold and timing blend from the feedback's to its own.
        cross_tolerance: a DCM foothold this far inside the feet's least separation counts as
            across the standing foot [m].
        model_push: while the stepping acts the CoM planner and the QP model the estimated push
            (as capture.CaptureConfig.model_push does for the whole recovery).
        ankle: where the prediction holds the CoP, from the support's centre leaning into the push (0)
            to its point nearest xi + d (1, the ankle strategy's best).
        freeze: a swing this close to its touch-down keeps its foothold [s].
        latch: the stepping goes on this long after the estimate fell below ``min_push`` [s]
            (while the push recovery is engaged; along the strongest estimate's direction, its
            own foothold and timing in full): the DCM the push left is stepped out too.
        min_time: the estimate must have been above ``min_push`` this long before the stepping
            acts [s] (a short peak of a smaller push does not start it).
        hold: the brace hold against a side push (hold.py).
    """

    enabled: bool = True
    max_kappa: float = 2.0
    kappa_steps: int = 6
    timing_cost: float = 0.05
    reach_forward: float = 0.35
    reach_back: float = 0.3
    reach_side: float = 0.5
    push_share: float = 1.0
    min_push: float = 1.1
    full_push: float = 1.3
    cross_tolerance: float = 0.02
    model_push: bool = True
    ankle: float = 0.5
    freeze: float = 0.05
    latch: float = 1.0
    min_time: float = 0.0
    hold: HoldConfig = field(default_factory=HoldConfig)

    def __post_init__(self) -> None:
        if not (self.max_kappa >= 1 and self.kappa_steps >= 1):
            raise ConfigError(f"SteppingConfig: need max_kappa >= 1 and kappa_steps >= 1, got {self}")
        if not (0 <= self.min_push <= self.full_push and 0 <= self.ankle <= 1):
            raise ConfigError(f"SteppingConfig: need 0 <= min_push <= full_push and ankle in [0, 1], got {self}")


def predict_dcm(xi: np.ndarray, d: np.ndarray, support: Polygon, omega: float, t: float, ankle: float) -> np.ndarray:
    """The DCM (2,) [m] after t [s] on a support polygon under the push offset d (2,) [m]
    (xi' = w (xi - p + d)) with the CoP p held between the support's point nearest its centre
    moved by d (``ankle`` 0: the nominal gait's CoP leaning into the push) and its point nearest
    xi + d (``ankle`` 1: the CoP as far towards holding the DCM as the support allows)."""
    lean = support.project(support.centre + d)
    pivot = lean + ankle * (support.project(np.asarray(xi) + d) - lean) - d
    return pivot + (np.asarray(xi, dtype=np.float64) - pivot) * math.exp(omega * max(t, 0.0))


def nominal_offset(stance: Pose2, raw: Pose2, side: int, omega: float, period: float) -> np.ndarray:
    """The nominal DCM offset b (2,) [m] at touch-down from a foot landing at ``raw`` beside the
    standing foot at ``stance`` (side +1: the landing foot is the left one), steps of ``period`` [s]."""
    c, s = math.cos(stance[2]), math.sin(stance[2])
    dx, dy = raw[0] - stance[0], raw[1] - stance[1]
    length, width = c * dx + s * dy, side * (-s * dx + c * dy)
    e = math.exp(omega * period)
    bx, by = length / (e - 1.0), -side * width / (e + 1.0)
    return np.array([c * bx - s * by, s * bx + c * by])


def within_reach(p: np.ndarray, stance: Pose2, yaw: float, side: int, body: GaitBody,
                 cfg: SteppingConfig) -> tuple[np.ndarray, float]:  # fmt: skip
    """The landing point nearest p (2,) [m] within reach of the standing foot (its frame: ``reach_back``
    behind to ``reach_forward`` ahead, sideways from the feet's least separation to ``reach_side``),
    and how far p lies inside the least separation (> 0: the foot would have to cross over the
    standing foot) [m]. ``yaw``: the landing foot's heading [rad]."""
    c, s = math.cos(stance[2]), math.sin(stance[2])
    dx, dy = float(p[0]) - stance[0], float(p[1]) - stance[1]
    lx, ly = c * dx + s * dy, side * (-s * dx + c * dy)
    need = min_separation(body, wrap_angle(yaw - stance[2]))
    cx = min(max(lx, -cfg.reach_back), cfg.reach_forward)
    cy = side * min(max(ly, need), max(cfg.reach_side, need))
    return np.array([stance[0] + c * cx - s * cy, stance[1] + s * cx + c * cy]), need - ly


def _cost(want: np.ndarray, landing: np.ndarray, kappa: float, cfg: SteppingConfig) -> float:
    return float(np.linalg.norm(want - landing)) + cfg.timing_cost * (kappa - 1.0)


@dataclass(frozen=True)
class StepPlan:
    """One tick's capture step.

    Attributes:
        foot: the foot that lands next (0 left, 1 right).
        landing: where it lands [m]. Shape: (2,).
        kappa: gait clock rate for the current phase.
        reachable: whether the DCM's foothold is within reach at that rate.
        crossing: the DCM's foothold lies across the standing foot (the landing foot can only
            land beside it; the step then comes as early as it can, so the other foot steps out).
    """

    foot: int
    landing: np.ndarray
    kappa: float
    reachable: bool
    crossing: bool = False


def _predict(xi: np.ndarray, d: np.ndarray, now: SupportPhase, alone: Polygon, ds_time: float, ss_time: float,
             body: GaitBody, omega: float, margin: float, ankle: float) -> np.ndarray:  # fmt: skip
    """The DCM at the touch-down: ``ds_time`` [s] more of the current double support (none in single
    support), then ``ss_time`` [s] on the standing foot's sole ``alone``."""
    x = np.asarray(xi, dtype=np.float64)
    if ds_time > 0:
        both = support_polygon(list(now.feet), [True, True], body, margin)
        x = predict_dcm(x, d, both, omega, ds_time, ankle)
    return predict_dcm(x, d, alone, omega, ss_time, ankle)


def plan_step(xi: np.ndarray, d: np.ndarray, phases: list[SupportPhase], body: GaitBody, omega: float,
              margin: float, period: float, cfg: SteppingConfig,
              shift: np.ndarray | None = None, axis: np.ndarray | None = None) -> StepPlan | None:  # fmt: skip
    """The capture step from the DCM xi (2,) and push offset d (2,) [m] over the nominal preview
    ``phases`` (preview.SupportPhase, without the step adjustment), or None without a landing
    ahead or a standing foot. ``period``: time between touch-downs [s]. Across d the foothold is
    the planner's moved by ``shift`` (2,) [m] (the gait feedback's step adjustment); ``axis``
    (2,), a unit vector: the push's direction when given (else d's)."""
    steps = touchdowns(phases)
    if not steps:
        return None
    first = steps[0]
    foot, other = first.foot, 1 - first.foot
    now = phases[0]
    if not now.contacts[other]:
        return None
    stance = now.feet[other]
    side = 1 if foot == 0 else -1
    alone = support_polygon([stance, stance], [other == 0, other == 1], body, margin)
    double = all(now.contacts)
    best: StepPlan | None = None
    cost = math.inf
    for kappa in np.linspace(1.0, cfg.max_kappa, cfg.kappa_steps):
        ds, ss = (now.end / kappa, first.time - now.end) if double else (0.0, first.time / kappa)
        x = _predict(xi, d, now, alone, ds, ss, body, omega, margin, cfg.ankle)
        want = x + cfg.push_share * d - nominal_offset(stance, first.pose, side, omega, period)
        n = float(np.linalg.norm(d))
        if n > 1e-9 or axis is not None:  # across the push the feedback's foothold stays
            u = d / n if axis is None else axis
            base = np.array(first.pose[:2]) + (np.zeros(2) if shift is None else shift)
            want = base + u * float(u @ (want - base))
        landing, inside = within_reach(want, stance, first.pose[2], side, body, cfg)
        moved = float(np.linalg.norm(want - landing)) > 1e-6
        if inside > cfg.cross_tolerance and not double:  # across the standing foot: step as soon as it can
            return StepPlan(foot, landing, cfg.max_kappa, False, True)
        c = _cost(want, landing, float(kappa), cfg)
        if c < cost:
            best, cost = StepPlan(foot, landing, float(kappa), not moved), c
        if not moved:
            break
    if double and best is not None:  # a double support ends early only while it cannot hold xi + d
        both = support_polygon(list(now.feet), [True, True], body, margin)
        p = np.asarray(xi + d, dtype=np.float64)
        best = dataclasses.replace(best, kappa=1.0 if both.contains(p) else cfg.max_kappa)
    return best


class CaptureStepper:
    """The capture stepping of the module docstring for one controller (``plan`` per planner tick)."""

    def __init__(self, cfg: SteppingConfig) -> None:
        self.cfg = cfg
        self.active = False
        self.last = np.zeros(2)  # the foothold shift of the last tick [m]
        self.plan: StepPlan | None = None
        self.landing = np.zeros(2)  # where the next foot lands [m]
        self.axis = np.zeros(2)  # direction of the strongest push estimate while acting
        self.strongest = 0.0  # its size [N/kg]
        self.since = math.inf  # time since the estimate fell below min_push while acting [s]
        self.above = 0.0  # time the estimate has been above min_push [s]
        self.hold = BraceHold(cfg.hold)

    def external(self, ctl: GaitController, external: np.ndarray) -> np.ndarray:
        """The push force [N] (3,) the CoM planner and the QP model: the estimate while the stepping
        acts with ``model_push`` (the MPC's CoP offset d and the QP's centroidal dynamics), else
        ``external`` (capture.py's)."""
        if not (self.cfg.enabled and self.cfg.model_push and (self._acts(ctl) or self.hold.braced)):
            return external
        est = ctl.recovery.observer.fast
        return np.array([est[0], est[1], 0.0])

    def _above(self, engaged: bool, push: float) -> bool:
        return self.cfg.enabled and engaged and push > self.cfg.min_push

    def _acts(self, ctl: GaitController) -> bool:
        rec = ctl.recovery
        return self._above(rec.engaged, rec.observer.fast_per_kg()) and (self.active or self.sustained())

    def sustained(self) -> bool:
        """Whether the estimate has been above ``min_push`` for ``min_time`` (``above``, counted by ``gate``)."""
        return self.above >= self.cfg.min_time - 1e-9

    def gate(self, engaged: bool, push: float, dt: float) -> bool:
        """Whether the stepping acts this tick of dt [s] for a push estimate [N/kg] while the push
        recovery is ``engaged``: above ``min_push``, for ``min_time`` in a row unless it acts already."""
        above = self._above(engaged, push)
        self.above = self.above + dt if above else 0.0
        return above and (self.active or self.sustained())

    def step(self, ctl: GaitController, meas: np.ndarray, cmd: tuple[float, float, float], step: np.ndarray,
             fb: FeedbackState) -> tuple[np.ndarray, FeedbackState]:  # fmt: skip
        """The foothold shift (2,) [m] and feedback for this tick from the measured CoM state (2, 2)
        under the adjusted command ``cmd``; ``step`` and ``fb`` as the gait feedback has them."""
        rec = ctl.recovery
        push = rec.observer.fast_per_kg()
        if self.cfg.hold.enabled:
            held = self.hold.update(ctl, self.active, meas, cmd, push, step, fb)
            if held is not None:
                if self.hold.braced:
                    self.last = held[0].copy()
                else:  # the walk goes on from the stance (hold.walk_on)
                    self.active, self.strongest, self.last = False, 0.0, np.zeros(2)
                return held
        on = self.gate(rec.engaged, push, ctl.dt_plan)
        share = min(1.0, (push - self.cfg.min_push) / max(self.cfg.full_push - self.cfg.min_push, 1e-9))
        if on and push > self.strongest:
            self.strongest, self.axis = push, rec.observer.fast / (push * ctl.mass)
        self.since = 0.0 if on else self.since + ctl.dt_plan
        latched = self.cfg.enabled and rec.engaged and self.active and self.since < self.cfg.latch
        extended = latched and not on
        if extended:
            on, share = True, 1.0
        if not rec.engaged:
            self.strongest = 0.0
        if not on:
            if self.active:  # the feedback's footholds go on from where the capture steps put them
                rec.anchor = rec.anchor + (self.last - step)
                step = self.last.copy()
            self.active = False
            return step, fb
        w = ctl.feedback.omega  # type: ignore[union-attr]
        xi = meas[:, 0] + meas[:, 1] / w
        d = rec.observer.fast / (ctl.mass * w * w)
        raw = preview(ctl.planner, ctl.maker.offset, cmd, 1.2, ctl._standing)
        timing = ctl.planner.sampler.sample(cmd).timing
        plan = plan_step(xi, d, raw, ctl.rg.body, w, ctl.cfg.mpc.margin, 0.5 * float(timing[3]), self.cfg,
                         np.asarray(step, dtype=np.float64), self.axis if extended else None)  # fmt: skip
        if plan is None:  # no landing ahead: the shift stays
            self.last = self.last if self.active else np.array(step, dtype=np.float64)
            self.active = True
            return self.last.copy(), fb
        first = touchdowns(raw)[0]
        if not self.active:  # from the feedback's shift
            self.last = np.array(step, dtype=np.float64)
            self.landing = np.array(first.pose[:2]) + self.last
        self.active, self.plan = True, plan
        ctl.maker.max_width = max(ctl.maker.max_width, self.cfg.reach_side)  # capture.Recovery restores it
        swinging = not raw[0].contacts[plan.foot]
        if not (swinging and first.time / plan.kappa < self.cfg.freeze):  # else it lands where it goes
            self.landing = plan.landing
        self.last = self.landing - np.array(first.pose[:2])
        kappa = plan.kappa if plan.kappa != 1.0 else max(fb.kappa, 1.0) if swinging else fb.kappa
        if share < 1.0:  # between the gait feedback's step and timing and the capture step's
            self.last = share * self.last + (1.0 - share) * np.asarray(step, dtype=np.float64)
            kappa = share * kappa + (1.0 - share) * fb.kappa
        fb = dataclasses.replace(fb, kappa=kappa, step=self.last.copy(), step_engaged=True,
                                 time_engaged=fb.time_engaged or abs(kappa - 1.0) > 1e-3)  # fmt: skip
        return self.last.copy(), fb
