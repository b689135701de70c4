"""Plots of a retargeting result (matplotlib, headless): per-frame tracking error and joint curves."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._files import atomic_path
from .quality.report import QualityReport
from .robots.robot import Robot
from .robots.robot_motion import RobotMotion


def plot_retarget(
    result: RobotMotion, robot: Robot, report: QualityReport, path: str | Path, *, force: bool = False
) -> Path:
    """Save a PNG: keypoint tracking error per frame [cm] and every joint's angle [rad] with its
    limits shaded, one panel per joint group (legs, waist and arms). Written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.arange(result.num_frames) / result.fps
    names = result.dof_names
    groups: dict[str, list[int]] = {"legs": [], "torso and arms": []}
    for i, n in enumerate(names):
        key = (
            "legs"
            if any(k in n.lower() for k in ("hip", "knee", "ankle", "leg", "thigh", "calf"))
            else "torso and arms"
        )
        groups[key].append(i)
    panels = [g for g in groups.values() if g]
    fig, axes = plt.subplots(1 + len(panels), 1, figsize=(11, 3.2 * (1 + len(panels))), sharex=True)
    ax0 = axes[0]
    err = report.tracking_error_per_frame_cm
    if err is not None:
        ax0.plot(t, err, color="tab:red", lw=1)
        ax0.set_ylabel("tracking error [cm]")
        ax0.set_title(
            f"{result.robot}: keypoint tracking error (mean {report.tracking_error_mean_cm:.1f} cm, "
            f"max {report.tracking_error_max_cm:.1f} cm)"
        )
    else:
        ax0.text(0.5, 0.5, "no keypoints", ha="center", va="center", transform=ax0.transAxes)
    ax0.grid(alpha=0.3)
    for ax, idx in zip(axes[1:], panels):
        for i in idx:
            (line,) = ax.plot(t, result.dof_pos[:, i], lw=0.9, label=names[i])
            lo, hi = robot.lower[i], robot.upper[i]
            if np.isfinite(lo) and np.isfinite(hi):
                ax.axhline(lo, color=line.get_color(), lw=0.4, ls=":")
                ax.axhline(hi, color=line.get_color(), lw=0.4, ls=":")
        ax.set_ylabel("joint angle [rad]")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, ncol=4, loc="upper right")
    axes[-1].set_xlabel("time [s]")
    fig.tight_layout()
    with atomic_path(path, force=force) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    return Path(path)


def plot_srp(runs: list, fps: float, path: str | Path, *, force: bool = False) -> Path:
    """Save a PNG of SRP over time, one line per engine (runs from kinemorph.compare)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 4))
    for run in runs:
        s = run.relations.srp_per_frame
        ax.plot(np.arange(len(s)) / fps, s, lw=1, label=f"{run.engine} (median {run.relations.srp_median:.3f})")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("SRP (Spearman)")
    ax.set_title("spatial relationship preservation per frame")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    with atomic_path(path, force=force) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    return Path(path)
