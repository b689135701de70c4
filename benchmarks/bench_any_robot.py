"""Any robot: the automatic path (recognition + automatic mapping / recognised legs) against the
registered robots' shipped mappings, on the project's quality metrics, and recognition speed.

    MENAGERIE_ROOT=... KINEMORPH_DATA=... python benchmarks/bench_any_robot.py [--clips walk dance dog_walk]

Rows "shipped" load a robot by registry name (shipped mapping, registry legs); rows "auto" load
the same or an unseen model file by path (recognition, automatic mapping); rows "synthetic" are
models written by tests/robot_cases.py with numbered body names (a 0.8 m child-size and a 1.9 m
humanoid with fingers; quadrupeds with sphere feet or bare calf tips). Recognition time is
the best and median of 5 loads of H1-2 (30 bodies with the world) without meshes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

COLUMNS = (
    ("slip", "foot_slip_mean_cm_s", "{:.2f}"),
    ("pen p95", "penetration_p95_cm", "{:.2f}"),
    ("jumps", "joint_jump_frames", "{:d}"),
    ("limits", "limit_violations", "{:d}"),
    ("track", "tracking_error_mean_cm", "{:.1f}"),
    ("tilt", "trunk_tilt_mean_deg", "{:.1f}"),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", nargs="+", default=["walk", "dance", "dog_walk"])
    args = ap.parse_args()
    data = Path(os.environ.get("KINEMORPH_DATA", ""))
    if not (data / "motions").is_dir():
        sys.exit("set KINEMORPH_DATA (and MENAGERIE_ROOT)")
    menagerie = Path(os.environ.get("MENAGERIE_ROOT", ""))
    robots_dir = data.parent / "robots"
    warnings.simplefilter("ignore")
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from robot_cases import humanoid_xml, quadruped_xml, write

    tmp = Path(tempfile.mkdtemp(prefix="kinemorph_bench_"))
    child = str(write(tmp, "child_0_8m.xml", humanoid_xml(height=0.8, prefix="c")))
    tall = str(write(tmp, "tall_1_9m.xml", humanoid_xml(height=1.9, prefix="t", fingers=True)))
    dog = str(write(tmp, "dog_spheres.xml", quadruped_xml()))
    tips = str(write(tmp, "dog_calf_tips.xml", quadruped_xml(spheres=False, length=0.9, leg=0.35)))
    from kinemorph.pipeline import RetargetJob, run_job
    from kinemorph.robots import load_robot

    humanoid = [
        ("unitree_g1", "shipped"), (str(menagerie / "unitree_g1/g1.xml"), "auto"),
        ("unitree_h1", "shipped"), (str(menagerie / "unitree_h1/h1.xml"), "auto"),
        ("booster_t1", "shipped"), (str(menagerie / "booster_t1/t1.xml"), "auto"),
        (str(robots_dir / "unitree_h1_2/h1_2_handless.xml"), "auto"),
        (child, "synthetic"), (tall, "synthetic"),
    ]  # fmt: skip
    quadruped = [
        ("unitree_go2", "shipped"), (str(menagerie / "unitree_go2/go2.xml"), "auto"),
        ("unitree_a1", "shipped"), (str(robots_dir / "unitree_a2/a2.xml"), "auto"),
        (dog, "synthetic"), (tips, "synthetic"),
    ]  # fmt: skip
    head = f"{'clip':<9} {'robot':<20} {'path':<10}" + "".join(f"{c:>8}" for c, _, _ in COLUMNS)
    print(head)
    for clip in args.clips:
        src = data / "motions" / f"{clip}.bvh"
        for robot, how in quadruped if clip.startswith("dog") else humanoid:
            done = run_job(RetargetJob(src, load_robot(robot)))
            rep = done.report
            assert rep is not None
            cells = "".join(f"{fmt.format(getattr(rep, key)):>8}" for _, key, fmt in COLUMNS)
            print(f"{clip:<9} {Path(robot).stem:<20} {how:<10}{cells}")
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        load_robot(robots_dir / "unitree_h1_2/h1_2_handless.xml")
        times.append(time.perf_counter() - t0)
    print(
        f"recognition + load of H1-2 (29 bodies + world): best {min(times):.3f} s, "
        f"median {statistics.median(times):.3f} s"
    )


if __name__ == "__main__":
    main()
