"""Retargeting speed: frames per second of the retarget loop, and the whole process.

    python benchmarks/bench_retarget.py --clip PATH --robot NAME_OR_PATH [--mapping FILE]

Prints a table, then as its last line a JSON object with frames_per_s (retarget loop only, best
of --repeats runs after a warm-up), frames_per_s_median, iterations_per_frame, seconds_total
(one whole `kinemorph retarget` process: start, load, retarget, evaluate, save) and details.
Speed figures on shared machines vary from run to run; the best of several runs is the figure
least disturbed by other load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clip", required=True, type=Path)
    ap.add_argument("--robot", required=True)
    ap.add_argument("--mapping", type=Path)
    ap.add_argument("--engine", default="auto")
    ap.add_argument(
        "--compat", choices=["gmr"], help="GMR's settings (human height 1.75, no ground fit, start at qpos0)"
    )
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--no-process", action="store_true", help="skip the whole-process timing")
    args = ap.parse_args()

    t_import = time.perf_counter()
    from kinemorph.mapping.mapping import Mapping
    from kinemorph.motion import load_motion
    from kinemorph.retarget import get_engine, resolve_engine, retarget
    from kinemorph.robots import load_robot

    t_imported = time.perf_counter()
    motion = load_motion(args.clip)
    t_loaded_motion = time.perf_counter()
    robot = load_robot(args.robot)
    mapping = Mapping.load(args.mapping) if args.mapping else None
    engine = get_engine(resolve_engine(args.engine, motion))
    config = engine.compat[args.compat]() if args.compat else engine.config_type()
    t0 = time.perf_counter()
    first = retarget(motion, robot, mapping, engine=engine.name, config=config)  # warm-up (JIT cache load)
    t_first = time.perf_counter() - t0
    loops = []
    for _ in range(args.repeats):
        r = retarget(motion, robot, mapping, engine=engine.name, config=config)
        loops.append(motion.num_frames / r.info["frames_per_s"])  # the engine's own loop (incl. planning)
    n = motion.num_frames
    best = min(loops)
    median = statistics.median(loops)

    seconds_total = None
    if not args.no_process:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out.npz"
            cmd = [
                sys.executable,
                "-m",
                "kinemorph.cli",
                "retarget",
                str(args.clip),
                "--robot",
                args.robot,
                "-o",
                str(out),
                "--quiet",
                "--engine",
                args.engine,
            ]
            if args.mapping:
                cmd += ["--mapping", str(args.mapping)]
            if args.compat:
                cmd += ["--compat", args.compat]
            times = []
            for _ in range(3):
                out.unlink(missing_ok=True)
                t = time.perf_counter()
                subprocess.run(cmd, check=True, env=os.environ.copy())
                times.append(time.perf_counter() - t)
            seconds_total = min(times)

    result = {
        "clip": str(args.clip),
        "robot": args.robot,
        "engine": args.engine,
        "frames": n,
        "frames_per_s": n / best,
        "frames_per_s_median": n / median,
        "iterations_per_frame": first.info["iterations_per_frame"],
        "seconds_loop_best": best,
        "seconds_targets": first.info.get("seconds_targets", first.info.get("seconds_plan")),
        "seconds_first_call": t_first,
        "seconds_import": t_imported - t_import,
        "seconds_load_motion": t_loaded_motion - t_imported,
        "seconds_total": seconds_total,
    }
    print(f"{'clip':<24}{args.clip.name}")
    for k in (
        "frames",
        "frames_per_s",
        "frames_per_s_median",
        "iterations_per_frame",
        "seconds_loop_best",
        "seconds_load_motion",
        "seconds_total",
    ):
        v = result[k]
        print(f"{k:<24}{v:.4g}" if isinstance(v, float) else f"{k:<24}{v}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
