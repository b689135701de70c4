"""Quality of retargeted motion: the QualityReport of each robot and clip.

    python benchmarks/bench_quality.py [--clips walk.bvh dance.bvh ...] [--robots unitree_g1 ...]
                                       [--gmr-mapping FILE]

Clips are BVH paths; "generated" is the project's own procedural walk (the demo's source).
Humanoids run the gmr engine with the robot's shipped mapping; --gmr-mapping adds, on unitree_g1,
GMR's own G1 config twice: with kinemorph's settings ("gmr map", same ground fit: compares the
mappings) and with GMR's settings ("gmr exact": no ground fit, human height 1.75 m: what GMR
itself outputs). Quadrupeds run the quadruped engine in both modes, "natural" and "plain", and
add three columns: base height min and max [m] and the mean distance of swinging feet to their
planned targets [cm] (natural only). Prints a table and, as the last line, JSON of every row.
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
EXTRA_COLUMNS = [
    ("base_z_min_m", "base min m"),
    ("base_z_max_m", "base max m"),
    ("swing_target_error_cm", "swing err cm"),
]


def quadruped_extras(robot, result) -> dict:  # type: ignore[no-untyped-def]
    """Base height range [m] and, for the natural mode, swinging feet's distance to their targets [cm]."""
    import numpy as np

    extras = {"base_z_min_m": float(result.root_pos[:, 2].min()), "base_z_max_m": float(result.root_pos[:, 2].max())}
    if result.info.get("mode") == "natural" and result.contacts is not None:
        pose = robot.fk(result.qpos)
        feet = np.stack([pose.positions[:, robot.body_id(f)] for _, f in robot.legs], axis=1)
        err = np.linalg.norm(feet - result.keypoints.positions[:, 1:], axis=2)
        extras["swing_target_error_cm"] = float(err[~result.contacts].mean() * 100)
    return extras


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", nargs="+", default=["generated"])
    ap.add_argument("--robots", nargs="+", default=["unitree_g1", "booster_t1", "unitree_h1"])
    ap.add_argument("--gmr-mapping", type=Path, help="GMR's bvh_to_g1.json, run on unitree_g1 with GMR's settings")
    args = ap.parse_args()

    from kinemorph import GmrConfig, Mapping, evaluate, load_motion, load_robot, retarget
    from kinemorph.motion.procedural import procedural_walk
    from kinemorph.retarget import QuadrupedConfig

    clips = {c: (procedural_walk(turn_rate=0.25) if c == "generated" else load_motion(c)) for c in args.clips}
    rows = []
    for name in args.robots:
        robot = load_robot(name)
        if robot.family == "quadruped":
            variants = [("natural", None, QuadrupedConfig()), ("plain", None, QuadrupedConfig(mode="plain"))]
        else:
            variants = [("kinemorph", None, None)]
        if args.gmr_mapping and name == "unitree_g1":
            gmr = Mapping.load(args.gmr_mapping)
            variants.append(("gmr map", gmr, GmrConfig(human_height=1.75)))
            variants.append(("gmr exact", gmr, GmrConfig.gmr_compatible()))
        for clip, motion in clips.items():
            if motion.family != robot.family:
                continue
            for label, mapping, config in variants:
                result = retarget(motion, robot, mapping, config=config)
                q = evaluate(result, robot).to_dict()
                row = {"robot": name, "clip": Path(clip).stem, "mapping": label, **q}
                if robot.family == "quadruped":
                    row.update(quadruped_extras(robot, result))
                rows.append(row)
    columns = COLUMNS + [c for c in EXTRA_COLUMNS if any(c[0] in r for r in rows)]
    head = f"{'robot':<12}{'clip':<10}{'mapping':<12}" + "".join(f"{t:>12}" for _, t in columns)
    print(head)
    for r in rows:
        cells = "".join(
            f"{r[k]:>12.2f}" if isinstance(r.get(k), float) else f"{r.get(k, '-')!s:>12}" for k, _ in columns
        )
        print(f"{r['robot']:<12}{r['clip']:<10}{r['mapping']:<12}{cells}")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
