"""SMPL-family input (AMASS layout) through a body model file, with a synthetic model that has the
official keys and joint order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.errors import KinemorphError, MotionFileError
from kinemorph.motion import load_motion
from kinemorph.motion.smpl import ENV, JOINT_NAMES
from smpl_cases import write_amass, write_body_model


@pytest.fixture()
def models(tmp_path: Path) -> Path:
    folder = tmp_path / "body_models"
    (folder / "smplh").mkdir(parents=True)
    (folder / "smplx").mkdir()
    write_body_model(folder / "smplh" / "SMPLH_NEUTRAL.npz", "smplh")
    write_body_model(folder / "smplx" / "SMPLX_NEUTRAL.npz", "smplx")
    write_body_model(folder / "SMPL_NEUTRAL.npz", "smpl")
    return folder


@pytest.mark.parametrize(("kind", "layout"), [("smplh", "poses"), ("smplx", "parts"), ("smplh", "parts")])
def test_amass_clip_loads_as_a_recognised_humanoid(tmp_path: Path, models: Path, kind: str, layout: str) -> None:
    clip = write_amass(tmp_path / "walk_poses.npz", kind, layout=layout)
    m = load_motion(clip, body_model=models)
    assert m.skeleton.names == JOINT_NAMES[kind] and m.fps == 60.0 and m.preset == "smpl"
    assert m.family == "humanoid" and m.rig.rig == "smpl" and (m.rig.up, m.rig.unit) == ("z", "m")
    assert m.rig.landmarks["toe_l"] == "left_foot" and m.rig.landmarks["shoulder_l"] == "left_shoulder"
    assert m.rig.landmarks["chest"] == "spine3"
    assert m.stature() == pytest.approx(1.6, abs=0.1)  # the model's head joint is 1.54 m up
    # the body walks along its facing direction (-y after root_orient), left foot at +x
    pelvis = m.body("pelvis")[0]
    assert pelvis[-1, 1] - pelvis[0, 1] == pytest.approx(-1.2 * (m.num_frames - 1) / 60.0, rel=1e-6)
    assert np.median(m.body("left_ankle")[0][:, 0] - m.body("right_ankle")[0][:, 0]) > 0.1


def test_joints_follow_the_shape_parameters(tmp_path: Path, models: Path) -> None:
    a = load_motion(write_amass(tmp_path / "a.npz"), body_model=models)
    b = load_motion(write_amass(tmp_path / "b.npz", betas=np.array([2.0] + [0.0] * 15)), body_model=models)
    leg = lambda m: np.linalg.norm(m.skeleton.offsets[m.skeleton.index("left_knee")])  # noqa: E731
    assert leg(b) / leg(a) == pytest.approx(1.10, rel=1e-6)  # +5% per unit of beta 0


def test_body_model_comes_from_the_environment(tmp_path: Path, models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, str(models))
    m = load_motion(write_amass(tmp_path / "c.npz", "smplx", layout="parts"))
    assert len(m.skeleton.names) == 55


def test_amass_file_without_body_model_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    clip = write_amass(tmp_path / "d.npz")
    with pytest.raises(
        MotionFileError, match=r"d\.npz: is an AMASS/SMPLH file and needs a body model.*KINEMORPH_BODY_MODELS"
    ):
        load_motion(clip)


def test_body_model_with_the_wrong_joint_count_is_refused(tmp_path: Path) -> None:
    model = write_body_model(tmp_path / "SMPL_NEUTRAL.npz", "smpl")
    clip = write_amass(tmp_path / "e.npz", "smplh")
    with pytest.raises(
        MotionFileError, match=r"e\.npz: poses have 52 joints but body model .*SMPL_NEUTRAL.npz \(SMPL\) has 24"
    ):
        load_motion(clip, body_model=model)


def test_broken_body_model_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.npz"
    np.savez(bad, v_template=np.zeros((4, 3)))
    with pytest.raises(MotionFileError, match="not a body model: missing shapedirs"):
        load_motion(write_amass(tmp_path / "f.npz"), body_model=bad)


def test_amass_clip_retargets_faithfully_onto_g1(tmp_path: Path, models: Path) -> None:
    from kinemorph.retarget import retarget

    robot = robot_or_skip("unitree_g1")
    m = load_motion(write_amass(tmp_path / "g.npz"), body_model=models)
    out = retarget(m, robot)
    lm = robot.landmark_positions(robot.fk(out.qpos))
    src = np.stack([m.body(b)[0] for b in m.landmarks], axis=1)
    for a, b in ((8, 10), (9, 11), (2, 4), (3, 5)):  # shanks, upper arms
        u, v = lm[:, b] - lm[:, a], src[:, b] - src[:, a]
        cos = np.sum(u * v, -1) / np.linalg.norm(u, axis=-1) / np.linalg.norm(v, axis=-1)
        assert np.median(np.degrees(np.arccos(np.clip(cos, -1, 1)))) < 15.0


def test_gmr_style_smpl_mapping_is_readable_and_runs(tmp_path: Path, models: Path) -> None:
    """GMR's smplx_to_* configs name SMPL joints (pelvis, left_hip, left_knee, left_foot, spine3,
    left_shoulder, left_elbow, left_wrist): such a mapping reads and fits the SMPL motion."""
    from kinemorph.mapping.calibrate import calibrate
    from kinemorph.mapping.landmarks import rename_sources
    from kinemorph.mapping.mapping import Mapping, load_mapping
    from kinemorph.retarget import retarget

    robot = robot_or_skip("unitree_g1")
    m = load_motion(write_amass(tmp_path / "h.npz", "smplx", layout="parts"), body_model=models)
    names = {"Hips": "pelvis", "Spine2": "spine3"}
    for side in ("Left", "Right"):
        s = side.lower()
        names.update(
            {
                f"{side}UpLeg": f"{s}_hip",
                f"{side}Leg": f"{s}_knee",
                f"{side}FootMod": f"{s}_foot",
                f"{side}Arm": f"{s}_shoulder",
                f"{side}ForeArm": f"{s}_elbow",
                f"{side}Hand": f"{s}_wrist",
            }
        )
    gmr_layout = rename_sources(load_mapping("unitree_g1", "lafan1"), names).to_dict()
    path = tmp_path / "smplx_to_g1.json"
    path.write_text(__import__("json").dumps(gmr_layout))
    mapping = Mapping.load(path)
    mapping.check(m, robot)
    fitted, _ = calibrate(mapping, m, robot)
    out = retarget(m, robot, fitted)
    assert np.isfinite(out.dof_pos).all() and out.num_frames == m.num_frames


def test_smpl_npz_is_told_apart_from_keypoints(tmp_path: Path) -> None:
    from kinemorph.motion.smpl import is_smpl_file

    assert is_smpl_file(write_amass(tmp_path / "i.npz"))
    kp = tmp_path / "kp.npz"
    np.savez(kp, keypoints=np.zeros((2, 1, 3)), names=np.array(["a"]), fps=30.0)
    assert not is_smpl_file(kp)
    with pytest.raises(KinemorphError):
        load_motion(tmp_path / "missing.npz")
