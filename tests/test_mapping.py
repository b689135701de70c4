"""Mappings: GMR's ik_config layout, validation, and calibration of scales and offsets."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import data_path, gmr_reference, robot_or_skip
from kinemorph.errors import KinemorphError, MappingError, UnknownNameError
from kinemorph.mapping.calibrate import GRID, calibrate, snap_rotation
from kinemorph.mapping.mapping import Mapping, load_mapping
from kinemorph.motion import Motion, load_motion
from kinemorph.robots.registry import KNOWN_ROBOTS, default_mapping_path
from kinemorph.transforms import axis_angle_to_quat, quat_angle, quat_mul, quat_rotate

HUMANOIDS = [n for n, r in KNOWN_ROBOTS.items() if r.family == "humanoid"]


def _gmr_like() -> dict:
    return {
        "robot_root_name": "pelvis",
        "human_root_name": "Hips",
        "ground_height": 0.0,
        "human_height_assumption": 1.8,
        "use_ik_match_table1": True,
        "use_ik_match_table2": True,
        "human_scale_table": {"Hips": 0.9, "LeftFootMod": 0.9},
        "ik_match_table1": {"pelvis": ["Hips", 0, 10, [0, 0, 0], [1, 0, 0, 0]]},
        "ik_match_table2": {
            "pelvis": ["Hips", 100, 5, [0, 0, 0], [1, 0, 0, 0]],
            "left_ankle_roll_link": ["LeftFootMod", 50, 10, [0.01, 0, 0], [0.5, 0.5, 0.5, 0.5]],
        },
    }


def test_gmr_layout_round_trips() -> None:
    m = Mapping.from_dict(_gmr_like())
    again = Mapping.from_dict(json.loads(json.dumps(m.to_dict())))
    assert again.to_dict() == m.to_dict()
    assert again.stage2[1].position_offset.tolist() == [0.01, 0.0, 0.0]
    assert again.scales == {"Hips": 0.9, "LeftFootMod": 0.9}


def test_reads_gmr_own_config_unchanged() -> None:
    path = gmr_reference() / "bvh_to_g1.json"
    m = Mapping.load(path)
    raw = json.loads(path.read_text())
    assert m.to_dict()["human_scale_table"] == raw["human_scale_table"]
    assert len(m.stage1) == len(raw["ik_match_table1"]) == 14
    for body, entry in raw["ik_match_table2"].items():
        ours = m.to_dict()["ik_match_table2"][body]
        assert ours[0] == entry[0] and ours[1:3] == entry[1:3]
        np.testing.assert_allclose(ours[4], entry[4], atol=1e-8)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("ik_match_table1"), "missing key"),
        (lambda d: d.update(extra=1), "unknown key"),
        (lambda d: d["ik_match_table2"].update(pelvis=["Hips", 1, 1]), "expected [source body"),
        (lambda d: d["ik_match_table2"]["pelvis"].__setitem__(4, [1, 1, 0, 0]), "not a unit quaternion"),
        (lambda d: d["ik_match_table2"]["pelvis"].__setitem__(1, -1), "weights must be >= 0"),
        (lambda d: d["human_scale_table"].pop("LeftFootMod"), "no entry in human_scale_table"),
        (lambda d: d["human_scale_table"].update(Hips=0), "scales must be positive"),
        (lambda d: d["ik_match_table2"]["pelvis"].__setitem__(1, "a lot"), "must be numbers"),
    ],
)
def test_bad_mapping_is_refused_with_a_message(change, message: str) -> None:  # type: ignore[no-untyped-def]
    d = _gmr_like()
    change(d)
    with pytest.raises(MappingError, match=message.replace("[", r"\[")):
        Mapping.from_dict(d, where="m.json")


def test_invalid_json_names_file_and_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "m.json"
    p.write_text('{\n  "robot_root_name": "pelvis",\n  oops\n}')
    with pytest.raises(MappingError, match=r"m.json:3"):
        Mapping.load(p)


def test_mapping_names_checked_against_robot_and_motion(generated_walk: Motion) -> None:
    robot = robot_or_skip("unitree_g1")
    good = load_mapping("unitree_g1")
    good.check(generated_walk, robot)
    d = good.to_dict()
    d["ik_match_table2"]["no_such_link"] = d["ik_match_table2"].pop("torso_link")
    with pytest.raises(UnknownNameError, match=r"no_such_link.*valid: .*torso_link"):
        Mapping.from_dict(d).check(generated_walk, robot)
    d = good.to_dict()
    d["ik_match_table2"]["torso_link"][0] = "Chest"
    d["human_scale_table"]["Chest"] = 1.0
    with pytest.raises(UnknownNameError, match=r"'Chest'.*valid: .*Spine2"):
        Mapping.from_dict(d).check(generated_walk, robot)


def test_dog_clip_with_a_humanoid_is_refused() -> None:
    robot = robot_or_skip("unitree_g1")
    dog = load_motion(data_path("dog_walk.bvh"))
    with pytest.raises(KinemorphError, match=r"quadruped motion.*humanoid"):
        load_mapping("unitree_g1").check(dog, robot)


def test_snap_rotation_returns_grid_elements() -> None:
    q = quat_mul(GRID[7], axis_angle_to_quat(np.array([0.0, 0.6, 0.8]), 0.2))
    snapped, deg = snap_rotation(q, 35.0)
    assert quat_angle(snapped, GRID[7]) < 1e-9
    assert deg == pytest.approx(np.degrees(0.2), abs=1e-6)
    kept, _ = snap_rotation(q, 5.0)
    assert quat_angle(kept, q) < 1e-9


@pytest.mark.parametrize("robot_name", HUMANOIDS)
def test_shipped_mappings_are_what_calibrate_produces(robot_name: str, generated_walk: Motion) -> None:
    robot = robot_or_skip(robot_name)
    shipped = Mapping.load(default_mapping_path(robot_name, "lafan1"))
    again, cal = calibrate(shipped, generated_walk, robot)
    assert again.to_dict() == shipped.to_dict()
    assert max(cal.snap_deg.values()) < 35.0


@pytest.mark.parametrize("clip", ["walk.bvh", "dance.bvh"])
def test_calibrate_recovers_gmr_hand_set_offsets(clip: str) -> None:
    """GMR's G1 offsets were set by hand; calibrate derives the same 14 from a LAFAN1 clip."""
    robot = robot_or_skip("unitree_g1")
    gmr = Mapping.load(gmr_reference() / "bvh_to_g1.json")
    ours, _ = calibrate(gmr, load_motion(data_path(clip)), robot)
    for a, b in zip(gmr.stage1 + gmr.stage2, ours.stage1 + ours.stage2):
        assert quat_angle(a.rotation_offset, b.rotation_offset) < 1e-6, a.robot_body


def _transformed(motion: Motion, scale: float, yaw: float, shift: np.ndarray) -> Motion:
    """The same motion uniformly scaled, turned about z and moved."""
    q = axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), np.array(yaw))
    local_pos = motion.local_positions * scale
    local_rot = motion.local_rotations.copy()
    local_pos[:, 0] = quat_rotate(q, local_pos[:, 0]) + shift
    local_rot[:, 0] = quat_mul(q, local_rot[:, 0])
    sk = motion.skeleton
    sk = type(sk)(sk.names, sk.parents, sk.offsets * scale, sk.channels, sk.end_sites)
    from kinemorph.motion.presets import PRESETS

    return Motion.from_local(
        sk,
        motion.fps,
        local_rot,
        local_pos,
        virtual=PRESETS["lafan1"].virtual,
        family=motion.family,
        preset=motion.preset,
    )


def test_calibration_ignores_facing_and_position_and_follows_size(generated_walk: Motion) -> None:
    robot = robot_or_skip("unitree_g1")
    template = load_mapping("unitree_g1")
    base, cal = calibrate(template, generated_walk, robot)
    moved, _ = calibrate(template, _transformed(generated_walk, 1.0, 1.1, np.array([3.0, -2.0, 0.0])), robot)
    assert moved.to_dict() == base.to_dict()
    bigger, cal3 = calibrate(template, _transformed(generated_walk, 1.25, 0.0, np.zeros(3)), robot)
    for body, s in base.scales.items():
        assert bigger.scales[body] == pytest.approx(s / 1.25, rel=1e-6)
    assert cal3.stature == pytest.approx(cal.stature * 1.25, rel=1e-9)


@pytest.mark.parametrize("robot_name", [n for n, r in KNOWN_ROBOTS.items() if r.family == "quadruped"])
def test_shipped_quadruped_mappings_are_what_calibrate_produces(robot_name: str) -> None:
    """The dog mappings (plain quadruped mode) come from calibrate on dog_idle.bvh: standing
    keyframe, one body scale (scripts/make_default_mappings.py)."""
    robot = robot_or_skip(robot_name)
    shipped = Mapping.load(default_mapping_path(robot_name, "dog"))
    dog = load_motion(data_path("dog_idle.bvh"))
    again, cal = calibrate(shipped, dog, robot, robot_pose="rest", uniform_scale=True)
    assert again.to_dict() == shipped.to_dict()
    assert len(set(again.scales.values())) == 1
    assert cal.snap_deg[shipped.robot_root] < 35.0
