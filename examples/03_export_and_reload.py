"""03: Export a retargeted motion in every format and read it back.

GMR's npz and pickle (root_rot stored x y z w), csv with a header of names, and json; each
written atomically. Shows that the motion survives the round trip.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import kinemorph
from kinemorph.io import FORMATS
from kinemorph.motion.procedural import procedural_walk


def main() -> None:
    motion = procedural_walk(duration=6.0)
    robot = kinemorph.load_robot("unitree_h1")
    result = kinemorph.retarget(motion, robot)
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in FORMATS:
            path = kinemorph.save(result, Path(tmp) / f"walk_h1{suffix}", robot=robot)
            back = kinemorph.load_robot_motion(path, robot_name=robot.name, dof_names=result.dof_names)
            err = float(np.abs(back.qpos - result.qpos).max())
            print(f"{suffix:<5} {path.stat().st_size:>8} bytes, max round-trip difference {err:.1e}")


if __name__ == "__main__":
    main()
