"""Videos: a 60 s G1 walk rendered by `kinemorph render` to MP4 (640x360) and GIF (its defaults);
wall time, peak memory, file size, and where the time goes (rendering vs encoding).

    python benchmarks/bench_render.py [--duration 60] [--repeats 1] [--formats mp4,gif] [--shadows]

The walk is kinemorph.motion.procedural.procedural_walk(duration=...) retargeted onto unitree_g1
through kinemorph.pipeline (the gmr engine) and saved as .npz; each format is then rendered by the
`kinemorph render` command in a fresh process. Figures per format (best and median of --repeats):
- wall [s] of the command, its CPU time [s] (with ffmpeg's: on a shared machine, CPU / 2 cores is
  what the wall time would be with the cores to itself) and its peak RSS [MB] (the largest of the
  command and its ffmpeg child);
- the split the command prints: setup (render model, meshes simplified), rendering (drawing and
  reading the pixels), encoding (time the renderer waits on the encoder; for GIF all of the
  encoding) and the ffmpeg process's own CPU time (it runs beside the renderer);
- the video's size [MB] and frame count.
Targets (issue 11): MP4 <= 60 s wall and <= 500 MB RSS; a 60 s GIF <= 15 MB.
Prints a table, then as its last line a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINE = re.compile(
    r"(?P<frames>\d+) frames at (?P<fps>[\d.]+) fps in (?P<total>[\d.]+) s .*rendering (?P<render>[\d.]+) s, "
    r"encoding (?P<encode>[\d.]+) s, setup (?P<setup>[\d.]+) s, ffmpeg CPU (?P<cpu>[\d.]+) s"
)


def make_walk(folder: Path, duration: float) -> Path:
    from kinemorph.io import save
    from kinemorph.motion.procedural import procedural_walk
    from kinemorph.pipeline import RetargetJob, run_job
    from kinemorph.robots import load_robot

    robot = load_robot("unitree_g1")
    result = run_job(RetargetJob(procedural_walk(duration=duration), robot, evaluate=False)).result
    return save(result, folder / "walk60_unitree_g1.npz", robot=robot)


def render_once(npz: Path, out: Path, extra: list[str]) -> dict[str, float]:
    """One `kinemorph render` in a fresh process (a wrapper reports its peak RSS)."""
    wrapper = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter(); p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "wall = time.perf_counter() - t\n"
        "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "sys.stderr.write(p.stderr); print(p.stdout.strip())\n"
        "print('BENCH', p.returncode, wall, r.ru_maxrss / 1024, r.ru_utime + r.ru_stime)\n"
    )
    cmd = [sys.executable, "-m", "kinemorph.cli", "render", str(npz), "--robot", "unitree_g1", "-o", str(out),
           "--force",
           *extra]  # fmt: skip
    run = subprocess.run([sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True, check=True)
    last = run.stdout.strip().splitlines()
    code, wall, rss, cpu = last[-1].split()[1:]
    if int(code) != 0:
        raise SystemExit(f"render failed: {run.stderr.strip()}")
    m = LINE.search(run.stdout)
    if m is None:
        raise SystemExit(f"unexpected output: {run.stdout}")
    return {
        "wall_s": float(wall), "rss_mb": float(rss), "cpu_s": float(cpu), "frames": int(m["frames"]),
        "fps": float(m["fps"]),
        "setup_s": float(m["setup"]), "render_s": float(m["render"]), "encode_s": float(m["encode"]),
        "ffmpeg_cpu_s": float(m["cpu"]), "size_mb": out.stat().st_size / 1e6,
        "notes": [ln.split("note: ", 1)[1] for ln in run.stderr.splitlines() if "note: " in ln],
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=60.0, help="walk length [s]")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--formats", default="mp4,gif")
    ap.add_argument("--shadows", action="store_true", help="render with shadows (slower)")
    args = ap.parse_args()
    os.environ.setdefault("MUJOCO_GL", "egl")
    extra = ["--shadows"] if args.shadows else []
    figures: dict[str, object] = {"duration_s": args.duration, "cpus": os.cpu_count(),
                                  "load_1min": os.getloadavg()[0], "shadows": args.shadows}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="kinemorph-bench-render-") as tmp:
        t = time.perf_counter()
        npz = make_walk(Path(tmp), args.duration)
        figures["walk_s"] = time.perf_counter() - t
        for fmt in args.formats.split(","):
            runs = [render_once(npz, Path(tmp) / f"walk.{fmt}", extra) for _ in range(args.repeats)]
            best = min(runs, key=lambda r: r["wall_s"])
            figures[fmt] = {**best, "wall_median_s": statistics.median(r["wall_s"] for r in runs),
                            "rss_max_mb": max(r["rss_mb"] for r in runs)}  # fmt: skip
    print(f"{args.duration:g} s G1 walk (load average {figures['load_1min']:.1f} on {figures['cpus']} CPUs)")
    print(f"{'format':6} {'frames':>6} {'wall s':>7} {'CPU s':>6} {'RSS MB':>7} {'setup':>6} {'render':>7} "
          f"{'encode':>7} {'ffmpeg':>7} {'MB':>6}")  # fmt: skip
    for fmt in args.formats.split(","):
        r = figures[fmt]
        assert isinstance(r, dict)
        print(f"{fmt:6} {r['frames']:>6} {r['wall_s']:>7.1f} {r['cpu_s']:>6.1f} {r['rss_mb']:>7.0f} "
              f"{r['setup_s']:>6.1f} {r['render_s']:>7.1f} {r['encode_s']:>7.1f} {r['ffmpeg_cpu_s']:>7.1f} "
              f"{r['size_mb']:>6.1f}")  # fmt: skip
        for note in r["notes"]:
            print(f"  note: {note}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
