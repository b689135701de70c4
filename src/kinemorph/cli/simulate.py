"""``kinemorph simulate``: can the robot execute this motion? Inverse dynamics and a torque-controlled
replay in MuJoCo, with the verdict of kinemorph.sim.

    kinemorph simulate walk_g1.npz --robot unitree_g1 --report walk_sim.json -o walk_sim.npz

Prints the verdict, the controller that ran (a motion that carries its own controls, such as
STMR's output, is replayed with them) and the reasons; ``--report`` writes every figure as JSON, ``-o`` the simulated
trajectory (a robot motion file) with torques and contact forces. Exit status 0 whether or not
the motion is feasible (the report says); 2 for bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    from ._common import robot_help

    p = sub.add_parser(
        "simulate",
        help="replay a robot motion in MuJoCo with torque control and judge whether the robot could do it",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("input", type=Path, help="robot motion file (.npz .pkl .csv .json)")
    p.add_argument("--robot", required=True, help=robot_help())
    p.add_argument("-o", "--output", type=Path, help="simulated trajectory with torques and contact forces (.npz)")
    p.add_argument("--report", type=Path, help="the verdict and its figures (.json)")
    p.add_argument("--force", action="store_true", help="overwrite existing outputs")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    g = p.add_argument_group("simulation options")
    g.add_argument("--timestep", type=float, default=0.001, help="physics step [s] [default: 0.001]")
    g.add_argument("--friction", type=float, default=0.8, help="floor friction coefficient [default: 0.8]")
    g.add_argument(
        "--floor-timeconst", type=float, default=None,
        help="time constant of the floor's contacts [s] (MuJoCo's solref) [default: the floor a motion's own "
        "controls were made on when they name one, else MuJoCo's 0.02]",
    )  # fmt: skip
    g.add_argument(
        "--floor-friction-timeconst", type=float, default=None,
        help="time constant of the floor contacts' friction rows alone [s] (MuJoCo's solreffriction) "
        "[default: the one a motion's own controls were made with, else the contacts' own]",
    )  # fmt: skip
    g.add_argument("--assist-hz", type=float, default=0.0, help="base-assist bandwidth [Hz]; 0: off [default: 0]")
    g.add_argument("--bandwidth-hz", type=float, default=10.0, help="joint PD bandwidth [Hz] [default: 10]")
    g.add_argument("--meshes", action="store_true", help="keep mesh collision geoms (slower)")
    g.add_argument(
        "--controller", choices=("auto", "tracking"), default="auto",
        help="auto: a motion that carries its own controls (STMR's npz) is replayed with them, any other by "
        "the tracking replay; tracking: always the tracking replay [default: auto]",
    )  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._files import check_writable
    from ..errors import ConfigError
    from ..io import load
    from ..progress import ProgressBar
    from ..robots import load_robot
    from ..sim import Gains, SimConfig, run_simulation
    from ..sim.files import save_report, save_simulation

    for out, suffix in ((args.output, ".npz"), (args.report, ".json")):
        if out is not None:
            if out.suffix.lower() != suffix:
                raise ConfigError(f"{out}: expected a {suffix} file")
            check_writable(out, force=args.force)
    config = SimConfig(
        timestep=args.timestep,
        friction=args.friction,
        floor_timeconst=args.floor_timeconst,
        floor_friction_timeconst=args.floor_friction_timeconst,
        meshes=args.meshes,
        assist_hz=args.assist_hz,
        gains=Gains(bandwidth_hz=args.bandwidth_hz),
        controller=args.controller,
    )
    robot = load_robot(args.robot)
    motion = load(args.input, robot_name=robot.name, dof_names=robot.dof_names)
    bar = None if args.quiet else ProgressBar(f"simulate {args.input.name}")
    result = run_simulation(motion, robot, config=config, progress=bar)
    print(result.report.summary())
    if args.report is not None:
        save_report(result.report, args.report, force=args.force)
    if args.output is not None:
        save_simulation(result, args.output, force=args.force)
    return 0
