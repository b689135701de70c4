"""Training outputs: one retargeted walk in every trainer format, read back and described; then a
dataset report of a small batch folder (generated clips onto G1)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import kinemorph
from kinemorph.io import EXPORT_FORMATS, describe
from kinemorph.motion import save_bvh
from kinemorph.motion.procedural import procedural_walk
from kinemorph.report import build_report


def main() -> None:
    robot = kinemorph.load_robot("unitree_g1")
    result = kinemorph.retarget(procedural_walk(duration=6.0), robot)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, fmt in EXPORT_FORMATS.items():
            path = kinemorph.save(result, folder / f"walk{fmt.suffix}", robot=robot)
            back = kinemorph.load_robot_motion(path)
            err = float(np.abs(back.dof_pos - result.dof_pos).max())
            print(f"{name:<12} {path.name:<22} joints max round-trip difference {err:.1e}")
        print(describe(folder / "walk.mjlab.npz").text().splitlines()[1])

        from kinemorph.batch import run_batch

        (folder / "clips").mkdir()
        for i in range(3):
            clip = procedural_walk(duration=6.0, speed=0.8 + 0.3 * i, seed=i).slice(0, 90)
            save_bvh(clip, folder / "clips" / f"walk_{i}.bvh")
        run_batch([str(folder / "clips" / "*.bvh")], folder / "out", robot="unitree_g1", workers=1, format="holosoma")
        report = build_report(folder / "out")  # the batch wrote out/report.html and out/report.json
        for clip in report.clips:
            print(f"{clip.output}: {'pass' if clip.passed else 'fail: ' + '; '.join(clip.failures)}")


if __name__ == "__main__":
    main()
