"""The consistency check of a simulated walk: `kinemorph simulate` on the walk's own output.

    python benchmarks/walk_verdict.py                         # G1, every shipped style, 20 s at 0.25 m/s
    python benchmarks/walk_verdict.py --robot booster_t1 --seconds 10 --command 0,0,0.5

Each walk (kinemorph.control) carries its motor torques (Controls kind "torques"); the verdict
(kinemorph.sim) replays them on the floor they were made on. One line per style: the walk, then the
verdict of the own-controls replay and, for comparison, of the tracking replay.
Needs MENAGERIE_ROOT for the robot models.
"""

from __future__ import annotations

import argparse

import numpy as np

from kinemorph.control import SimulationConfig, simulate_gait
from kinemorph.gait import Commands, load_style, style_names
from kinemorph.robots import load_robot
from kinemorph.sim import SimConfig, simulate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="unitree_g1")
    ap.add_argument("--styles", nargs="*", default=None, help="default: every shipped style")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--command", default="0.25,0,0", help="vx,vy,yaw_rate")
    ap.add_argument("--no-tracking", action="store_true", help="skip the tracking replay's row")
    args = ap.parse_args()
    robot = load_robot(args.robot)
    command = np.array([float(x) for x in args.command.split(",")])
    for style in args.styles or style_names():
        sim = simulate_gait(
            load_style(style), robot, Commands.constant(command), args.seconds,
            config=SimulationConfig(raise_on_fall=False),
        )  # fmt: skip
        walk = f"FELL at {sim.fall_time:.2f} s" if sim.fell else "walked"
        print(f"{robot.name} {style:8s} {args.seconds:g} s at {args.command}: {walk}", flush=True)
        controllers = ["auto"] if args.no_tracking else ["auto", "tracking"]
        for controller in controllers:
            rep = simulate(sim.motion, robot, config=SimConfig(controller=controller))
            print(f"  {rep.summary()}", flush=True)
            print(
                f"  residual velocity {rep.residual_velocity_max_m_s:.3f} m/s / "
                f"{rep.residual_angular_velocity_max_rad_s:.3f} rad/s, ID torque over limit "
                f"{100 * rep.id_torque_over_limit_fraction:.1f}%, penetration {100 * rep.max_penetration_m:.2f} cm",
                flush=True,
            )


if __name__ == "__main__":
    main()
