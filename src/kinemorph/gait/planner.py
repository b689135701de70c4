"""The gait planner: a commanded velocity, frame by frame, into the reference r(t).

r(t) = pelvis height and orientation, both foot poses, upper-body joints (Hopkins et al. 2024,
"Interactive Design of Stylized Walking Gaits for Robotic Characters"). Per frame:

- the sampler blends the style for the current command; the gait phase advances so that the
  cycle time Omega(phase) moves on by dt (the phase stays continuous when the blend changes, and
  contact events sit at fixed phases: left swing [0, 0.1), right swing [0.5, 0.6));
- the command is integrated into the path frame (exact arcs);
- a swinging foot's foothold is the predicted path pose at the midpoint of its upcoming contact
  interval (constant command assumed) composed with the stance offset (width, splay, x-bias),
  projected out of the stance foot when they would overlap; the foot moves from the foothold it
  lifted off to that one along a cubic in time with zero velocity at both ends (yaw by SLERP);
- a standing foot is locked where it touched down: it does not move in r(t);
- the stylized components (stylize.py) are composed on top of these nominal ones.

The planner runs step by step (``Planner.step``, for a controller) or over a whole command
schedule (:func:`plan`), which evaluates the style's curves for all frames at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import ConfigError
from .commands import Commands
from .footsteps import GaitBody, Pose2, advance_path, compose, lerp_pose, project_out, stance_offset
from .phase import PhaseMap
from .sampler import Sampler, StyleTables, f_soft
from .style import Style
from .stylize import Reference, stylize

START_PHASE = 0.6
"""The plan starts at right touch-down: both feet down, the left about to lift."""

MIN_RATE = 25.0
"""[Hz] Lowest planning rate: every swing and double support (>= 0.08 s) spans at least two frames."""


@dataclass
class Nominal:
    """The planner's per-frame state and nominal (velocity-driven) components, as arrays over frames.

    Attributes:
        time: [s]. Shape: (N,).
        phase: gait phase in [0, 1). Shape: (N,).
        command: commanded velocity [vx, vy, yaw rate]. Shape: (N, 3).
        weights: share of each key sample. Shape: (N, 9).
        timing: blended [t_LTD, t_RLO, t_RTD, T] [s]. Shape: (N, 4).
        attributes: blended attributes. Shape: (N, 5).
        path: path frame x, y [m], yaw [rad]. Shape: (N, 3).
        feet: nominal planar foot poses x, y, yaw, left then right. Shape: (N, 2, 3).
        contacts: foot on the floor, left then right. Shape: (N, 2).
        liftoff_ramp: share of the heel/toe pitch reached before lift-off, per foot. Shape: (N, 2).
        touchdown_ramp: share of the touch-down pitch left after touch-down, per foot. Shape: (N, 2).
        fade: start-up factor on heel/toe pitches (0 at the start, 1 after the first cycle). Shape: (N,).
    """

    time: np.ndarray
    phase: np.ndarray
    command: np.ndarray
    weights: np.ndarray
    timing: np.ndarray
    attributes: np.ndarray
    path: np.ndarray
    feet: np.ndarray
    contacts: np.ndarray
    liftoff_ramp: np.ndarray
    touchdown_ramp: np.ndarray
    fade: np.ndarray


class NominalRow(NamedTuple):
    """One frame of :class:`Nominal`, as the planner produces it (plain Python values)."""

    time: float
    phase: float
    command: tuple[float, float, float]
    weights: np.ndarray
    timing: np.ndarray
    attributes: np.ndarray
    path: Pose2
    feet: list[Pose2]
    contacts: list[bool]
    liftoff_ramp: list[float]
    touchdown_ramp: list[float]
    fade: float


def _ramps(side: int, tau: float, timing: np.ndarray, attrs: np.ndarray) -> tuple[float, float]:
    """(lift-off ramp, touch-down ramp) of a standing foot at cycle time tau."""
    ltd, rlo, rtd, cycle = (float(x) for x in timing)
    if side > 0:
        remaining, elapsed = cycle - tau, tau - ltd
    elif tau >= rtd:
        remaining, elapsed = cycle - tau + rlo, tau - rtd
    else:
        remaining, elapsed = rlo - tau, tau + cycle - rtd
    d_lo, d_td = float(attrs[3]), float(attrs[4])
    lo = max(0.0, 1.0 - remaining / d_lo) if d_lo > 0 else 0.0
    td = max(0.0, 1.0 - elapsed / d_td) if d_td > 0 else 0.0
    return lo, td


class Planner:
    """Plans r(t) frame by frame for a style and a robot's :class:`GaitBody`.

    ``step(velocity, dt)`` advances by dt [s] under a command and returns that frame's
    :class:`Reference`; ``nominal_step`` returns the state without the stylized components (what
    :func:`plan` collects before stylizing all frames at once).
    """

    def __init__(self, style: Style, body: GaitBody | None = None, *, start_phase: float = START_PHASE) -> None:
        self.style = style
        self.body = body or GaitBody()
        self.sampler = Sampler(style)
        self.tables = StyleTables(style)
        self.start_phase = start_phase
        self.reset()

    def reset(self) -> None:
        """Back to the start: standing on the path origin, at the start phase."""
        self.time = 0.0
        self.phase = self.start_phase
        self.path: Pose2 = (0.0, 0.0, 0.0)
        self.locked: list[Pose2] = []
        self.lifted: list[Pose2] = []
        self.contacts = [True, True]
        self.fade_time = 0.0

    def _foothold(
        self, side: int, tau: float, velocity: tuple[float, float, float], timing: np.ndarray, attrs: np.ndarray
    ) -> Pose2:
        """Foothold of the foot on ``side`` for its next contact interval, seen from cycle time tau
        in its swing (or at its touch-down): the path pose predicted for the interval's midpoint
        (left: [t_LTD, T], right: [t_RTD, T + t_RLO]) composed with the stance offset, projected
        out of the other foot."""
        ltd, rlo, rtd, cycle = (float(x) for x in timing)
        mid = 0.5 * (ltd + cycle) if side > 0 else 0.5 * (rtd + cycle + rlo)
        target = compose(
            advance_path(self.path, velocity, mid - tau),
            stance_offset(self.body, side, float(attrs[0]), float(attrs[1]), float(attrs[2])),
        )
        stance = self.locked[0 if side < 0 else 1]
        return project_out(target, stance, side, self.body)

    def nominal_step(self, velocity: np.ndarray | tuple[float, float, float], dt: float) -> NominalRow:
        """Advance by dt [s] (0 for the first frame) and return the frame's nominal state."""
        v = (float(velocity[0]), float(velocity[1]), float(velocity[2]))
        params = self.sampler.sample(v)
        timing, attrs = params.timing, params.attributes
        pm = PhaseMap(timing)
        cycle = pm.cycle
        if not self.locked:  # first frame: both feet stand at their offsets from the path origin
            self.fade_time = cycle
            for side in (1, -1):
                self.locked.append(compose(self.path, stance_offset(self.body, side, *(float(a) for a in attrs[:3]))))
            self.lifted = list(self.locked)
        if dt > 0:
            tau = pm.time(self.phase) + dt
            while tau >= cycle:
                tau -= cycle
            self.phase = pm.phase(tau)
            self.path = advance_path(self.path, v, dt)
            self.time += dt
        tau = pm.time(self.phase)
        feet: list[Pose2] = []
        contacts: list[bool] = []
        ramps: list[tuple[float, float]] = []
        ltd, rlo, rtd = float(timing[0]), float(timing[1]), float(timing[2])
        for i, side in enumerate((1, -1)):
            swing = self.phase < 0.1 if side > 0 else 0.5 <= self.phase < 0.6
            if swing and self.contacts[i]:  # lift-off
                self.lifted[i] = self.locked[i]
            if swing:
                target = self._foothold(side, tau, v, timing, attrs)
                s = tau / ltd if side > 0 else (tau - rlo) / (rtd - rlo)
                pose = lerp_pose(self.lifted[i], target, f_soft(s))
                ramps.append((0.0, 0.0))
            else:
                if not self.contacts[i]:  # touch-down: lock the foothold
                    self.locked[i] = self._foothold(side, tau, v, timing, attrs)
                pose = self.locked[i]
                ramps.append(_ramps(side, tau, timing, attrs))
            self.contacts[i] = not swing
            feet.append(pose)
            contacts.append(not swing)
        fade = f_soft(self.time / self.fade_time)
        return NominalRow(
            self.time, self.phase, v, params.weights, timing, attrs, self.path, feet, contacts,
            [r[0] for r in ramps], [r[1] for r in ramps], fade,
        )  # fmt: skip

    def reseat(self, feet: list[Pose2], velocity: np.ndarray | tuple[float, float, float]) -> None:
        """Stand the plan on ``feet`` (left, right planar sole poses, e.g. where a push left them):
        they become the locked footholds and the path their midpoint less the nominal stance's
        forward offset under ``velocity``, at the path's heading; the phase stays."""
        v = (float(velocity[0]), float(velocity[1]), float(velocity[2]))
        ahead = self.body.foot_x + float(self.sampler.sample(v).attributes[2])
        yaw = self.path[2]
        mx, my = 0.5 * (feet[0][0] + feet[1][0]), 0.5 * (feet[0][1] + feet[1][1])
        self.path = (mx - math.cos(yaw) * ahead, my - math.sin(yaw) * ahead, yaw)
        self.locked = [tuple(f) for f in feet]  # type: ignore[misc]
        self.lifted = list(self.locked)

    def step(self, velocity: np.ndarray | tuple[float, float, float], dt: float) -> Reference:
        """Advance by dt [s] under a command (dt = 0 for the first frame); r(t) of that frame."""
        return stylize(_stack([self.nominal_step(velocity, dt)]), self.tables, self.body)


def _stack(rows: list[NominalRow]) -> Nominal:
    cols = {name: np.asarray(col, dtype=np.float64) for name, col in zip(NominalRow._fields, zip(*rows))}
    cols["contacts"] = cols["contacts"].astype(bool)
    return Nominal(**cols)


def plan(
    style: Style,
    commands: Commands,
    duration: float,
    *,
    rate: float = 125.0,
    body: GaitBody | None = None,
    start_phase: float = START_PHASE,
) -> Reference:
    """r(t) for ``duration`` [s] at ``rate`` [Hz] under a command schedule: frames at t = k / rate."""
    if not rate >= MIN_RATE:
        raise ConfigError(f"gait rate must be at least {MIN_RATE:g} Hz, got {rate}")
    if not duration > 0:
        raise ConfigError(f"duration must be positive, got {duration}")
    planner = Planner(style, body, start_phase=start_phase)
    n = round(duration * rate)
    dt = 1.0 / rate
    velocity = commands.at(np.arange(max(n, 1)) * dt)
    rows = [planner.nominal_step(velocity[k], dt if k else 0.0) for k in range(max(n, 1))]
    return stylize(_stack(rows), planner.tables, planner.body)
