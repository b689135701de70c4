"""Speed of STMR: the inner iLQR on a 200-step Go2 horizon, and the whole engine on a clip.

    .venv/bin/python benchmarks/bench_stmr.py                       # iLQR iterations per minute
    .venv/bin/python benchmarks/bench_stmr.py --clip dog_walk.bvh   # + whole pipeline, per stage and outer iteration
    .venv/bin/python benchmarks/bench_stmr.py --threads 1           # the Jacobians on one thread

Prints iLQR iterations per minute (target >= 20 on 200 steps), and for the clip the time of the
reference, spatial and temporal stages and of each outer iteration (target: dog_walk onto Go2 in
<= 10 minutes on the 2-core machine). Needs MENAGERIE_ROOT (and KINEMORPH_DATA for --clip).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np


def bench_ilqr(robot_name: str, steps: int, iterations: int, repeats: int, threads: int) -> None:
    from kinemorph.optim.ilqr import IlqrSettings, TrackingCost, ilqr
    from kinemorph.retarget import StmrConfig
    from kinemorph.retarget.stmr.dynamics import servo_model
    from kinemorph.retarget.stmr.torque_cost import TorqueResidual
    from kinemorph.robots.robot import load_robot

    robot = load_robot(robot_name)
    cfg = StmrConfig()
    # the engine's control step on a 30 fps clip, its rollouts' physics step
    sm = servo_model(robot, dt=1 / 180, kp=40.0, kd=1.0, physics_dt=cfg.physics_dt)
    m = sm.model
    q0 = robot.rest_qpos()
    t = np.arange(steps + 1) * sm.dt
    qref = np.tile(q0, (steps + 1, 1))
    qref[:, 1] += 0.03 * np.sin(2 * np.pi * t)  # sway the trunk 3 cm sideways at 1 Hz
    vref = np.zeros((steps + 1, m.nv))
    vref[:, 1] = 0.03 * 2 * np.pi * np.cos(2 * np.pi * t)
    w = np.zeros((steps + 1, 2 * m.nv))
    w[:, :3], w[:, 3:6], w[:, 6 : m.nv], w[:, m.nv :] = 2000.0, 500.0, 20.0, 1.0
    u0 = np.tile(q0[sm.qpos_index], (steps, 1))
    torque = TorqueResidual(sm, weight=cfg.torque_weight, margin=cfg.torque_margin)  # the engine's servo torque cost
    cost = TrackingCost(qref, vref, w, u0, np.full((steps, m.nu), 10.0), control_residual=torque)
    rates = []
    for _ in range(repeats):
        settings = IlqrSettings(max_iterations=iterations, tolerance=0.0, mu_init=1000.0, mu_min=100.0, threads=threads)
        start = time.perf_counter()
        res = ilqr(m, (q0, np.zeros(m.nv)), u0, cost, settings=settings, physics=(sm.physics, sm.substeps))
        rates.append(res.iterations / (time.perf_counter() - start) * 60)
    rates.sort()
    print(
        f"iLQR {robot_name}, {steps} steps of {1000 * sm.dt:.1f} ms ({sm.substeps} physics steps each), "
        f"Jacobians on {threads} thread{'s' if threads > 1 else ''}: "
        f"{rates[-1]:.0f} / {rates[len(rates) // 2]:.0f} "
        f"iterations per minute (best / median of {repeats}; target >= 20); cost {res.history[0]:.1f} -> {res.cost:.1f}"
    )


def bench_pipeline(clip: Path, robot_name: str, threads: int) -> None:
    from kinemorph.motion import load_motion
    from kinemorph.retarget import StmrConfig, retarget
    from kinemorph.robots.robot import load_robot

    motion = load_motion(clip)
    robot = load_robot(robot_name)
    start = time.perf_counter()
    out = retarget(motion, robot, engine="stmr", config=StmrConfig(threads=threads))
    total = time.perf_counter() - start
    info = out.info
    print(
        f"STMR {clip.name} ({motion.num_frames / motion.fps:.1f} s) onto {robot_name}, Jacobians on {threads} "
        f"thread{'s' if threads > 1 else ''}: {total:.1f} s in all"
    )
    for key in ("seconds_reference", "seconds_spatial", "seconds_temporal"):
        print(f"  {key[8:]:10s} {info[key]:8.2f} s")
    for h in info["outer"]:
        alpha = " ".join(f"{a:.2f}" for a in h["alpha"])
        r = h.get("replay") or {}
        replay = (
            f"  replay: fell {r['fell']}, base {100 * r['base_rms_m']:.1f} cm, slip {r['slip_cm_s']:.1f} cm/s, "
            f"saturation {100 * r['saturation']:.0f}%"
            if r
            else ""
        )
        print(
            f"  outer {h['evaluation']:2d}: {h['seconds']:6.1f} s  alpha [{alpha}]  objective {h['objective']:.3f}  "
            f"base {100 * h['base_rms_m']:.1f} cm  upright {h['upright']}{replay}"
        )
    v = info["sim_verdict"]
    print(
        f"  chosen alpha {np.round(info['alpha'], 2).tolist()}; duration {info['duration_s']:.2f} s; verdict: "
        f"feasible {v['feasible']}, fell {v['fell']}, base {100 * v['base_position_rms_m']:.1f} cm, "
        f"saturation {100 * v['torque_saturation_fraction']:.0f}%, slip {v['contact_slip_cm_s']:.1f} cm/s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="unitree_go2")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--clip", default=None, help="a clip under $KINEMORPH_DATA/motions for the whole pipeline")
    ap.add_argument("--threads", type=int, default=None, help="the iLQR's Jacobian threads (default: the engine's)")
    args = ap.parse_args()
    from kinemorph.retarget import StmrConfig

    threads = StmrConfig().threads if args.threads is None else args.threads
    bench_ilqr(args.robot, args.steps, args.iterations, args.repeats, threads)
    if args.clip:
        bench_pipeline(Path(os.environ.get("KINEMORPH_DATA", ".")) / "motions" / args.clip, args.robot, threads)


if __name__ == "__main__":
    main()
