"""Robot recognition, the automatic mapping and the recognised quadruped legs, on synthetic models
with naming no registry knows, the registered robots and (with KINEMORPH_DATA) H1-2 and A2."""

# ruff: noqa: E501  (inline MJCF/URDF templates read best one element per line)

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import needs_data, needs_menagerie
from kinemorph.cli import main
from kinemorph.robots import KNOWN_ROBOTS, load_robot
from kinemorph.robots.geometry import lowest_point_all
from kinemorph.robots.recognise import RecognitionError, recognise_model
from kinemorph.robots.recognised import RobotWarning, require_recognition
from robot_cases import box_stl, humanoid_xml, quadruped_xml, write

ARM = """<mujoco><compiler angle="radian"/><worldbody><body name="a" pos="0 0 0">
  <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
  <body name="b" pos="0 0 0.5"><inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
  <joint axis="0 1 0"/><geom size="0.05"/></body></body></worldbody></mujoco>"""
"""A fixed-base arm: no free joint, no legs."""


def _shared_robot(rel: str) -> Path:
    root = os.environ.get("KINEMORPH_DATA")
    if not root:
        pytest.skip("KINEMORPH_DATA is not set (its ../robots holds the unseen models)")
    path = Path(root).parent / "robots" / rel
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


@pytest.mark.parametrize("height", [0.8, 1.6, 1.9])
def test_synthetic_humanoid_parts_found_without_names(tmp_path: Path, height: float) -> None:
    robot = load_robot(write(tmp_path, "h.xml", humanoid_xml(height=height, prefix="q")))
    rec = robot.recognition
    assert rec.family == "humanoid" and robot.family == "humanoid"
    # bodies are numbered in file order: per leg hip chain 3, thigh, shank, ankle 2 (toe first)
    left, right = rec.legs
    pos = robot.fk(robot.rest_qpos()).positions[0]
    assert pos[robot.body_id(left.foot), 1] > 0 > pos[robot.body_id(right.foot), 1]  # left is +y
    for leg in rec.legs:  # the knee is halfway between hip and ankle
        hip, knee, foot = (pos[robot.body_id(b), 2] for b in (leg.bodies[0], leg.knee, leg.foot))
        assert abs((hip - knee) - (knee - foot)) < 0.02 * height
        assert leg.toe  # the toe body past the foot
        assert leg.sole_height == pytest.approx(0.07 * height / 1.6, abs=1e-3)
    for arm in rec.arms:
        assert arm.wrist and arm.elbow != arm.shoulder
    assert rec.head and rec.torso
    # rest pose: on the floor, joints within limits
    assert abs(lowest_point_all(robot, robot.rest_qpos())[0]) < 1e-6
    dof = robot.rest_qpos()[7:]
    assert np.all(dof >= robot.lower - 1e-9) and np.all(dof <= robot.upper + 1e-9)


def test_hands_with_fingers_end_the_arm_at_the_palm(tmp_path: Path) -> None:
    plain = load_robot(write(tmp_path, "a.xml", humanoid_xml(prefix="f"))).recognition
    robot = load_robot(write(tmp_path, "b.xml", humanoid_xml(prefix="f", fingers=True)))
    rec = robot.recognition
    for arm, ref in zip(rec.arms, plain.arms):
        assert robot.model.body(arm.wrist).jntnum == 1 and len(arm.bodies) == len(ref.bodies)
        pos = robot.fk(robot.rest_qpos()).positions[0]
        shoulder, elbow, wrist = (pos[robot.body_id(b), 2] for b in (arm.bodies[0], arm.elbow, arm.wrist))
        assert shoulder > elbow > wrist


def test_cli_gallery_lists_folders_and_describe_prints_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "kid").mkdir()
    write(tmp_path / "kid", "kid.xml", humanoid_xml(height=0.7, prefix="k"))
    write(tmp_path, "dog.xml", quadruped_xml())
    write(tmp_path, "scene.xml", "<mujoco/>")
    monkeypatch.setenv("KINEMORPH_ROBOTS", str(tmp_path))
    assert main(["robots"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if "KINEMORPH_ROBOTS" in line}
    assert rows["kid"][2:4] == ["humanoid", "26"] and rows["dog"][2:4] == ["quadruped", "12"]
    assert "scene" not in rows
    assert main(["robots", "--describe", str(tmp_path / "dog.xml")]) == 0
    out = capsys.readouterr().out
    assert "leg FL" in out and "leg RR" in out and "knees bent" in out


def test_app_offers_the_gallery_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kinemorph.app.sources import Sources
    from kinemorph.app.state import AppState
    from kinemorph.cli.app import _gallery_models

    kid = write(tmp_path, "kid.xml", humanoid_xml(height=0.7, prefix="k"))
    write(tmp_path, "not_a_robot.xml", "<mujoco><worldbody><geom type='plane' size='1 1 1'/></worldbody></mujoco>")
    monkeypatch.setenv("KINEMORPH_ROBOTS", str(tmp_path))
    models = _gallery_models([])
    assert kid in models and all(p.name != "not_a_robot.xml" for p in models)
    state = AppState(sources=Sources(robot_models=tuple(models)))
    assert "model:kid.xml" in [c.key for c in state.robot_choices()]
    assert state.select_robot("model:kid.xml").family == "humanoid"


def test_synthetic_quadruped_legs_and_standing_pose(tmp_path: Path) -> None:
    for spheres in (True, False):
        robot = load_robot(write(tmp_path, f"q{spheres}.xml", quadruped_xml(spheres=spheres, length=0.8, leg=0.3)))
        assert robot.family == "quadruped"
        assert robot.feet == ("FL_foot", "FR_foot", "RL_foot", "RR_foot")
        q = robot.rest_qpos()
        pos = robot.fk(q).positions[0]
        hips = np.array([pos[robot.body_id(h)] for h, _ in robot.legs])
        feet = np.array([pos[robot.body_id(f)] for _, f in robot.legs])
        assert np.all(hips[:2, 0] > 0) and np.all(hips[2:, 0] < 0)  # front legs ahead
        assert np.all(hips[[0, 2], 1] > 0) and np.all(hips[[1, 3], 1] < 0)  # left is +y
        assert np.allclose(feet[:, 0], hips[:, 0], atol=0.02)  # feet under the hips
        assert np.all(hips[:, 2] - feet[:, 2] < 0.8 * 0.6)  # knees bent
        assert abs(lowest_point_all(robot, q)[0]) < 1e-6


def test_a_bare_calf_tip_stands_on_the_calf_capsule_end(tmp_path: Path) -> None:
    """A foot point with no shape of its own is held on the floor through the rounded end of its
    calf's capsule (so holding it and keeping the capsule above the floor agree) and measured there."""
    from kinemorph.quality.proxies import link_proxies
    from kinemorph.robots.geometry import collision_geoms

    robot = load_robot(write(tmp_path, "tips.xml", quadruped_xml(spheres=False)))
    prox = link_proxies(robot)
    for foot in robot.feet:
        mine = np.nonzero(prox.body == robot.body_id(foot))[0]
        assert len(mine) == 1 and prox.floor[mine[0]]
        assert prox.radius[mine[0]] == pytest.approx(0.015)  # the calf capsule's radius
        assert np.allclose(prox.p0[mine[0]], [0, 0, 0.015], atol=1e-9)  # its end's centre, in the foot frame
        calf = robot.body_names[int(robot.model.body_parentid[robot.body_id(foot)])]
        assert set(collision_geoms(robot, foot)) == set(collision_geoms(robot, calf))


@needs_menagerie
@pytest.mark.parametrize("name", list(KNOWN_ROBOTS))
def test_registered_robots_recognised_as_the_registry_says(name: str) -> None:
    robot = load_robot(name)
    rec = recognise_model(robot.model, where=name)
    assert rec.family == robot.family
    if rec.family == "quadruped":
        assert tuple((q.thigh, q.foot or q.calf) for q in rec.quad_legs) == robot.legs
    else:
        assert rec.feet == robot.feet
        knees = {b for b, _ in robot.landmarks[8:10]}
        assert {leg.knee for leg in rec.legs} == knees


def test_bad_models_one_clear_error(tmp_path: Path) -> None:
    arm = ARM
    with pytest.raises(RecognitionError, match="no floating base and no legs"):
        require_recognition(load_robot(write(tmp_path, "arm.xml", arm)))
    with pytest.raises(RecognitionError, match="left and right cannot be told apart"):
        require_recognition(load_robot(write(tmp_path, "same_side.xml", humanoid_xml(hip_width=0.0))))
    assert main(["robots", "--describe", str(tmp_path / "arm.xml")]) == 2


@needs_data
def test_retarget_onto_a_model_without_legs_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conftest import data_path

    arm = write(tmp_path, "arm.xml", ARM)
    argv = ["retarget", str(data_path("walk.bvh")), "--robot", str(arm), "-o", str(tmp_path / "o.npz"), "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no floating base and no legs" in err[0]
    assert not (tmp_path / "o.npz").exists()


def test_one_leg_refused(tmp_path: Path) -> None:
    with pytest.raises(RecognitionError, match="one leg"):
        require_recognition(load_robot(write(tmp_path, "one_leg.xml", humanoid_xml(legs=1))))


URDF = """<robot name="r">
  <link name="base"><collision><geometry><mesh filename="package://r/meshes/base.stl"/></geometry></collision>
    <inertial><mass value="5"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  {legs}
</robot>"""
LEG = """
  <link name="{s}a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="{s}j1" type="revolute"><parent link="base"/><child link="{s}a"/><origin xyz="0 {y} -0.05"/><axis xyz="0 1 0"/><limit lower="-2" upper="1" effort="1" velocity="1"/></joint>
  <link name="{s}b"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="{s}j2" type="revolute"><parent link="{s}a"/><child link="{s}b"/><origin xyz="0 0 -0.3"/><axis xyz="0 1 0"/><limit lower="0" upper="2" effort="1" velocity="1"/></joint>
  <link name="{s}c"><collision><origin xyz="0.03 0 -0.03"/><geometry><box size="0.15 0.06 0.02"/></geometry></collision>
    <inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="{s}j3" type="revolute"><parent link="{s}b"/><child link="{s}c"/><origin xyz="0 0 -0.3"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>"""


def test_urdf_with_missing_meshes_loads_kinematics_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "r.urdf", URDF.format(legs=LEG.format(s="p", y=0.1) + LEG.format(s="q", y=-0.1)))
    with pytest.warns(RobotWarning, match="mesh files cannot be read"):
        robot = load_robot(path, meshes=True)
    assert robot.family == "humanoid" and robot.feet == ("pc", "qc")
    assert robot.recognition.arms == ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["robots", "--describe", str(path)]) == 0


def test_urdf_package_meshes_found_beside_the_model_give_the_soles(tmp_path: Path) -> None:
    box_stl(tmp_path / "r" / "meshes" / "foot.stl", (-0.05, -0.03, -0.06), (0.12, 0.03, -0.02))
    box = '<collision><origin xyz="0.03 0 -0.03"/><geometry><box size="0.15 0.06 0.02"/></geometry></collision>'
    mesh = '<collision><geometry><mesh filename="package://r/meshes/foot.stl"/></geometry></collision>'
    legs = LEG.replace(box, mesh)
    text = URDF.replace(
        '<collision><geometry><mesh filename="package://r/meshes/base.stl"/></geometry></collision>', ""
    )
    (tmp_path / "r" / "urdf").mkdir()
    path = write(
        tmp_path / "r" / "urdf", "r.urdf", text.format(legs=legs.format(s="p", y=0.1) + legs.format(s="q", y=-0.1))
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobotWarning)
        rec = load_robot(path).recognition
    assert [leg.sole_height for leg in rec.legs] == [pytest.approx(0.06, abs=1e-4)] * 2  # the mesh's bottom
    assert rec.legs[0].toe_offset[0] == pytest.approx(0.12, abs=1e-4)


@needs_data
def test_h1_2_recognised_and_retargeted_with_no_mapping(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import data_path

    path = _shared_robot("unitree_h1_2/h1_2_handless.xml")
    robot = load_robot(path)
    rec = robot.recognition
    assert [leg.foot for leg in rec.legs] == ["left_ankle_roll_link", "right_ankle_roll_link"]
    assert [a.elbow for a in rec.arms] == ["left_elbow_link", "right_elbow_link"]
    assert rec.legs[0].sole_height > 0.03  # the foot's collision mesh was kept: the sole is under it
    out, mapping = tmp_path / "h12.npz", tmp_path / "map.json"
    argv = ["retarget", str(data_path("dance.bvh")), "--robot", str(path), "-o", str(out), "--quiet"]
    assert main([*argv, "--save-mapping", str(mapping), "--report", str(tmp_path / "q.json")]) == 0
    import json

    q = json.loads((tmp_path / "q.json").read_text())
    q = q.get("metrics", q)
    assert q["limit_violations"] == 0 and q["joint_jump_frames"] == 0
    assert q["penetration_p95_cm"] <= 0.5
    saved = json.loads(mapping.read_text())
    assert set(saved["ik_match_table1"]) >= {"pelvis", "left_knee_link", "right_wrist_yaw_link"}
    # a mapping naming a body the robot lacks: one line, exit 2
    saved["ik_match_table2"]["no_such_link"] = saved["ik_match_table2"]["pelvis"]
    bad = write(tmp_path, "bad.json", json.dumps(saved))
    capsys.readouterr()
    assert main([*argv, "--force", "--mapping", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no_such_link" in err[0]


@needs_data
def test_h1_2_walk_meets_the_quality_targets_with_its_mesh_feet() -> None:
    """The walk onto H1-2 (mesh-only feet) from its model file: no joint-limit violation, no jump,
    floor penetration p95 <= 0.5 cm and foot slip no worse than G1's with its shipped mapping."""
    from conftest import data_path
    from kinemorph.pipeline import RetargetJob, run_job

    h12 = run_job(RetargetJob(data_path("walk.bvh"), load_robot(_shared_robot("unitree_h1_2/h1_2_handless.xml"))))
    g1 = run_job(RetargetJob(data_path("walk.bvh"), "unitree_g1"))
    rep, ref = h12.report, g1.report
    assert rep is not None and ref is not None
    assert rep.limit_violations == 0 and rep.joint_jump_frames == 0
    assert rep.penetration_p95_cm <= 0.5
    assert rep.foot_slip_mean_cm_s <= ref.foot_slip_mean_cm_s


@needs_data
def test_a2_dog_walk_natural_planner_on_recognised_legs() -> None:
    from conftest import data_path
    from kinemorph.pipeline import RetargetJob, run_job

    robot = load_robot(_shared_robot("unitree_a2/a2.xml"))
    done = run_job(RetargetJob(data_path("dog_walk.bvh"), robot))
    rep = done.report
    assert done.engine == "quadruped" and rep is not None
    assert rep.limit_violations == 0 and rep.joint_jump_frames == 0
    assert rep.penetration_p95_cm <= 0.5
    assert rep.foot_slip_mean_cm_s < 2.0
