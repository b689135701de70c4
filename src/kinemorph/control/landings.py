"""The previewed footholds the CoM planner may move (MpcConfig.step_weight > 0).

Each touch-down inside the preview is a landing j; the CoM planner adds a shift delta_j (x, y) [m]
of that foothold to its decision variables (after Herdt et al. 2010, "Online walking motion
generation with automatic footstep placement"): the support polygons of the phases the foot stands
in move with it (a foot's rectangle is linear in its shift), so the plan can put a foot under its
capture point instead of holding the CoP at the edge of a support the step adjustment moved. The
feet standing now do not move. Each shift is bounded (``reach``), costs ``weight`` |delta_j|^2, and
keeps the landing foot sideways of the other one between their least separation and ``max_width``
(as support.clamp_width does for the planned footholds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..gait.footsteps import GaitBody, min_separation, wrap_angle
from .preview import SupportPhase


@dataclass(frozen=True)
class Landings:
    """Which foothold each phase's feet stand on.

    Attributes:
        index: per phase and foot the landing whose shift moves that foot's foothold (-1: a foot
            standing now, fixed). Shape: (P, 2).
        count: number of landings J in the preview.
        first: per landing, the phase in which it touches down. Shape: (J,).
        foot: per landing, the foot (0 left, 1 right). Shape: (J,).
    """

    index: np.ndarray
    count: int
    first: np.ndarray
    foot: np.ndarray

    def weights(self, phase: int, contacts: tuple[bool, bool]) -> np.ndarray:
        """Shares of each landing's shift in the shift of a phase's support (one foot's: 1; both
        feet's hull: each free foot 1/2, its approximate shift). Shape: (J,)."""
        w = np.zeros(self.count)
        down = [f for f in range(2) if contacts[f]]
        for f in down:
            j = int(self.index[phase, f])
            if j >= 0:
                w[j] += 1.0 / len(down)
        return w

    def final(self, phase: int) -> np.ndarray:
        """Shares in the shift of the centre of both feet's last footholds at a phase. Shape: (J,)."""
        return self.weights(phase, (True, True))


def find_landings(phases: list[SupportPhase], free: bool = True) -> Landings:
    """Number the touch-downs of a preview (module docstring); none when not ``free``."""
    index = np.full((len(phases), 2), -1, dtype=int)
    current = [-1, -1]
    first: list[int] = []
    foot: list[int] = []
    for i, ph in enumerate(phases):
        for f in range(2):
            if free and i > 0 and ph.contacts[f] and not phases[i - 1].contacts[f]:
                current[f] = len(first)
                first.append(i)
                foot.append(f)
        index[i] = current
    return Landings(index, len(first), np.array(first, dtype=int), np.array(foot, dtype=int))


@dataclass(frozen=True)
class StepFreedom:
    """How far the CoM planner may move the previewed footholds.

    Attributes:
        weight: cost of a shift [1/m^2] (MpcConfig.step_weight).
        reach: largest shift along x and along y [m] (MpcConfig.step_reach).
        body: the feet's soles (their least separation).
        max_width: a landing foot lies at most this far sideways of the other foot [m].
        fixed: the first landing's shift, kept (a swing about to land), or None.
    """

    weight: float
    reach: float
    body: GaitBody
    max_width: float
    fixed: np.ndarray | None = None


def separation_rows(
    phases: list[SupportPhase], land: Landings, freedom: StepFreedom
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows G_x, G_y (K, J) and bounds h (K,) with G_x dx + G_y dy <= h: each landing foot lies
    sideways of the other foot (in that foot's frame) between their least separation and
    ``max_width``, or no further outside that band than planned."""
    gx, gy, h = [], [], []
    for j in range(land.count):
        i, f = int(land.first[j]), int(land.foot[j])
        o = 1 - f
        ph = phases[i]
        pf, po = ph.feet[f], ph.feet[o]
        c, s = math.cos(po[2]), math.sin(po[2])
        side = 1.0 if f == 0 else -1.0
        nx, ny = -s * side, c * side  # the other foot's lateral axis, towards the landing foot's side
        lateral = nx * (pf[0] - po[0]) + ny * (pf[1] - po[1])
        need = min_separation(freedom.body, wrap_angle(pf[2] - po[2]))
        lo, hi = min(need - lateral, 0.0), max(freedom.max_width - lateral, 0.0)
        row_x, row_y = np.zeros(land.count), np.zeros(land.count)
        row_x[j], row_y[j] = nx, ny
        jo = int(land.index[i, o])
        if jo >= 0:
            row_x[jo] -= nx
            row_y[jo] -= ny
        gx += [row_x, -row_x]
        gy += [row_y, -row_y]
        h += [hi, -lo]
    if not h:
        return np.zeros((0, land.count)), np.zeros((0, land.count)), np.zeros(0)
    return np.array(gx), np.array(gy), np.array(h)
