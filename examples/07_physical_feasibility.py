"""07: Physical feasibility: could the robot do it? Unitree G1 standing, walking, walking 3x faster.

Each motion is analysed by inverse dynamics with floor contacts (the residual force on the base is
what no contact can give) and replayed in MuJoCo by joint torques from its first frame
(kinemorph.sim). A standing pose is feasible; the generated walk needs little residual but keeps it
up long enough to tip the replay over; the same walk three times faster needs more than half of
the body weight as residual and more torque than G1's motors have.
"""

from __future__ import annotations

import numpy as np

import kinemorph
from kinemorph.motion.procedural import procedural_walk
from kinemorph.robots.robot_motion import RobotMotion
from kinemorph.sim import simulate


def main() -> None:
    robot = kinemorph.load_robot("unitree_g1")
    stand = robot.rest_qpos()
    motions = {
        "stand 3 s": RobotMotion.from_qpos(robot.name, 50.0, np.tile(stand, (151, 1)), robot.dof_names),
        "walk": kinemorph.retarget(procedural_walk(duration=6.0), robot),
    }
    w = motions["walk"]
    motions["walk 3x"] = RobotMotion(robot.name, w.fps, w.root_pos[::3], w.root_rot[::3], w.dof_pos[::3], w.dof_names)
    print(f"{'motion':10s} {'feasible':>9s} {'residual':>9s} {'over limit':>11s} {'fell at':>8s}")
    for name, motion in motions.items():
        rep = simulate(motion, robot)
        fell = f"{rep.time_to_fall_s:.2f} s" if rep.time_to_fall_s is not None else "-"
        print(
            f"{name:10s} {rep.feasible!s:>9s} {100 * rep.residual_force_mean_fraction:8.1f}% "
            f"{100 * rep.id_torque_over_limit_fraction:10.0f}% {fell:>8s}"
        )
        for reason in rep.reasons:
            print(f"{'':10s} - {reason}")


if __name__ == "__main__":
    main()
