"""Robot recognition, the automatic mapping and the recognised quadruped legs, on synthetic models
with naming no registry knows, the registered robots and (with KINEMORPH_DATA) H1-2 and A2."""

# ruff: noqa: E501  (inline MJCF/URDF templates read best one element per line)

from __future__ import annotations

import warnings
from pathlib import Path

import mujoco
import numpy as np
import pytest

from conftest import needs_data, needs_menagerie, shared_robot
from kinemorph.cli import main
from kinemorph.quality.proxies import link_proxies
from kinemorph.robots import KNOWN_ROBOTS, load_robot
from kinemorph.robots.geometry import lowest_point_all
from kinemorph.robots.recognise import RecognitionError, recognise_model
from kinemorph.robots.recognised import RobotWarning, require_recognition
from kinemorph.transforms import quat_conj, quat_mul, quat_rotate, quat_to_mat
from robot_cases import box_stl, humanoid_xml, quadruped_xml, write

ARM = """<mujoco><compiler angle="radian"/><worldbody><body name="a" pos="0 0 0">
  <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
  <body name="b" pos="0 0 0.5"><inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
  <joint axis="0 1 0"/><geom size="0.05"/></body></body></worldbody></mujoco>"""
"""A fixed-base arm: no free joint, no legs."""


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
    """A foot point with no shape of its own is the centre of its calf capsule's rounded end (it
    rolls on it like a sphere foot), held on the floor through that end (so holding it and keeping
    the capsule above the floor agree) and measured there."""
    from kinemorph.quality.proxies import link_proxies
    from kinemorph.robots.geometry import collision_geoms

    robot = load_robot(write(tmp_path, "tips.xml", quadruped_xml(spheres=False)))
    prox = link_proxies(robot)
    for foot in robot.feet:
        mine = np.nonzero(prox.body == robot.body_id(foot))[0]
        assert len(mine) == 1 and prox.floor[mine[0]]
        assert prox.radius[mine[0]] == pytest.approx(0.015)  # the calf capsule's radius
        assert np.allclose(prox.p0[mine[0]], 0.0, atol=1e-9)  # the foot point is that end's centre
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

    path = shared_robot("unitree_h1_2/h1_2_handless.xml")
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

    h12 = run_job(RetargetJob(data_path("walk.bvh"), load_robot(shared_robot("unitree_h1_2/h1_2_handless.xml"))))
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

    robot = load_robot(shared_robot("unitree_a2/a2.xml"))
    done = run_job(RetargetJob(data_path("dog_walk.bvh"), robot))
    rep = done.report
    assert done.engine == "quadruped" and rep is not None
    assert rep.limit_violations == 0 and rep.joint_jump_frames == 0
    assert rep.penetration_p95_cm <= 0.5
    assert rep.foot_slip_mean_cm_s < 2.0


# -- what other vendors' models do (ROBOTIS OP3, Berkeley Humanoid, Apptronik Apollo, ANYmal B/C) --


def _child(tmp_path: Path) -> Path:
    """OP3-like: 0.5 m, 2-DoF shoulders, arm links shaped by meshes only (absent), the ankle-roll
    link behind the ankle-pitch one, a head link off the mid-line."""
    xml = humanoid_xml(height=0.5, prefix="c", shoulder_dofs=2, arm_shapes=False, ankle_back=0.3, head_side=0.06)
    return write(tmp_path, "child.xml", xml)


def test_child_robot_parts_with_meshless_arms_side_ankle_links_and_an_offset_head(tmp_path: Path) -> None:
    robot = load_robot(_child(tmp_path))
    rec = robot.recognition
    pos = robot.fk(robot.rest_qpos()).positions[0]
    m = robot.model
    for leg in rec.legs:  # the foot is the link that carries the sole, the toe the one ahead
        foot = robot.body_id(leg.foot)
        assert any(m.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX for g in range(m.ngeom) if m.geom_bodyid[g] == foot)
        assert leg.toe and m.body_parentid[robot.body_id(leg.toe)] == foot
    upper = 0.26 * 0.5 / 1.6
    for arm in rec.arms:  # the elbow ends the upper arm although no shape shows where it points
        gap = np.linalg.norm(pos[robot.body_id(arm.elbow)] - pos[robot.body_id(arm.bodies[0])])
        assert gap == pytest.approx(upper, rel=0.05)
    assert len(rec.head) == 2  # the head chain, its last link off to the side included


def test_orientation_targets_a_limb_cannot_reach_track_position_only(tmp_path: Path) -> None:
    from kinemorph.mapping.auto import auto_template

    weights = {}
    for name, dofs in (("three", 3), ("two", 2)):
        robot = load_robot(write(tmp_path, f"{name}.xml", humanoid_xml(prefix=name[0], shoulder_dofs=dofs)))
        tpl = auto_template(robot)
        weights[dofs] = {t.source_body: t.rotation_weight for t in tpl.stage1}
    assert weights[3]["shoulder_l"] == 100.0 and weights[3]["elbow_l"] == 10.0 and weights[3]["foot_l"] == 10.0
    assert weights[2]["shoulder_l"] == 0.0 and weights[2]["elbow_l"] == 0.0  # 2 + 1 joints: no twist left
    assert weights[2]["foot_l"] == 10.0 and weights[2]["pelvis"] == 10.0


@needs_data
def test_child_robot_walk_keeps_its_trunk_upright(tmp_path: Path) -> None:
    """With a 3-DoF orientation target on a 2-DoF shoulder the IK turned the whole robot (ROBOTIS
    OP3's trunk leaned 80 deg on average); now it walks as the source does."""
    from conftest import data_path
    from kinemorph.pipeline import RetargetJob, run_job

    rep = run_job(RetargetJob(data_path("walk.bvh"), load_robot(_child(tmp_path)))).report
    assert rep is not None
    assert rep.trunk_tilt_mean_deg < 12.0 and rep.limit_violations == 0 and rep.joint_jump_frames == 0
    assert rep.penetration_p95_cm <= 0.5


def test_legs_only_robot_gets_landmarks_on_its_trunk(tmp_path: Path) -> None:
    robot = load_robot(write(tmp_path, "legs.xml", humanoid_xml(prefix="b", arms=False)))
    rec = robot.recognition
    assert rec.arms == () and rec.torso == rec.pelvis and len(rec.trunk_sides) == 2
    assert len(robot.landmarks) == 14
    left, right = rec.trunk_sides
    assert left[1] > 0 > right[1] and left[2] > 0.3  # the trunk's top corners, left is +y


@needs_data
def test_legs_only_robot_walk_holds_its_feet(tmp_path: Path) -> None:
    """Without landmarks the clean-up found no contacts on a legs-only robot and held nothing."""
    from conftest import data_path
    from kinemorph.pipeline import RetargetJob, run_job

    done = run_job(RetargetJob(data_path("walk.bvh"), load_robot(write(tmp_path, "l.xml", humanoid_xml(arms=False)))))
    assert done.result.info["cleanup"]["contact_points"] > 0
    assert done.report is not None and done.report.contact_slip_cm_s < 2.0


def _with_standing_key(path: Path, pitch: float) -> Path:
    """The model with a keyframe 'stand' whose ankle-pitch joints undo a foot pitch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec = load_robot(path).recognition
    spec = mujoco.MjSpec.from_file(str(path))
    model = spec.compile()
    q = model.qpos0.copy()
    for leg in rec.legs:
        ankle = model.body(leg.foot).parentid[0]
        q[model.jnt_qposadr[model.body_jntadr[ankle]]] = -pitch
    spec.add_key(name="stand", qpos=q)
    out = path.with_name(path.stem + "_key.xml")
    out.write_text(spec.to_xml(), encoding="utf-8")
    return out


def test_feet_level_only_in_a_keyframe_get_level_sole_offsets(tmp_path: Path) -> None:
    """Berkeley Humanoid's soles are pitched 10 deg at the zero pose (where calibration measures
    offsets) and level in its crouched keyframe: the foot targets ask for the level sole."""
    from kinemorph.mapping.auto import auto_template, level_feet
    from kinemorph.transforms import quat_rotate

    pitch = np.radians(10.0)
    robot = load_robot(_with_standing_key(write(tmp_path, "p.xml", humanoid_xml(foot_pitch=pitch)), pitch))
    tpl = auto_template(robot)
    out = level_feet(tpl, robot)
    q0 = robot.model.qpos0.copy()
    q0[3:7] = [1.0, 0.0, 0.0, 0.0]
    zero, rest = robot.fk(q0), robot.fk(robot.rest_qpos())
    for before, after in zip(tpl.stage1, out.stage1):
        if before.robot_body not in robot.feet:
            assert np.allclose(before.rotation_offset, after.rotation_offset)
            continue
        b = robot.body_id(before.robot_body)
        up_in_foot = quat_rotate(quat_conj(rest.rotations[0, b]), np.array([0.0, 0.0, 1.0]))
        target = quat_mul(zero.rotations[0, b], after.rotation_offset)  # the target at calibration
        assert quat_rotate(target, up_in_foot)[2] == pytest.approx(1.0, abs=1e-6)
    level = load_robot(write(tmp_path, "lv.xml", humanoid_xml()))
    same = level_feet(auto_template(level), level)
    assert all(np.allclose(a.rotation_offset, [1, 0, 0, 0]) for a in same.stage1)


def test_sole_points_follow_the_feet_up_direction_whatever_their_frame(tmp_path: Path) -> None:
    """A foot frame whose z runs along the foot: heel and toe points still lie on the sole."""
    from kinemorph.retarget.cleanup.schedule import _point_sets

    robot = load_robot(write(tmp_path, "zf.xml", humanoid_xml(foot_frame_z_forward=True)))
    prox = link_proxies(robot)
    pose = robot.fk(robot.rest_qpos())
    for foot in robot.feet:
        b = robot.body_id(foot)
        rot = quat_to_mat(pose.rotations[0, b])
        heel, _, toe, _ = _point_sets(robot, prox, b, rot.T @ np.array([1.0, 0.0, 0.0]))
        world = [pose.positions[0, b] + (rot @ p.T).T for p in (heel, toe)]
        assert np.allclose(np.concatenate(world)[:, 2], 0.0, atol=0.004)  # on the floor at rest
        assert world[1][:, 0].mean() - world[0][:, 0].mean() > 0.1  # toe points ahead of the heel's


def test_geoms_that_never_collide_beside_meshes_give_primitive_collision_shapes(tmp_path: Path) -> None:
    """Apptronik Apollo: every geom has contype = conaffinity = 0 (contacts left to a scene's
    pairs); its primitives are its collision shapes, so its soles are found."""
    robot = load_robot(write(tmp_path, "nc.xml", humanoid_xml(collide=False)))
    rec = robot.recognition
    assert [leg.sole_height for leg in rec.legs] == [pytest.approx(0.07, abs=1e-3)] * 2
    assert any("no geom collides" in w for w in rec.warnings)
    assert abs(lowest_point_all(robot, robot.rest_qpos())[0]) < 1e-6


def test_missing_texture_images_load_and_excluded_pairs_are_not_kept_apart(tmp_path: Path) -> None:
    """ANYmal C: a texture whose image file is absent made the model fail to load (and its link
    proxies fall back to pairs the file excludes, between trunk and thighs)."""
    path = write(tmp_path, "tex.xml", quadruped_xml(texture=True, exclude=True))
    robot = load_robot(path)
    assert robot.family == "quadruped"
    prox = link_proxies(robot)
    trunk = robot.body_id(robot.root_body)
    thighs = {robot.body_id(t) for t, _ in robot.legs}
    pair_bodies = {frozenset((int(prox.body[i]), int(prox.body[j]))) for i, j in prox.pairs}
    assert not any(frozenset((trunk, t)) in pair_bodies for t in thighs)
    assert main(["robots", "--describe", str(path)]) == 0


def test_box_corners_are_checked_against_the_floor(tmp_path: Path) -> None:
    """ANYmal B's shank boxes: their corners reach past the capsule around them; the floor points
    cover the box's true lowest point at any tilt."""
    from kinemorph.quality.proxies import clip_lowest
    from kinemorph.robots.geometry import geom_lowest_z

    robot = load_robot(write(tmp_path, "box.xml", quadruped_xml(box_shanks=True)))
    m = robot.model
    boxes = np.array(
        [g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX and m.geom_bodyid[g] > 1]
    )
    q = np.tile(robot.rest_qpos(), (12, 1))
    q[:, 3:7] = [[np.cos(a / 2), 0.0, np.sin(a / 2), 0.0] for a in np.linspace(0.0, 1.2, 12)]  # pitched
    prox = link_proxies(robot)
    low = clip_lowest(robot, prox, q)
    for g in boxes:  # the box's own proxies (its capsule and its corner points)
        label = f"{robot.body_names[m.geom_bodyid[g]]}/{m.geom(g).name}"
        mine = [i for i, name in enumerate(prox.names) if name == label or name.startswith(label + ":")]
        true = geom_lowest_z(robot, q, np.array([g]))[:, 0]
        assert len(mine) > 1 and np.all(low[:, mine].min(axis=1) <= true + 1e-3)


def test_the_root_keeps_up_with_an_engine_faster_than_the_root_speed_cap(tmp_path: Path) -> None:
    """A large quadruped's run moves its root faster than max_root_speed (4 m/s): the clean-up
    follows the engine instead of lagging behind it (ANYmal C's feet were dragged)."""
    from kinemorph.retarget.cleanup import CleanupConfig, cleanup
    from kinemorph.robots.robot_motion import RobotMotion

    robot = load_robot(write(tmp_path, "fast.xml", quadruped_xml()))
    fps, frames = 30.0, 30
    q = np.tile(robot.rest_qpos(), (frames, 1))
    q[:, 0] = 6.0 * np.arange(frames) / fps  # [m] at 6 m/s
    out = cleanup(RobotMotion.from_qpos(robot.name, fps, q, robot.dof_names), robot, None, config=CleanupConfig())
    assert np.abs(out.root_pos[:, 0] - q[:, 0]).max() < 0.01


def test_a_foot_whose_mesh_file_is_absent_stands_on_the_box_of_its_inertia(tmp_path: Path) -> None:
    """Fourier N1's soles are collision meshes: without the files the robot stood on its ankles."""
    plain = load_robot(write(tmp_path, "box.xml", humanoid_xml(prefix="n", toes=False))).recognition
    with pytest.warns(RobotWarning, match="mesh files cannot be read"):
        robot = load_robot(write(tmp_path, "mesh.xml", humanoid_xml(prefix="n", toes=False, foot_mesh=True)))
    rec = robot.recognition
    assert any("stands on its inertia's box" in w for w in rec.warnings)
    for leg, ref in zip(rec.legs, plain.legs):
        assert leg.sole_height == pytest.approx(ref.sole_height, abs=1e-3)
        assert leg.toe_offset[0] == pytest.approx(ref.toe_offset[0], abs=2e-3)
    mass = robot.model.body_mass[robot.body_id(rec.legs[0].foot)]
    assert mass == pytest.approx(0.5)  # the added box has no mass of its own


@pytest.mark.parametrize("facing", [np.pi / 2, np.pi, -np.pi / 2])
def test_a_robot_whose_frame_faces_another_way_is_turned_to_face_x(tmp_path: Path, facing: float) -> None:
    """Its knees bend its shanks backward, so the way it faces is known: the rest pose is turned
    (left is +y again) instead of left and right being taken for front and back."""
    robot = load_robot(write(tmp_path, "turned.xml", humanoid_xml(prefix="t", facing=facing)))
    rec = robot.recognition
    assert any("its rest pose is turned to face +x" in w for w in rec.warnings)
    pose = robot.fk(robot.rest_qpos()).positions[0]
    left, right = (pose[robot.body_id(leg.foot)] for leg in rec.legs)
    assert left[1] - right[1] == pytest.approx(2 * 0.09, abs=0.01) and abs(left[0] - right[0]) < 0.01
    for leg in rec.legs:  # the sole's front is ahead of the ankle, along +x
        toe = pose[robot.body_id(leg.foot)] + quat_rotate(
            robot.fk(robot.rest_qpos()).rotations[0, robot.body_id(leg.foot)], np.array(leg.toe_offset)
        )
        assert toe[0] - pose[robot.body_id(leg.foot), 0] > 0.05
    plain = load_robot(write(tmp_path, "plain.xml", humanoid_xml(prefix="t"))).recognition
    assert [leg.knee for leg in rec.legs] == [leg.knee for leg in plain.legs]
    assert not any("turned" in w for w in plain.warnings)


@needs_data
def test_a_robot_facing_y_in_its_frame_retargets_like_one_facing_x(tmp_path: Path) -> None:
    from conftest import data_path
    from kinemorph.pipeline import RetargetJob, run_job

    reps = [
        run_job(
            RetargetJob(data_path("walk.bvh"), load_robot(write(tmp_path, f"f{k}.xml", humanoid_xml(facing=f))))
        ).report
        for k, f in enumerate((0.0, np.pi / 2))
    ]
    assert all(r is not None for r in reps)
    x, y = reps
    assert y.tracking_error_mean_cm == pytest.approx(x.tracking_error_mean_cm, rel=0.1)
    assert y.trunk_tilt_mean_deg == pytest.approx(x.trunk_tilt_mean_deg, abs=2.0)
    assert y.foot_slip_mean_cm_s <= 1.2 * x.foot_slip_mean_cm_s + 0.5


def test_a_quadruped_lying_flat_at_zero_has_its_legs_hung_down_to_be_recognised(tmp_path: Path) -> None:
    """Google Barkour's URDF: at the zero pose the legs stretch out level with the trunk."""
    robot = load_robot(write(tmp_path, "flat.xml", quadruped_xml(flat=True)))
    assert robot.family == "quadruped" and robot.feet == ("FL_foot", "FR_foot", "RL_foot", "RR_foot")
    pos = robot.fk(robot.rest_qpos()).positions[0]
    hips = np.array([pos[robot.body_id(h)] for h, _ in robot.legs])
    feet = np.array([pos[robot.body_id(f)] for _, f in robot.legs])
    assert np.allclose(feet[:, 0], hips[:, 0], atol=0.02) and np.all(hips[:, 2] - feet[:, 2] > 0.2)


def test_retargeting_onto_a_model_recognition_failed_on_names_the_recognition_error(tmp_path: Path) -> None:
    """Not 'robot X is a humanoid' (a guess from its body names) but why it was not recognised."""
    from kinemorph.robots.recognise import RecognitionError

    robot = load_robot(write(tmp_path, "one.xml", humanoid_xml(legs=1)))
    assert robot.recognition_error
    dog = type("DogClip", (), {"family": "quadruped", "preset": "dog", "source": "dog.bvh"})()  # a Motion's fields
    with pytest.raises(RecognitionError, match="one leg"):
        robot.check_motion(dog)


QUAD_URDF_LEG = """
  <link name="{n}_hip"><inertial><mass value="0.5"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="{n}_abd" type="revolute"><parent link="trunk"/><child link="{n}_hip"/><origin xyz="{x} {y} 0"/><axis xyz="1 0 0"/><limit lower="-0.8" upper="0.8" effort="1" velocity="1"/></joint>
  <link name="{n}_thigh"><inertial><origin xyz="0 0 -0.12"/><mass value="1"/><inertia ixx="5e-3" iyy="5e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="package://q/meshes/thigh.stl"/></geometry></collision></link>
  <joint name="{n}_pitch" type="revolute"><parent link="{n}_hip"/><child link="{n}_thigh"/><axis xyz="0 1 0"/><limit lower="-1.5" upper="3.4" effort="1" velocity="1"/></joint>
  <link name="{n}_calf"><inertial><origin xyz="0 0 -0.1"/><mass value="0.3"/><inertia ixx="2e-3" iyy="2e-3" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="package://q/meshes/calf.stl"/></geometry></collision></link>
  <joint name="{n}_knee" type="revolute"><parent link="{n}_thigh"/><child link="{n}_calf"/><origin xyz="0 0 -0.25"/><axis xyz="0 1 0"/><limit lower="-2.7" upper="-0.8" effort="1" velocity="1"/></joint>
  <link name="{n}_toe"/>
  <joint name="{n}_toe_fixed" type="fixed"><parent link="{n}_calf"/><child link="{n}_toe"/><origin xyz="0 0 -0.25"/></joint>"""


def test_a_urdf_foot_frame_on_a_fixed_joint_is_the_foot(tmp_path: Path) -> None:
    """URDF links on fixed joints stay bodies (MuJoCo fuses them by default): Google Barkour's feet
    are such frames at the calf tips, and its calves' only shapes are absent meshes."""
    legs = "".join(
        QUAD_URDF_LEG.format(n=n, x=x, y=y)
        for n, x, y in (("a", 0.3, 0.1), ("b", 0.3, -0.1), ("c", -0.3, 0.1), ("d", -0.3, -0.1))
    )
    trunk = '<link name="trunk"><inertial><mass value="8"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
    path = write(tmp_path, "q.urdf", f'<robot name="q">{trunk}{legs}</robot>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobotWarning)
        robot = load_robot(path)
    assert robot.family == "quadruped"
    assert robot.feet == ("a_toe", "b_toe", "c_toe", "d_toe")
    pose = robot.fk(robot.rest_qpos())
    assert np.allclose(pose.positions[0, [robot.body_id(f) for f in robot.feet], 2], 0.0, atol=1e-6)


def test_a_static_body_before_the_robot_does_not_get_the_floating_base(tmp_path: Path) -> None:
    """A model without a free joint whose first top-level body is a stand or a marker: the free
    joint goes on the body that carries the robot (the most joints below it)."""
    text = humanoid_xml(prefix="s", free=False).replace(
        "<worldbody>", '<worldbody><body name="stand" pos="2 0 0.01"><geom type="box" size="0.1 0.1 0.01"/></body>', 1
    )
    robot = load_robot(write(tmp_path, "stand.xml", text))
    assert robot.root_body == "s_base" and robot.family == "humanoid"
