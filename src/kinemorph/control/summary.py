"""What a simulated walk did, in words: the one summary the CLI and the app print."""

from __future__ import annotations

import numpy as np

from .log import ControlLog
from .loop import GaitSimulation
from .metrics import tracking_stats

FEEDBACK = (
    ("time scaling", "time_scaling_engaged"),
    ("step adjustment", "step_adjust_engaged"),
    ("velocity adjustment", "velocity_adjust_engaged"),
)
"""The gait feedback laws and the log flag saying each engaged."""


def feedback_engaged(log: ControlLog) -> dict[str, float]:
    """Share of planner ticks [0, 1] on which each feedback law was engaged, by name."""
    return {name: float(np.mean(getattr(log, flag))) if len(log.time) else 0.0 for name, flag in FEEDBACK}


def describe(sim: GaitSimulation) -> str:
    """One line: walked or fell (when, in which phase), speed against real time, pelvis height
    error, tracking spread and the feedback that engaged."""
    log = sim.log
    head = (
        f"fell at {sim.fall_time:.2f} s in {sim.fall_phase}"
        if sim.fell and sim.fall_time is not None
        else f"walked {sim.simulated_s:.1f} s"
    )
    engaged = ", ".join(f"{name} {100 * share:.0f}%" for name, share in feedback_engaged(log).items() if share > 0)
    err = float(np.abs(log.pelvis_height - log.pelvis_height_ref).mean()) if len(log.time) else 0.0
    line = f"{head} at {sim.realtime_factor:.2f}x real time; pelvis height error {100 * err:.1f} cm mean"
    if sim.simulated_s > 3.0:
        ts = tracking_stats(log)
        line += (
            f"; spread over the gait phase: pelvis height {100 * ts.pelvis_height_std:.2f} cm, "
            f"yaw {np.degrees(ts.yaw_std):.2f} deg"
        )
    return f"{line}; feedback engaged: {engaged or 'none'}"
