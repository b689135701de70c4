"""Physical feasibility (kinemorph.sim): the torque model, inverse dynamics, contact QP, replay, verdict."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import mujoco
import numpy as np
import pytest

from kinemorph.errors import KinemorphError
from kinemorph.robots import load_robot
from kinemorph.robots.robot_motion import RobotMotion
from kinemorph.sim import (
    ContactSettings,
    Gains,
    SimConfig,
    build_torque_model,
    inverse_dynamics,
    pd_gains,
    run_simulation,
    simulate,
    solve_contact_forces,
)
from kinemorph.sim.contacts import pyramid_rows
from kinemorph.sim.feedback import foot_of_geoms
from kinemorph.sim.files import save_report, save_simulation
from kinemorph.sim.simulate import _reasons, planted_feet
from kinemorph.sim.verdict import Thresholds

DATA = os.environ.get("KINEMORPH_DATA")
needs_data = pytest.mark.skipif(not DATA, reason="KINEMORPH_DATA is not set (shared motion clips)")


@pytest.fixture(scope="module")
def g1():
    return load_robot("unitree_g1")


@pytest.fixture(scope="module")
def go2():
    return load_robot("unitree_go2")


def hold(robot, qpos: np.ndarray, seconds: float, fps: float = 50.0) -> RobotMotion:
    frames = round(seconds * fps) + 1
    return RobotMotion.from_qpos(robot.name, fps, np.tile(qpos, (frames, 1)), robot.dof_names)


def on_floor(robot, qpos: np.ndarray) -> np.ndarray:
    """qpos raised so that the lowest collision point touches the floor (Go2's `home` is 1.8 cm in it)."""
    dyn = inverse_dynamics(build_torque_model(robot), hold(robot, qpos, 0.02))
    out = qpos.copy()
    out[2] += dyn.penetration.max()
    return out


# -- the torque-controlled copy ---------------------------------------------------------------------
def test_torque_model_turns_position_actuators_into_motors_with_joint_force_ranges(g1):
    tm = build_torque_model(g1, timestep=0.0005)
    m = tm.model
    assert m.opt.timestep == 0.0005
    assert (m.actuator_gaintype == mujoco.mjtGain.mjGAIN_FIXED).all()
    assert (m.actuator_biastype == mujoco.mjtBias.mjBIAS_NONE).all()
    assert np.allclose(m.actuator_gainprm[:, 0], 1.0)
    knee = g1.dof_names.index("left_knee_joint")
    assert tm.torque_limit[knee] == pytest.approx(139.0)  # G1's actuatorfrcrange on the knee
    assert m.geom_type[tm.floor_geom] == mujoco.mjtGeom.mjGEOM_PLANE
    assert tm.mass == pytest.approx(float(g1.model.body_subtreemass[0]))


def test_torque_model_keeps_motor_limits_of_torque_models(go2):
    tm = build_torque_model(go2)
    assert tm.torque_limit.max() == pytest.approx(45.43)  # Go2's calf motors
    assert np.isfinite(tm.torque_limit).all()


# -- inverse dynamics ---------------------------------------------------------------------------------
def test_inverse_dynamics_recovers_the_torques_of_a_simulated_rollout(g1):
    tm = build_torque_model(g1)
    m = tm.model
    d = mujoco.MjData(m)
    d.qpos[:] = g1.rest_qpos()
    d.qpos[2] = 3.0  # in the air: no contact, gravity and joint torques only
    steps = 300
    t = np.arange(steps + 1) * m.opt.timestep
    pd = pd_gains(tm, d.qpos, Gains(bandwidth_hz=3.0, load_factor=0.0))
    kp, kd = pd.kp, pd.kd
    q0 = d.qpos[tm.act_dof + 1].copy()
    ref = q0[None] + 0.3 * np.sin(2 * np.pi * 1.5 * t[:, None] + np.linspace(0, np.pi, m.nu)[None])
    ctrl = np.zeros((steps, m.nu))
    qpos = np.zeros((steps + 1, m.nq))
    qpos[0] = d.qpos
    for k in range(steps):  # PD torques keep the joints away from their limits
        pd = kp * (ref[k] - d.qpos[tm.act_dof + 1]) - kd * d.qvel[tm.act_dof]
        ctrl[k] = np.clip(pd, -tm.torque_limit, tm.torque_limit)  # what the motors apply
        d.ctrl[:] = ctrl[k]
        mujoco.mj_step(m, d)
        qpos[k + 1] = d.qpos
    motion = RobotMotion.from_qpos(g1.name, 1.0 / m.opt.timestep, qpos, g1.dof_names)
    dyn = inverse_dynamics(tm, motion, velocity="backward")
    inner = slice(1, steps)  # central differences need both neighbours
    err = np.linalg.norm(dyn.joint_torque[inner] - ctrl[inner], axis=1) / np.linalg.norm(ctrl[inner], axis=1)
    assert err.max() < 0.01
    assert dyn.residual_force_fraction[inner].max() < 0.01  # free fall needs no support
    assert dyn.num_contacts.max() == 0


def test_contact_qp_forces_stay_inside_the_friction_pyramid():
    rng = np.random.default_rng(3)
    mu = 0.6
    for _ in range(20):
        jac = rng.normal(size=(12, 10))
        qfrc = rng.normal(size=10) * 50
        sol = solve_contact_forces(qfrc, jac, np.ones(10), mu=mu)
        f = sol.forces
        assert sol.solved
        assert (f[:, 2] >= -1e-7).all()
        assert (np.abs(f[:, :2]) <= mu * f[:, 2:3] + 1e-6).all()
        assert (pyramid_rows(4, mu) @ f.reshape(-1) <= 1e-6).all()
        assert np.allclose(sol.residual, qfrc - jac.T @ f.reshape(-1))


def test_contact_qp_explains_a_feasible_demand_exactly():
    jac = np.vstack([np.eye(3), np.eye(3)])  # two points on one unit-mass body
    demand = np.array([0.2, -0.1, 9.81])  # inside the cone of mu = 0.5
    sol = solve_contact_forces(demand, jac, np.ones(3), mu=0.5)
    assert np.abs(sol.residual).max() < 1e-5
    pull = solve_contact_forces(np.array([0.0, 0.0, -5.0]), jac, np.ones(3), mu=0.5)
    assert pull.residual[2] == pytest.approx(-5.0, abs=1e-6)  # the floor cannot pull


def test_a_mesh_sole_gives_its_four_lowest_corners():
    from kinemorph.sim.contacts import lowest_points

    verts = " ".join(f"{x} {y} {z}" for x in (-0.1, 0.1) for y in (-0.04, 0.04) for z in (-0.02, 0.02))
    model = mujoco.MjModel.from_xml_string(
        f"<mujoco><asset><mesh name='sole' vertex='{verts}'/></asset><worldbody>"
        "<body pos='0.3 0 0.5' euler='0 0 30'><geom type='mesh' mesh='sole'/></body></worldbody></mujoco>"
    )
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    cp = lowest_points(model, data, np.array([0]))
    pts = cp.points
    assert pts.shape == (4, 3) and (cp.geoms == 0).all()
    assert np.allclose(pts[:, 2], 0.48)
    assert np.allclose(pts[:, :2].mean(axis=0), [0.3, 0.0])


def test_standing_needs_no_residual_and_fits_the_motors(g1):
    dyn = inverse_dynamics(build_torque_model(g1), hold(g1, g1.rest_qpos(), 0.5))
    assert dyn.residual_force_fraction.max() < 0.01
    assert dyn.torque_ratio.max() < 1.0
    assert dyn.num_contacts.min() == 8  # four sole spheres per foot
    assert dyn.contact_force[:, :, 2].sum(axis=1) == pytest.approx(
        np.full(dyn.num_contacts.shape[0], build_torque_model(g1).weight), rel=0.01
    )


# -- verdicts ------------------------------------------------------------------------------------------
def test_g1_holding_stand_for_5_s_is_feasible(g1):
    motion = hold(g1, g1.rest_qpos(), 5.0)
    result = run_simulation(motion, g1)
    rep = result.report
    assert rep.feasible and rep.dynamics_feasible, rep.reasons
    assert rep.residual_velocity_max_m_s < 0.01
    assert rep.required_friction_max < 0.01  # standing still asks no friction
    assert not rep.fell
    err = np.linalg.norm(result.rollout.motion.root_pos - motion.root_pos, axis=1)
    assert err.max() < 0.01
    assert rep.simulated_s == pytest.approx(5.0, abs=0.01)


def test_go2_holding_home_for_5_s_is_feasible(go2):
    motion = hold(go2, on_floor(go2, go2.rest_qpos()), 5.0)
    result = run_simulation(motion, go2)
    assert result.report.feasible, result.report.reasons
    assert not result.report.fell
    err = np.linalg.norm(result.rollout.motion.root_pos - motion.root_pos, axis=1)
    assert err.max() < 0.01
    # every paw carries load on every frame and stands still: all planted, no brief touch
    assert not np.isnan(result.rollout.foot_slip).any()
    assert result.report.planted_foot_slip_cm_s < 0.1 and result.report.brief_foot_touches == 0


def test_each_foot_owns_its_collision_geoms(g1, go2):
    """Go2's paw spheres sit on its calves (the foot bodies carry no geometry); G1's sole spheres on
    its ankle roll links: each foot gets geoms, no geom two feet, and the trunk none."""
    for robot in (g1, go2):
        tm = build_torque_model(robot)
        owner = foot_of_geoms(tm.model, robot.feet)
        assert sorted(set(owner.tolist()) - {-1}) == list(range(len(robot.feet)))
        assert owner[tm.floor_geom] == -1
        trunk = [g for g in range(tm.model.ngeom) if tm.model.geom_bodyid[g] == robot.root_body_id]
        assert (owner[trunk] == -1).all()


def test_planted_feet_need_load_on_two_frames_in_a_row():
    nan = np.nan
    slip = np.array([[0.1, nan], [0.2, 0.5], [nan, nan], [0.3, nan], [nan, 0.4], [nan, 0.1]])
    planted, brief = planted_feet(slip)
    np.testing.assert_array_equal(planted[:, 0], [True, True, False, False, False, False])
    np.testing.assert_array_equal(planted[:, 1], [False, False, False, False, True, True])
    assert brief == 2  # foot 0 on frame 3 alone, foot 1 on frame 1 alone


@pytest.mark.parametrize("name", ["booster_t1", "unitree_a1"])
def test_t1_and_a1_holding_their_home_keyframes_are_feasible(name: str):
    robot = load_robot(name)
    motion = hold(robot, on_floor(robot, robot.rest_qpos()), 2.0)
    result = run_simulation(motion, robot)
    assert result.report.feasible, result.report.reasons
    assert np.linalg.norm(result.rollout.motion.root_pos - motion.root_pos, axis=1).max() < 0.01


def test_a_model_loaded_from_its_file_gets_the_loaders_foot_bodies_in_its_copy(go2):
    robot = load_robot(go2.path)  # recognised, not the registry entry: foot bodies made by the loader
    assert "FL_foot" in robot.body_names
    tm = build_torque_model(robot)
    assert tm.model.nbody == robot.model.nbody  # no body lost; the floor is a geom of the world body
    q = robot.rest_pose if robot.rest_pose is not None else robot.rest_qpos()
    assert simulate(hold(robot, on_floor(robot, q), 1.0), robot).feasible


def test_trunk_lifted_half_a_metre_is_infeasible(go2):
    motion = hold(go2, on_floor(go2, go2.rest_qpos()), 4.0)
    t = np.arange(motion.num_frames) / motion.fps
    lift = 0.5 * np.clip(np.minimum(t - 1.0, 3.0 - t) / 0.2, 0.0, 1.0)  # 2 s up, 0.2 s ramps
    root = motion.root_pos.copy()
    root[:, 2] += lift
    lifted = RobotMotion(go2.name, motion.fps, root, motion.root_rot, motion.dof_pos, motion.dof_names)
    result = run_simulation(lifted, go2)
    assert not result.report.feasible and not result.report.dynamics_feasible
    assert any("contacts cannot explain" in r for r in result.report.reasons)
    up = (t > 1.3) & (t < 2.7)
    assert result.dynamics.residual_force_fraction[up].min() > 0.95  # nothing holds the trunk up


def test_feet_5_cm_underground_are_infeasible(g1):
    q = g1.rest_qpos().copy()
    q[2] -= 0.05
    rep = simulate(hold(g1, q, 1.0), g1)
    assert not rep.feasible and not rep.dynamics_feasible
    assert rep.max_penetration_m == pytest.approx(0.05, abs=0.005)
    assert any("into the floor" in r for r in rep.reasons)


def test_replay_of_a_feasible_rollout_tracks_it_within_1_cm(g1):
    """A motion the simulator itself produced (slow torso and arm motion while standing) is
    executable by construction; replaying it must follow it."""
    q0 = g1.rest_qpos()
    fps, seconds = 50.0, 3.0
    t = np.arange(int(fps * seconds) + 1) / fps
    q = np.tile(q0, (t.size, 1))
    for name, amp in (("waist_yaw_joint", 0.3), ("left_shoulder_pitch_joint", 0.6), ("right_elbow_joint", 0.5)):
        q[:, 7 + g1.dof_names.index(name)] += amp * np.sin(2 * np.pi * 0.5 * t)
    produced = run_simulation(RobotMotion.from_qpos(g1.name, fps, q, g1.dof_names), g1).rollout.motion
    assert produced.num_frames == t.size
    again = run_simulation(produced, g1)
    err = np.linalg.norm(again.rollout.motion.root_pos - produced.root_pos, axis=1)
    assert again.report.feasible, again.report.reasons
    assert err.max() < 0.01


def test_a_diverging_replay_is_reported_infeasible_with_its_time(g1):
    cfg = SimConfig(gains=Gains(kd={"left_knee_joint": -1e5, "right_knee_joint": -1e5}))  # negative damping
    rep = simulate(hold(g1, g1.rest_qpos(), 1.0), g1, config=cfg)
    assert rep.diverged and not rep.feasible
    assert rep.time_to_fall_s is not None and 0 < rep.time_to_fall_s <= 1.0
    assert "diverged" in rep.reasons[0]
    assert "Inertia matrix" in rep.divergence  # MuJoCo's warning text, captured instead of printed


# -- bad input -----------------------------------------------------------------------------------------
def test_joints_that_do_not_match_the_model_are_refused(g1):
    m = hold(g1, g1.rest_qpos(), 0.1)
    bad = RobotMotion(g1.name, m.fps, m.root_pos, m.root_rot, m.dof_pos[:, 1:], m.dof_names[1:])
    with pytest.raises(KinemorphError, match=r"joints do not match robot unitree_g1.*missing"):
        simulate(bad, g1)


def test_nan_and_single_frames_are_refused(g1):
    m = hold(g1, g1.rest_qpos(), 0.1)
    dof = m.dof_pos.copy()
    dof[3, 2] = np.nan
    with pytest.raises(KinemorphError, match=r"(NaN or infinite|non-finite) value at frame 3"):
        simulate(RobotMotion(g1.name, m.fps, m.root_pos, m.root_rot, dof, m.dof_names), g1)
    one = RobotMotion(g1.name, m.fps, m.root_pos[:1], m.root_rot[:1], m.dof_pos[:1], m.dof_names)
    with pytest.raises(KinemorphError, match="at least 2"):
        simulate(one, g1)


@pytest.mark.filterwarnings("ignore:.*no arms found")  # the loader's note about a robot without arms
def test_a_robot_without_actuators_is_refused(tmp_path: Path):
    xml = tmp_path / "bare.xml"

    def leg(side: str, y: float) -> str:
        links = "".join(
            f"<body name='{side}_{link}' pos='0 {y if k == 0 else 0} -0.15'><joint name='{side}_{link}_joint'/>"
            "<geom type='capsule' size='0.02 0.05' mass='0.2'/>"
            for k, link in enumerate(("hip", "knee", "ankle"))
        )
        return (
            links
            + f"<body name='{side}_foot' pos='0 0 -0.1'><geom type='sphere' size='0.03' mass='0.1'/></body>"
            + ("</body>" * 3)
        )

    xml.write_text(
        "<mujoco><worldbody><body name='trunk' pos='0 0 0.6'><freejoint/>"
        "<geom type='box' size='0.1 0.1 0.1' mass='1'/>" + leg("left", 0.1) + leg("right", -0.1) + "</body>"
        "</worldbody></mujoco>"
    )
    robot = load_robot(xml)
    motion = hold(robot, robot.model.qpos0, 0.1)
    with pytest.raises(KinemorphError, match="no actuators"):
        simulate(motion, robot)


# -- outputs and the command ---------------------------------------------------------------------------
def test_report_json_and_simulated_npz_round_trip(g1, tmp_path: Path):
    from kinemorph.io import load

    result = run_simulation(hold(g1, g1.rest_qpos(), 0.5), g1)
    save_report(result.report, tmp_path / "r.json")
    save_simulation(result, tmp_path / "s.npz")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["feasible"] is True and data["time_to_fall_s"] is None
    for key in ("fell", "base_position_rms_m", "base_orientation_rms_deg", "joint_rms_rad",
                "torque_saturation_fraction", "residual_force_mean_fraction", "contact_slip_cm_s",
                "planted_foot_slip_cm_s", "brief_foot_touches", "floor_bodies"):  # fmt: skip
        assert key in data
    back = load(tmp_path / "s.npz", robot_name=g1.name, dof_names=g1.dof_names)
    assert np.allclose(back.qpos, result.rollout.motion.qpos)
    with np.load(tmp_path / "s.npz") as z:
        assert z["torque"].shape == (back.num_frames, g1.model.nu)
        assert z["contact_force"][-1, 2] == pytest.approx(build_torque_model(g1).weight, rel=0.02)
        assert z["foot_slip"].shape == (back.num_frames, len(g1.feet)) and list(z["foot_names"]) == list(g1.feet)


def test_cli_prints_one_line_for_bad_input(g1, tmp_path: Path, capsys):
    from kinemorph.cli import main
    from kinemorph.io import save

    path = tmp_path / "stand.npz"
    save(hold(g1, g1.rest_qpos(), 0.4), path)
    assert main(["simulate", str(path), "--robot", "unitree_g1", "--quiet", "--report", str(tmp_path / "r.json")]) == 0
    assert "FEASIBLE" in capsys.readouterr().out
    assert main(["simulate", str(path), "--robot", "unitree_go2", "--quiet", "-o", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kinemorph: error: ")
    assert not (tmp_path / "x.npz").exists()


def sway(robot, q0: np.ndarray, amp: float, hz: float, seconds: float, fps: float = 50.0) -> RobotMotion:
    """The trunk swaying (amplitude amp [m] along (1, 0.6, 0.5), frequency hz) with the feet kept
    where they are by Gauss-Newton IK on the leg joints."""
    m, d = robot.model, robot.data
    feet = [robot.body_id(f) for f in robot.feet]
    d.qpos[:] = q0
    mujoco.mj_kinematics(m, d)
    goal = d.xpos[feet].copy()
    t = np.arange(round(seconds * fps) + 1) / fps
    out = np.tile(q0, (t.size, 1))
    q = q0.copy()
    jac = np.zeros((3, m.nv))
    for i, ti in enumerate(t):
        q[:3] = q0[:3] + amp * np.sin(2 * np.pi * hz * ti) * np.array([1.0, 0.6, 0.5])
        for _ in range(10):
            d.qpos[:] = q
            mujoco.mj_kinematics(m, d)
            mujoco.mj_comPos(m, d)
            rows = []
            for b in feet:
                mujoco.mj_jacBody(m, d, jac, None, b)
                rows.append(jac[:, 6:].copy())
            q[7:] += np.linalg.lstsq(np.vstack(rows), (goal - d.xpos[feet]).reshape(-1), rcond=None)[0]
        out[i] = q
    return RobotMotion.from_qpos(robot.name, fps, out, robot.dof_names)


def test_a_slow_trunk_sway_with_planted_feet_is_feasible(go2):
    motion = sway(go2, on_floor(go2, go2.rest_qpos()), 0.04, 0.5, 4.0)
    result = run_simulation(motion, go2)
    assert result.report.feasible, result.report.reasons
    err = np.linalg.norm(result.rollout.motion.root_pos - motion.root_pos, axis=1)
    assert err.max() < 0.01


def test_the_same_sway_at_3_hz_needs_more_friction_and_torque_than_go2_has(go2):
    rep = simulate(sway(go2, on_floor(go2, go2.rest_qpos()), 0.04, 3.0, 2.0), go2)
    assert not rep.feasible and not rep.dynamics_feasible  # 14 m/s^2 of trunk acceleration
    assert (
        rep.required_friction_max > 0.8
    )  # more than the floor's mu    assert any("exceed the motor limits" in r for r in rep.reasons)


# -- retargeted clips ---------------------------------------------------------------------------
@needs_data
def test_go2_dog_walk_with_the_trunk_lifted_is_infeasible(go2):
    from kinemorph import load_motion, retarget

    motion = retarget(load_motion(Path(DATA) / "motions" / "dog_walk.bvh"), go2, engine="quadruped")
    t = np.arange(motion.num_frames) / motion.fps
    window = (t >= 1.0) & (t < 3.0)
    root = motion.root_pos.copy()
    root[window, 2] += 0.5
    lifted = RobotMotion(
        go2.name, motion.fps, root, motion.root_rot, motion.dof_pos, motion.dof_names,
        contacts=motion.contacts, contact_bodies=motion.contact_bodies,
    )  # fmt: skip
    result = run_simulation(lifted, go2)
    assert not result.report.feasible
    assert any("contacts cannot explain" in r for r in result.report.reasons)
    assert result.dynamics.residual_force_fraction[window].mean() > 0.9


@needs_data
def test_g1_walk_sped_up_3x_is_infeasible(g1):
    from kinemorph import retarget
    from kinemorph.motion.procedural import procedural_walk

    motion = retarget(procedural_walk(), g1)
    fast = RobotMotion(
        g1.name, motion.fps, motion.root_pos[::3], motion.root_rot[::3], motion.dof_pos[::3], motion.dof_names
    )
    normal, quick = simulate(motion, g1), simulate(fast, g1)
    # the 1x walk passes the residual and torque thresholds (it fails on its sustained residual) ...
    assert normal.residual_force_mean_fraction < 0.10 and normal.id_torque_over_limit_fraction < 0.05
    assert not quick.feasible and not quick.dynamics_feasible  # ... three times faster it fails them all
    assert any("contacts cannot explain" in r for r in quick.reasons)
    assert any("exceed the motor limits" in r for r in quick.reasons)
    assert quick.residual_velocity_max_m_s > 3 * normal.residual_velocity_max_m_s
    assert quick.residual_force_mean_fraction > 2 * normal.residual_force_mean_fraction
    assert quick.id_torque_peak_ratio > normal.id_torque_peak_ratio


def test_base_assist_holds_a_walk_up_and_reports_its_size(g1):
    from kinemorph import retarget
    from kinemorph.motion.procedural import procedural_walk

    motion = retarget(procedural_walk(duration=6.0), g1)
    free = simulate(motion, g1)
    helped = simulate(motion, g1, config=SimConfig(assist_hz=3.0))
    assert free.fell and free.assist_force_mean_fraction == 0.0
    assert not helped.fell and helped.base_position_rms_m < 0.02
    assert 0.02 < helped.assist_force_mean_fraction < 1.0  # the help it needed, in body weights


def test_gain_overrides_replace_the_model_derived_gains(g1):
    from kinemorph.errors import ConfigError

    tm = build_torque_model(g1)
    kp = pd_gains(tm, g1.rest_qpos(), Gains()).kp
    knee = g1.dof_names.index("left_knee_joint")
    wrist = g1.dof_names.index("left_wrist_yaw_joint")
    assert kp[knee] > 10 * kp[wrist]  # the knee carries the robot, the wrist a hand
    over = pd_gains(tm, g1.rest_qpos(), Gains(kp={"left_knee_joint": 123.0}, kd={"left_knee_joint": 4.0}))
    assert (over.kp[knee], over.kd[knee]) == (123.0, 4.0)
    assert np.array_equal(np.delete(over.kp, knee), np.delete(kp, knee))
    with pytest.raises(ConfigError, match="unknown joint 'knee'"):
        pd_gains(tm, g1.rest_qpos(), Gains(kp={"knee": 1.0}))
    with pytest.raises(ConfigError, match="bandwidth_hz must be positive"):
        Gains(bandwidth_hz=0.0)


def test_residual_velocity_integrates_the_residual_over_the_window():
    from kinemorph.sim.verdict import residual_velocity

    acc = np.zeros((100, 3))
    acc[20:45, 0] = 2.0  # 2 m/s^2 for 0.5 s at 50 fps: 1 m/s
    assert residual_velocity(acc, 50.0, 0.5) == pytest.approx(1.0)
    assert residual_velocity(acc, 50.0, 0.1) == pytest.approx(0.2)
    acc[50:75, 0] = -2.0  # an opposite push later does not cancel the first within a window
    assert residual_velocity(acc, 50.0, 0.5) == pytest.approx(1.0)


def test_contact_mask_limits_contacts_to_planted_feet(go2):
    motion = hold(go2, on_floor(go2, go2.rest_qpos()), 0.2)
    mask = np.ones((motion.num_frames, 4), dtype=bool)
    mask[:, 0] = False  # FL_foot said to be in the air
    masked = RobotMotion(
        go2.name, motion.fps, motion.root_pos, motion.root_rot, motion.dof_pos, motion.dof_names,
        contacts=mask, contact_bodies=("FL_foot", "FR_foot", "RL_foot", "RR_foot"),
    )  # fmt: skip
    dyn = inverse_dynamics(build_torque_model(go2), masked, ContactSettings())
    assert (dyn.num_contacts == 3).all()
    fl = dyn.contact_bodies.index("FL_foot")
    assert np.abs(dyn.contact_force[:, fl]).max() == 0.0


def test_a_planted_foot_may_push_on_the_frame_before_it_lands(go2):
    """The central-difference acceleration of a frame spans the frames either side, so a planted
    paw that is on the floor on the next frame may push on this one, from higher than the mask's
    tolerance (a landing at 1 m/s is 3.3 cm up on the frame before at 30 fps); a paw as high on
    every frame of the span may not."""
    q = on_floor(go2, go2.rest_qpos())
    motion = hold(go2, q, 0.2, fps=30.0)
    feet = go2.feet
    tm = build_torque_model(go2)
    qpos = motion.qpos.copy()
    t = 3
    qpos[: t + 1, 2] += 0.035 * (t + 1 - np.arange(t + 1))  # coming down 3.5 cm a frame, on the floor at t + 1
    mask = np.ones((motion.num_frames, 4), dtype=bool)
    landing = RobotMotion.from_qpos(go2.name, 30.0, qpos, go2.dof_names, contacts=mask, contact_bodies=feet)
    dyn = inverse_dynamics(tm, landing, ContactSettings(mask_height_tol=0.03))
    assert dyn.num_contacts[t] == 4 and dyn.num_contacts[t - 1] == 0  # 3.5 cm up then 7 and 3.5 cm
    assert dyn.residual_force_fraction[t] < 0.01 and dyn.residual_force_fraction[t - 1] > 0.99
    unmasked = inverse_dynamics(tm, dataclasses.replace(landing, contacts=None, contact_bodies=()))
    assert unmasked.num_contacts[t] == 0  # no mask: the analysis's own 1 cm on the frame itself


def test_legs_on_the_floor_outside_the_contact_mask_are_named(go2):
    """A Go2 sunk onto its calves with only the paws in its contact mask: the inverse dynamics
    lists the calves as bodies on the floor that may not push, and the verdict names them; without
    a mask every body may push and none is listed."""
    q = on_floor(go2, go2.rest_qpos())
    q[2] -= 0.06  # the paws 6 cm into the floor, the calves (5 cm above the soles) 1 cm in
    motion = hold(go2, q, 0.2)
    masked = RobotMotion.from_qpos(
        go2.name, motion.fps, motion.qpos, go2.dof_names,
        contacts=np.ones((motion.num_frames, 4), dtype=bool), contact_bodies=go2.feet,
    )  # fmt: skip
    tm = build_torque_model(go2)
    dyn = inverse_dynamics(tm, masked)
    assert set(dyn.floor_bodies) >= {"FL_calf", "RR_calf"}
    assert all(n == motion.num_frames for n in dyn.floor_bodies.values())
    assert not set(dyn.floor_bodies) & set(go2.feet)
    assert inverse_dynamics(tm, motion).floor_bodies == {}  # no mask: any body may push
    lifted = masked.qpos.copy()
    lifted[:, 2] += 0.055  # paws 5 mm in, calves clear
    assert inverse_dynamics(tm, dataclasses.replace(masked, root_pos=lifted[:, :3])).floor_bodies == {}
    assert simulate(masked, go2).floor_bodies == dyn.floor_bodies
    rep = {k: 0.0 for k in ("residual_velocity_max_m_s", "residual_angular_velocity_max_rad_s",
                            "id_torque_over_limit_fraction", "max_penetration_m", "base_position_rms_m",
                            "torque_saturation_fraction")}  # fmt: skip
    rep.update(residual_force_mean_fraction=0.3, residual_force_p95_fraction=0.9)
    rep["floor_bodies"] = {"RL_calf": 3, "FL_thigh": 1}
    dyn_reasons, _ = _reasons(rep, Thresholds(), False, False, None, "")
    assert dyn_reasons == [
        "contacts cannot explain the motion: residual base force 30% of body weight on average, 90% at the 95th "
        "percentile (limits 10% / 30%); on the floor where only the contact bodies may push: RL_calf (3 frames), "
        "FL_thigh (1 frame)"
    ]
    rep["floor_bodies"] = {}
    assert _reasons(rep, Thresholds(), False, False, None, "")[0][0].endswith("(limits 10% / 30%)")


def _landing(tm, robot) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(summed slide of the paws' contact points [m], deepest contact [m]) over the first 60 ms of
    a Go2 dropped onto the floor at 0.5 m/s forwards and 0.5 m/s down, joints held by PD torques."""
    from kinemorph.retarget.stmr.floor_cost import foot_sphere
    from kinemorph.robots.geometry import lowest_points

    m, q0 = tm.model, robot.rest_qpos()
    d = mujoco.MjData(m)
    paws = {foot_sphere(m, f) for f in robot.feet}
    d.qpos[:] = q0
    d.qpos[2] -= float(lowest_points(robot, q0, robot.feet).min()) - 0.001
    d.qvel[0], d.qvel[2] = 0.5, -0.5
    slide, deepest, vel = 0.0, 0.0, np.zeros(6)
    while d.time < 0.06:
        d.ctrl[:] = np.clip(60 * (q0[7:] - d.qpos[7:]) - 2 * d.qvel[6:], -tm.torque_limit, tm.torque_limit)
        mujoco.mj_step(m, d)
        for c in d.contact[: d.ncon]:
            g = c.geom2 if c.geom1 == tm.floor_geom else c.geom1
            assert g in paws
            mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_GEOM, g, vel, 0)
            v = vel[3:] + np.cross(vel[:3], [0.0, 0.0, -m.geom_size[g, 0]])  # the lowest point's
            slide += float(np.hypot(v[0], v[1])) * m.opt.timestep
            deepest = max(deepest, -c.dist)
    return slide, deepest


def test_stiff_friction_rows_stop_a_landing_paw_without_changing_how_deep_it_sinks(go2):
    """build_torque_model's floor_friction_timeconst: the floor meets each collision geom through one
    contact pair (no automatic contact doubles it) whose friction rows have that time constant; a
    Go2 landing with 0.5 m/s forward speed slides its paws a quarter as far as on MuJoCo's default
    (20.6 -> 4.8 mm summed) and sinks as deep (3.9 and 3.6 mm); set_floor keeps the pairs in step."""
    from kinemorph.sim.model import floor_friction_timeconst, set_floor

    soft = build_torque_model(go2, floor_solimp=(0.99, 0.99))
    stiff = build_torque_model(go2, floor_solimp=(0.99, 0.99), floor_friction_timeconst=0.004)
    assert soft.model.npair == 0 and floor_friction_timeconst(soft.model, soft.floor_geom) is None
    assert stiff.model.npair == len(stiff.collision_geoms)
    assert floor_friction_timeconst(stiff.model, stiff.floor_geom) == 0.004
    assert set(stiff.model.pair_geom2) == set(stiff.collision_geoms.tolist())
    (slide0, deep0), (slide1, deep1) = _landing(soft, go2), _landing(stiff, go2)
    assert slide1 < 0.4 * slide0
    assert deep1 == pytest.approx(deep0, rel=0.25)
    m = stiff.model
    set_floor(m, stiff.floor_geom, margin=0.002, solimp=(0.95, 0.97), timeconst=0.01, friction_timeconst=0.006)
    np.testing.assert_allclose(m.pair_solref[:, 0], 0.01)
    np.testing.assert_allclose(m.pair_solimp[:, :2], np.tile([0.95, 0.97], (m.npair, 1)))
    np.testing.assert_allclose(m.pair_solreffriction[:, 0], 0.006)
    assert (m.pair_margin >= 0.002).all()
    raised = build_torque_model(go2, timestep=0.002, floor_friction_timeconst=0.001).model  # two physics steps
    assert raised.pair_solreffriction[0, 0] == 0.004
    with pytest.raises(KinemorphError, match="floor_friction_timeconst"):
        build_torque_model(go2, floor_friction_timeconst=0.0)
