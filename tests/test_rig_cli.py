"""The source options and the rig report on the command line (inspect, retarget, calibrate)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import HAS_MENAGERIE
from kinemorph.cli import main
from kinemorph.motion import Motion
from kinemorph.motion.bvh import format_bvh
from rig_cases import CONVENTIONS, crab_bvh, raw_copy


def _write(tmp_path: Path, motion: Motion, name: str = "mixamo.bvh", **kw) -> Path:  # type: ignore[no-untyped-def]
    data = raw_copy(motion, **kw)
    lr, lp = data.local_transforms()
    path = tmp_path / name
    path.write_text(format_bvh(data.skeleton, data.frame_time, lr, lp))
    return path


def test_inspect_prints_the_landmark_table(tmp_path: Path, generated_walk: Motion, capsys) -> None:  # type: ignore[no-untyped-def]
    path = _write(tmp_path, generated_walk, names=CONVENTIONS["mixamo"], unit="inch", up="z")
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "rig: mixamo (names), family humanoid" in out and "unit inch" in out and "up axis z" in out
    assert "knee_l      mixamorig:LeftLeg" in out


def test_inspect_json_for_tools(tmp_path: Path, generated_walk: Motion, capsys) -> None:  # type: ignore[no-untyped-def]
    path = _write(tmp_path, generated_walk, names=CONVENTIONS["daz"])
    assert main(["inspect", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rig"]["family"] == "humanoid" and doc["rig"]["landmarks"]["elbow_r"] == "rForeArm"
    assert doc["rig"]["unit"] == "cm" and doc["frames"] == generated_walk.num_frames


def test_unit_override_with_an_implausible_stature_exits_2(tmp_path: Path, generated_walk: Motion, capsys) -> None:  # type: ignore[no-untyped-def]
    path = _write(tmp_path, generated_walk)
    assert main(["inspect", str(path), "--unit", "mm"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"kinemorph: error: {path}: with unit mm the stature is")


@pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set")
def test_retarget_refuses_an_eight_legged_rig_and_writes_nothing(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "crab.bvh"
    src.write_text(crab_bvh(8))
    out = tmp_path / "out.npz"
    assert main(["retarget", str(src), "--robot", "unitree_g1", "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "8 limbs" in err and "Your own skeleton" in err
    assert not out.exists()


@pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set")
def test_retarget_and_calibrate_any_rig_with_the_defaults(tmp_path: Path, generated_walk: Motion) -> None:
    src = _write(tmp_path, generated_walk.slice(0, 60), names=CONVENTIONS["xsens"], unit="mm", up="-x")
    out = tmp_path / "out.npz"
    assert main(["retarget", str(src), "--robot", "unitree_h1", "-o", str(out), "--quiet", "--fps", "60"]) == 0
    assert out.is_file()
    mapping = tmp_path / "fitted.json"
    assert main(["calibrate", str(src), "--robot", "unitree_h1", "-o", str(mapping)]) == 0
    d = json.loads(mapping.read_text())
    assert d["human_root_name"] == "Pelvis" and "LeftLowerLeg" in d["human_scale_table"]


@pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set")
def test_your_own_skeleton_recipe(tmp_path: Path, generated_walk: Motion) -> None:
    """README "Your own skeleton": the landmark template, renamed by hand to the rig's joints,
    calibrated, then used: the same robot motion as the rig's automatic mapping gives."""
    import numpy as np

    from kinemorph.io import load as load_result
    from kinemorph.mapping.landmarks import landmark_template, rename_sources
    from kinemorph.robots import load_robot
    from rig_cases import stripped

    names = stripped(generated_walk)
    src = _write(tmp_path, generated_walk.slice(0, 90), "own.bvh", names=names, unit="m", up="z")
    lafan = {"pelvis": "Hips", "chest": "Spine2"}
    for side in ("Left", "Right"):
        s = side[0].lower()
        lafan.update(
            {
                f"hip_{s}": f"{side}UpLeg",
                f"knee_{s}": f"{side}Leg",
                f"foot_{s}": f"{side}Foot",
                f"shoulder_{s}": f"{side}Arm",
                f"elbow_{s}": f"{side}ForeArm",
                f"wrist_{s}": f"{side}Hand",
            }
        )
    template = landmark_template(load_robot("unitree_g1"))
    mine = rename_sources(template, {k: names[v] for k, v in lafan.items()})
    mine.save(tmp_path / "mine.json")
    fitted = tmp_path / "fitted.json"
    assert (
        main(
            [
                "calibrate",
                str(src),
                "--robot",
                "unitree_g1",
                "--mapping",
                str(tmp_path / "mine.json"),
                "-o",
                str(fitted),
            ]
        )
        == 0
    )
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert main(["retarget", str(src), "--robot", "unitree_g1", "--mapping", str(fitted), "-o", str(a), "--quiet"]) == 0
    assert main(["retarget", str(src), "--robot", "unitree_g1", "-o", str(b), "--quiet"]) == 0
    ra, rb = load_result(a), load_result(b)
    # by hand the foot follows the ankle joint, automatically the toe's orientation (as LAFAN1's
    # FootMod), and calibrate picks its rest frame from the segments mapped: close, not equal
    assert np.median(np.abs(ra.dof_pos - rb.dof_pos)) < 0.03


@pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set")
def test_calibrate_writes_the_mapping_retarget_uses(tmp_path: Path, generated_walk: Motion) -> None:
    """kinemorph calibrate with no template writes the very mapping the default retarget uses
    (CMU names in CMU units: the landmark path)."""
    from kinemorph.mapping.mapping import Mapping, default_mapping
    from kinemorph.motion import load_motion
    from kinemorph.robots import load_robot

    src = _write(tmp_path, generated_walk.slice(0, 60), names=CONVENTIONS["cmu"], unit="cmu")
    out = tmp_path / "m.json"
    assert main(["calibrate", str(src), "--robot", "unitree_g1", "-o", str(out)]) == 0
    auto = default_mapping(load_motion(src), load_robot("unitree_g1"))
    assert Mapping.load(out).to_dict() == auto.to_dict()


@pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set")
def test_retarget_with_a_landmark_table_file(tmp_path: Path, generated_walk: Motion, capsys) -> None:  # type: ignore[no-untyped-def]
    from rig_cases import EXPECTED, stripped

    names = stripped(generated_walk)
    src = _write(tmp_path, generated_walk.slice(0, 45), "bare.bvh", names=names)
    table = tmp_path / "landmarks.json"
    table.write_text(json.dumps({mark: names[lafan] for mark, lafan in EXPECTED.items()}))
    assert main(["inspect", str(src), "--landmarks", str(table), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rig"]["method"] == "given"
    out = tmp_path / "out.npz"
    args = ["retarget", str(src), "--robot", "booster_t1", "--landmarks", str(table), "-o", str(out), "--quiet"]
    assert main(args) == 0
    assert out.is_file()
    table.write_text("{not json")
    assert main(["inspect", str(src), "--landmarks", str(table)]) == 2
    assert "landmarks.json:1: invalid JSON" in capsys.readouterr().err
