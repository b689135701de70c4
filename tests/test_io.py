"""kinemorph.io: round trips of every format, xyzw order, atomic writes, GMR compatibility."""

from __future__ import annotations

import csv
import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from kinemorph.errors import KinemorphError, MotionFileError, OutputExistsError
from kinemorph.io import FORMATS, GMR_KEYS, META_KEY, load, save, sidecar_path, written_files
from kinemorph.io import _npz as npz_module
from kinemorph.robots.robot_motion import RobotMotion
from kinemorph.transforms import axis_angle_to_quat, quat_normalize, quat_rotate

needs_menagerie = pytest.mark.skipif(
    not os.environ.get("MENAGERIE_ROOT"),
    reason="MENAGERIE_ROOT is not set (local mujoco-menagerie copy; the tests never download)",
)

TOLERANCE = {".npz": 1e-12, ".pkl": 1e-12, ".json": 1e-12, ".csv": 1e-9}
DOF_NAMES = ("left_hip", "left_knee", "right_hip", "right_knee", "waist")


def make_motion(
    *,
    frames: int = 7,
    fps: float = 30.0,
    dof_names: tuple[str, ...] = DOF_NAMES,
    robot: str = "unitree_g1",
    seed: int = 0,
) -> RobotMotion:
    rng = np.random.default_rng(seed)
    return RobotMotion(
        robot=robot,
        fps=fps,
        root_pos=rng.normal(size=(frames, 3)),
        root_rot=quat_normalize(rng.normal(size=(frames, 4))),
        dof_pos=rng.uniform(-2.0, 2.0, size=(frames, len(dof_names))),
        dof_names=dof_names,
        info={"engine": "gmr", "iterations": [3, 4], "seconds": 0.125},
    )


def assert_same_motion(a: RobotMotion, b: RobotMotion, tol: float) -> None:
    assert b.robot == a.robot
    assert b.dof_names == a.dof_names
    assert abs(b.fps - a.fps) <= tol * a.fps
    np.testing.assert_allclose(b.root_pos, a.root_pos, rtol=0, atol=tol)
    np.testing.assert_allclose(b.root_rot, a.root_rot, rtol=0, atol=tol)
    np.testing.assert_allclose(b.dof_pos, a.dof_pos, rtol=0, atol=tol)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def strip_meta(path: Path) -> Path:
    """Remove kinemorph's metadata from an export, so that it reads like a file from GMR."""
    sidecar_path(path).unlink(missing_ok=True)
    if path.suffix == ".npz":
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files if k != META_KEY}
        np.savez(path, **arrays)
    return path


def raw_root_rot(path: Path) -> np.ndarray:
    """The root rotation exactly as stored in the file, without the library's reader."""
    if path.suffix == ".npz":
        return np.load(path)["root_rot"]
    if path.suffix == ".pkl":
        with open(path, "rb") as f:
            return pickle.load(f)["root_rot"]
    if path.suffix == ".json":
        return np.array(json.loads(path.read_text())["root_rot_xyzw"])
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return np.array([[float(r[k]) for k in ("root_qx", "root_qy", "root_qz", "root_qw")] for r in rows])


# -- round trips ------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", sorted(FORMATS))
@pytest.mark.parametrize("fps", [30.0, 29.97])
def test_round_trip_keeps_values(tmp_path: Path, suffix: str, fps: float) -> None:
    motion = make_motion(fps=fps)
    path = save(motion, tmp_path / f"clip{suffix}")
    back = load(path, robot_name="unitree_g1", dof_names=DOF_NAMES)
    assert_same_motion(motion, back, TOLERANCE[suffix])


@pytest.mark.parametrize("suffix", sorted(FORMATS))
def test_round_trip_without_joints(tmp_path: Path, suffix: str) -> None:
    motion = make_motion(dof_names=())
    back = load(save(motion, tmp_path / f"clip{suffix}"), robot_name="unitree_g1")
    assert_same_motion(motion, back, TOLERANCE[suffix])


def test_json_round_trip_keeps_robot_and_info(tmp_path: Path) -> None:
    motion = make_motion(robot="booster_t1")
    back = load(save(motion, tmp_path / "clip.json"))
    assert back.robot == "booster_t1"
    assert back.info == motion.info


def test_json_writes_numpy_info_as_plain_numbers(tmp_path: Path) -> None:
    motion = make_motion()
    motion.info.update(residual=np.float64(0.5), per_frame=np.arange(3))
    back = load(save(motion, tmp_path / "clip.json"))
    assert back.info["residual"] == 0.5
    assert back.info["per_frame"] == [0, 1, 2]


@pytest.mark.parametrize("suffix", [".npz", ".pkl", ".csv"])
def test_robot_name_is_guessed_from_the_file_name(tmp_path: Path, suffix: str) -> None:
    strip_meta(save(make_motion(), tmp_path / f"walk_unitree_g1{suffix}"))
    strip_meta(save(make_motion(), tmp_path / f"walk{suffix}"))
    assert load(tmp_path / f"walk_unitree_g1{suffix}").robot == "unitree_g1"
    assert load(tmp_path / f"walk{suffix}").robot == "unknown"
    assert load(tmp_path / f"walk{suffix}", robot_name="unitree_h1").robot == "unitree_h1"


def test_pickle_without_dof_names_reads_placeholders(tmp_path: Path) -> None:
    back = load(strip_meta(save(make_motion(), tmp_path / "clip.pkl")))
    assert back.dof_names == tuple(f"dof_{i}" for i in range(len(DOF_NAMES)))


def test_load_refuses_dof_names_that_differ_from_the_file(tmp_path: Path) -> None:
    path = save(make_motion(), tmp_path / "clip.npz")
    with pytest.raises(MotionFileError, match="differ"):
        load(path, dof_names=("a", "b", "c", "d", "e"))


# -- quaternion order -----------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", sorted(FORMATS))
def test_files_store_root_rot_xyzw(tmp_path: Path, suffix: str) -> None:
    # 90 degrees about world z: wxyz (c, 0, 0, s) with c = s = sqrt(1/2); the file must hold (0, 0, s, c).
    quarter = axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), np.full(3, np.pi / 2))
    motion = make_motion(frames=3)
    motion = RobotMotion(
        robot=motion.robot,
        fps=motion.fps,
        root_pos=motion.root_pos,
        root_rot=quarter,
        dof_pos=motion.dof_pos,
        dof_names=motion.dof_names,
    )
    np.testing.assert_allclose(quat_rotate(quarter[0], np.array([1.0, 0.0, 0.0])), [0.0, 1.0, 0.0], atol=1e-15)
    path = save(motion, tmp_path / f"clip{suffix}")
    s = np.sqrt(0.5)
    np.testing.assert_allclose(raw_root_rot(path), np.tile([0.0, 0.0, s, s], (3, 1)), atol=1e-15)
    np.testing.assert_allclose(load(path, dof_names=DOF_NAMES).root_rot, quarter, atol=1e-15)


def test_csv_header_names_the_columns(tmp_path: Path) -> None:
    path = save(make_motion(frames=2), tmp_path / "clip.csv")
    header = path.read_text().splitlines()[0].split(",")
    assert header == [
        "frame",
        "time",
        "root_x",
        "root_y",
        "root_z",
        "root_qx",
        "root_qy",
        "root_qz",
        "root_qw",
        *DOF_NAMES,
    ]
    assert len(path.read_text().splitlines()) == 3


# -- atomic writes and errors ---------------------------------------------------------------------


@pytest.mark.parametrize("suffix", sorted(FORMATS))
def test_refuses_to_overwrite_without_force(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"clip{suffix}"
    path.write_bytes(b"keep me")
    with pytest.raises(OutputExistsError):
        save(make_motion(), path)
    assert path.read_bytes() == b"keep me"
    assert leftovers(tmp_path) == [path.name]


@pytest.mark.parametrize("suffix", sorted(FORMATS))
def test_overwrites_with_force(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"clip{suffix}"
    path.write_bytes(b"old")
    motion = make_motion()
    save(motion, path, force=True)
    assert_same_motion(motion, load(path, robot_name="unitree_g1", dof_names=DOF_NAMES), TOLERANCE[suffix])
    assert leftovers(tmp_path) == sorted(p.name for p in written_files(path))


def test_writer_failing_midway_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_savez(f, **arrays):  # type: ignore[no-untyped-def]
        f.write(b"PK\x03\x04 half an archive")
        raise OSError("disk full")

    monkeypatch.setattr(npz_module.np, "savez", broken_savez)
    with pytest.raises(OSError, match="disk full"):
        save(make_motion(), tmp_path / "clip.npz")
    assert leftovers(tmp_path) == []


def test_unserialisable_info_leaves_nothing(tmp_path: Path) -> None:
    motion = make_motion()
    motion.info["solver"] = object()
    with pytest.raises(KinemorphError, match="JSON"):
        save(motion, tmp_path / "clip.json")
    assert leftovers(tmp_path) == []


def test_failed_overwrite_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "clip.json"
    path.write_text("old")
    motion = make_motion()
    motion.info["solver"] = object()
    with pytest.raises(KinemorphError):
        save(motion, path, force=True)
    assert path.read_text() == "old"
    assert leftovers(tmp_path) == ["clip.json"]


def test_missing_parent_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(KinemorphError, match="does not exist"):
        save(make_motion(), tmp_path / "no" / "such" / "clip.npz")
    assert leftovers(tmp_path) == []


def test_unknown_suffix_lists_the_supported_ones(tmp_path: Path) -> None:
    with pytest.raises(
        KinemorphError, match=r"\.csv, \.holosoma\.npz, \.json, \.mimickit\.pkl, \.mjlab\.npz, \.npz, \.pkl"
    ):
        save(make_motion(), tmp_path / "clip.txt")
    with pytest.raises(
        KinemorphError, match=r"unknown RobotMotion file format '\(no suffix\)'; valid: \.beyondmimic\.csv"
    ):
        load(tmp_path / "clip")
    assert leftovers(tmp_path) == []


def test_load_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(MotionFileError, match=r"clip\.npz: no such file"):
        load(tmp_path / "clip.npz")


def test_npz_missing_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "clip.npz"
    np.savez(path, fps=30, root_pos=np.zeros((2, 3)), dof_pos=np.zeros((2, 1)))
    with pytest.raises(MotionFileError, match="root_rot"):
        load(path)


def test_csv_bad_number_names_the_line(tmp_path: Path) -> None:
    path = save(make_motion(frames=3), tmp_path / "clip.csv")
    lines = path.read_text().splitlines()
    fields = lines[2].split(",")
    fields[3] = "oops"
    lines[2] = ",".join(fields)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(MotionFileError, match=r"clip\.csv:3"):
        load(path)


def test_json_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "clip.json"
    path.write_text('{\n"robot": "x",\n oops\n}')
    with pytest.raises(MotionFileError, match=r"clip\.json:3"):
        load(path)


def test_pickle_reader_refuses_arbitrary_objects(tmp_path: Path) -> None:
    path = tmp_path / "clip.pkl"
    with open(path, "wb") as f:
        pickle.dump({"fps": 30, "root_pos": Path("x")}, f)
    with pytest.raises(MotionFileError, match="refusing"):
        load(path)


def test_csv_with_one_frame_cannot_give_fps(tmp_path: Path) -> None:
    path = save(make_motion(frames=1), tmp_path / "clip.csv")
    with pytest.raises(MotionFileError, match="one frame"):
        load(path)


# -- GMR's pickle ---------------------------------------------------------------------------------


def test_pickle_has_gmr_keys_in_order_and_none_without_robot(tmp_path: Path) -> None:
    motion = make_motion()
    with open(save(motion, tmp_path / "clip.pkl"), "rb") as f:
        data = pickle.load(f)
    assert list(data) == ["fps", "root_pos", "root_rot", "dof_pos", "local_body_pos", "link_body_list"]
    assert tuple(data) == GMR_KEYS
    assert data["fps"] == 30 and type(data["fps"]) is int
    assert data["local_body_pos"] is None and data["link_body_list"] is None
    for key in ("root_pos", "root_rot", "dof_pos"):
        assert isinstance(data[key], np.ndarray) and data[key].dtype == np.float64


def test_pickle_fps_is_float_when_not_integral(tmp_path: Path) -> None:
    with open(save(make_motion(fps=29.97), tmp_path / "clip.pkl"), "rb") as f:
        fps = pickle.load(f)["fps"]
    assert type(fps) is float and fps == 29.97


def test_pickle_reads_numpy1_module_paths(tmp_path: Path) -> None:
    # GMR's pickles written under numpy 1.x name numpy.core.multiarray, numpy 2 names numpy._core.
    motion = make_motion()
    data = pickle.dumps(pickle.loads(save(motion, tmp_path / "new.pkl").read_bytes()), protocol=3)
    assert b"numpy._core.multiarray\n" in data
    path = tmp_path / "old.pkl"
    path.write_bytes(data.replace(b"numpy._core.multiarray\n", b"numpy.core.multiarray\n"))
    assert_same_motion(motion, load(path, robot_name="unitree_g1", dof_names=DOF_NAMES), 0.0)


@pytest.fixture(scope="module")
def g1():  # type: ignore[no-untyped-def]
    from kinemorph.robots import load_robot

    return load_robot("unitree_g1")


def g1_motion(robot, frames: int = 5) -> RobotMotion:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(1)
    q = np.tile(robot.rest_qpos(), (frames, 1))
    q[:, :3] += rng.normal(scale=0.3, size=(frames, 3))
    q[:, 3:7] = quat_normalize(rng.normal(size=(frames, 4)))
    q[:, 7:] = np.clip(q[:, 7:] + rng.normal(scale=0.3, size=(frames, robot.num_dofs)), robot.lower, robot.upper)
    return RobotMotion.from_qpos("unitree_g1", 30.0, q, robot.dof_names)


@needs_menagerie
def test_pickle_local_body_pos_matches_forward_kinematics(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.transforms import quat_to_mat

    motion = g1_motion(g1)
    with open(save(motion, tmp_path / "clip.pkl", robot=g1), "rb") as f:
        data = pickle.load(f)
    nbody = g1.model.nbody
    assert data["link_body_list"] == list(g1.body_names[1:])
    local = data["local_body_pos"]
    assert local.shape == (motion.num_frames, nbody - 1, 3) and local.dtype == np.float64
    pose = g1.fk(motion.qpos)
    root = g1.root_body_id
    # World positions rebuilt from the root frame: p_b = p_root + R_root @ local_b.
    rot = quat_to_mat(pose.rotations[:, root])
    rebuilt = pose.positions[:, root, None, :] + np.einsum("tij,tbj->tbi", rot, local)
    np.testing.assert_allclose(rebuilt, pose.positions[:, 1:], atol=1e-12)
    np.testing.assert_allclose(local[:, root - 1], 0.0, atol=1e-12)
    # The floating base's body sits at the free joint: root_pos / root_rot are its pose.
    np.testing.assert_allclose(pose.positions[:, root], motion.root_pos, atol=1e-12)


@needs_menagerie
def test_save_refuses_a_robot_with_another_joint_order(tmp_path: Path, g1) -> None:  # type: ignore[no-untyped-def]
    motion = make_motion()
    with pytest.raises(KinemorphError, match="joints"):
        save(motion, tmp_path / "clip.pkl", robot=g1)
    assert leftovers(tmp_path) == []


# -- GMR's reference outputs ----------------------------------------------------------------------


def gmr_reference(name: str) -> Path:
    root = os.environ.get("KINEMORPH_DATA")
    if not root:
        pytest.skip("KINEMORPH_DATA is not set (GMR's reference outputs live in $KINEMORPH_DATA/../reference/gmr)")
    path = Path(root).parent / "reference" / "gmr" / name
    if not path.is_file():
        pytest.skip(f"{path} does not exist")
    return path


@pytest.mark.reference
def test_reads_gmr_reference_npz(tmp_path: Path) -> None:
    path = gmr_reference("walk_unitree_g1.npz")
    raw = np.load(path)
    motion = load(path)
    assert motion.robot == "unitree_g1"
    assert motion.fps == 30.0
    assert motion.dof_names == tuple(raw["dof_names"].tolist())
    np.testing.assert_array_equal(motion.root_rot[:, 1:], raw["root_rot"][:, :3])
    np.testing.assert_array_equal(motion.root_rot[:, 0], raw["root_rot"][:, 3])
    np.testing.assert_array_equal(motion.dof_pos, raw["dof_pos"])
    # Written back, the file has GMR's keys and the same values (and kinemorph's metadata).
    written = np.load(save(motion, tmp_path / "walk_unitree_g1.npz"))
    assert sorted(set(written.files) - {META_KEY}) == sorted(raw.files)
    for key in raw.files:
        assert written[key].dtype.kind == raw[key].dtype.kind
        np.testing.assert_array_equal(written[key], raw[key])
