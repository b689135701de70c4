"""02: Derive a mapping's scales and rotation offsets from rest poses (calibrate).

Takes the shipped G1 mapping as a template (which body follows which, and the weights), and
recomputes every scale and rotation offset from the generated walk's standing frame and the
robot's zero pose; prints what changed and how far each offset was from an axis-aligned one.
"""

from __future__ import annotations

import numpy as np

import kinemorph
from kinemorph.motion.procedural import procedural_walk
from kinemorph.transforms import quat_angle


def main() -> None:
    motion = procedural_walk()
    robot = kinemorph.load_robot("unitree_g1")
    template = kinemorph.load_mapping("unitree_g1")
    mapping, cal = kinemorph.calibrate(template, motion, robot)
    print(f"rest frame {cal.frame}, stature {cal.stature:.3f} m")
    for old, new in zip(template.stage2, mapping.stage2):
        turn = np.degrees(quat_angle(old.rotation_offset, new.rotation_offset))
        print(
            f"{new.robot_body:<24} <- {new.source_body:<13} scale {mapping.scales[new.source_body]:.3f} "
            f"offset change {turn:5.1f} deg, residual {cal.snap_deg[new.robot_body]:4.1f} deg"
        )


if __name__ == "__main__":
    main()
