"""Preview of the footstep plan: the support phases of the next seconds, for the CoM planner.

A copy of the live gait planner is stepped from one contact event to the next under the current
command (the planner's own assumption for its footholds), so the previewed footholds are exactly
those the planner will lock at touch-down. Events in cycle time (gait.phase): left touch-down
t_LTD, right lift-off t_RLO, right touch-down t_RTD, left lift-off at the cycle's end T.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np

from ..gait.footsteps import Pose2
from ..gait.phase import PhaseMap, contact_segment, knot_times
from ..gait.planner import Planner
from .support import clamp_width

_EPS = 1e-5


@dataclass(frozen=True)
class SupportPhase:
    """One contact phase of the preview.

    Attributes:
        start: [s] from now (0 for the current phase).
        end: [s] from now.
        feet: planar poses (x, y, yaw) of the left and right foot; only those in contact matter.
        contacts: left, right on the floor.
        landed: per foot, whether it touches down after now (its foothold is still to come).
    """

    start: float
    end: float
    feet: tuple[Pose2, Pose2]
    contacts: tuple[bool, bool]
    landed: tuple[bool, bool]


def _to_next_event(phase: float, timing: np.ndarray) -> float:
    """Cycle time [s] from a phase to the end of its contact phase (>= 0)."""
    phase = phase % 1.0
    seg = 0 if phase < 0.1 else 1 if phase < 0.5 else 2 if phase < 0.6 else 3
    return max(0.0, float(timing[seg]) - PhaseMap(timing).time(phase))


def phase_contacts(phase: float) -> tuple[bool, bool]:
    """Feet on the floor at a gait phase (left swing [0, 0.1), right swing [0.5, 0.6))."""
    phase = phase % 1.0
    return (not phase < 0.1, not 0.5 <= phase < 0.6)


def clone(planner: Planner) -> Planner:
    """A copy of the planner's state that can be stepped without changing the original."""
    c = copy.copy(planner)
    c.locked = list(planner.locked)
    c.lifted = list(planner.lifted)
    c.contacts = list(planner.contacts)
    return c


def preview(
    planner: Planner,
    offsets: np.ndarray,
    velocity: tuple[float, float, float],
    horizon: float,
    standing: list[Pose2 | None] | None = None,
    max_width: float = float("inf"),
) -> list[SupportPhase]:
    """Support phases covering [0, horizon] [s] from the planner's current state. ``offsets``: the
    horizontal shift (2, 2) [m] of each foot's current foothold (step adjustment it landed with);
    ``standing``: where each foot on the floor actually stands (None: its planned foothold);
    ``max_width``: a landing foot lies at most this far sideways of the other foot (support.clamp_width)."""
    p = clone(planner)
    timing = p.sampler.sample(velocity).timing
    to_event = _to_next_event(p.phase, timing)
    if to_event < 2 * _EPS or tuple(p.contacts) != phase_contacts(p.phase):  # on an event: step past it
        p.nominal_step(velocity, to_event + _EPS if to_event < 2 * _EPS else _EPS)
    t = 0.0
    contacts = phase_contacts(p.phase)
    poses = tuple((p.locked[f][0] + float(offsets[f, 0]), p.locked[f][1] + float(offsets[f, 1]), p.locked[f][2])
                  for f in range(2))  # fmt: skip
    if standing is not None:
        poses = tuple(s if (s := standing[f]) is not None and contacts[f] else poses[f] for f in range(2))
    landed = (False, False)
    out: list[SupportPhase] = []
    while t < horizon:
        timing = p.sampler.sample(velocity).timing
        dt = _to_next_event(p.phase, timing)
        out.append(SupportPhase(t, t + dt, poses, contacts, landed))  # type: ignore[arg-type]
        row = p.nominal_step(velocity, dt + _EPS)
        t += dt + _EPS
        new = phase_contacts(p.phase)
        landed = tuple(landed[i] or (new[i] and not contacts[i]) for i in range(2))  # type: ignore[assignment]
        landing = [row.feet[i] if new[i] and not contacts[i] else poses[i] for i in range(2)]
        for i in range(2):
            if new[i] and not contacts[i] and math.isfinite(max_width):
                xy = clamp_width((landing[i][0], landing[i][1]), landing[1 - i], 1 if i == 0 else -1, max_width)
                landing[i] = (xy[0], xy[1], landing[i][2])
        poses = tuple(landing)  # type: ignore[assignment]
        contacts = new
    return out


def phase_duration(phase: float, timing: np.ndarray) -> float:
    """Nominal duration [s] of the contact phase at a gait phase (timing [t_LTD, t_RLO, t_RTD, T])."""
    return float(np.diff(knot_times(timing))[contact_segment(phase)])


def time_to_touchdown(phases: list[SupportPhase]) -> float:
    """Time [s] from now to the first previewed touch-down (0 when none)."""
    first = phases[0] if phases else None
    for ph in phases[1:]:
        if any(ph.landed[f] and not first.landed[f] for f in range(2)):  # type: ignore[union-attr]
            return ph.start
    return 0.0


def step_axis(phases: list[SupportPhase]) -> np.ndarray:
    """Unit vector from the current foothold to the next one (the first previewed landing). Shape: (2,)."""
    if not phases:
        return np.zeros(2)
    first = phases[0]
    for ph in phases[1:]:
        for f in range(2):
            if (ph.contacts[f] and not first.contacts[f]) or (ph.landed[f] and not first.landed[f]):
                other = first.feet[1 - f]
                v = np.array([ph.feet[f][0] - other[0], ph.feet[f][1] - other[1]])
                n = float(np.linalg.norm(v))
                return v / n if n > 1e-9 else np.zeros(2)
    return np.zeros(2)
