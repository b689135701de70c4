"""Comparing engines on one clip: relation metrics (SRP, graph distance), foot metrics, speed."""

from __future__ import annotations

from dataclasses import dataclass

from .mapping.mapping import Mapping
from .motion.motion import Motion
from .progress import Progress
from .quality import evaluate
from .quality.relations import RelationReport, evaluate_relations
from .retarget import get_engine, retarget
from .robots.robot import Robot
from .robots.robot_motion import RobotMotion

COLUMNS = (
    ("srp_median", "SRP median"),
    ("srp_p10", "SRP p10"),
    ("graph_distance_mean", "graph dist"),
    ("foot_slip_mean_cm_s", "slip cm/s"),
    ("penetration_p95_cm", "pen p95 cm"),
    ("jerk_rms_rad_s3", "jerk"),
    ("joint_jump_frames", "jumps"),
    ("frames_per_s", "frames/s"),
)


@dataclass(frozen=True)
class EngineRun:
    """One engine's result on the clip and its figures (keys of COLUMNS)."""

    engine: str
    result: RobotMotion
    relations: RelationReport
    figures: dict[str, float]


def compare_engines(
    motion: Motion,
    robot: Robot,
    engines: list[str],
    *,
    mapping: Mapping | None = None,
    progress: Progress | None = None,
) -> list[EngineRun]:
    """Run each engine with its default settings and measure it."""
    for name in engines:
        get_engine(name)  # unknown names fail before any work
    runs = []
    for name in engines:
        result = retarget(motion, robot, mapping, engine=name, progress=progress)
        rel = evaluate_relations(motion, result, robot)
        q = evaluate(result, robot).to_dict()
        figures = {
            **rel.to_dict(),
            **{k: q[k] for k in ("foot_slip_mean_cm_s", "penetration_p95_cm", "jerk_rms_rad_s3", "joint_jump_frames")},
        }
        figures["frames_per_s"] = result.solve_info.frames_per_s
        runs.append(EngineRun(name, result, rel, figures))  # type: ignore[arg-type]
    return runs


def comparison_table(runs: list[EngineRun]) -> str:
    head = f"{'engine':<10}" + "".join(f"{t:>13}" for _, t in COLUMNS)
    rows = [head]
    for run in runs:
        cells = []
        for key, _ in COLUMNS:
            v = run.figures[key]
            if key in ("frames_per_s", "joint_jump_frames"):
                cells.append(f"{v:>13.0f}")
            else:
                cells.append(f"{v:>13.4f}" if key.startswith("srp") else f"{v:>13.3f}")
        rows.append(f"{run.engine:<10}" + "".join(cells))
    return "\n".join(rows)
