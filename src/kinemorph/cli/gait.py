"""``kinemorph gait``: a stylized walk for a biped under a velocity command, solved into robot motion.

    kinemorph gait --style relaxed --robot unitree_g1 --command 0.3,0,0 --duration 10 -o walk.npz
    kinemorph gait --style injured --robot booster_t1 --schedule turns.csv -o limp.csv
    kinemorph gait --style relaxed --robot unitree_g1 --command 0.2,0,0 --simulate --push 1.5@4:front \
        -o walk_sim.npz --log walk_log.npz

--simulate walks the gait under physics (kinemorph.control: CoM MPC, whole-body QP, gait feedback
in MuJoCo) instead of solving it kinematically: the output is the simulated motion, --log the
controller's log. --push F@T:DIR pushes the pelvis with F newtons per kg for 1 s from time T,
from the front, back, left or right (repeatable); --control sets the controller's options
(``--control stepping.enabled=true --control stepping.hold.enabled=true``: the capture stepping and
the brace hold, README and docs/WALKING.md, pushes). An .npz output of an unpushed walk carries the
motors' torques: ``kinemorph simulate walk_sim.npz --robot unitree_g1`` replays them and judges it.

A schedule file holds (time, velocity) points, linear in between and held after the last: CSV with
the header ``time,vx,vy,yaw_rate`` or JSON ``{"commands": [[t, vx, vy, yaw_rate], ...]}``. Bad
input (a malformed style or schedule, an unknown style or robot, a robot that is not a biped, a
bad option) prints one line "kinemorph: error: ..." and exits with code 2, writing nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ._options import add_config_options, config_from_args

FOOT_WARNING_CM = 1.0
"""A foot farther than this from its planned pose on some frame draws a warning [cm]."""


def register(sub: Any) -> None:
    """Register the ``gait`` subcommand; IK options come from GaitConfig."""
    from ..gait.kinematic import GaitConfig
    from ..gait.schema import style_names
    from ..io import FORMATS
    from ..robots.registry import KNOWN_ROBOTS

    bipeds = [n for n, info in KNOWN_ROBOTS.items() if len(info.feet) == 2]
    p = sub.add_parser(
        "gait",
        help="a stylized walk under a velocity command, as robot motion",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--style", default="neutral", help=f"style: {', '.join(style_names())} or a style .json [default: neutral]"
    )
    p.add_argument("--robot", required=True, help=f"biped: {', '.join(bipeds)} or an MJCF/URDF path")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument(
        "--command",
        metavar="VX,VY,YAW_RATE",
        help="constant velocity: m/s, m/s, rad/s (body frame); negative first value: --command=-0.2,0,0",
    )
    how.add_argument("--schedule", type=Path, help="velocity schedule: .csv (time,vx,vy,yaw_rate) or .json")
    p.add_argument("--duration", type=float, help="seconds [default: 10, or the schedule's last time]")
    p.add_argument("-o", "--output", type=Path, required=True, help=f"output file: {' '.join(FORMATS)}")
    p.add_argument("--report", type=Path, help="also save the quality report as JSON")
    p.add_argument("--force", action="store_true", help="overwrite existing outputs")
    p.add_argument("--quiet", action="store_true", help="no progress bar or table")
    add_config_options(p, GaitConfig, group="gait options")
    sim = p.add_argument_group("physics (--simulate)")
    sim.add_argument("--simulate", action="store_true", help="walk the gait in MuJoCo with the model-based controller")
    sim.add_argument("--push", action="append", default=[], metavar="F@T:DIR",
                     help="push: F N/kg for 1 s at T s from front|back|left|right (repeatable)")  # fmt: skip
    sim.add_argument("--log", type=Path, help="the controller's log (.npz): references, errors, forces, torques")
    sim.add_argument("--control", action="append", default=[], metavar="PART.FIELD=VALUE",
                     help="a controller setting (kinemorph.control.ControlConfig; repeatable), e.g. "
                          "stepping.enabled=true stepping.hold.enabled=true for the capture stepping and the "
                          "brace hold against strong pushes")  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import ConfigError
    from ..gait.commands import load_schedule, parse_command
    from ..gait.kinematic import GaitConfig, gait_motion
    from ..gait.robot_table import robot_gait_info
    from ..gait.schema import load_style
    from ..pipeline import Outputs, load_job_robot
    from ..progress import ProgressBar
    from ..quality import evaluate

    t0 = time.perf_counter()
    outputs = Outputs((args.output,), report=args.report, force=args.force)
    outputs.check()
    config = config_from_args(GaitConfig, args)
    style = load_style(args.style)
    commands = load_schedule(args.schedule) if args.schedule else parse_command(args.command)
    duration = args.duration
    if duration is None:
        duration = commands.end if args.schedule and commands.end > 0 else 10.0
    if not duration > 0:
        raise ConfigError(f"--duration must be positive, got {duration}")
    robot = load_job_robot(args.robot)
    robot_gait_info(robot)  # refuses robots that are not bipeds
    if args.simulate or args.push or args.log or args.control:
        return _simulated(args, style, robot, commands, duration, outputs, t0)
    bar = None if args.quiet else ProgressBar(f"gait {style.name} -> {robot.name}")
    motion = gait_motion(style, robot, commands, duration, config, progress=bar)
    info = motion.info
    if info["foot_error_max_cm"] > FOOT_WARNING_CM:  # type: ignore[operator]
        print(
            f"kinemorph: warning: the feet miss their plan by up to {info['foot_error_max_cm']:.1f} cm "
            f"(the command may ask for steps longer than {robot.name} reaches; try a lower speed)",
            file=sys.stderr,
        )
    report = evaluate(motion, robot)
    outputs.write(motion, robot, report)
    if not args.quiet:
        print(report.table())
        print(
            f"gait {style.name} on {robot.name}: {motion.num_frames} frames at {config.fps:g} fps; feet within "
            f"{info['foot_error_max_cm']:.2f} cm of the plan (mean {info['foot_error_mean_cm']:.3f}), standing "
            f"feet slip {info['stance_slip_mean_cm_s']:.3f} cm/s at their pivots, {info['limit_violations']} "
            f"joint-limit violations; plan {info['seconds_plan']:.2f} s, "
            f"IK {info['seconds_solve']:.2f} s; total {time.perf_counter() - t0:.2f} s -> {args.output}"
        )
    return 0


def _simulated(args: argparse.Namespace, style: Any, robot: Any, commands: Any, duration: float,
               outputs: Any, t0: float) -> int:  # fmt: skip
    """--simulate: the walk under physics (kinemorph.control), its motion and log."""
    from .._files import check_writable
    from ..config_fields import apply_settings
    from ..control import ControlConfig, SimulationConfig, parse_push, simulate_gait
    from ..errors import ConfigError
    from ..progress import ProgressBar
    from ..quality import evaluate

    if not args.simulate:
        raise ConfigError("--push, --log and --control need --simulate")
    pushes = [parse_push(text) for text in args.push]
    control = apply_settings(ControlConfig(), args.control, option="--control")
    if args.log is not None:
        if args.log.suffix.lower() != ".npz":
            raise ConfigError(f"{args.log}: the log is an .npz file")
        check_writable(args.log, force=args.force)
    bar = None if args.quiet else ProgressBar(f"gait {style.name} -> {robot.name} (physics)")
    sim = simulate_gait(
        style, robot, commands, duration, pushes=pushes, progress=bar, config=SimulationConfig(control=control)
    )
    report = evaluate(sim.motion, robot)
    outputs.write(sim.motion, robot, report)
    if args.log is not None:
        sim.log.save(args.log, force=args.force)
    if not args.quiet:
        from ..control.summary import describe

        print(f"gait {style.name} on {robot.name} under physics: {describe(sim)}; "
              f"total {time.perf_counter() - t0:.1f} s -> {args.output}")  # fmt: skip
    return 0
