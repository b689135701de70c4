"""Tracking figures of a simulated walk, from its log (after Hopkins et al. 2024, who report the
spread of the tracking errors over the gait phase in simulation and on hardware)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .log import ControlLog


@dataclass(frozen=True)
class TrackingStats:
    """Per quantity: rms error and the phase-binned standard deviation of the error (the error's
    spread across cycles at the same gait phase, averaged over ``bins`` phase bins).

    Attributes:
        pelvis_height_rms, pelvis_height_std: [m].
        yaw_rms, yaw_std: pelvis heading [rad].
        upper_joint: name of the upper-body joint reported.
        upper_rms, upper_std: [rad].
        skipped_s: start-up time left out [s].
    """

    pelvis_height_rms: float
    pelvis_height_std: float
    yaw_rms: float
    yaw_std: float
    upper_joint: str
    upper_rms: float
    upper_std: float
    skipped_s: float


def _phase_std(err: np.ndarray, phase: np.ndarray, bins: int) -> float:
    idx = np.minimum((phase * bins).astype(np.int64), bins - 1)
    stds = [err[idx == b].std() for b in range(bins) if (idx == b).sum() > 1]
    return float(np.mean(stds)) if stds else 0.0


def tracking_stats(log: ControlLog, *, skip: float = 2.0, bins: int = 20, joint: int | None = None) -> TrackingStats:
    """Tracking figures over the log after ``skip`` seconds; ``joint``: index into log.upper_names
    (default: the first shoulder pitch joint, else the first)."""
    if joint is None:
        names = [str(n) for n in log.upper_names]
        joint = next((i for i, n in enumerate(names) if "shoulder_pitch" in n.lower()), 0)
    keep = log.time >= skip
    if keep.sum() < 2:
        keep = np.ones_like(log.time, dtype=bool)
    ph = log.phase[keep]
    h = (log.pelvis_height - log.pelvis_height_ref)[keep]
    y = np.angle(np.exp(1j * (log.yaw - log.yaw_ref)))[keep]
    u = (log.upper[:, joint] - log.upper_ref[:, joint])[keep] if log.upper.shape[1] else np.zeros(int(keep.sum()))
    name = str(log.upper_names[joint]) if len(log.upper_names) else ""

    def rms(x: np.ndarray) -> float:
        return float(np.sqrt(np.mean(x * x)))

    return TrackingStats(rms(h), _phase_std(h, ph, bins), rms(y), _phase_std(y, ph, bins), name, rms(u),
                         _phase_std(u, ph, bins), float(skip))  # fmt: skip
