"""Feasibility table: each engine's output on the shared clips, replayed in MuJoCo.

    MENAGERIE_ROOT=../shared/menagerie KINEMORPH_DATA=../shared/data \
        .venv/bin/python benchmarks/sim_table.py [--only g1_walk]

Prints one markdown row per (robot, clip, engine) with the verdict of kinemorph.sim.simulate
and its figures (README, section "Physical feasibility").
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from kinemorph import load_motion, load_robot, retarget
from kinemorph.robots.robot import Robot
from kinemorph.robots.robot_motion import RobotMotion
from kinemorph.sim import run_simulation

Case = tuple[str, str, str, Callable[[Robot], RobotMotion]]


def cases(data: Path) -> Iterator[Case]:
    from kinemorph.gait import Commands, gait_motion, load_style
    from kinemorph.motion.procedural import procedural_walk

    for clip in ("walk", "dance"):
        for engine in ("gmr", "mesh", "graph"):
            yield (
                "unitree_g1",
                f"{clip}.bvh",
                engine,
                lambda r, c=clip, e=engine: retarget(load_motion(data / f"{c}.bvh"), r, engine=e),
            )
    yield "unitree_g1", "procedural walk", "gmr", lambda r: retarget(procedural_walk(), r)
    for robot in ("unitree_go2", "unitree_a1"):
        for clip in ("dog_walk", "dog_idle"):
            yield (
                robot,
                f"{clip}.bvh",
                "quadruped",
                lambda r, c=clip: retarget(load_motion(data / f"{c}.bvh"), r, engine="quadruped"),
            )
    for style in ("neutral", "relaxed", "injured"):
        yield (
            "unitree_g1",
            f"gait {style} 0.3 m/s",
            "gait",
            lambda r, s=style: gait_motion(load_style(s), r, Commands.constant([0.3, 0.0, 0.0]), 8.0),
        )


HEADER = (
    "| robot | clip | engine | verdict | dynamics consistent | fell at [s] | base rms [cm] | joint rms [rad] "
    "| residual mean / p95 [% weight] | residual velocity [m/s in 0.5 s] | required friction p95 "
    "| ID torque over limit [% frames] "
    "| saturation [% steps] | slip [cm/s] "
    "| replay speed [x real time] |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="run the rows whose 'robot clip engine' contains this text")
    args = ap.parse_args()
    data = Path(os.environ.get("KINEMORPH_DATA", "")) / "motions"
    if not data.is_dir():
        print("KINEMORPH_DATA must point at the shared data folder (motions/*.bvh)", file=sys.stderr)
        return 2
    robots: dict[str, Robot] = {}
    print(HEADER)
    for robot_name, clip, engine, make in cases(data):
        if args.only and args.only not in f"{robot_name} {clip} {engine}":
            continue
        robot = robots.setdefault(robot_name, load_robot(robot_name))
        rep = run_simulation(make(robot), robot).report
        verdict = "feasible" if rep.feasible else "infeasible"
        dynamics = "yes" if rep.dynamics_feasible else "no"
        fell = f"{rep.time_to_fall_s:.2f}" if rep.time_to_fall_s is not None else "-"
        print(
            f"| {robot_name} | {clip} | {engine} | {verdict} | {dynamics} | {fell} "
            f"| {100 * rep.base_position_rms_m:.1f} "
            f"| {rep.joint_rms_rad:.3f} | {100 * rep.residual_force_mean_fraction:.1f} / "
            f"{100 * rep.residual_force_p95_fraction:.0f} | {rep.residual_velocity_max_m_s:.2f} "
            f"| {rep.required_friction_p95:.2f} "
            f"| {100 * rep.id_torque_over_limit_fraction:.0f} "
            f"| {100 * rep.torque_saturation_fraction:.0f} | {rep.contact_slip_cm_s:.1f} | {rep.realtime_factor:.1f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
