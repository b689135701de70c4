"""quality/: each metric against motions built by hand whose true value is known in closed form.

The motions are the Unitree G1's rest pose repeated and moved as a rigid body (or with one joint
changed), so the expected values follow from the construction, not from the code under test:
a rigid translation moves every collision point by exactly the translation, a linear root path has
exactly its speed under central differences, a cubic joint path has a constant third difference.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from kinemorph.errors import KinemorphError, OutputExistsError, RobotLoadError
from kinemorph.quality import (
    QualityReport,
    evaluate,
    foot_slip,
    ground_penetration,
    joint_jerk_rms,
    joint_jumps,
    joint_limit_violations,
    keypoint_tracking,
    trunk_motion,
)
from kinemorph.robots.geometry import lowest_point_all
from kinemorph.robots.robot import Robot
from kinemorph.robots.robot_motion import Keypoints, RobotMotion
from kinemorph.transforms import axis_angle_to_quat, quat_mul

FPS = 30.0
T = 60
DEG = 180.0 / math.pi
X, Y, Z = np.eye(3)


@pytest.fixture(scope="module")
def g1() -> Robot:
    try:
        return Robot.load("unitree_g1")
    except RobotLoadError as exc:
        pytest.skip(f"unitree_g1 unavailable (set MENAGERIE_ROOT to a mujoco_menagerie copy): {exc}")


@pytest.fixture(scope="module")
def rest(g1: Robot) -> np.ndarray:
    """Rest qpos with the root raised or lowered so that the lowest collision point is exactly at z = 0."""
    q = g1.rest_qpos()
    q[2] -= float(lowest_point_all(g1, q)[0])
    return q


def clip(rest: np.ndarray, frames: int = T) -> np.ndarray:
    """The rest pose repeated. Shape: (frames, nq)."""
    return np.repeat(rest[None], frames, axis=0)


def motion(robot: Robot, qpos: np.ndarray, *, fps: float = FPS, keypoints: Keypoints | None = None) -> RobotMotion:
    return RobotMotion.from_qpos(robot.name, fps, qpos, robot.dof_names, keypoints=keypoints)


def times(frames: int = T, fps: float = FPS) -> np.ndarray:
    return np.arange(frames) / fps


def dof(robot: Robot, name: str) -> int:
    """qpos index of a joint."""
    return 7 + robot.dof_names.index(name)


# -- a robot standing still -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def static_report(g1: Robot, rest: np.ndarray) -> QualityReport:
    return evaluate(motion(g1, clip(rest)), g1)


def test_standing_still_has_no_slip_and_both_feet_planted(static_report: QualityReport) -> None:
    assert static_report.foot_slip_mean_cm_s == pytest.approx(0.0, abs=1e-9)
    assert static_report.foot_slip_max_cm_s == pytest.approx(0.0, abs=1e-9)
    assert static_report.planted_fraction == 1.0


def test_standing_still_has_no_jerk_jumps_or_limit_violations(static_report: QualityReport) -> None:
    assert static_report.jerk_rms_rad_s3 == 0.0
    assert static_report.joint_jump_frames == 0
    assert static_report.limit_violations == 0
    assert static_report.limit_excess_max_rad == 0.0


def test_standing_upright_has_no_tilt_or_rates(static_report: QualityReport) -> None:
    assert static_report.trunk_tilt_mean_deg == pytest.approx(0.0, abs=1e-6)
    assert static_report.trunk_tilt_max_deg == pytest.approx(0.0, abs=1e-6)
    assert static_report.roll_rate_deg_s == pytest.approx(0.0, abs=1e-9)
    assert static_report.pitch_rate_deg_s == pytest.approx(0.0, abs=1e-9)


def test_standing_on_the_floor_does_not_penetrate(static_report: QualityReport) -> None:
    assert static_report.penetration_p95_cm == pytest.approx(0.0, abs=1e-9)
    assert static_report.penetration_max_cm == pytest.approx(0.0, abs=1e-9)


def test_without_keypoints_tracking_is_undefined(static_report: QualityReport) -> None:
    assert math.isnan(static_report.tracking_error_mean_cm)
    assert static_report.tracking_error_per_frame_cm is None


# -- foot slip ------------------------------------------------------------------------------------


def test_sliding_while_standing_slips_at_the_sliding_speed(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 0] += 0.5 * times()  # 0.5 m/s along x: both feet slide at exactly 50 cm/s
    slip = foot_slip(motion(g1, q), g1)
    assert slip.mean_cm_s == pytest.approx(50.0, abs=1e-6)
    assert slip.max_cm_s == pytest.approx(50.0, abs=1e-6)
    np.testing.assert_allclose(slip.per_foot_cm_s, [50.0, 50.0], atol=1e-6)
    assert slip.planted.all()


def test_slip_is_horizontal_only(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 0] += 0.3 * times()
    q[:, 1] += 0.4 * times()  # 0.5 m/s diagonally
    q[:, 2] -= 0.1 * times()  # sinking 0.1 m/s: still low, adds no slip
    assert foot_slip(motion(g1, q), g1).mean_cm_s == pytest.approx(50.0, abs=1e-6)


def test_feet_in_the_air_are_not_planted(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 0] += 0.5 * times()
    q[:, 2] += 0.10  # 10 cm up: above the 3 cm contact height
    slip = foot_slip(motion(g1, q), g1)
    assert not slip.planted.any()
    assert math.isnan(slip.mean_cm_s) and math.isnan(slip.max_cm_s)


def test_feet_faster_than_the_contact_speed_are_swinging(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 0] += 2.0 * times()  # 2 m/s > contact_max_speed 1 m/s
    assert math.isnan(foot_slip(motion(g1, q), g1).mean_cm_s)
    assert foot_slip(motion(g1, q), g1, contact_max_speed=3.0).mean_cm_s == pytest.approx(200.0, abs=1e-6)


def test_slip_averages_only_planted_frames(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 0] += 0.5 * times()
    q[T // 2 :, 2] += 0.10  # second half in the air, and sliding there too
    slip = foot_slip(motion(g1, q), g1)
    # Frame T/2 - 1 is low, but its central difference sees the 10 cm lift: 0.05 m/frame * 30 fps = 1.5 m/s
    # vertical, faster than contact_max_speed, so it is not planted either.
    assert slip.planted[: T // 2 - 1].all() and not slip.planted[T // 2 - 1 :].any()
    assert slip.mean_cm_s == pytest.approx(50.0, abs=1e-6)
    assert slip.planted_fraction == pytest.approx((T // 2 - 1) / T)


# -- ground penetration ---------------------------------------------------------------------------


def test_lowering_the_root_by_3cm_penetrates_3cm(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 2] -= 0.03  # rigid translation: the lowest point goes from z = 0 to exactly z = -0.03 m
    pen = ground_penetration(motion(g1, q), g1)
    assert pen.p95_cm == pytest.approx(3.0, abs=1e-9)
    assert pen.max_cm == pytest.approx(3.0, abs=1e-9)


def test_penetration_p95_ignores_a_rare_frame_but_max_does_not(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[10, 2] -= 0.03  # 1 frame in 60 (< 5%) goes 3 cm deep
    pen = ground_penetration(motion(g1, q), g1)
    assert pen.p95_cm == pytest.approx(0.0, abs=1e-9)
    assert pen.max_cm == pytest.approx(3.0, abs=1e-9)
    q[10:20, 2] = rest[2] - 0.03  # 10 frames in 60 (> 5%)
    assert ground_penetration(motion(g1, q), g1).p95_cm == pytest.approx(3.0, abs=1e-9)


def test_standing_above_the_floor_is_not_negative_penetration(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 2] += 0.05
    pen = ground_penetration(motion(g1, q), g1)
    assert pen.max_cm == 0.0 and pen.p95_cm == 0.0


# -- joint jerk -----------------------------------------------------------------------------------


def test_cubic_joint_path_has_constant_jerk(g1: Robot, rest: np.ndarray) -> None:
    a = 0.1  # q = a t^3 [rad]: jerk = 6a [rad/s^3] in that joint, 0 in the others
    q = clip(rest)
    q[:, dof(g1, "left_knee_joint")] += a * times() ** 3
    rms = joint_jerk_rms(motion(g1, q))
    assert rms == pytest.approx(6 * a / math.sqrt(g1.num_dofs), rel=1e-6)


def test_quadratic_joint_path_has_no_jerk(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, dof(g1, "left_knee_joint")] += 0.3 * times() ** 2
    assert joint_jerk_rms(motion(g1, q)) == pytest.approx(0.0, abs=1e-6)


def test_jerk_scales_with_fps_cubed_for_the_same_samples(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, dof(g1, "left_knee_joint")] += 1e-3 * np.arange(T) ** 3
    slow = joint_jerk_rms(motion(g1, q, fps=30.0))
    assert joint_jerk_rms(motion(g1, q, fps=60.0)) == pytest.approx(8.0 * slow, rel=1e-9)


# -- joint jumps ----------------------------------------------------------------------------------


def test_a_step_of_half_a_radian_is_one_jump(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[30:, dof(g1, "left_knee_joint")] += 0.5
    assert joint_jumps(motion(g1, q)) == 1


def test_a_one_frame_spike_is_two_jumps(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[30, dof(g1, "left_knee_joint")] += 0.5  # into the spike and out of it
    assert joint_jumps(motion(g1, q)) == 2


def test_jumps_in_two_joints_at_the_same_transition_count_once(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[30:, dof(g1, "left_knee_joint")] += 0.5
    q[30:, dof(g1, "right_knee_joint")] -= 0.5
    assert joint_jumps(motion(g1, q)) == 1


def test_steps_at_or_below_the_threshold_are_not_jumps(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[30:, dof(g1, "left_knee_joint")] += 0.2
    assert joint_jumps(motion(g1, q)) == 0
    q[40:, dof(g1, "left_knee_joint")] += 0.5
    assert joint_jumps(motion(g1, q), threshold=0.6) == 0


# -- trunk tilt and rates -------------------------------------------------------------------------


def test_pitching_at_a_known_rate_gives_that_pitch_rate_and_tilt(g1: Robot, rest: np.ndarray) -> None:
    w = 0.4  # [rad/s] about the root's y axis; the clip ends at 0.4 * 59/30 rad of tilt
    q = clip(rest)
    q[:, 3:7] = axis_angle_to_quat(Y, w * times())
    trunk = trunk_motion(motion(g1, q), g1)
    assert trunk.pitch_rate_deg_s == pytest.approx(w * DEG, rel=1e-9)
    assert trunk.roll_rate_deg_s == pytest.approx(0.0, abs=1e-9)
    assert trunk.tilt_max_deg == pytest.approx(w * times()[-1] * DEG, rel=1e-9)
    assert trunk.tilt_mean_deg == pytest.approx(w * times().mean() * DEG, rel=1e-9)


def test_roll_rate_is_about_the_roots_own_x_axis(g1: Robot, rest: np.ndarray) -> None:
    # Heading 90 deg left, then rolling: the root's x axis is world y, so a world-frame rate would read as pitch.
    w = 0.7
    q = clip(rest)
    q[:, 3:7] = quat_mul(axis_angle_to_quat(Z, np.full(T, np.pi / 2)), axis_angle_to_quat(X, w * times()))
    trunk = trunk_motion(motion(g1, q), g1)
    assert trunk.roll_rate_deg_s == pytest.approx(w * DEG, rel=1e-9)
    assert trunk.pitch_rate_deg_s == pytest.approx(0.0, abs=1e-9)


def test_turning_about_vertical_is_neither_tilt_nor_roll_nor_pitch(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 3:7] = axis_angle_to_quat(Z, 2.0 * times())
    trunk = trunk_motion(motion(g1, q), g1)
    assert trunk.tilt_max_deg == pytest.approx(0.0, abs=1e-6)
    assert trunk.roll_rate_deg_s == pytest.approx(0.0, abs=1e-9)
    assert trunk.pitch_rate_deg_s == pytest.approx(0.0, abs=1e-9)


def test_rocking_back_and_forth_averages_the_absolute_rate(g1: Robot, rest: np.ndarray) -> None:
    w = 0.5
    angle = w * (1.0 - np.abs(times() - 1.0))  # pitch forward until frame 30 (t = 1 s), then back at the same rate
    q = clip(rest)
    q[:, 3:7] = axis_angle_to_quat(Y, angle)
    assert trunk_motion(motion(g1, q), g1).pitch_rate_deg_s == pytest.approx(w * DEG, rel=1e-9)


# -- joint limits ---------------------------------------------------------------------------------


def test_values_beyond_a_limit_are_counted_with_their_excess(g1: Robot, rest: np.ndarray) -> None:
    j = g1.dof_names.index("left_knee_joint")
    q = clip(rest)
    q[5:10, 7 + j] = g1.upper[j] + 0.1  # 5 frames above the upper limit by 0.1 rad
    q[20, 7 + j] = g1.lower[j] - 0.2  # 1 frame below the lower limit by 0.2 rad
    lim = joint_limit_violations(motion(g1, q), g1)
    assert lim.count == 6
    assert lim.max_excess_rad == pytest.approx(0.2, abs=1e-12)


def test_values_at_a_limit_within_tolerance_are_not_violations(g1: Robot, rest: np.ndarray) -> None:
    j = g1.dof_names.index("left_knee_joint")
    q = clip(rest)
    q[:, 7 + j] = g1.upper[j] + 5e-7
    assert joint_limit_violations(motion(g1, q), g1).count == 0
    assert joint_limit_violations(motion(g1, q), g1, tolerance=1e-7).count == T


# -- keypoint tracking ----------------------------------------------------------------------------

BODIES = ("left_ankle_roll_link", "right_ankle_roll_link", "pelvis", "left_wrist_yaw_link")


def _tracked(g1: Robot, q: np.ndarray, offset: np.ndarray) -> RobotMotion:
    ids = [g1.body_id(b) for b in BODIES]
    own = g1.fk(q).positions[:, ids]
    return motion(g1, q, keypoints=Keypoints(BODIES, own + offset))


def test_keypoints_on_the_robots_own_bodies_have_no_error(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, dof(g1, "left_elbow_joint")] += np.linspace(0.0, 0.5, T)  # a moving arm
    track = keypoint_tracking(_tracked(g1, q, np.zeros(3)), g1)
    assert track is not None
    assert track.mean_cm == pytest.approx(0.0, abs=1e-9)
    assert track.max_cm == pytest.approx(0.0, abs=1e-9)


def test_keypoints_shifted_10cm_have_10cm_error(g1: Robot, rest: np.ndarray) -> None:
    offset = np.zeros((T, 1, 3))
    offset[: T // 2] = [0.06, 0.0, 0.08]  # 10 cm in the first half, 0 in the second
    track = keypoint_tracking(_tracked(g1, clip(rest), offset), g1)
    assert track is not None
    assert track.max_cm == pytest.approx(10.0, abs=1e-9)
    assert track.mean_cm == pytest.approx(5.0, abs=1e-9)
    np.testing.assert_allclose(track.per_frame_cm, np.r_[np.full(T // 2, 10.0), np.zeros(T - T // 2)], atol=1e-9)


def test_one_keypoint_off_counts_in_the_per_frame_mean(g1: Robot, rest: np.ndarray) -> None:
    offset = np.zeros((1, len(BODIES), 3))
    offset[0, 2] = [0.0, 0.1, 0.0]  # only the pelvis keypoint, 10 cm off
    track = keypoint_tracking(_tracked(g1, clip(rest), offset), g1)
    assert track is not None
    np.testing.assert_allclose(track.per_frame_cm, 10.0 / len(BODIES), atol=1e-9)
    assert track.max_cm == pytest.approx(10.0, abs=1e-9)


# -- evaluate and the report ----------------------------------------------------------------------


def test_evaluate_runs_one_kinematics_pass(g1: Robot, rest: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every metric shares one pass of mj_kinematics over the clip (T calls, not 3T)."""
    import mujoco

    m = _tracked(g1, clip(rest), np.zeros(3))  # keypoints built before kinematics are counted
    calls = []
    real = mujoco.mj_kinematics
    monkeypatch.setattr(mujoco, "mj_kinematics", lambda model, data: calls.append(1) or real(model, data))
    report = evaluate(m, g1)
    assert len(calls) == T
    assert report.tracking_error_per_frame_cm is not None and report.tracking_error_per_frame_cm.shape == (T,)


def test_evaluate_leaves_the_motion_unchanged(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 0] += 0.5 * times()
    m = motion(g1, q)
    before = m.qpos.copy()
    evaluate(m, g1)
    np.testing.assert_array_equal(m.qpos, before)


def test_evaluate_collects_the_metrics(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[:, 0] += 0.5 * times()
    q[:, 2] -= 0.01
    q[30:, dof(g1, "left_shoulder_pitch_joint")] += 0.5
    report = evaluate(motion(g1, q), g1)
    assert report.num_frames == T and report.duration_s == pytest.approx(2.0)
    assert report.foot_slip_mean_cm_s == pytest.approx(50.0, abs=1e-6)
    assert report.penetration_max_cm == pytest.approx(1.0, abs=1e-9)
    assert report.joint_jump_frames == 1
    assert report.jerk_rms_rad_s3 > 0.0


def test_evaluate_rejects_a_motion_for_other_joints(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    names = ("not_a_joint", *g1.dof_names[1:])
    with pytest.raises(KinemorphError, match="not_a_joint"):
        evaluate(RobotMotion.from_qpos(g1.name, FPS, q, names), g1)


def test_evaluate_rejects_non_finite_values(g1: Robot, rest: np.ndarray) -> None:
    q = clip(rest)
    q[7, 9] = np.nan
    with pytest.raises(KinemorphError, match="frame 7"):
        evaluate(motion(g1, q), g1)


def test_report_dict_is_plain_json_with_null_for_undefined(static_report: QualityReport) -> None:
    d = static_report.to_dict()
    assert all(type(v) in (int, float) or v is None for v in d.values())
    assert d["tracking_error_mean_cm"] is None
    assert d["joint_jump_frames"] == 0 and type(d["joint_jump_frames"]) is int
    assert "tracking_error_per_frame_cm" not in d
    assert json.loads(json.dumps(d, allow_nan=False)) == d


def test_save_json_writes_the_dict_and_refuses_to_overwrite(static_report: QualityReport, tmp_path) -> None:
    path = tmp_path / "quality.json"
    static_report.save_json(path)
    assert json.loads(path.read_text()) == static_report.to_dict()
    with pytest.raises(OutputExistsError):
        static_report.save_json(path)
    static_report.save_json(path, force=True)
    assert [p.name for p in tmp_path.iterdir()] == ["quality.json"]  # no temporary file left behind


def test_table_has_one_aligned_row_per_metric(static_report: QualityReport) -> None:
    lines = str(static_report).splitlines()
    assert len(lines) == len(static_report.to_dict())
    assert len({len(line) for line in lines}) == 1  # values right-aligned in one column
    row = next(line for line in lines if line.startswith("foot slip, mean over feet [cm/s]"))
    assert row.split()[-1] == "0.000"
    assert next(line for line in lines if line.startswith("keypoint tracking error, mean [cm]")).endswith("n/a")


def test_contact_thresholds_scale_down_for_small_robots_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A child-size robot's swinging foot never rises 3 cm: the planted band and speed shrink with
    its standing height; robots of the registered sizes keep the fixed thresholds."""
    from conftest import robot_or_skip
    from kinemorph.motion.procedural import procedural_walk
    from kinemorph.pipeline import RetargetJob, run_job
    from kinemorph.quality.foot_slip import CONTACT_HEIGHT, CONTACT_MAX_SPEED, foot_slip, size_factor
    from kinemorph.robots import load_robot
    from robot_cases import humanoid_xml, write

    for name in ("unitree_g1", "booster_t1", "unitree_go2"):
        assert size_factor(robot_or_skip(name)) == 1.0
    small = load_robot(write(tmp_path, "small.xml", humanoid_xml(height=0.5, prefix="s")))
    k = size_factor(small)
    assert 0.3 < k < 0.7
    motion = run_job(RetargetJob(procedural_walk(duration=6.0), small, evaluate=False)).result
    scaled = foot_slip(motion, small)
    explicit = foot_slip(motion, small, contact_height=CONTACT_HEIGHT * k, contact_max_speed=CONTACT_MAX_SPEED * k)
    fixed = foot_slip(motion, small, contact_height=CONTACT_HEIGHT, contact_max_speed=CONTACT_MAX_SPEED)
    assert np.array_equal(scaled.planted, explicit.planted)
    assert scaled.planted_fraction < fixed.planted_fraction  # swings no longer read as planted
