"""Walking under physics (kinemorph.control): speed, and the walks of the issue's targets.

    python benchmarks/bench_control.py                  # speed: controller + simulation vs real time (G1)
    python benchmarks/bench_control.py --sweep          # every shipped style at the target commands, 20 s each
    python benchmarks/bench_control.py --sweep --smooth-reach 0 --commands strafe-0.2 schedule   # reach fixes always
    python benchmarks/bench_control.py --push           # 0.75 and 1.5 N/kg for 1 s from the front and the side
    python benchmarks/bench_control.py --robot unitree_h1 --sweep --styles neutral
    python benchmarks/bench_control.py --sweep --speeds 0.05 0.1 0.15 0.2 0.3 0.35 0.4 0.45   # forward speeds only
    python benchmarks/bench_control.py --sweep --set stepping.enabled=true wbc.hard_contacts=true  # other settings

Prints one line per run: fell or not, simulated seconds, real-time factor, tracking figures.
Needs MENAGERIE_ROOT for the robot models. The machine is shared: repeat speed runs (--repeat).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_push import override

from kinemorph.control import ControlConfig, SimulationConfig, parse_push, simulate_gait
from kinemorph.control.metrics import tracking_stats
from kinemorph.errors import ConfigError
from kinemorph.gait import Commands, load_style, style_names
from kinemorph.robots import load_robot

COMMANDS = {
    "stand-step": (0.0, 0.0, 0.0),
    "fwd-0.25": (0.25, 0.0, 0.0),
    "fwd-0.5": (0.5, 0.0, 0.0),
    "back-0.3": (-0.3, 0.0, 0.0),
    "turn-0.5": (0.0, 0.0, 0.5),
    "strafe-0.2": (0.0, 0.2, 0.0),
}
SCHEDULE = Commands(
    np.array([0.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0]),
    np.array([[0, 0, 0], [0.4, 0, 0], [0.2, 0, 0.4], [0, 0.15, 0], [-0.2, 0, 0], [0.3, 0, -0.3], [0, 0, 0]], float),
)


def run(robot, style: str, commands: Commands, duration: float, label: str, pushes=(), control=None) -> None:
    cfg = SimulationConfig(raise_on_fall=False, control=control or ControlConfig())
    sim = simulate_gait(load_style(style), robot, commands, duration, config=cfg, pushes=pushes)
    st = tracking_stats(sim.log)
    log = sim.log
    # feedback letters: engaged at some point (during the 2 s from the first push's start when pushed)
    span = np.ones(len(log.time), dtype=bool)
    if pushes:
        span = (log.time >= pushes[0].start) & (log.time < pushes[0].start + 2.0)
    flags = "".join(c if f[span].any() else "-" for c, f in zip("TSV", (log.time_scaling_engaged,
                                                                         log.step_adjust_engaged,
                                                                         log.velocity_adjust_engaged)))  # fmt: skip
    fall = f"FELL at {sim.fall_time:.2f} s ({sim.fall_phase})" if sim.fell else "walked"
    dist = np.linalg.norm(sim.motion.root_pos[-1, :2] - sim.motion.root_pos[0, :2])
    print(
        f"{robot.name:12s} {style:8s} {label:11s} {fall:40s} {sim.simulated_s:5.1f} s  {sim.realtime_factor:4.2f}x  "
        f"moved {dist:4.2f} m  height std {100 * st.pelvis_height_std:4.2f} cm  "
        f"yaw std {np.degrees(st.yaw_std):4.2f} deg  "
        f"{st.upper_joint} std {np.degrees(st.upper_std):4.2f} deg  feedback {flags}",
        flush=True,
    )


def figure(robot, style: str, path: str, push: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sim = simulate_gait(load_style(style), robot, Commands.constant([0.25, 0, 0]), 10.0,
                        config=SimulationConfig(raise_on_fall=False), pushes=[parse_push(push)])  # fmt: skip
    log = sim.log
    fig, ax = plt.subplots(4, 1, figsize=(9, 10), sharex=True)
    ax[0].plot(log.time, log.com[:, 1], label="CoM y")
    ax[0].plot(log.time, log.com_ref[:, 1], "--", label="CoM y reference (MPC)")
    ax[0].plot(log.time, log.cop_ref[:, 1], ":", label="CoP y (MPC)")
    ax[0].set_ylabel("lateral [m]")
    ax[1].plot(log.time, log.pelvis_height, label="pelvis height")
    ax[1].plot(log.time, log.pelvis_height_ref, "--", label="reference")
    ax[1].set_ylabel("[m]")
    ax[2].plot(log.time, log.contact_force[:, 0, 2], label="left foot Fz")
    ax[2].plot(log.time, log.contact_force[:, 1, 2], label="right foot Fz")
    ax[2].set_ylabel("[N]")
    ax[3].plot(log.time, log.kappa, label="time scaling kappa")
    ax[3].plot(log.time, 10 * np.linalg.norm(log.step_adjust, axis=1), label="10 x |step adjustment| [m]")
    ax[3].plot(log.time, 10 * np.linalg.norm(log.velocity_adjust, axis=1), label="10 x |velocity adjustment| [m/s]")
    ax[3].plot(log.time, np.linalg.norm(log.push_force, axis=1) / 50, label="push / 50 N")
    ax[3].plot(log.time, np.linalg.norm(log.push_estimate, axis=1) / 50, ":", label="push estimate / 50 N")
    ax[3].set_xlabel("time [s]")
    for a in ax:
        a.legend(loc="upper right", fontsize=8)
        a.grid(alpha=0.3)
    p = parse_push(push)
    fig.suptitle(f"{style} on {robot.name} under physics: 0.25 m/s, {p.force_per_kg:g} N/kg push from the "
                 f"{p.direction} at {p.start:g} s"
                 + (f" (fell at {sim.fall_time:.1f} s)" if sim.fell else ""))  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    print(f"wrote {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--robot", default="unitree_g1")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--push", action="store_true", help="pushes during 0.2 m/s walking, 10 s (--push-specs)")
    ap.add_argument("--push-specs", nargs="*", default=["0.75@4:front", "0.75@4:left", "1.5@4:front", "1.5@4:left"])
    ap.add_argument("--styles", nargs="*", default=None)
    ap.add_argument("--commands", nargs="*", default=None, help=f"subset of {', '.join(COMMANDS)}, schedule")
    ap.add_argument("--speeds", nargs="*", type=float, default=None,
                    help="with --sweep: these forward speeds [m/s] instead of the target commands")  # fmt: skip
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument(
        "--smooth-reach",
        type=float,
        default=None,
        help="ControlConfig.smooth_reach for the sweep (0: reach fixes whenever strafing, inf: never) [0.5]",
    )
    ap.add_argument("--set", nargs="*", default=[], help="controller settings part.field=value for the sweep and the "
                    "pushes, e.g. stepping.enabled=true stepping.hold.enabled=true")  # fmt: skip
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--figure", help="plot a 10 s walk at 0.25 m/s with a push (--figure-push) (PNG)")
    ap.add_argument("--figure-push", default="0.5@5:left", help="the figure's push [default: 0.5@5:left]")
    args = ap.parse_args()
    try:
        control = override(
            ControlConfig() if args.smooth_reach is None else ControlConfig(smooth_reach=args.smooth_reach), args.set
        )
    except ConfigError as exc:
        ap.error(str(exc))
    robot = load_robot(args.robot)
    styles = args.styles or style_names()
    if args.figure:
        figure(robot, styles[0], args.figure, args.figure_push)
    elif args.sweep:
        table = {f"fwd-{v:g}": (v, 0.0, 0.0) for v in args.speeds} if args.speeds else COMMANDS
        names = list(table) if args.speeds else args.commands or [*COMMANDS, "schedule"]
        for style in styles:
            for name in names:
                cmd = SCHEDULE if name == "schedule" else Commands.constant(table[name])
                run(robot, style, cmd, args.duration, name, control=control)
    elif args.push:
        for spec in args.push_specs:
            run(robot, styles[0], Commands.constant([0.2, 0, 0]), 10.0, spec, [parse_push(spec)], control)
    else:
        style = load_style(styles[0])
        factors = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            # 0.25 m/s, a sweep command (neutral at 0.3 m/s falls at 3.98 s since the gate changes, README)
            sim = simulate_gait(style, robot, Commands.constant([0.25, 0, 0]), 5.0,
                                config=SimulationConfig(raise_on_fall=False))  # fmt: skip
            factors.append(sim.realtime_factor)
            fell = f", FELL at {sim.fall_time:.2f} s" if sim.fell else ""
            print(f"{robot.name} {style.name} 5 s at 0.25 m/s{fell}: {sim.realtime_factor:.2f}x real time "
                  f"(loop {sim.wall_s:.2f} s, with set-up {time.perf_counter() - t0:.2f} s)", flush=True)  # fmt: skip
        print(f"real-time factor: best {max(factors):.2f}x, median {float(np.median(factors)):.2f}x "
              f"over {len(factors)} runs (shared machine)")  # fmt: skip


if __name__ == "__main__":
    main()
