"""Stylized gaits: speed of the sampler + planner, and how the IK output follows the plan.

    python benchmarks/bench_gait.py [--seconds 60] [--repeats 5] [--robots unitree_g1 booster_t1 unitree_h1]

Speed: r(t) at 125 Hz for a command schedule (accelerations, turns, strafing, walking backward),
planned in one process, (a) over the whole schedule at once (``plan``) and (b) frame by frame
(``Planner.step``, as a controller would call it); the real-time factor is simulated seconds per
wall-clock second, best and median of --repeats runs after a warm-up. Then, per robot and style,
the same schedule at 50 fps solved by the IK step: largest distance of a sole from its plan [cm],
mean slip of the standing feet's pivots [cm/s], joint-limit violations, IK frames per second
(robots need MENAGERIE_ROOT). Last, a sweep of constant commands (SWEEP, 6 s each) per robot and
style: the worst sole and pelvis distances from r(t) and the joint-limit violations over all of them.
Prints tables, then as its last line a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from kinemorph.gait import Commands, Planner, gait_motion, load_style, plan, style_names

RATE = 125.0
SWEEP = {
    "fast": (0.6, 0, 0), "slow": (0.25, 0, 0), "backward": (-0.3, 0, 0), "turn": (0, 0, 0.6),
    "strafe": (0, -0.2, 0), "walk+strafe+turn": (0.4, 0.1, 0.4), "stand": (0, 0, 0),
}  # fmt: skip
"""Constant commands [vx, vy, yaw rate] of the IK sweep."""


def schedule() -> Commands:
    """Stand, accelerate, turn left while walking, strafe, walk backward, turn right in place (repeats every 12 s)."""
    points = [
        (0.0, 0, 0, 0), (1.0, 0.3, 0, 0), (3.0, 0.55, 0, 0.3), (5.0, 0.2, 0.1, 0), (6.5, 0, -0.15, 0),
        (8.0, -0.2, 0, 0), (9.5, 0, 0, -0.5), (11.0, 0, 0, 0), (12.0, 0, 0, 0),
    ]  # fmt: skip
    return Commands(np.array([p[0] for p in points]), np.array([p[1:] for p in points], dtype=float))


def _repeat(cmds: Commands, seconds: float) -> Commands:
    period = float(cmds.times[-1])
    k = int(np.ceil(seconds / period))
    times = np.concatenate([cmds.times[:-1] + i * period for i in range(k)] + [[k * period]])
    vel = np.concatenate([cmds.velocities[:-1]] * k + [cmds.velocities[-1:]])
    return Commands(times, vel)


def _best_median(fn, repeats: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    fn()  # warm-up
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return min(runs), statistics.median(runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="simulated seconds for the speed runs")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--robots", nargs="*", default=["unitree_g1", "booster_t1", "unitree_h1"])
    args = ap.parse_args()

    cmds = _repeat(schedule(), args.seconds)
    out: dict[str, object] = {"rate_hz": RATE, "seconds": args.seconds, "speed": {}, "ik": {}}
    print(f"sampler + planner at {RATE:g} Hz, {args.seconds:g} s of commands (real-time factor, best / median)")
    print(f"{'style':<9} {'whole plan':>18} {'frame by frame':>18}")
    for name in style_names():
        style = load_style(name)
        best, median = _best_median(lambda style=style: plan(style, cmds, args.seconds, rate=RATE), args.repeats)

        def online(style=style) -> None:  # type: ignore[no-untyped-def]
            p = Planner(style)
            n = round(args.seconds * RATE)
            v = cmds.at(np.arange(n) / RATE)
            for k in range(n):
                p.step(v[k], 1 / RATE if k else 0.0)

        best_o, median_o = _best_median(online, max(1, args.repeats // 2))
        rt = {"plan_best": args.seconds / best, "plan_median": args.seconds / median,
              "step_best": args.seconds / best_o, "step_median": args.seconds / median_o}  # fmt: skip
        out["speed"][name] = rt  # type: ignore[index]
        plan_rt = f"{rt['plan_best']:.0f} / {rt['plan_median']:.0f}"
        step_rt = f"{rt['step_best']:.0f} / {rt['step_median']:.0f}"
        print(f"{name:<9} {plan_rt:>18} {step_rt:>18}")

    if args.robots:
        from kinemorph.robots import load_robot

        ik_cmds = schedule()
        seconds = float(ik_cmds.times[-1])
        print(f"\nIK output, {seconds:g} s of the schedule at 50 fps")
        print(f"{'robot':<12} {'style':<9} {'feet max [cm]':>13} {'feet mean [cm]':>14} {'pivot slip [cm/s]':>17} "
              f"{'limit viol.':>11} {'IK frames/s':>11}")  # fmt: skip
        for rn in args.robots:
            robot = load_robot(rn)
            for name in style_names():
                m = gait_motion(load_style(name), robot, ik_cmds, seconds)
                i = m.info
                fig = {k: i[k] for k in ("foot_error_max_cm", "foot_error_mean_cm", "stance_slip_mean_cm_s",
                                         "limit_violations", "pelvis_error_max_cm")}  # fmt: skip
                fig["ik_frames_per_s"] = m.num_frames / float(i["seconds_solve"])  # type: ignore[arg-type]
                out["ik"][f"{rn}/{name}"] = fig  # type: ignore[index]
                print(
                    f"{rn:<12} {name:<9} {fig['foot_error_max_cm']:>13.3f} {fig['foot_error_mean_cm']:>14.4f} "
                    f"{fig['stance_slip_mean_cm_s']:>17.3f} {fig['limit_violations']:>11} "
                    f"{fig['ik_frames_per_s']:>11.0f}"
                )
        print(f"\nsweep of {len(SWEEP)} constant commands, 6 s each: worst over the commands")
        print(f"{'robot':<12} {'style':<9} {'feet max [cm]':>13} {'pelvis max [cm]':>15} {'limit viol.':>11}")
        sweep: dict[str, object] = {}
        for rn in args.robots:
            robot = load_robot(rn)
            for name in style_names():
                runs = [gait_motion(load_style(name), robot, Commands.constant(c), 6.0).info for c in SWEEP.values()]
                worst = {
                    "foot_error_max_cm": max(float(i["foot_error_max_cm"]) for i in runs),  # type: ignore[arg-type]
                    "pelvis_error_max_cm": max(float(i["pelvis_error_max_cm"]) for i in runs),  # type: ignore[arg-type]
                    "limit_violations": sum(int(i["limit_violations"]) for i in runs),  # type: ignore[call-overload]
                }
                sweep[f"{rn}/{name}"] = worst
                print(
                    f"{rn:<12} {name:<9} {worst['foot_error_max_cm']:>13.3f} {worst['pelvis_error_max_cm']:>15.2f} "
                    f"{worst['limit_violations']:>11}"
                )
        out["sweep"] = sweep
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
