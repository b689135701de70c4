"""Push recovery: a push estimate that, while a push acts, keeps the CoM planner's reference
near the robot, moves the footholds with it and walks the gait along with the push.

The gait feedback of feedback.py reacts to the error from the CoM planner's reference, which
runs open loop from its own plan (Hopkins et al. 2024). A push that lasts (1.5 N/kg for 1 s
carries the CoM 1.5 m/s if nothing resists it) drives that reference away from the robot: on G1
the reference ran on at the commanded speed (a front push) or diverged (after a side push), and
the footholds, planned along the reference's path, came down in front of a CoM falling back.
Measured from the simulator (there is no state estimator):

- **push estimate** (a disturbance observer): the horizontal force the floor does not explain,
  F = m c'' - f_floor (c'' from the measured CoM velocity over a planner tick; f_floor MuJoCo's
  contact forces of the last physics step, ``measured_forces``, else the QP's), through a median
  of ``MEDIAN`` ticks (a touch-down's impact) and a low-pass at ``observer_hz``. Above
  ``engage_force`` per kg it engages the recovery, which ends ``hold`` seconds after the estimate
  fell below ``release_force`` (G1's walks of the sweep stay below 0.5 N/kg; the QP's forces
  gave up to 0.9 N/kg walking at 0.5 m/s);
- **bounded reference** (``max_error``, ``max_velocity_error``): while engaged the MPC starts
  from its reference no farther than that from the measured CoM state, and the coming
  footholds move by what the reference was moved (``carry_footholds``: the plan goes where the
  robot went); the paper's feedback acts on the error that is left;
- **velocity adjustment with the push** (``push_velocity``): the command gets F / m times
  ``push_velocity`` seconds along the heading (sideways by ``push_sideways``), low-passed at
  ``follow_hz``, so the planner steps back from a front push instead of forwards. While
  engaged the legs may also land wider sideways (``reach_side``).

Tried and left off (options, measured on the README's pushes): the estimate in the MPC (the CoP
offset d = F / (m w^2) of x'' = w^2 (x - p + d)) and the QP (``model_push``; it lost 0.5 N/kg
pushes: the reference took the push in and the error feedback stopped moving the feet); the MPC
from the measured state (``from_measured``); the coming footholds' shift as a variable of the
MPC within the leg's reach (``move_footholds``, mpc.StepFreedom, after Herdt et al. 2010); a
double support held while only both feet can hold xi + d and an earlier step otherwise
(``timing``, after Khadiv et al. 2016); the push's extra divergence to the next touch-down
d e^(w T) added to the footholds (``push_steps``).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from ..errors import ConfigError
from ..gait.footsteps import GaitBody, Pose2, min_separation, wrap_angle
from ..sim.feedback import floor_force
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
        enabled: estimate pushes and recover from them (off: the gait feedback alone).
        observer_hz: bandwidth of the push estimate [Hz].
        measured_forces: the estimate uses MuJoCo's contact forces (else the QP's).
        engage_force: estimate per kg of robot mass that engages the recovery [N/kg].
        release_force: estimate per kg below which the recovery starts to end [N/kg].
        hold: the recovery lasts this long after the estimate fell below ``release_force`` [s].
        max_error, max_velocity_error: how far the MPC's initial state may be from the measured
            one while engaged [m], [m/s] (0: unbounded).
        carry_footholds: the coming footholds move with the bounded reference.
        follow_hz: low-pass of the recovery's velocity adjustment [Hz] (0: none).
        follow_limit: largest velocity adjustment of the recovery [m/s].
        push_velocity: velocity adjustment per N/kg of push [s] (0: the measured CoM velocity's
            excess along the push instead).
        push_sideways: share of it sideways of the heading.
        push_steps, push_gain, push_horizon, max_push_step: footholds moved by push_gain d e^(w T)
            (T: time to touch-down, at most push_horizon [s]; at most max_push_step [m]).
        model_push: the MPC (as the CoP offset d) and the QP include the estimate.
        from_measured: the MPC starts from the measured state while engaged.
        move_footholds: the MPC moves the coming footholds (mpc.StepFreedom) while engaged.
        timing: double-support hold and early step from the capture point while engaged.
        reach_forward, reach_back: how far ahead of / behind the standing foot a foot may land,
            along the standing foot [m] (move_footholds).
        reach_side: how far sideways of the standing foot a foot may land while engaged [m].
        max_kappa: gait clock rate of an early step (timing).
        step_weight, step_pull: the MPC's weights on the shift's change and on the shift [1/m^2].
        freeze: a swinging foot this close to its touch-down lands where it is going [s].
        hold_kappa: gait clock rate of a double support held while the foot that would carry the
            robot next cannot hold the CoP at xi + d (the lean the push needs), within
            ``hold_tolerance`` [m]; ``hold_needs_both``: only while both feet can.
    """

    enabled: bool = True
    observer_hz: float = 4.0
    measured_forces: bool = True
    engage_force: float = 0.5
    release_force: float = 0.25
    hold: float = 1.5
    max_error: float = 0.06
    max_velocity_error: float = 0.2
    carry_footholds: bool = True
    follow_hz: float = 1.0
    follow_limit: float = 0.5
    push_velocity: float = 0.45
    push_sideways: float = 0.0
    push_steps: bool = False
    push_gain: float = 1.0
    push_horizon: float = 0.4
    max_push_step: float = 0.25
    model_push: bool = False
    from_measured: bool = False
    move_footholds: bool = False
    timing: bool = False
    reach_forward: float = 0.35
    reach_back: float = 0.3
    reach_side: float = 0.42
    max_kappa: float = 1.3
    step_weight: float = 10.0
    step_pull: float = 1.0
    freeze: float = 0.12
    hold_kappa: float = 0.1
    hold_needs_both: bool = True
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

    def __init__(self, cfg: CaptureConfig, mass: float, dt: float, maker: FrameMaker, omega: float = 3.7) -> None:
        self.cfg = cfg
        self.omega = omega  # pendulum frequency sqrt(g / z) [1/s] (set at the start)
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
        self.follow_v = np.zeros(2)  # the velocity adjustment's offset [m/s]
        self.frozen = False
        self.last = np.zeros(2)  # the foothold shift the frame maker got last [m]

    def floor_force(self, m: mujoco.MjModel, d: mujoco.MjData, floor: int, planned: np.ndarray) -> np.ndarray:
        """Horizontal force of the floor geom on the robot [N] (2,): MuJoCo's contact forces of the
        last physics step (``measured_forces``), else ``planned`` (the QP's, mean of the last interval)."""
        return floor_force(m, floor, d)[:2] if self.cfg.measured_forces else planned

    def follow(self, fb: FeedbackState, velocity: np.ndarray, command: np.ndarray, yaw: float) -> FeedbackState:
        """The velocity adjustment while engaged (``follow_hz`` > 0): the command's horizontal velocity
        follows the measured CoM velocity (2,) [m/s] through a low-pass at ``follow_hz``, within
        ``follow_limit`` of the command [vx, vy, yaw rate] (heading frame at ``yaw``); the planner's
        footholds are then those of the walk the robot is doing."""
        if self.cfg.follow_hz <= 0:
            return fb
        c, s = math.cos(yaw), math.sin(yaw)
        want = velocity - np.array([c * command[0] - s * command[1], s * command[0] + c * command[1]])
        n = float(np.linalg.norm(self.observer.estimate))
        if self.engaged and self.cfg.push_velocity > 0:  # walk with the push: F / m times a time
            want = self.cfg.push_velocity * self.observer.estimate / self.mass
            ahead = np.array([c, s])  # along the heading fully, sideways by ``push_sideways``
            side = want - ahead * float(ahead @ want)
            want = ahead * float(ahead @ want) + self.cfg.push_sideways * side
        elif self.engaged and n > 1e-9:  # only along the push, and only with it (else it runs away)
            u = self.observer.estimate / n
            want = u * max(0.0, float(u @ want))
        else:
            want = np.zeros(2)
        a = 1.0 - math.exp(-2.0 * math.pi * self.cfg.follow_hz * self.dt)
        v = self.follow_v + a * (want - self.follow_v)
        self.follow_v = v * min(1.0, self.cfg.follow_limit / max(float(np.linalg.norm(v)), 1e-12))
        if not self.follow_v.any():
            return fb
        return dataclasses.replace(fb, velocity=fb.velocity + self.follow_v, velocity_engaged=True)

    def push_step(self, phases: list[SupportPhase]) -> np.ndarray:
        """Foothold shift [m] (2,) for the push alone while engaged (``push_steps``): d e^(w T), the
        divergence a constant push offset d = F / (m w^2) adds to the capture point until the next
        touch-down T seconds ahead (at most ``push_horizon``; the step feedback adds the error's)."""
        if not (self.engaged and self.cfg.push_steps) or not phases:
            return np.zeros(2)
        first = next((ph.start for ph in phases[1:] if any(ph.contacts[f] and not phases[0].contacts[f]
                                                           for f in range(2))), 0.0)  # fmt: skip
        d = self.observer.estimate / (self.mass * self.omega**2)
        shift = self.cfg.push_gain * d * math.exp(self.omega * min(first, self.cfg.push_horizon))
        n = float(np.linalg.norm(shift))
        return shift * min(1.0, self.cfg.max_push_step / max(n, 1e-12))

    def bound(self, x0: np.ndarray, meas: np.ndarray) -> np.ndarray:
        """The MPC's initial state (2, 2) [[x, x'], [y, y']] within ``max_error`` / ``max_velocity_error``
        of the measured one (a reference that ran away from the robot is pulled back to the robot)."""
        if not self.engaged or not (self.cfg.max_error > 0 or self.cfg.max_velocity_error > 0):
            return x0
        e = x0 - meas
        out = x0.copy()
        for col, lim in ((0, self.cfg.max_error), (1, self.cfg.max_velocity_error)):
            n = float(np.linalg.norm(e[:, col]))
            if lim > 0 and n > lim:
                out[:, col] = meas[:, col] + e[:, col] * (lim / n)
        if self.cfg.carry_footholds:  # the footholds move with the reference (the plan follows the robot)
            self.anchor = self.anchor + (out[:, 0] - x0[:, 0])
        return out

    def begin(self, meas: np.ndarray, x0: np.ndarray, step: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The MPC's initial CoM state (2, 2) and the preview's foothold shift (2,) while engaged."""
        return (meas if self.cfg.from_measured else x0), (np.zeros(2) if self.cfg.move_footholds else step)

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
                self.anchor = self.anchor + self.shift
                self.maker.max_width = self.width
        if self.engaged:
            self.maker.max_width = max(self.width, self.cfg.reach_side)
        return np.array([est[0], est[1], 0.0]) if self.engaged and self.cfg.model_push else np.zeros(3)


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
    # a foot about to land goes where it is going
    if rec.cfg.move_footholds and not phases[0].contacts[foot] and steps[0].time < rec.cfg.freeze:
        o = rec.last
        rec.frozen = True
        return fb, StepFreedom(o.copy(), np.vstack([np.eye(2), -np.eye(2)]), np.concatenate([o, -o]))
    rec.frozen = False
    w = ctl.feedback.omega  # type: ignore[union-attr]
    xi = meas[:, 0] + meas[:, 1] / w
    d = ctl.external[:2] / (ctl.mass * w * w)
    ph, nxt = phases[0], phases[1] if len(phases) > 1 else phases[0]
    # lift off only onto a foot that can hold the lean
    if rec.cfg.timing and all(ph.contacts) and not all(nxt.contacts):
        body, margin, tol = ctl.rg.body, ctl.cfg.mpc.margin, rec.cfg.hold_tolerance
        onto = support_polygon(list(nxt.feet), list(nxt.contacts), body, margin).contains(xi + d, tol=tol)
        both = support_polygon(list(ph.feet), [True, True], body, margin).contains(xi + d, tol=tol)
        if (both or not rec.cfg.hold_needs_both) and not onto:  # held: no step to move meanwhile
            rec.shift = np.zeros(2)
            return dataclasses.replace(fb, kappa=min(fb.kappa, rec.cfg.hold_kappa), time_engaged=True), None
        if not both and not onto and fb.kappa < rec.cfg.max_kappa:  # neither: the step comes sooner
            fb = dataclasses.replace(fb, kappa=rec.cfg.max_kappa, time_engaged=True)
    if not rec.cfg.move_footholds:
        return fb, None
    # the step cannot reach: it comes sooner
    if rec.cfg.timing and not all(ph.contacts) and rec.saturated and fb.kappa < rec.cfg.max_kappa:
        fb = dataclasses.replace(fb, kappa=rec.cfg.max_kappa, time_engaged=True)
    return fb, StepFreedom(rec.shift.copy(), limits[0], limits[1], rec.cfg.step_weight, rec.cfg.step_pull)


def chosen(ctl: GaitController, plan: MpcPlan, freedom: StepFreedom) -> np.ndarray:
    """Record the MPC's foothold shift [m] (2,) and whether it lies on the reach limits."""
    rec = ctl.recovery
    rec.shift = plan.shift.copy()
    rec.saturated = not rec.frozen and bool(np.any(freedom.A @ plan.shift >= freedom.b - 1e-3))
    return rec.shift.copy()
