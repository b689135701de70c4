"""Cost of rig recognition and unit detection when loading a clip.

    python benchmarks/bench_load.py [--frames 1800] [--repeats 7]

The clip is the project's generated walk (LAFAN1 skeleton, 22 joints) written as a Mixamo-named
BVH in inches and Z-up, and the same with meaningless joint names (the shape-only fallback), each
``--frames`` long; with KINEMORPH_DATA set, also the 165-joint DAZ-style file from
external/ and LAFAN1's walk.bvh (read with its preset; the load adds the landmark report), each
cut or repeated to the same length. For each: the time of ``load_motion`` (read, recognition, unit
and floor detection, conversion), the time of the same read with a fixed preset (no
recognition), and their difference, the cost recognition adds; best and median over
``--repeats`` (a shared machine's figures vary). The last line printed is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import numpy as np

from kinemorph.motion import load_motion, read_bvh
from kinemorph.motion.bvh import format_bvh
from kinemorph.motion.presets import Preset, apply_preset
from kinemorph.motion.procedural import procedural_walk


def _clip(folder: Path, frames: int, names: str) -> Path:
    from rig_cases import CONVENTIONS, raw_copy, stripped

    walk = procedural_walk(duration=frames / 30.0)
    table = CONVENTIONS["mixamo"] if names == "mixamo" else stripped(walk)
    data = raw_copy(walk.slice(0, frames), names=table, unit="inch", up="z")
    lr, lp = data.local_transforms()
    path = folder / f"{names}.bvh"
    path.write_text(format_bvh(data.skeleton, data.frame_time, lr, lp))
    return path


def _cut(src: Path, folder: Path, frames: int) -> Path:
    """The file cut (or repeated) to ``frames`` frames."""
    data = read_bvh(src)
    lr, lp = data.local_transforms()
    k = np.arange(frames) % data.num_frames
    out = folder / src.name
    out.write_text(format_bvh(data.skeleton, data.frame_time, lr[k], lp[k]))
    return out


def _time(fn, repeats: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=1800)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    fixed: Preset = Preset(name="fixed", up="z", unit="inch", family="humanoid")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        clips = {"mixamo_names": _clip(folder, args.frames, "mixamo"), "no_names": _clip(folder, args.frames, "none")}
        data = Path(os.environ.get("KINEMORPH_DATA", "/nonexistent"))
        presets = {"mixamo_names": fixed, "no_names": fixed}
        if (data / "external" / "mocapnet_CMU_05_01.bvh").is_file():
            clips["daz_165_joints"] = _cut(data / "external" / "mocapnet_CMU_05_01.bvh", folder, args.frames)
            presets["daz_165_joints"] = Preset(name="fixed_cm", up="y", unit="cm", family="humanoid")
        if (data / "motions" / "walk.bvh").is_file():  # LAFAN1: its preset, plus the landmark report
            clips["lafan1_walk"] = _cut(data / "motions" / "walk.bvh", folder, args.frames)
            presets["lafan1_walk"] = "lafan1"  # type: ignore[assignment]
        for label, path in clips.items():
            fixed = presets[label]
            load_motion(path)  # warm caches (imports, page cache)
            with_rig = _time(lambda p=path: load_motion(p), args.repeats)
            plain = _time(lambda p=path, f=fixed: apply_preset(read_bvh(p), f, source=str(p)), args.repeats)
            added = [a - b for a, b in zip(with_rig, plain)]
            frames = load_motion(path).num_frames
            results[label] = {
                "frames": frames,
                "load_ms_best": round(1e3 * min(with_rig), 1),
                "load_ms_median": round(1e3 * statistics.median(with_rig), 1),
                "fixed_preset_ms_best": round(1e3 * min(plain), 1),
                "added_ms_best": round(1e3 * (min(with_rig) - min(plain)), 1),
                "added_ms_median": round(1e3 * statistics.median(added), 1),
            }
            r = results[label]
            print(
                f"{label:16} {frames} frames: load {r['load_ms_best']} ms (median {r['load_ms_median']}), "
                f"fixed preset {r['fixed_preset_ms_best']} ms -> recognition adds {r['added_ms_best']} ms "
                f"(median {r['added_ms_median']})"
            )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
