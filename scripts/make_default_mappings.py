"""Regenerate the shipped LAFAN1 mappings (src/kinemorph/robots/mappings/) with calibrate.

    python scripts/make_default_mappings.py [--check]

Each robot's template names which source body drives which robot body and with what weights
(two stages, as GMR solves them; the G1 weights are GMR's published ones, T1 and H1 follow the
same roles on their own links). calibrate() derives every scale and rotation offset from the
project's own generated walk (kinemorph.motion.procedural, never third-party motion) and the
robot's zero pose. --check only compares (tests/test_mappings.py does the same).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kinemorph.mapping.calibrate import calibrate
from kinemorph.mapping.mapping import BodyTask, Mapping
from kinemorph.motion.procedural import procedural_walk
from kinemorph.robots import load_robot
from kinemorph.robots.registry import default_mapping_path

# role: (stage-1 position, stage-1 rotation, stage-2 position, stage-2 rotation) weights
ROLE_WEIGHTS = {
    "pelvis": (0, 10, 100, 5),
    "thigh": (0, 10, 10, 5),
    "shin": (0, 10, 10, 5),
    "foot": (50, 10, 50, 10),
    "torso": (0, 100, 0, 10),
    "upper_arm": (0, 100, 5, 100),
    "forearm": (0, 10, 10, 5),
    "hand": (0, 10, 10, 5),
}

# Booster T1's shoulders have two joints (pitch, roll): an upper arm cannot follow the source's
# twist, and a rotation weight of 100 there makes the solver twist the whole trunk instead.
ROLE_WEIGHTS_BY_ROBOT = {"booster_t1": {"upper_arm": (0, 10, 10, 5)}}

# robot -> (robot root body, [(robot body, source body, role)])
TEMPLATES: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "unitree_g1": (
        "pelvis",
        [
            ("pelvis", "Hips", "pelvis"),
            ("left_hip_yaw_link", "LeftUpLeg", "thigh"),
            ("left_knee_link", "LeftLeg", "shin"),
            ("left_ankle_roll_link", "LeftFootMod", "foot"),
            ("right_hip_yaw_link", "RightUpLeg", "thigh"),
            ("right_knee_link", "RightLeg", "shin"),
            ("right_ankle_roll_link", "RightFootMod", "foot"),
            ("torso_link", "Spine2", "torso"),
            ("left_shoulder_yaw_link", "LeftArm", "upper_arm"),
            ("left_elbow_link", "LeftForeArm", "forearm"),
            ("left_wrist_yaw_link", "LeftHand", "hand"),
            ("right_shoulder_yaw_link", "RightArm", "upper_arm"),
            ("right_elbow_link", "RightForeArm", "forearm"),
            ("right_wrist_yaw_link", "RightHand", "hand"),
        ],
    ),
    "booster_t1": (
        "Trunk",
        [
            ("Waist", "Hips", "pelvis"),
            ("Hip_Yaw_Left", "LeftUpLeg", "thigh"),
            ("Shank_Left", "LeftLeg", "shin"),
            ("left_foot_link", "LeftFootMod", "foot"),
            ("Hip_Yaw_Right", "RightUpLeg", "thigh"),
            ("Shank_Right", "RightLeg", "shin"),
            ("right_foot_link", "RightFootMod", "foot"),
            ("Trunk", "Spine2", "torso"),
            ("AL2", "LeftArm", "upper_arm"),
            ("AL3", "LeftForeArm", "forearm"),
            ("left_hand_link", "LeftHand", "hand"),
            ("AR2", "RightArm", "upper_arm"),
            ("AR3", "RightForeArm", "forearm"),
            ("right_hand_link", "RightHand", "hand"),
        ],
    ),
    "unitree_h1": (
        "pelvis",
        [
            ("pelvis", "Hips", "pelvis"),
            ("left_hip_pitch_link", "LeftUpLeg", "thigh"),
            ("left_knee_link", "LeftLeg", "shin"),
            ("left_ankle_link", "LeftFootMod", "foot"),
            ("right_hip_pitch_link", "RightUpLeg", "thigh"),
            ("right_knee_link", "RightLeg", "shin"),
            ("right_ankle_link", "RightFootMod", "foot"),
            ("torso_link", "Spine2", "torso"),
            ("left_shoulder_yaw_link", "LeftArm", "upper_arm"),
            ("left_elbow_link", "LeftForeArm", "forearm"),
            ("right_shoulder_yaw_link", "RightArm", "upper_arm"),
            ("right_elbow_link", "RightForeArm", "forearm"),
        ],
    ),
}


def template(robot: str) -> Mapping:
    root, rows = TEMPLATES[robot]
    weights = {**ROLE_WEIGHTS, **ROLE_WEIGHTS_BY_ROBOT.get(robot, {})}
    s1 = tuple(BodyTask(r, s, *map(float, weights[role][:2])) for r, s, role in rows)
    s2 = tuple(BodyTask(r, s, *map(float, weights[role][2:])) for r, s, role in rows)
    return Mapping(
        robot_root=root,
        source_root="Hips",
        scales={s: 1.0 for _, s, _ in rows},
        stage1=s1,
        stage2=s2,
        source_preset="lafan1",
        robot=robot,
    )


def calibration_motion():  # type: ignore[no-untyped-def]
    """The project's own generated walk: the source every shipped mapping is calibrated on."""
    return procedural_walk()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the shipped files, write nothing")
    args = ap.parse_args()
    motion = calibration_motion()
    status = 0
    for name in TEMPLATES:
        robot = load_robot(name)
        mapping, cal = calibrate(template(name), motion, robot)
        path = Path(default_mapping_path(name, "lafan1"))
        worst = max(cal.snap_deg.items(), key=lambda kv: kv[1])
        print(
            f"{name}: rest frame {cal.frame}, stature {cal.stature:.3f} m, largest offset residual "
            f"{worst[1]:.1f} deg ({worst[0]})"
        )
        if args.check:
            same = path.is_file() and Mapping.load(path).to_dict() == mapping.to_dict()
            print(f"  {path.name}: {'up to date' if same else 'DIFFERS'}")
            status |= 0 if same else 1
        else:
            mapping.save(path, force=True)
            print(f"  -> {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
