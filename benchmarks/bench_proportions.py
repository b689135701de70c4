"""Proportion sweep: SRP of the graph engine on 441 parametric humanoids.

    python benchmarks/bench_proportions.py [--grid 21] [--engine graph] [--png srp_heatmap.png]

The same poses (every 6th frame of the project's generated walk, 30 poses, so no data is needed)
are retargeted onto humanoids of one topology whose shoulder-to-wrist and hip-to-ankle lengths
range over 0.20-0.50 and 0.30-0.60 of a 1.6 m stature (kinemorph.robots.parametric). Prints the
SRP median's minimum and median over robots and the share of robots above 0.7, draws the heatmap,
and prints a JSON line last.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", type=int, default=21)
    ap.add_argument("--engine", default="graph", choices=["graph", "gmr", "mesh"])
    ap.add_argument("--png", type=Path, default=Path("srp_heatmap.png"))
    args = ap.parse_args()

    from kinemorph import load_mapping, retarget
    from kinemorph.motion.procedural import procedural_walk
    from kinemorph.quality.relations import evaluate_relations
    from kinemorph.retarget import GraphConfig
    from kinemorph.robots.parametric import parametric_humanoid, proportion_grid

    walk = procedural_walk(turn_rate=0.25)
    idx = np.arange(0, walk.num_frames, 6)[:30]
    poses = type(walk).from_local(
        walk.skeleton, walk.fps / 6, walk.local_rotations[idx], walk.local_positions[idx],
        virtual={"LeftFootMod": ("LeftFoot", "LeftToe"), "RightFootMod": ("RightFoot", "RightToe")},
        family=walk.family, preset=walk.preset, landmarks=walk.landmarks,
    )  # fmt: skip
    mapping = load_mapping("unitree_g1")  # the root's orientation offset (same link frames)
    arms, legs = proportion_grid(args.grid)
    srp = np.zeros((len(arms), len(legs)))
    t0 = time.perf_counter()
    for i, a in enumerate(arms):
        for j, leg in enumerate(legs):
            robot = parametric_humanoid(float(a), float(leg))
            config = GraphConfig(robot_rest="keyframe", first_frame_generations=0) if args.engine == "graph" else None
            result = retarget(poses, robot, mapping if args.engine == "graph" else None, engine=args.engine,
                              config=config)  # fmt: skip
            srp[i, j] = evaluate_relations(poses, result, robot).srp_median
        print(f"arm ratio {a:.3f}: SRP median over legs {np.median(srp[i]):.3f} (min {srp[i].min():.3f})", flush=True)
    seconds = time.perf_counter() - t0

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 6))
    im = ax.imshow(srp, origin="lower", extent=(legs[0], legs[-1], arms[0], arms[-1]), aspect="auto",
                   vmin=min(0.7, srp.min()), vmax=1.0, cmap="viridis")  # fmt: skip
    ax.set_xlabel("hip-to-ankle length / stature")
    ax.set_ylabel("shoulder-to-wrist length / stature")
    ax.set_title(f"SRP median ({args.engine}), {srp.size} humanoids")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
    result = {
        "engine": args.engine,
        "robots": int(srp.size),
        "poses": int(poses.num_frames),
        "srp_median_min": float(srp.min()),
        "srp_median_median": float(np.median(srp)),
        "share_above_0_7": float(np.mean(srp > 0.7)),
        "seconds": seconds,
        "png": str(args.png),
    }
    print(f"{'robots':<22}{result['robots']}")
    print(f"{'SRP median: min':<22}{result['srp_median_min']:.3f}")
    print(f"{'SRP median: median':<22}{result['srp_median_median']:.3f}")
    print(f"{'share above 0.7':<22}{result['share_above_0_7']:.3f}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
