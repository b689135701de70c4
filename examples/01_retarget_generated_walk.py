"""01: Retarget a generated walk onto Unitree G1 and print its quality report.

Uses only what the project makes itself: a procedural walk on the LAFAN1 skeleton, the robot
from mujoco-menagerie (MENAGERIE_ROOT on offline machines) and the shipped G1 mapping.
"""

from __future__ import annotations

import kinemorph
from kinemorph.motion.procedural import procedural_walk


def main() -> None:
    motion = procedural_walk(duration=8.0, speed=1.2, turn_rate=0.25)
    robot = kinemorph.load_robot("unitree_g1")
    result = kinemorph.retarget(motion, robot)  # engine "gmr", shipped mapping
    report = kinemorph.evaluate(result, robot)
    print(f"{result.num_frames} frames, {result.info['frames_per_s']:.0f} frames/s")
    print(report.table())


if __name__ == "__main__":
    main()
