"""04: Stylized walking gaits: one schedule of commands, three styles, onto Unitree G1.

The walk accelerates, turns left, slows and strafes (a command schedule); each packaged style
(neutral, relaxed, injured) turns it into a reference r(t) (pelvis, feet, upper body; Hopkins et
al., "Interactive Design of Stylized Walking Gaits for Robotic Characters") that the IK step
solves into robot motion with its contact mask. Prints how each style walks the same schedule.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import kinemorph
from kinemorph.gait import Commands, gait_motion, load_style, plan
from kinemorph.gait.robot_table import robot_gait


def _mean_swing(contact: np.ndarray, dt: float) -> float:
    """Mean length of the complete swings in a contact column [s]."""
    edges = np.diff(contact.astype(int))
    lifts, lands = np.nonzero(edges == -1)[0], np.nonzero(edges == 1)[0]
    lengths = [(lands[lands > a][0] - a) * dt for a in lifts if (lands > a).any()]
    return float(np.mean(lengths)) if lengths else float("nan")


def main() -> None:
    robot = kinemorph.load_robot("unitree_g1")
    schedule = Commands(
        times=np.array([0.0, 1.0, 3.0, 5.0, 6.5]),
        velocities=np.array([[0, 0, 0], [0.3, 0, 0], [0.45, 0, 0.35], [0.2, 0, 0], [0, 0.12, 0]]),
    )
    body = robot_gait(robot).body
    print(
        f"{'style':<8} {'steps':>5} {'left swing [s]':>14} {'right swing [s]':>15} "
        f"{'feet error max [cm]':>19} {'limits':>6}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("neutral", "relaxed", "injured"):
            style = load_style(name)
            ref = plan(style, schedule, 8.0, rate=50.0, body=body)
            steps = int((ref.contacts[:-1] & ~ref.contacts[1:]).sum())
            swing = [_mean_swing(ref.contacts[:, f], 1 / 50.0) for f in range(2)]
            motion = gait_motion(style, robot, schedule, 8.0)
            kinemorph.save(motion, Path(tmp) / f"{name}_g1.npz", robot=robot)
            print(
                f"{name:<8} {steps:>5} {swing[0]:>14.2f} {swing[1]:>15.2f} "
                f"{motion.info['foot_error_max_cm']:>19.3f} {motion.info['limit_violations']:>6}"
            )


if __name__ == "__main__":
    main()
