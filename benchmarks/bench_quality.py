"""Quality of retargeted motion: the QualityReport of each robot and clip.

    python benchmarks/bench_quality.py [--clips walk.bvh dance.bvh ...] [--robots unitree_g1 ...]
                                       [--gmr-mapping FILE]

Clips are BVH paths; "generated" is the project's own procedural walk (the demo's source). Each
runs with the robot's shipped mapping; --gmr-mapping adds, on unitree_g1, GMR's own G1 config
twice: with kinemorph's settings ("gmr map", same ground fit: compares the mappings) and with
GMR's settings ("gmr exact": no ground fit, human height 1.75 m: what GMR itself outputs).
Prints a table and, as the last line, JSON of every report.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

COLUMNS = [
    ("foot_slip_mean_cm_s", "slip cm/s"),
    ("penetration_p95_cm", "pen p95 cm"),
    ("penetration_max_cm", "pen max cm"),
    ("jerk_rms_rad_s3", "jerk rad/s3"),
    ("joint_jump_frames", "jumps"),
    ("trunk_tilt_mean_deg", "tilt deg"),
    ("roll_rate_deg_s", "roll deg/s"),
    ("pitch_rate_deg_s", "pitch deg/s"),
    ("limit_violations", "limit viol"),
    ("tracking_error_mean_cm", "track cm"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", nargs="+", default=["generated"])
    ap.add_argument("--robots", nargs="+", default=["unitree_g1", "booster_t1", "unitree_h1"])
    ap.add_argument("--gmr-mapping", type=Path, help="GMR's bvh_to_g1.json, run on unitree_g1 with GMR's settings")
    args = ap.parse_args()

    from kinemorph import GmrConfig, Mapping, evaluate, load_motion, load_robot, retarget
    from kinemorph.motion.procedural import procedural_walk

    clips = {c: (procedural_walk(turn_rate=0.25) if c == "generated" else load_motion(c)) for c in args.clips}
    rows = []
    for name in args.robots:
        robot = load_robot(name)
        variants = [("kinemorph", None, None)]
        if args.gmr_mapping and name == "unitree_g1":
            gmr = Mapping.load(args.gmr_mapping)
            variants.append(("gmr map", gmr, GmrConfig(human_height=1.75)))
            variants.append(("gmr exact", gmr, GmrConfig.gmr_compatible()))
        for clip, motion in clips.items():
            for label, mapping, config in variants:
                result = retarget(motion, robot, mapping, config=config)
                q = evaluate(result, robot).to_dict()
                rows.append({"robot": name, "clip": Path(clip).stem, "mapping": label, **q})
    head = f"{'robot':<12}{'clip':<10}{'mapping':<12}" + "".join(f"{t:>12}" for _, t in COLUMNS)
    print(head)
    for r in rows:
        cells = "".join(f"{r[k]:>12.2f}" if isinstance(r[k], float) else f"{r[k]:>12}" for k, _ in COLUMNS)
        print(f"{r['robot']:<12}{r['clip']:<10}{r['mapping']:<12}{cells}")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
