"""When the CoM planner may move the previewed footholds, and the move it chose for the swinging
foot (landings.py holds the QP's side; MpcConfig.step_weight > 0 turns it on).

``MpcConfig.step_when`` says when the footholds are free: at every planner tick ("always"), while
the push recovery is engaged with a push estimate of at least ``step_push`` ("push"), or also
while the gait feedback's step adjustment nears its cap ("sway"), and then for ``step_hold``
seconds after the last tick that asked for it; outside those times they are free at the stiffer
cost ``walk_weight`` (0: fixed). A swing within ``SteppingConfig.freeze`` of its touch-down keeps
the move decided for it. The default frees them at cost 100 while a push of at least 1 N/kg is
being recovered from and at 300 in every other walk: at 100 at every tick they narrowed the stance
and lost side pushes, from the recovery's own 0.5 N/kg on they lost 0.75 N/kg pushes the fixed
footholds hold, and fixed outside pushes G1 fell started at 0.3 and 0.4 m/s (docs/WALKING.md,
"Footholds in the CoM MPC", "Footholds free while walking").
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .landings import StepFreedom
from .preview import SupportPhase, time_to_touchdown

if TYPE_CHECKING:
    from .controller import GaitController
    from .feedback import FeedbackState
    from .mpc import MpcPlan


class FootholdMoves:
    """The CoM planner's move of the swinging foot's foothold, kept across planner ticks."""

    def __init__(self) -> None:
        self.moved = np.zeros(2)  # the move of the swinging foot's foothold [m]
        self.foot = -1  # the foot it belongs to (-1: none)
        self.free_until = -math.inf  # the footholds free until then (MpcConfig.step_when) [s]

    def freedom(
        self, ctrl: GaitController, phases: list[SupportPhase], command: np.ndarray, fb: FeedbackState
    ) -> StepFreedom | None:
        """How far the CoM planner may move the previewed footholds (None: not at all)."""
        mc = ctrl.cfg.mpc
        strafing = command[1] != 0.0 and not (mc.step_turning and command[2] != 0.0)
        if mc.step_weight <= 0 or (strafing and not mc.step_strafing):
            return None
        weight = mc.step_weight
        if mc.step_when != "always":
            demand = mc.step_demand * ctrl.cfg.feedback.max_step
            sway = mc.step_when == "sway" and float(np.linalg.norm(fb.step)) >= demand
            rec = ctrl.recovery
            pushed = rec.engaged and rec.observer.fast_per_kg() >= mc.step_push
            if pushed or sway:
                self.free_until = ctrl.time + mc.step_hold
            if ctrl.time > self.free_until:
                if mc.walk_weight <= 0:
                    return None
                weight = mc.walk_weight
        swinging = [f for f in range(2) if not phases[0].contacts[f]]
        fixed = None
        if len(swinging) == 1 and swinging[0] == self.foot and time_to_touchdown(phases) < ctrl.cfg.stepping.freeze:
            fixed = self.moved
        return StepFreedom(weight, mc.step_reach, ctrl.rg.body, ctrl.maker.max_width + mc.step_width, fixed)

    def landing(self, phases: list[SupportPhase], plan: MpcPlan | None) -> np.ndarray:
        """The move (2,) [m] of the swinging foot's foothold chosen by the CoM planner (zero in a
        double support, when the footholds are fixed or the plan failed; the last one kept then)."""
        swinging = [f for f in range(2) if not phases[0].contacts[f]]
        if len(swinging) != 1:
            self.foot, self.moved = -1, np.zeros(2)
            return self.moved
        if plan is not None and plan.landings is not None and int(plan.landings.foot[0]) == swinging[0]:
            self.foot, self.moved = swinging[0], plan.steps[0].copy()
        return self.moved if self.foot == swinging[0] else np.zeros(2)
