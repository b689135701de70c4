"""The clean-up stage (kinemorph.retarget.cleanup) and the metrics it is judged by."""

from __future__ import annotations

from dataclasses import replace

import mujoco
import numpy as np
import pytest

from conftest import data_path, robot_or_skip
from kinemorph.errors import ConfigError
from kinemorph.motion.procedural import procedural_stand, procedural_walk
from kinemorph.quality import (
    body_penetration,
    contact_slip,
    evaluate,
    joint_jerk_rms_resampled,
    joint_speed,
    self_collision,
)
from kinemorph.quality._capsules import segment_closest
from kinemorph.quality.proxies import clip_self_distances
from kinemorph.quality.relations import robot_landmarks, source_landmarks, srp
from kinemorph.retarget import retarget
from kinemorph.retarget.cleanup import CleanupConfig, cleanup, link_proxies
from kinemorph.retarget.cleanup.jacobians import point_jacobian
from kinemorph.retarget.cleanup.stage import GRAVITY, _ballistic
from kinemorph.retarget.ik import build_ik_model, kinematics, task_chains
from kinemorph.robots.robot import Robot
from kinemorph.robots.robot_motion import RobotMotion


@pytest.fixture(scope="module")
def g1() -> Robot:
    return robot_or_skip("unitree_g1")


@pytest.fixture(scope="module")
def walk_g1(g1: Robot, generated_walk):  # type: ignore[no-untyped-def]
    gmr = retarget(generated_walk, g1, engine="gmr")
    return gmr, cleanup(gmr, g1, generated_walk)


def _still(robot: Robot, frames: int = 30, fps: float = 30.0) -> RobotMotion:
    q = np.tile(robot.rest_qpos(), (frames, 1))
    return RobotMotion.from_qpos(robot.name, fps, q, robot.dof_names)


# -- geometry ---------------------------------------------------------------------------------


def test_segment_closest_points_match_a_dense_search() -> None:
    rng = np.random.default_rng(0)
    s = np.linspace(0, 1, 201)
    for _ in range(20):
        a0, a1, b0, b1 = rng.normal(size=(4, 3))
        pa, pb = np.empty(3), np.empty(3)
        segment_closest(a0, a1, b0, b1, pa, pb)
        pts_a = a0 + s[:, None] * (a1 - a0)
        pts_b = b0 + s[:, None] * (b1 - b0)
        brute = np.linalg.norm(pts_a[:, None] - pts_b[None], axis=-1).min()
        assert np.linalg.norm(pa - pb) <= brute + 1e-12
        assert np.linalg.norm(pa - pb) >= brute - 1e-2


def test_point_jacobian_matches_mujoco(g1: Robot) -> None:
    data = mujoco.MjData(g1.model)
    ik = build_ik_model(g1.model, data)
    rng = np.random.default_rng(1)
    q = g1.rest_qpos()
    q[7:] += rng.uniform(-0.3, 0.3, g1.num_dofs)
    q[3:7] = [0.9, 0.1, -0.2, 0.3]
    q[3:7] /= np.linalg.norm(q[3:7])
    data.qpos[:] = q
    kinematics(ik.model_addr, ik.data_addr)
    mujoco.mj_comPos(g1.model, data)
    b = g1.body_id("left_wrist_yaw_link")
    chains, counts = task_chains(ik, np.array([b]))
    p = data.xpos[b] + data.xmat[b].reshape(3, 3) @ np.array([0.05, -0.02, 0.01])
    ours = np.zeros((3, g1.nv))
    point_jacobian(ik, chains[0], counts[0], b, p, ours)
    ref = np.zeros((3, g1.nv))
    mujoco.mj_jac(g1.model, data, ref, None, p, b)
    np.testing.assert_allclose(ours, ref, atol=1e-10)


def test_proxies_cover_every_link_and_skip_neighbours(g1: Robot) -> None:
    prox = link_proxies(g1)
    bodies = {g1.body_names[int(b)] for b in prox.body}
    assert {"pelvis", "torso_link", "left_knee_link", "right_elbow_link", "left_wrist_yaw_link"} <= bodies
    parent = g1.model.body_parentid
    for i, j in prox.pairs:
        a, b = int(prox.body[i]), int(prox.body[j])
        assert a != b and parent[a] != b and parent[b] != a
    rest = clip_self_distances(g1, prox, g1.rest_qpos()[None])
    assert rest.min() > 0.0  # pairs touching at rest are not checked


def test_self_collision_finds_a_hand_pushed_into_the_hip(g1: Robot) -> None:
    m = _still(g1, 3)
    q = m.dof_pos.copy()
    q[1, g1.dof_names.index("left_shoulder_roll_joint")] = -0.6  # arm swung in across the body
    q[1, g1.dof_names.index("left_elbow_joint")] = 0.0
    hit = self_collision(replace(m, dof_pos=q), g1)
    assert hit.touching_frames >= 1 and hit.max_depth_cm > 0.0
    assert self_collision(m, g1).touching_frames == 0


def test_body_penetration_measures_any_link(g1: Robot) -> None:
    m = _still(g1, 4)
    low = m.root_pos.copy()
    low[2:, 2] -= 0.05  # the whole robot 5 cm down: its feet go 5 cm into the floor
    pen = body_penetration(replace(m, root_pos=low), g1)
    base = body_penetration(m, g1)
    assert pen.deep_frames == 2 and pen.max_cm == pytest.approx(base.max_cm + 5.0, abs=0.05)


def test_contact_slip_is_the_speed_of_geoms_on_the_floor(g1: Robot) -> None:
    m = _still(g1, 30)
    slide = m.root_pos.copy()
    slide[:, 0] += 0.1 * np.arange(30) / 30.0  # 10 cm/s along x, feet on the floor
    s = contact_slip(replace(m, root_pos=slide), g1)
    assert s.mean_cm_s == pytest.approx(10.0, rel=1e-6)
    assert contact_slip(m, g1).mean_cm_s == pytest.approx(0.0, abs=1e-9)


def test_joint_speed_counts_fast_transitions_in_rad_per_s(g1: Robot) -> None:
    m = _still(g1, 10)
    q = m.dof_pos.copy()
    q[5:, 0] += 0.3  # 0.3 rad in one frame at 30 fps: 9 rad/s
    s = joint_speed(replace(m, dof_pos=q))
    assert s.fast_frames == 1 and s.max_rad_s == pytest.approx(9.0) and s.fastest_joint == g1.dof_names[0]
    at_120 = replace(m, fps=120.0, dof_pos=q)
    assert joint_speed(at_120).max_rad_s == pytest.approx(36.0)


def test_jerk_at_30_hz_is_the_same_for_a_30_and_a_120_fps_copy(g1: Robot) -> None:
    t30 = np.arange(60) / 30.0
    t120 = np.arange(237) / 120.0
    base = _still(g1, 60)
    q30 = base.dof_pos.copy()
    q30[:, 3] += np.sin(3 * t30) + 0.2 * np.sin(11 * t30)
    fine = np.tile(g1.rest_qpos()[7:], (237, 1))
    fine[:, 3] = np.interp(t120, t30, q30[:, 3])  # the 30 fps copy, upsampled
    m30 = replace(base, dof_pos=q30)
    q120 = RobotMotion.from_qpos(g1.name, 120.0, np.tile(g1.rest_qpos(), (237, 1)), g1.dof_names)
    m120 = replace(q120, dof_pos=fine)
    assert joint_jerk_rms_resampled(m120) == pytest.approx(joint_jerk_rms_resampled(m30), rel=1e-9)


# -- the stage on the generated walk ------------------------------------------------------------


def test_cleanup_plants_feet_and_removes_collisions_on_the_generated_walk(walk_g1, g1: Robot) -> None:  # type: ignore[no-untyped-def]
    gmr, clean = walk_g1
    q0, q = evaluate(gmr, g1), evaluate(clean, g1)
    assert q.contact_slip_cm_s <= 1.0 < q0.contact_slip_cm_s
    assert q.self_collision_deep_frames == 0 < q0.self_collision_deep_frames
    assert q.floor_penetration_max_cm <= 1.0
    assert q.fast_joint_frames == 0 < q0.fast_joint_frames
    assert q.limit_violations == 0


def test_cleanup_keeps_relations_and_reports_its_schedule(walk_g1, g1: Robot, generated_walk) -> None:  # type: ignore[no-untyped-def]
    gmr, clean = walk_g1
    src = source_landmarks(generated_walk)
    before = np.median(srp(src, robot_landmarks(g1, gmr)))
    after = np.median(srp(src, robot_landmarks(g1, clean)))
    assert after >= before - 0.005
    info = clean.info["cleanup"]
    assert info["contact_points"] > 0 and info["self_pairs"] > 0 and not info["warnings"]
    assert clean.contacts is not None and clean.contact_bodies[:2] == g1.feet
    assert clean.contacts[:, :2].any(axis=1).mean() > 0.9  # a walk always has a foot down
    assert clean.settings["cleanup"]["speed_limit"] == CleanupConfig().speed_limit


def test_cleanup_holds_feet_alike_at_120_fps(g1: Robot) -> None:
    walk = procedural_walk(duration=6.0, fps=120.0)
    q = evaluate(cleanup(retarget(walk, g1, engine="gmr"), g1, walk), g1)
    assert q.contact_slip_cm_s <= 1.0 and q.fast_joint_frames == 0
    assert q.self_collision_deep_frames == 0 and q.floor_penetration_max_cm <= 1.0


def test_cleanup_leaves_the_robot_and_the_input_unchanged(g1: Robot, generated_walk) -> None:  # type: ignore[no-untyped-def]
    gmr = retarget(generated_walk, g1, engine="gmr")
    copy = gmr.qpos.copy()
    data_q = g1.data.qpos.copy()
    ranges = g1.model.jnt_range.copy()
    cleanup(gmr, g1, generated_walk)
    np.testing.assert_array_equal(gmr.qpos, copy)
    np.testing.assert_array_equal(g1.data.qpos, data_q)
    np.testing.assert_array_equal(g1.model.jnt_range, ranges)


def test_a_clip_in_the_air_warns_and_locks_nothing(g1: Robot) -> None:
    stand = procedural_stand(duration=1.0)
    flying = replace(stand, positions=stand.positions + np.array([0.0, 0.0, 2.0]))
    flying = replace(flying, positions=flying.positions + np.sin(np.arange(30))[:, None, None] * 0.2)
    gmr = _still(g1, 30)
    out = cleanup(gmr, g1, flying)
    assert out.info["cleanup"]["contact_points"] == 0
    assert any("no contacts" in w for w in out.solve_info.warnings)


def test_feet_planted_out_of_reach_relax_with_a_residual(g1: Robot) -> None:
    stand = procedural_stand(duration=2.0)
    gmr = _still(g1, 60)
    lifted = gmr.root_pos.copy()
    lifted[:, 2] += 0.5  # the body held 50 cm up (a root cost far above the feet's) while the feet are planted
    cfg = CleanupConfig(root_position_weight=1e9)
    out = cleanup(replace(gmr, root_pos=lifted), g1, stand, config=cfg)
    assert np.isfinite(out.qpos).all()
    assert out.info["cleanup"]["contact_residual_max_mm"] > 100.0  # the legs cannot reach: reported


def test_infeasible_rows_are_relaxed_and_reported(g1: Robot) -> None:
    cfg = CleanupConfig(self_distance=0.3, self_margin=0.35)  # every link 30 cm from every other: impossible
    out = cleanup(_still(g1, 20), g1, procedural_stand(duration=20 / 30), config=cfg)
    assert np.isfinite(out.qpos).all()
    assert out.info["cleanup"]["relaxed_frames"] > 0 and any("relaxed" in w for w in out.solve_info.warnings)


def _random_tilts(rng: np.random.Generator, n: int, max_deg: float) -> np.ndarray:
    """Rotation matrices (n, 3, 3): a tilt up to ``max_deg`` about a random horizontal axis after a random yaw."""
    out = np.empty((n, 3, 3))
    for k in range(n):
        yaw, head, tilt = rng.uniform(0, 2 * np.pi), rng.uniform(0, 2 * np.pi), np.radians(rng.uniform(0, max_deg))
        q_yaw, q_tilt, q = np.empty(4), np.empty(4), np.empty(4)
        mujoco.mju_axisAngle2Quat(q_yaw, np.array([0.0, 0.0, 1.0]), yaw)
        mujoco.mju_axisAngle2Quat(q_tilt, np.array([np.cos(head), np.sin(head), 0.0]), tilt)
        mujoco.mju_mulQuat(q, q_tilt, q_yaw)
        m = np.empty(9)
        mujoco.mju_quat2Mat(m, q)
        out[k] = m.reshape(3, 3)
    return out


def test_sole_points_of_a_box_are_its_lowest_corners_under_any_walking_tilt() -> None:
    from kinemorph.quality.soles import support_points

    g = np.stack(np.meshgrid(*[np.linspace(-1, 1, 5)] * 3, indexing="ij"), -1).reshape(-1, 3)
    box = g * np.array([0.11, 0.05, 0.015]) + np.array([0.01, 0.0, -0.015])
    sole = support_points(box, np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]))
    assert np.allclose(sole[:, 2], -0.03)  # every sole point is on the bottom face
    corners = {(x, y) for x in (-0.1, 0.12) for y in (-0.05, 0.05)}
    assert corners <= {(round(x, 3), round(y, 3)) for x, y in sole[:, :2]}
    for rot in _random_tilts(np.random.default_rng(0), 200, 60.0):
        assert (sole @ rot.T)[:, 2].min() == pytest.approx((box @ rot.T)[:, 2].min(), abs=1e-12)


def test_flat_feet_are_checked_on_the_floor_by_their_sole_points() -> None:
    t1 = robot_or_skip("booster_t1")  # box feet: a capsule around them reaches 3.7 cm below the sole
    prox = link_proxies(t1)
    for foot in t1.feet:
        mine = prox.body == t1.body_id(foot)
        assert not prox.floor[mine & (prox.radius > 0)].any()  # the box's capsule is off the floor checks
        sole = mine & prox.floor
        assert sole.sum() >= 4 and np.allclose(prox.p0[sole, 2], -0.03) and np.all(prox.radius[sole] == 0)
        assert not np.isin(np.nonzero(sole)[0], prox.pairs).any()  # sole points are not self-collision shapes
    # standing at rest, the soles are on the floor: nothing below it
    assert body_penetration(_still(t1, 5), t1).max_cm < 0.2


def test_a_robot_without_collision_geometry_skips_self_collision(tmp_path) -> None:  # type: ignore[no-untyped-def]
    xml = tmp_path / "bare.xml"
    xml.write_text(
        """<mujoco><worldbody><body name="base"><freejoint/><geom size="0.1" contype="0" conaffinity="0"/>
        <body name="leg" pos="0 0 -0.2"><joint name="hip" axis="0 1 0" range="-1 1"/>
        <geom type="capsule" size="0.03 0.1" contype="0" conaffinity="0"/></body></body></worldbody></mujoco>"""
    )
    robot = Robot.load(xml)
    out = cleanup(_still(robot, 10), robot, None)
    assert any("no collision geometry" in w for w in out.solve_info.warnings)


def test_ballistic_flight_follows_gravity_and_slides_are_left_alone() -> None:
    fps = 30.0
    t = np.arange(40) / fps
    q = np.zeros((40, 8))
    q[:, 3] = 1.0
    q[:, 2] = 0.8
    planted = np.ones(40, dtype=bool)
    planted[10:20] = False
    jump = q.copy()
    tt = (np.arange(9, 21) - 9) / fps
    jump[9:21, 2] = 0.8 + 1.5 * tt - 0.5 * 7.0 * tt**2 + (0.5 * 7.0 * tt[-1] - 1.5) * tt  # falls at 0.7 g
    out, n = _ballistic(jump, planted, fps, 18)
    assert n == 10
    acc = np.diff(out[9:21, 2], 2) * fps**2
    np.testing.assert_allclose(acc, -GRAVITY, rtol=1e-6)
    assert out[9, 2] == jump[9, 2] and out[20, 2] == jump[20, 2]
    flat, n = _ballistic(q, planted, fps, 18)  # the root does not fall: a missed contact, not a flight
    assert n == 0 and np.array_equal(flat, q)
    assert t.size == 40


def test_config_refuses_bad_values() -> None:
    with pytest.raises(ConfigError, match="speed_limit"):
        CleanupConfig(speed_limit=0.0)
    with pytest.raises(ConfigError, match="exit_speed"):
        CleanupConfig(enter_speed=1.0, exit_speed=0.5)
    with pytest.raises(ConfigError, match="solver"):
        CleanupConfig(solver="cvx")


# -- the pipeline -------------------------------------------------------------------------------


def test_pipeline_runs_cleanup_for_auto_and_not_for_gmr_compat(g1: Robot, generated_walk) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.pipeline import RetargetJob, job_cleanup, run_job

    auto = run_job(RetargetJob(generated_walk, g1, evaluate=False))
    assert "cleanup" in auto.result.info
    assert job_cleanup(RetargetJob(generated_walk, g1, compat="gmr")) is None
    assert job_cleanup(RetargetJob(generated_walk, g1, cleanup="off")) is None
    assert job_cleanup(RetargetJob(generated_walk, g1, engine="gmr")) is None
    assert job_cleanup(RetargetJob(generated_walk, g1, engine="mesh", cleanup="on")) == CleanupConfig()
    cfg = job_cleanup(RetargetJob(generated_walk, g1, options={"speed_limit": 5.0, "damping": 0.3}))
    assert cfg == CleanupConfig(speed_limit=5.0)
    with pytest.raises(ConfigError, match="cleanup"):
        job_cleanup(RetargetJob(generated_walk, g1, cleanup="maybe"))


# -- the shared clips (targets of the issue) ----------------------------------------------------


@pytest.mark.parametrize("clip", ["walk.bvh", "dance.bvh"])
def test_lafan_clips_onto_g1_meet_the_targets(clip: str, g1: Robot) -> None:
    from kinemorph.motion import load_motion

    motion = load_motion(data_path(clip))
    gmr = retarget(motion, g1, engine="gmr")
    clean = cleanup(gmr, g1, motion)
    q = evaluate(clean, g1)
    assert q.contact_slip_cm_s <= 1.0
    assert q.self_collision_deep_frames == 0
    assert q.floor_penetration_max_cm <= 1.0
    assert q.fast_joint_frames == 0
    src = source_landmarks(motion)
    before = np.median(srp(src, robot_landmarks(g1, gmr)))
    after = np.median(srp(src, robot_landmarks(g1, clean)))
    assert after >= before - 0.005


@pytest.mark.parametrize("robot_name", ["unitree_go2", "unitree_a1"])
@pytest.mark.parametrize("clip", ["dog_walk.bvh", "dog_idle.bvh"])
def test_quadruped_natural_mode_slip_is_closed(clip: str, robot_name: str) -> None:
    from kinemorph.motion import load_motion

    robot = robot_or_skip(robot_name)
    motion = load_motion(data_path(clip))
    result = retarget(motion, robot)
    clean = cleanup(result, robot, motion)
    q = evaluate(clean, robot)
    assert q.foot_slip_mean_cm_s <= 1.0
    assert q.penetration_p95_cm <= 0.1 and q.joint_jump_frames == 0
    assert clean.contacts is not None and np.array_equal(clean.contacts, result.contacts)


def test_a_foot_without_ankle_roll_is_held_on_its_long_axis_where_the_engine_put_it() -> None:
    """H1's ankles only pitch: its planted points lie on the foot's centre line (its tilt is left
    to the leg) and are anchored at the engine's touch-down, so the walk does not drift away."""
    from kinemorph.conventions import LANDMARKS
    from kinemorph.motion import load_motion
    from kinemorph.retarget.cleanup.schedule import _rolls, humanoid_contacts

    h1, g1 = robot_or_skip("unitree_h1"), robot_or_skip("unitree_g1")
    for robot, rolls in ((h1, False), (g1, True)):
        knee = dict(zip(LANDMARKS, robot.landmarks))["knee_l"][0]
        assert _rolls(robot, robot.body_id(robot.feet[0]), robot.body_id(knee), np.array([1.0, 0.0, 0.0])) is rolls
    walk = load_motion(data_path("walk.bvh"))
    gmr = retarget(walk, h1, engine="gmr")
    points = humanoid_contacts(walk, h1, link_proxies(h1), gmr.qpos, config=CleanupConfig())
    feet = np.isin(points.body, [h1.body_id(f) for f in h1.feet])
    assert np.allclose(points.local[feet, 1], 0.0) and points.at_engine[feet].all()
    clean = cleanup(gmr, h1, walk)
    drift = np.linalg.norm(clean.root_pos[:, :2] - gmr.root_pos[:, :2], axis=1)
    q = evaluate(clean, h1)
    assert np.percentile(drift, 50) < 0.25 and q.tracking_error_mean_cm < 30.0  # was 1.8 m / 170 cm
    assert q.floor_penetration_max_cm <= 1.0 and q.fast_joint_frames == 0 and q.limit_violations == 0
