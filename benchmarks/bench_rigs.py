"""Real rigs with the plain defaults: what is recognised, and how faithfully each retargets.

    KINEMORPH_DATA=../shared/data python benchmarks/bench_rigs.py [--frames 400] [--robots g1,h1,t1 names]

For every BVH in $KINEMORPH_DATA/external (one per rig family, see SOURCES.md there) and LAFAN1's
walk.bvh for reference: the rig family, unit and up axis detected and the stature; then, per robot,
the first --frames frames retargeted with the default mapping (no flags), and the median angle [deg]
between each robot limb segment and the source's (upper arm, forearm, thigh, shank; robot
landmarks vs source landmarks, kinemorph.conventions.LANDMARKS), and the ratio of the robot's
horizontal root travel to the source's over the mapping's root scale (1 = the root travels as far
as the body's size says; "-" when the source travels under 0.5 m). The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np

from kinemorph.mapping.mapping import default_mapping
from kinemorph.motion import load_motion
from kinemorph.retarget import retarget
from kinemorph.robots import load_robot

SEGMENTS = {"upper_arm": [(2, 4), (3, 5)], "forearm": [(4, 6), (5, 7)], "thigh": [(0, 8), (0, 9)],
            "shank": [(8, 10), (9, 11)]}  # fmt: skip


def _dirs(p: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    v = np.concatenate([p[:, b] - p[:, a] for a, b in pairs])
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--robots", default="unitree_g1,unitree_h1,booster_t1")
    args = ap.parse_args()
    root = os.environ.get("KINEMORPH_DATA")
    if not root:
        sys.exit("set KINEMORPH_DATA (the folder holding external/ and motions/)")
    files = [*sorted((Path(root) / "external").glob("*.bvh")), Path(root) / "motions" / "walk.bvh"]
    robots = [load_robot(r) for r in args.robots.split(",")]
    out: dict[str, dict] = {}  # type: ignore[type-arg]
    for f in files:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = load_motion(f)
        rep = m.rig
        assert rep is not None
        what = "hip height" if rep.family == "quadruped" else "stature"
        print(f"{f.name:34} {rep.family:9} {rep.rig:14} up {rep.up:2} unit {rep.unit:5} {what} {rep.stature:.2f} m")
        row: dict = {"family": rep.family, "rig": rep.rig, "unit": rep.unit, "up": rep.up,  # type: ignore[type-arg]
                     "stature_m": round(rep.stature, 3), "robots": {}}  # fmt: skip
        if rep.family == "humanoid":
            clip = m.slice(0, min(m.num_frames, args.frames))
            for robot in robots:
                mapping = default_mapping(clip, robot)
                res = retarget(clip, robot, mapping)
                lm = robot.landmark_positions(robot.fk(res.qpos))
                src = np.stack([clip.body(b)[0] for b in clip.landmarks], axis=1)
                angles = {}
                for seg, pairs in SEGMENTS.items():
                    cos = np.sum(_dirs(lm, pairs) * _dirs(src, pairs), axis=-1)
                    angles[seg] = round(float(np.median(np.degrees(np.arccos(np.clip(cos, -1, 1))))), 1)
                ts = np.linalg.norm(np.diff(clip.positions[:, 0, :2], axis=0), axis=1).sum()
                tr = np.linalg.norm(np.diff(res.root_pos[:, :2], axis=0), axis=1).sum()
                travel = round(float(tr / ts / mapping.scales[mapping.source_root]), 2) if ts > 0.5 else None
                row["robots"][robot.name] = {"median_deg": angles, "travel_ratio": travel}
                print(f"    {robot.name:11} " + " ".join(f"{k} {v:4.1f}" for k, v in angles.items())
                      + f"  travel {travel if travel is not None else '-'}")  # fmt: skip
        out[f.name] = row
    print(json.dumps(out))


if __name__ == "__main__":
    main()
