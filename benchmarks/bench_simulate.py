"""Speed of the feasibility check: replay real-time factor for G1 and Go2, in one process.

    MENAGERIE_ROOT=../shared/menagerie KINEMORPH_DATA=../shared/data \
        .venv/bin/python benchmarks/bench_simulate.py [--repeats 3]

Targets (issue 15): the replay runs at >= 1x real time on G1 and >= 5x on Go2 at 1 kHz. Each row
prints best and median over the repeats of (a) the replay alone (SimReport.realtime_factor) and
(b) the whole check (inverse dynamics + replay + verdict). The walking rows run with the base
assist on and stop_on_fall off, so that every second of the clip is simulated with feet
switching contacts (the verdict runs without the assist and stops at a fall).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from kinemorph import load_motion, load_robot, retarget
from kinemorph.motion.procedural import procedural_walk
from kinemorph.robots.robot import Robot
from kinemorph.robots.robot_motion import RobotMotion
from kinemorph.sim import SimConfig, inverse_dynamics, run_simulation
from kinemorph.sim.model import build_torque_model


def hold(robot: Robot, seconds: float) -> RobotMotion:
    q = robot.rest_qpos().copy()
    pen = inverse_dynamics(
        build_torque_model(robot), RobotMotion.from_qpos(robot.name, 50.0, q[None].repeat(2, 0), robot.dof_names)
    ).penetration.max()
    q[2] += pen
    return RobotMotion.from_qpos(robot.name, 50.0, np.tile(q, (int(seconds * 50) + 1, 1)), robot.dof_names)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    g1, go2 = load_robot("unitree_g1"), load_robot("unitree_go2")
    walking = SimConfig(assist_hz=3.0, stop_on_fall=False)
    rows: list[tuple[str, Robot, Callable[[], RobotMotion], SimConfig]] = [
        ("G1 stand keyframe 10 s", g1, lambda: hold(g1, 10.0), SimConfig()),
        ("G1 procedural walk 8 s (assist on)", g1, lambda: retarget(procedural_walk(), g1), walking),
        ("Go2 home keyframe 10 s", go2, lambda: hold(go2, 10.0), SimConfig()),
    ]
    data = os.environ.get("KINEMORPH_DATA")
    if data and (Path(data) / "motions" / "dog_walk.bvh").is_file():
        clip = Path(data) / "motions" / "dog_walk.bvh"
        rows.append(("Go2 dog_walk 6.5 s (assist on)", go2, lambda: retarget(load_motion(clip), go2), walking))
    print(f"{'case':38s} {'replay x real time (best / median)':>36s} {'whole check x real time':>26s}")
    for label, robot, make, cfg in rows:
        motion = make()
        replay_rt, total_rt = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            rep = run_simulation(motion, robot, config=cfg).report
            total_rt.append(rep.simulated_s / (time.perf_counter() - t0))
            replay_rt.append(rep.realtime_factor)
        print(
            f"{label:38s} {max(replay_rt):17.1f} / {statistics.median(replay_rt):<17.1f}"
            f" {max(total_rt):12.1f} / {statistics.median(total_rt):<10.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
