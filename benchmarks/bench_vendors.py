"""Any robot, other vendors: retarget the project's clips onto model files given by path and print
the quality table, with the registered G1 (humanoids) and Go2 (quadrupeds) as the reference rows.

    MENAGERIE_ROOT=... KINEMORPH_DATA=... python benchmarks/bench_vendors.py MODEL.xml|.urdf ...

Model files are not shipped (their licences are their vendors'): pass the paths of your copies,
e.g. mujoco_menagerie's robotis_op3/op3.xml or anybotics_anymal_c/anymal_c.xml; mesh and texture
files may be absent. Humanoids get walk and dance, quadrupeds dog_walk and dog_idle; every row is
the default pipeline from the path alone (recognition, automatic mapping or recognised legs,
clean-up stage). Columns: slip = foot slip mean [cm/s], pen p95 = floor penetration p95 [cm],
jumps = joint-jump frames, limits = joint-limit violations, track = keypoint tracking error mean
[cm], tilt = trunk tilt mean [deg], cslip = contact slip of the feet's geoms on the floor [cm/s],
height = the model's height at rest [m].
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

CLIPS = {"humanoid": ("walk", "dance"), "quadruped": ("dog_walk", "dog_idle")}
REFERENCE = {"humanoid": "unitree_g1", "quadruped": "unitree_go2"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", type=Path)
    args = ap.parse_args()
    data = Path(os.environ.get("KINEMORPH_DATA", ""))
    if not (data / "motions").is_dir():
        sys.exit("set KINEMORPH_DATA (and MENAGERIE_ROOT)")
    warnings.simplefilter("ignore")
    from kinemorph.pipeline import RetargetJob, run_job
    from kinemorph.robots import load_robot

    robots = [(m.stem, load_robot(m)) for m in args.models]
    families = sorted({r.family for _, r in robots})
    rows = [(REFERENCE[f], load_robot(REFERENCE[f])) for f in families] + robots
    print(f"{'robot':<20} {'clip':<9} {'height':>6} {'slip':>6} {'pen p95':>7} {'jumps':>5} {'limits':>6} "
          f"{'track':>6} {'tilt':>5} {'cslip':>6}")  # fmt: skip
    for name, robot in rows:
        rec = robot.recognition
        height = f"{rec.height:.2f}" if rec is not None else "-"
        for clip in CLIPS[robot.family]:
            r = run_job(RetargetJob(data / "motions" / f"{clip}.bvh", robot)).report
            assert r is not None
            print(
                f"{name:<20} {clip:<9} {height:>6} {r.foot_slip_mean_cm_s:6.2f} {r.penetration_p95_cm:7.2f} "
                f"{r.joint_jump_frames:5d} {r.limit_violations:6d} {r.tracking_error_mean_cm:6.1f} "
                f"{r.trunk_tilt_mean_deg:5.1f} {r.contact_slip_cm_s:6.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
