"""The output commands: retarget and batch --format NAME, convert, inspect of a result, report
(thresholds, --keep-passing); bad input gives one line, exit code 2 and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import HAS_MENAGERIE
from kinemorph.cli import main
from kinemorph.motion import Motion, save_bvh

pytestmark = pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set (robot models)")


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def walk_bvh(tmp_path: Path, generated_walk: Motion) -> Path:
    p = tmp_path / "clips" / "walk.bvh"
    p.parent.mkdir()
    save_bvh(generated_walk.slice(0, 60), p)
    return p


@pytest.fixture
def result(tmp_path: Path) -> Path:
    import kinemorph
    from kinemorph.robots.robot_motion import RobotMotion

    robot = kinemorph.load_robot("unitree_g1")
    q = np.tile(robot.rest_qpos(), (20, 1))
    q[:, 0] = np.linspace(0, 0.5, 20)
    return kinemorph.save(RobotMotion.from_qpos("unitree_g1", 30.0, q, robot.dof_names), tmp_path / "r.npz")


def test_retarget_format_name_writes_the_beyondmimic_csv(tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "walk_g1.csv"
    code, _, err = run(
        capsys, "retarget", walk_bvh, "--robot", "unitree_g1", "-o", out, "--format", "beyondmimic", "--quiet"
    )
    assert code == 0, err
    assert np.loadtxt(out, delimiter=",").shape == (60, 36)
    assert json.loads((tmp_path / "walk_g1.csv.meta.json").read_text())["format"] == "beyondmimic"


def test_convert_and_inspect(tmp_path: Path, result: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "convert", result, tmp_path / "r.mjlab.npz")
    assert code == 0 and "(npz) -> " in out and "(mjlab), 20 frames" in out
    code, out, _ = run(capsys, "inspect", tmp_path / "r.mjlab.npz")
    assert code == 0
    assert "mjlab" in out and "unitree_g1" in out and "body_pos_w" in out and "(20, 30, 3)" in out


def test_convert_refuses_other_joints_in_one_line(tmp_path: Path, result: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, "convert", result, tmp_path / "h1.holosoma.npz", "--robot", "unitree_h1")
    assert code == 2 and out == ""
    assert err.startswith("kinemorph: error:") and "joint orders differ" in err and err.count("\n") == 1
    assert not (tmp_path / "h1.holosoma.npz").exists()


def test_convert_to_an_unknown_ending_lists_the_formats(tmp_path: Path, result: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "convert", result, tmp_path / "r.bin")
    assert code == 2 and ".beyondmimic.csv" in err and ".mjlab.npz" in err


def test_report_of_a_folder_without_manifest(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "report", tmp_path)
    assert code == 2 and "no manifest.jsonl; expected the output folder of `kinemorph batch" in err
    assert list(tmp_path.iterdir()) == []


def test_report_with_thresholds_and_keep_passing(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from report_dataset import GOOD, make_folder

    folder = make_folder(tmp_path / "out")
    limits = tmp_path / "limits.json"
    limits.write_text('{"foot_slip_mean_cm_s": 150}')  # the gliding clip (100 cm/s) passes now
    code, out, err = run(capsys, "report", folder, "--thresholds", limits, "--keep-passing", tmp_path / "train")
    assert code == 0, err
    assert "4 of 7 clips pass" in out
    kept = json.loads((folder / "report.json").read_text())["pass"]
    assert sorted(kept) == sorted([*GOOD, "walk_glide.npz"])
    assert (tmp_path / "train" / "walk_glide.npz").is_file() and not (tmp_path / "train" / "walk_sunk.npz").exists()


def test_bad_thresholds_file_exits_2_before_writing(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from report_dataset import make_folder

    folder = make_folder(tmp_path / "out")
    limits = tmp_path / "limits.json"
    limits.write_text('{"slip": 1}')
    code, _, err = run(capsys, "report", folder, "--thresholds", limits)
    assert code == 2 and "unknown metric 'slip'" in err
    assert not (folder / "report.html").exists()


def test_batch_format_name_and_report_at_the_end(tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    code, _, err = run(
        capsys,
        "batch",
        walk_bvh,
        "--robot",
        "unitree_g1",
        "--out",
        out,
        "--workers",
        "1",
        "--format",
        "holosoma",
        "--quiet",
    )
    assert code == 0, err
    data = np.load(out / "walk.holosoma.npz")
    assert data["joint_pos"].shape == (60, 36) and data["body_pos_w"].shape == (60, 30, 3)
    report = json.loads((out / "report.json").read_text())
    assert [c["output"] for c in report["clips"]] == ["walk.holosoma.npz"]
    assert (out / "report.html").read_text().startswith("<!doctype html>")
