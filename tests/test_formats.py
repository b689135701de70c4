"""Training-framework formats (beyondmimic, mimickit, holosoma, mjlab), export metadata, format
choice by name / file name / content, describe and convert."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from conftest import needs_menagerie
from kinemorph.errors import KinemorphError, UnknownNameError
from kinemorph.io import (
    EXPORT_FORMATS,
    META_KEY,
    UNITS,
    body_states,
    convert,
    describe,
    detect_format,
    get_format,
    kinematic_tree_hash,
    load,
    read_meta,
    save,
    sidecar_path,
    written_files,
)
from kinemorph.robots.robot_motion import RobotMotion
from kinemorph.transforms import axis_angle_to_quat, quat_mul

pytestmark = needs_menagerie

NEW_FORMATS = ("beyondmimic", "mimickit", "holosoma", "mjlab")


@pytest.fixture(scope="module")
def g1():  # type: ignore[no-untyped-def]
    from kinemorph.robots import load_robot

    return load_robot("unitree_g1")


def smooth_motion(robot, frames: int = 90, fps: float = 30.0, yaw_rate: float = 0.4) -> RobotMotion:  # type: ignore[no-untyped-def]
    """Root walking forward and turning at ``yaw_rate`` [rad/s] with a slow roll, joints swinging."""
    t = np.arange(frames) / fps
    q = np.tile(robot.rest_qpos(), (frames, 1))
    q[:, 0], q[:, 1] = 0.8 * t, 0.1 * np.sin(t)
    q[:, 2] += 0.02 * np.sin(4 * t)
    yaw = axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), yaw_rate * t)
    roll = axis_angle_to_quat(np.array([1.0, 0.0, 0.0]), 0.1 * np.sin(2 * t))
    q[:, 3:7] = quat_mul(yaw, roll)
    phase = np.linspace(0, 2, robot.num_dofs)
    q[:, 7:] = np.clip(q[:, 7:] + 0.3 * np.sin(2 * t[:, None] + phase), robot.lower, robot.upper)
    return RobotMotion.from_qpos(robot.name, fps, q, robot.dof_names, info={"engine": "gmr", "frames": frames})


def same_rotation(a: np.ndarray, b: np.ndarray) -> float:
    """Largest 1 - |<a, b>| over frames: 0 when the quaternions are the same rotations (any sign)."""
    return float(np.max(1.0 - np.abs(np.sum(a * b, axis=-1))))


# -- round trips ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPORT_FORMATS))
def test_every_format_round_trips(tmp_path: Path, g1, name: str) -> None:  # type: ignore[no-untyped-def]
    motion = smooth_motion(g1)
    path = save(motion, tmp_path / f"walk{EXPORT_FORMATS[name].suffix}", robot=g1)
    back = load(path)
    assert back.robot == "unitree_g1" and back.dof_names == g1.dof_names and back.fps == 30.0
    np.testing.assert_allclose(back.root_pos, motion.root_pos, rtol=0, atol=1e-12)
    np.testing.assert_allclose(back.dof_pos, motion.dof_pos, rtol=0, atol=1e-12)
    assert same_rotation(back.root_rot, motion.root_rot) < 1e-12
    if name != "mimickit":  # an exponential map keeps the rotation, not the quaternion's sign
        np.testing.assert_allclose(back.root_rot, motion.root_rot, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", NEW_FORMATS)
def test_format_chosen_by_name_with_any_file_name(tmp_path: Path, g1, name: str) -> None:  # type: ignore[no-untyped-def]
    motion = smooth_motion(g1, frames=10)
    plain = EXPORT_FORMATS[name].suffix.rsplit(".", 1)[-1]
    path = save(motion, tmp_path / f"clip.{plain}", robot=g1, format=name)
    assert detect_format(path).name == name  # a plain suffix: found by content
    np.testing.assert_allclose(load(path).dof_pos, motion.dof_pos, atol=1e-12)


def test_unknown_format_name_lists_the_valid_ones(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UnknownNameError, match="beyondmimic, csv, holosoma, json, mimickit, mjlab, npz, pkl"):
        save(smooth_motion(g1, frames=3), tmp_path / "x.npz", format="isaac")
    with pytest.raises(UnknownNameError, match="mjlab"):
        get_format("bogus")
    assert list(tmp_path.iterdir()) == []


# -- BeyondMimic CSV --------------------------------------------------------------------------------


def test_beyondmimic_csv_of_a_60_s_walk_on_g1_is_1800_by_36(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    from kinemorph import retarget
    from kinemorph.motion.procedural import procedural_walk

    walk = procedural_walk(duration=60.0, fps=30.0)
    assert walk.num_frames == 1800
    result = retarget(walk, g1)
    path = save(result, tmp_path / "walk.beyondmimic.csv", robot=g1)
    table = np.loadtxt(path, delimiter=",")  # how BeyondMimic's and mjlab's csv_to_npz read it
    assert table.shape == (1800, 7 + 29)
    np.testing.assert_array_equal(table[:, :3], result.root_pos)
    np.testing.assert_array_equal(table[:, 7:], result.dof_pos)


def test_beyondmimic_quaternion_is_xyzw_without_header(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    motion = smooth_motion(g1, frames=4, yaw_rate=0.0)
    quarter = np.tile(axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), np.pi / 2), (4, 1))
    motion = RobotMotion("unitree_g1", 30.0, motion.root_pos, quarter, motion.dof_pos, motion.dof_names)
    path = save(motion, tmp_path / "q.beyondmimic.csv", robot=g1)
    first = path.read_text().splitlines()[0].split(",")
    s = np.sqrt(0.5)
    np.testing.assert_allclose([float(v) for v in first[3:7]], [0.0, 0.0, s, s], atol=1e-15)
    assert len(path.read_text().splitlines()) == 4


def test_beyondmimic_without_sidecar_reads_as_unitree_dataset(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    motion = smooth_motion(g1, frames=5)
    path = save(motion, tmp_path / "dance1_subject1.csv", robot=g1, format="beyondmimic")
    sidecar_path(path).unlink()
    back = load(path, dof_names=g1.dof_names)
    assert back.fps == 30.0 and back.dof_names == g1.dof_names and back.robot == "unknown"
    np.testing.assert_allclose(back.dof_pos, motion.dof_pos, atol=1e-12)


# -- MimicKit -------------------------------------------------------------------------------------


def test_mimickit_layout_and_loop_mode(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    motion = smooth_motion(g1, frames=6, yaw_rate=0.0)
    quarter = np.tile(axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), np.pi / 2), (6, 1))
    motion = RobotMotion(
        "unitree_g1", 30.0, motion.root_pos, quarter, motion.dof_pos, motion.dof_names, info={"loop_mode": "wrap"}
    )
    path = save(motion, tmp_path / "walk.mimickit.pkl", robot=g1)
    with open(path, "rb") as f:
        data = pickle.load(f)
    assert {"loop_mode", "fps", "frames"} <= set(data)
    assert data["loop_mode"] == 1 and data["fps"] == 30 and type(data["fps"]) is int
    frames = np.asarray(data["frames"])
    assert frames.shape == (6, 6 + 29)
    np.testing.assert_allclose(frames[:, 3:6], np.tile([0.0, 0.0, np.pi / 2], (6, 1)), atol=1e-15)
    assert load(path).info["loop_mode"] == "wrap"


# -- holosoma and mjlab -----------------------------------------------------------------------------


def test_mjlab_has_the_keys_mjlab_reads_in_mujoco_body_order(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    motion = smooth_motion(g1)
    data = np.load(save(motion, tmp_path / "walk.mjlab.npz", robot=g1))
    t, n, b = motion.num_frames, g1.num_dofs, g1.model.nbody - 1
    shapes = {"joint_pos": (t, n), "joint_vel": (t, n), "body_pos_w": (t, b, 3), "body_quat_w": (t, b, 4)}
    shapes |= {"body_lin_vel_w": (t, b, 3), "body_ang_vel_w": (t, b, 3), "fps": (1,)}
    for key, shape in shapes.items():
        assert data[key].shape == shape, key
    assert list(data["body_names"]) == list(g1.body_names[1:])
    pose = g1.fk(motion.qpos)
    np.testing.assert_allclose(data["body_pos_w"], pose.positions[:, 1:], atol=1e-12)
    np.testing.assert_allclose(data["body_quat_w"], pose.rotations[:, 1:], atol=1e-12)  # w x y z
    np.testing.assert_allclose(data["joint_vel"], np.gradient(motion.dof_pos, 1 / 30, axis=0), atol=1e-12)


def test_holosoma_joint_arrays_start_with_the_root(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    motion = smooth_motion(g1)
    data = np.load(save(motion, tmp_path / "walk.holosoma.npz", robot=g1))
    assert data["joint_pos"].shape == (motion.num_frames, 7 + 29)
    assert data["joint_vel"].shape == (motion.num_frames, 6 + 29)
    np.testing.assert_allclose(data["joint_pos"][:, 3:7], motion.root_rot, atol=0)  # w x y z
    assert list(data["joint_names"]) == list(g1.dof_names)
    assert list(data["body_names"]) == list(g1.body_names[1:])


def test_body_velocities_match_finite_differences_of_the_kinematics(g1) -> None:  # type: ignore[no-untyped-def]
    fps = 200.0
    motion = smooth_motion(g1, frames=400, fps=fps)
    s = body_states(motion, g1)
    inner = slice(2, -2)
    # Root: the finite differences themselves; a constant yaw rate about world z shows in ang_vel.
    np.testing.assert_allclose(s.lin_vel[:, 0], np.gradient(motion.root_pos, 1 / fps, axis=0), atol=1e-9)
    assert np.max(np.abs(s.ang_vel[inner, 0, 2] - 0.4)) < 0.05
    # Every body: linear velocity against central differences of its FK positions.
    fd = np.gradient(s.pos, 1 / fps, axis=0)
    scale = np.max(np.abs(fd[inner]))
    assert np.max(np.abs(s.lin_vel[inner] - fd[inner])) < 1e-3 * scale
    # Angular velocity of a hand against the relative rotation of neighbouring frames.
    h = g1.body_names.index("left_wrist_yaw_link") - 1
    from kinemorph.io._bodies import root_angular_velocity

    fd_ang = root_angular_velocity(s.quat[:, h], 1 / fps)
    assert np.max(np.abs(s.ang_vel[inner, h] - fd_ang[inner])) < 1e-3 * np.max(np.abs(fd_ang))


def test_tracking_formats_load_the_known_robot_when_none_is_given(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    path = save(smooth_motion(g1, frames=5), tmp_path / "walk.mjlab.npz")
    assert read_meta(path).kinematic_tree_sha256 == kinematic_tree_hash(g1)


def test_tracking_format_of_an_unknown_robot_needs_its_model(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    m = smooth_motion(g1, frames=5)
    m = RobotMotion.from_qpos("my_robot", m.fps, m.qpos, m.dof_names)
    with pytest.raises(KinemorphError, match="pass its model"):
        save(m, tmp_path / "walk.holosoma.npz")
    assert list(tmp_path.iterdir()) == []


# -- metadata ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPORT_FORMATS))
def test_every_export_carries_its_metadata(tmp_path: Path, g1, name: str) -> None:  # type: ignore[no-untyped-def]
    fmt = EXPORT_FORMATS[name]
    path = save(smooth_motion(g1, frames=8), tmp_path / f"walk{fmt.suffix}", robot=g1, settings={"engine": "mesh"})
    meta = read_meta(path)
    assert meta is not None and meta.format == name
    assert meta.robot == "unitree_g1" and meta.robot_model == "g1.xml" and meta.root_body == "pelvis"
    assert meta.kinematic_tree_sha256 == kinematic_tree_hash(g1)
    assert meta.dof_names == g1.dof_names and meta.body_names == g1.body_names[1:]
    assert meta.fps == 30.0 and meta.num_frames == 8 and meta.quaternion == fmt.quaternion
    assert meta.units == UNITS and meta.settings == {"engine": "mesh"}
    from kinemorph import __version__

    assert meta.kinemorph_version == __version__
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in written_files(path))
    assert sidecar_path(path).exists() == fmt.sidecar


def test_metadata_inside_npz_is_plain_json(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    data = np.load(save(smooth_motion(g1, frames=3), tmp_path / "walk.npz", robot=g1))  # no pickle needed
    assert json.loads(str(data[META_KEY]))["robot"] == "unitree_g1"


def test_sidecar_restores_joint_names_of_a_gmr_pickle(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    path = save(smooth_motion(g1, frames=3), tmp_path / "walk.pkl", robot=g1)
    assert load(path).dof_names == g1.dof_names


def test_kinematic_tree_hash_tells_robots_apart(g1) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.robots import load_robot

    assert kinematic_tree_hash(load_robot("unitree_g1")) == kinematic_tree_hash(g1)
    assert kinematic_tree_hash(load_robot("unitree_h1")) != kinematic_tree_hash(g1)


def test_a_sidecar_is_not_a_motion_file(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    path = save(smooth_motion(g1, frames=3), tmp_path / "walk.csv", robot=g1)
    with pytest.raises(KinemorphError, match="sidecar"):
        load(sidecar_path(path))


# -- describe and convert ---------------------------------------------------------------------------


def test_describe_names_format_frames_robot_and_bodies(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    path = save(smooth_motion(g1, frames=12), tmp_path / "walk.holosoma.npz", robot=g1)
    d = describe(path)
    assert d.format == "holosoma" and d.num_frames == 12 and d.robot == "unitree_g1"
    text = d.text()
    assert "holosoma" in text and "12 at 30 fps" in text and "left_wrist_yaw_link" in text
    assert ("body_pos_w", "(12, 30, 3)", "float64") in d.arrays


def test_convert_chain_keeps_the_motion(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    motion = smooth_motion(g1)
    src = save(motion, tmp_path / "walk.npz", robot=g1, settings={"engine": "gmr", "mapping": "shipped"})
    a = convert(src, tmp_path / "walk.beyondmimic.csv")
    b = convert(a.output, tmp_path / "walk.mjlab.npz")
    c = convert(b.output, tmp_path / "walk.mimickit.pkl")
    back = load(c.output)
    np.testing.assert_allclose(back.dof_pos, motion.dof_pos, atol=1e-12)
    np.testing.assert_allclose(back.root_pos, motion.root_pos, atol=1e-12)
    assert same_rotation(back.root_rot, motion.root_rot) < 1e-12
    meta = read_meta(c.output)
    assert meta.settings["mapping"] == "shipped" and meta.settings["converted_from"]["format"] == "mjlab"


def test_convert_refuses_a_robot_with_another_joint_order(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    src = save(smooth_motion(g1, frames=4), tmp_path / "walk.npz", robot=g1)
    with pytest.raises(KinemorphError, match="joint orders differ"):
        convert(src, tmp_path / "walk.holosoma.npz", robot="unitree_h1")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walk.npz"]


def test_convert_names_the_joints_of_a_file_without_names(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    motion = smooth_motion(g1, frames=4)
    src = save(motion, tmp_path / "walk1_subject1.csv", format="beyondmimic", robot=g1)
    sidecar_path(src).unlink()  # as in Unitree's dataset
    done = convert(src, tmp_path / "walk.mjlab.npz", source_format="beyondmimic", robot=g1)
    assert "names no joints" in done.warnings[0]
    assert load(done.output).dof_names == g1.dof_names
