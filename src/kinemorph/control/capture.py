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

Tried and left off: the estimate in the MPC (the CoP offset d = F / (m w^2) of
x'' = w^2 (x - p + d)) and the QP (``model_push``, an option; it lost 0.5 N/kg pushes: the
reference took the push in and the error feedback stopped moving the feet). Tried and removed
(README and docs/WALKING.md, pushes): the MPC from the measured state; the coming footholds' shift
as a variable of the MPC within the leg's reach (after Herdt et al. 2010); a double support held
while only both feet can hold xi + d and an earlier step otherwise (after Khadiv et al. 2016); the
push's extra divergence to the next touch-down added to the footholds. Capture stepping from the
DCM with step timing is stepping.py.
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
from ..gait.footsteps import Pose2
from ..sim.feedback import floor_force
from .feedback import FeedbackState
from .preview import SupportPhase

if TYPE_CHECKING:
    from .targets import FrameMaker


@dataclass(frozen=True)
class CaptureConfig:
    """Settings of the push recovery.

    Attributes:
        enabled: estimate pushes and recover from them (off: the gait feedback alone).
        observer_hz: bandwidth of the push estimate [Hz].
        fast_hz: bandwidth of a second, faster estimate that the capture stepping and the brace
            hold (stepping.py, hold.py) act on [Hz] (0: the same estimate); the recovery itself
            engages on the slower one (at 20 Hz it engaged on a strafing walk's own forces).
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
        model_push: the MPC (as the CoP offset d) and the QP include the estimate (off: worse, README).
        reach_side: how far sideways of the standing foot a foot may land while engaged [m].
    """

    enabled: bool = True
    observer_hz: float = 4.0
    fast_hz: float = 20.0
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
    model_push: bool = False
    reach_side: float = 0.42

    def __post_init__(self) -> None:
        if not 0 <= self.release_force <= self.engage_force:
            raise ConfigError(
                f"CaptureConfig: need 0 <= release_force <= engage_force, got {self.release_force}, {self.engage_force}"
            )
        if not (self.observer_hz > 0 and self.fast_hz >= 0):
            raise ConfigError(
                f"CaptureConfig: need observer_hz > 0, fast_hz >= 0, got {self.observer_hz}, {self.fast_hz}"
            )


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
    """The push estimate of the module docstring, updated once per planner tick: ``estimate``
    through the low-pass at ``hz``, ``fast`` through one at ``fast_hz`` (0: the same), both after
    the median."""

    def __init__(self, mass: float, dt: float, hz: float, fast_hz: float = 0.0) -> None:
        self.mass = mass
        self.dt = dt
        self.alpha = 1.0 - math.exp(-2.0 * math.pi * hz * dt)
        self.fast_alpha = 1.0 - math.exp(-2.0 * math.pi * fast_hz * dt) if fast_hz > 0 else 0.0
        self.estimate = np.zeros(2)
        self.fast = self.estimate
        self._last: np.ndarray | None = None
        self._raw: list[np.ndarray] = []

    def update(self, velocity: np.ndarray, contact_force: np.ndarray) -> np.ndarray:
        """CoM velocity now [m/s] (2,) and the mean horizontal contact force over the last tick [N] (2,)."""
        if self._last is not None:
            self._raw = [*self._raw[-(MEDIAN - 1) :], self.mass * (velocity - self._last) / self.dt - contact_force]
            raw = np.median(np.array(self._raw), axis=0)  # drops the touch-downs' short impacts
            self.estimate = self.estimate + self.alpha * (raw - self.estimate)
            self.fast = self.fast + self.fast_alpha * (raw - self.fast) if self.fast_alpha > 0 else self.estimate
        self._last = np.array(velocity, dtype=np.float64)
        return self.estimate

    def fast_per_kg(self) -> float:
        """The size of the ``fast`` estimate [N/kg]."""
        return float(np.linalg.norm(self.fast)) / self.mass


class Recovery:
    """Engages and ends the push recovery and turns it into the controller's step, lean and timing."""

    def __init__(self, cfg: CaptureConfig, mass: float, dt: float, maker: FrameMaker, omega: float = 3.7) -> None:
        self.cfg = cfg
        self.omega = omega  # pendulum frequency sqrt(g / z) [1/s] (set at the start)
        self.maker = maker  # its sideways reach widens while engaged
        self.width = maker.max_width
        self.mass = mass
        self.observer = PushObserver(mass, dt, cfg.observer_hz, cfg.fast_hz)
        self.engaged = False
        self.quiet = 0.0  # time the estimate has been below release_force [s]
        self.dt = dt
        self.anchor = np.zeros(2)  # foothold shift kept after a recovery ends [m]
        self.follow_v = np.zeros(2)  # the velocity adjustment's offset [m/s]

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
                self.maker.max_width = self.width
        if self.engaged:
            self.maker.max_width = max(self.width, self.cfg.reach_side)
        return np.array([est[0], est[1], 0.0]) if self.engaged and self.cfg.model_push else np.zeros(3)
