"""Dataset report speed: report.html and report.json of a synthetic 100-clip batch folder.

    python benchmarks/bench_report.py [--clips 100] [--workers 2] [--repeats 5] [--keep DIR]

The clips are generated (kinemorph.motion.procedural): walks of different speeds, turn rates and
seeds, 4 s each, and a few made bad on purpose so that the report has failures to show: a walk
whose hips pitch 80 degrees forward half way, a walk whose left elbow flickers by 60 degrees
every other frame in its second half (a mocap glitch), and a corrupt file (a batch failure).
They go through ``run_batch`` on --workers local
workers onto G1 (which writes the report once at its end); then ``write_report`` runs --repeats
times on the finished folder (and once more with --physics, the physics verdict of every clip).
Printed: the batch time, the best and median report time, the clip counts, and a last line of
JSON. The target is < 5 s (without physics).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path


def make_dataset(folder: Path, count: int) -> list[Path]:
    """``count`` BVH clips in ``folder`` (every tenth one made bad, see the module docstring)."""
    from kinemorph.motion import save_bvh
    from kinemorph.motion.procedural import procedural_walk

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"walk_{i:03d}.bvh"
        if i % 10 == 9 and i % 30 == 29:
            path.write_text("HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n")  # truncated: the batch records a failure
            paths.append(path)
            continue
        motion = procedural_walk(duration=6.0, speed=0.6 + 0.1 * (i % 9), turn_rate=0.15 * (i % 3 - 1), seed=i)
        motion = motion.slice(15, 15 + 120)
        save_bvh(motion, path, force=True)
        if i % 10 == 9:
            _spoil(path, tip=(i % 20 == 9))
        paths.append(path)
    return paths


def _spoil(path: Path, *, tip: bool) -> None:
    """From the middle frame on: pitch the hips 80 degrees forward (tip), else bend the left elbow
    60 degrees more on every other frame."""
    lines = path.read_text().splitlines()
    joints = [line.split()[1] for line in lines if line.strip().startswith(("ROOT ", "JOINT "))]
    elbow = 6 + 3 * (joints.index("LeftForeArm") - 1)  # its Zrotation: ZYX channels after the root's 6
    start = next(k for k, line in enumerate(lines) if line.startswith("Frame Time")) + 1
    frames = len(lines) - start
    for k in range(start, len(lines)):
        values = lines[k].split()
        if k - start < frames // 2:
            continue
        if tip:
            values[3] = f"{float(values[3]) - 80.0:.4f}"  # Hips Zrotation [deg] (z: the subject's left)
        elif (k - start) % 2:
            values[elbow] = f"{float(values[elbow]) - 60.0:.4f}"
        lines[k] = " ".join(values)
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clips", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--robot", default="unitree_g1")
    parser.add_argument("--keep", type=Path, default=None, help="build the dataset here and keep it")
    parser.add_argument("--physics", choices=["dynamics", "replay"], help="also time one report with physics verdicts")
    args = parser.parse_args()

    from kinemorph.batch import run_batch
    from kinemorph.report import write_report

    root = args.keep or Path(tempfile.mkdtemp(prefix="kinemorph-bench-report-"))
    clips = make_dataset(root / "clips", args.clips)
    t0 = time.perf_counter()
    result = run_batch([str(p) for p in clips], root / "out", robot=args.robot, workers=args.workers, force=True)
    batch_s = time.perf_counter() - t0
    times = []
    for _ in range(args.repeats):
        files = write_report(root / "out")
        times.append(files.seconds)
    report = files.report
    physics_s = None
    if args.physics:
        with_physics = write_report(root / "out", physics=args.physics)
        physics_s = round(with_physics.seconds, 2)
        feasible = sum(c.physics is not None and c.physics.passes(args.physics) for c in with_physics.report.clips)
        print(f"with physics ({args.physics}): {physics_s} s, {feasible} clips feasible")
    figures = {
        "clips": len(report.clips),
        "batch_failed": sum(c.status != "ok" for c in report.clips),
        "passed": len(report.passing),
        "batch_seconds": round(batch_s, 2),
        "workers": result.workers,
        "report_seconds_best": round(min(times), 3),
        "report_seconds_median": round(statistics.median(times), 3),
        "html_bytes": files.html.stat().st_size,
        "report_seconds_with_physics": physics_s,
        "folder": str(root / "out"),
    }
    print(f"batch of {figures['clips']} clips on {result.workers} workers: {batch_s:.1f} s")
    print(f"report: best {min(times):.3f} s, median {statistics.median(times):.3f} s over {args.repeats} runs")
    failing = figures["clips"] - figures["passed"]
    print(f"{figures['passed']} pass, {failing} fail ({figures['batch_failed']} in the batch)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
