"""Clean-up stage: speed (gmr alone, clean-up alone, gmr + clean-up) and a quality table.

    python benchmarks/bench_cleanup.py [--clip walk.bvh] [--robot unitree_g1] [--repeats 5]
    python benchmarks/bench_cleanup.py --table [--clips generated walk.bvh dance.bvh] [--engines gmr mesh graph]

Speed: frames per second in one process, best and median of --repeats runs after a warm-up (the
first run compiles the kernels). Clip names are looked up in $KINEMORPH_DATA/motions/ unless they
are paths; "generated" is the project's procedural walk. The table: each engine with and without
the clean-up on each clip, with contact slip (feet's contact geoms on the floor), self-collision
frames deeper than 1 cm, any-body floor penetration, joint-speed frames above 7.5 rad/s and SRP
median. The last line is the figures as JSON. Speed on shared machines varies from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path


def _clip(name: str):  # type: ignore[no-untyped-def]
    from kinemorph.motion import load_motion
    from kinemorph.motion.procedural import procedural_walk

    if name == "generated":
        return procedural_walk()
    path = Path(name)
    if not path.is_file():
        path = Path(os.environ.get("KINEMORPH_DATA", ".")) / "motions" / name
    return load_motion(path)


def _timed(fn, repeats: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    fn()  # warm-up: compiles the kernels, fills the caches
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def speed(clip: str, robot_name: str, repeats: int) -> dict[str, float]:
    from kinemorph.retarget import retarget
    from kinemorph.retarget.cleanup import cleanup
    from kinemorph.robots import load_robot

    motion = _clip(clip)
    robot = load_robot(robot_name)
    n = motion.positions.shape[0]
    gmr = retarget(motion, robot, engine="gmr")
    out: dict[str, float] = {"frames": n}
    for name, fn in (
        ("gmr", lambda: retarget(motion, robot, engine="gmr")),
        ("cleanup", lambda: cleanup(gmr, robot, motion)),
        ("gmr_cleanup", lambda: cleanup(retarget(motion, robot, engine="gmr"), robot, motion)),
    ):
        best, median = _timed(fn, repeats)
        out[f"{name}_frames_per_s"] = n / best
        out[f"{name}_frames_per_s_median"] = n / median
    out["passes_per_frame"] = cleanup(gmr, robot, motion).info["cleanup"]["passes_per_frame"]
    return out


def table(clips: list[str], engines: list[str], robot_name: str) -> list[dict[str, object]]:
    import numpy as np

    from kinemorph.quality import evaluate
    from kinemorph.quality.relations import robot_landmarks, source_landmarks, srp
    from kinemorph.retarget import retarget
    from kinemorph.retarget.cleanup import cleanup
    from kinemorph.robots import load_robot

    robot = load_robot(robot_name)
    rows = []
    for clip in clips:
        motion = _clip(clip)
        src = source_landmarks(motion)
        for engine in engines:
            raw = retarget(motion, robot, engine=engine)
            for label, result in ((engine, raw), (f"{engine} + clean-up", cleanup(raw, robot, motion))):
                q = evaluate(result, robot)
                rows.append(
                    {
                        "clip": clip,
                        "engine": label,
                        "contact_slip_cm_s": q.contact_slip_cm_s,
                        "self_collision_deep_frames": q.self_collision_deep_frames,
                        "self_collision_max_cm": q.self_collision_max_depth_cm,
                        "floor_penetration_max_cm": q.floor_penetration_max_cm,
                        "fast_joint_frames": q.fast_joint_frames,
                        "srp_median": float(np.median(srp(src, robot_landmarks(robot, result)))),
                    }
                )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clip", default="walk.bvh")
    ap.add_argument("--robot", default="unitree_g1")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--table", action="store_true", help="the quality table instead of speed")
    ap.add_argument("--clips", nargs="+", default=["generated", "walk.bvh", "dance.bvh"])
    ap.add_argument("--engines", nargs="+", default=["gmr", "mesh", "graph"])
    args = ap.parse_args()
    if args.table:
        rows = table(args.clips, args.engines, args.robot)
        print("| clip | engine | contact slip [cm/s] | self-collision > 1 cm [frames] (max [cm]) | "
              "below floor, max [cm] | joints > 7.5 rad/s [frames] | SRP median |")  # fmt: skip
        print("|---|---|---:|---:|---:|---:|---:|")
        for r in rows:
            print(
                f"| {r['clip']} | {r['engine']} | {r['contact_slip_cm_s']:.2f} | "
                f"{r['self_collision_deep_frames']} ({r['self_collision_max_cm']:.1f}) | "
                f"{r['floor_penetration_max_cm']:.2f} | {r['fast_joint_frames']} | {r['srp_median']:.4f} |"
            )
        print(json.dumps(rows))
        return 0
    s = speed(args.clip, args.robot, args.repeats)
    print(f"{args.clip} onto {args.robot}, {s['frames']:.0f} frames, best / median of {args.repeats}:")
    for name in ("gmr", "cleanup", "gmr_cleanup"):
        print(f"  {name:12s} {s[name + '_frames_per_s']:9,.0f} / {s[name + '_frames_per_s_median']:9,.0f} frames/s")
    print(f"  clean-up QP passes per frame: {s['passes_per_frame']:.2f}")
    print(json.dumps(s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
