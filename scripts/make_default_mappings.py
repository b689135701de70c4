"""Regenerate the shipped mappings (src/kinemorph/robots/mappings/) with calibrate.

    python scripts/make_default_mappings.py [--check]

Each robot's template names which source body drives which robot body and with what weights
(two stages, as GMR solves them; the G1 weights are GMR's published ones, T1 and H1 follow the
same roles on their own links). calibrate() derives every scale and rotation offset:
- LAFAN1 onto humanoids: from the project's own generated walk (kinemorph.motion.procedural,
  never third-party motion) and the robot's zero pose;
- the dog preset onto quadrupeds (the "plain" mode of the quadruped engine): from the Labrador
  clip dog_idle.bvh (MIT-licensed mocap, read from $KINEMORPH_DATA/motions; skipped when unset)
  and the robot's standing keyframe, with one body scale.
--check only compares (tests/test_mapping.py does the same).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from kinemorph.conventions import LEGS
from kinemorph.mapping.calibrate import calibrate
from kinemorph.mapping.mapping import BodyTask, Mapping
from kinemorph.motion import load_motion
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


# quadrupeds: the base follows the dog's hips (position and orientation), the feet its paws
QUADRUPED_ROLES = {"base": (0, 10, 100, 5), "foot": (50, 0, 50, 0)}
QUADRUPED_TEMPLATES = {"unitree_go2": "base", "unitree_a1": "trunk"}


def quadruped_template(robot: str, legs: tuple[tuple[str, str], ...]) -> Mapping:
    """The dog preset's paws onto the robot's feet (legs: the source's (root, paw) per leg)."""
    root = QUADRUPED_TEMPLATES[robot]
    rows = [(root, "b_Hips", "base")] + [(f"{leg}_foot", paw, "foot") for leg, (_, paw) in zip(LEGS, legs)]
    s1 = tuple(BodyTask(r, s, *map(float, QUADRUPED_ROLES[role][:2])) for r, s, role in rows)
    s2 = tuple(BodyTask(r, s, *map(float, QUADRUPED_ROLES[role][2:])) for r, s, role in rows)
    return Mapping(
        robot_root=root,
        source_root="b_Hips",
        scales={s: 1.0 for _, s, _ in rows},
        stage1=s1,
        stage2=s2,
        source_preset="dog",
        robot=robot,
    )


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


def _write_or_check(mapping: Mapping, path: Path, check: bool) -> int:
    if check:
        same = path.is_file() and Mapping.load(path).to_dict() == mapping.to_dict()
        print(f"  {path.name}: {'up to date' if same else 'DIFFERS'}")
        return 0 if same else 1
    mapping.save(path, force=True)
    print(f"  -> {path}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the shipped files, write nothing")
    args = ap.parse_args()
    motion = calibration_motion()
    status = 0
    for name in TEMPLATES:
        robot = load_robot(name)
        mapping, cal = calibrate(template(name), motion, robot)
        worst = max(cal.snap_deg.items(), key=lambda kv: kv[1])
        print(
            f"{name}: rest frame {cal.frame}, stature {cal.stature:.3f} m, largest offset residual "
            f"{worst[1]:.1f} deg ({worst[0]})"
        )
        status |= _write_or_check(mapping, Path(default_mapping_path(name, "lafan1")), args.check)
    data = os.environ.get("KINEMORPH_DATA")
    if not data:
        print("KINEMORPH_DATA is not set: the quadruped mappings (calibrated on dog_idle.bvh) are skipped")
        return status
    dog = load_motion(Path(data) / "motions" / "dog_idle.bvh")
    for name in QUADRUPED_TEMPLATES:
        robot = load_robot(name)
        mapping, cal = calibrate_quadruped(quadruped_template(name, dog.legs), dog, robot)
        print(
            f"{name}: rest frame {cal.frame}, body scale {mapping.scales['b_Hips']:.3f}, "
            f"base offset residual {max(cal.snap_deg.values()):.1f} deg"
        )
        status |= _write_or_check(mapping, Path(default_mapping_path(name, "dog")), args.check)
    return status


def calibrate_quadruped(template_mapping: Mapping, motion, robot):  # type: ignore[no-untyped-def]
    """calibrate() as the quadrupeds need it: standing keyframe, one body scale."""
    return calibrate(template_mapping, motion, robot, robot_pose="rest", uniform_scale=True)


if __name__ == "__main__":
    sys.exit(main())
