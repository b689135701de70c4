"""The kinemorph command: happy paths, and every kind of bad input giving one clear message,
exit code 2 and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import HAS_MENAGERIE, data_path
from kinemorph.cli import main
from kinemorph.motion import Motion, save_bvh

pytestmark = pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set (robot models)")


@pytest.fixture
def walk_bvh(tmp_path: Path, generated_walk: Motion) -> Path:
    p = tmp_path / "walk.bvh"
    save_bvh(generated_walk.slice(0, 90), p)
    return p


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_retarget_writes_output_report_and_plot(tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "o.npz"
    code, stdout, _ = run(
        capsys,
        "retarget",
        walk_bvh,
        "--robot",
        "unitree_g1",
        "-o",
        out,
        "--report",
        tmp_path / "q.json",
        "--plot",
        tmp_path / "p.png",
    )
    assert code == 0
    z = np.load(out)
    assert z["dof_pos"].shape == (90, 29) and z["dof_names"][0] == "left_hip_pitch_joint"
    assert "foot slip" in stdout and "frames/s" in stdout
    assert json.loads((tmp_path / "q.json").read_text())["num_frames"] == 90
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_engine_options_come_from_the_config(tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, _ = run(
        capsys,
        "retarget",
        walk_bvh,
        "--robot",
        "unitree_g1",
        "-o",
        tmp_path / "a.json",
        "--damping",
        "0.8",
        "--ground",
        "off",
        "--init",
        "rest",
        "--quiet",
    )
    assert code == 0
    assert json.loads((tmp_path / "a.json").read_text())["dof_pos"]


def test_existing_output_needs_force(tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "o.csv"
    out.write_text("keep me")
    code, _, err = run(capsys, "retarget", walk_bvh, "--robot", "unitree_g1", "-o", out, "--quiet")
    assert code == 2 and "exists" in err and out.read_text() == "keep me"
    code, _, _ = run(capsys, "retarget", walk_bvh, "--robot", "unitree_g1", "-o", out, "--quiet", "--force")
    assert code == 0 and out.read_text().startswith("frame,time,root_x")


def _truncated(tmp_path: Path, walk_bvh: Path) -> Path:
    p = tmp_path / "cut.bvh"
    p.write_text("\n".join(walk_bvh.read_text().splitlines()[:-5]) + "\n")
    return p


def _nan(tmp_path: Path, walk_bvh: Path) -> Path:
    lines = walk_bvh.read_text().splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith("Frame Time")) + 3
    vals = lines[i].split()
    vals[4] = "nan"
    lines[i] = " ".join(vals)
    p = tmp_path / "nan.bvh"
    p.write_text("\n".join(lines) + "\n")
    return p


def _bad_mapping(tmp_path: Path, key: str) -> Path:
    from kinemorph.mapping.mapping import load_mapping

    d = load_mapping("unitree_g1").to_dict()
    if key == "robot":
        d["ik_match_table2"]["tail_link"] = d["ik_match_table2"].pop("torso_link")
    else:
        d["ik_match_table2"]["torso_link"][0] = "Tail"
        d["human_scale_table"]["Tail"] = 1.0
    p = tmp_path / f"bad_{key}.json"
    p.write_text(json.dumps(d))
    return p


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("missing file", "no such file"),
        ("truncated", r"cut.bvh:\d+: file ends early"),
        ("nan", r"nan.bvh:\d+: .*not finite"),
        ("unknown robot", "unknown robot 'unitree_g9'; valid: .*unitree_g1"),
        ("robot body", "unknown robot body 'tail_link'.*valid:"),
        ("source body", "unknown source body 'Tail'.*valid:"),
        ("bad parameter", "damping"),
        ("bad suffix", "unsupported output format"),
        ("missing folder", "does not exist"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(case: str, message: str, tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "o.npz"
    src, robot, extra = walk_bvh, "unitree_g1", []
    if case == "missing file":
        src = tmp_path / "nope.bvh"
    elif case == "truncated":
        src = _truncated(tmp_path, walk_bvh)
    elif case == "nan":
        src = _nan(tmp_path, walk_bvh)
    elif case == "unknown robot":
        robot = "unitree_g9"
    elif case in ("robot body", "source body"):
        extra = ["--mapping", _bad_mapping(tmp_path, case.split()[0])]
    elif case == "bad parameter":
        extra = ["--damping", "-1"]
    elif case == "bad suffix":
        out = out_dir / "o.xyz"
    elif case == "missing folder":
        out = out_dir / "deeper" / "o.npz"
    code, _, err = run(
        capsys, "retarget", src, "--robot", robot, "-o", out, "--quiet", "--report", out_dir / "q.json", *extra
    )
    assert code == 2
    assert err.startswith("kinemorph: error: ") and len(err.strip().splitlines()) == 1
    import re

    assert re.search(message, err), err
    assert list(out_dir.iterdir()) == []


def test_dog_clip_onto_a_humanoid_exits_2(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "o.npz"
    code, _, err = run(capsys, "retarget", data_path("dog_walk.bvh"), "--robot", "unitree_g1", "-o", out)
    assert code == 2 and "quadruped" in err and not out.exists()


def test_inspect_and_robots(walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "inspect", walk_bvh)
    assert code == 0 and "preset lafan1" in out and "90 frames at 30 fps" in out and "LeftFootMod" in out
    code, out, _ = run(capsys, "robots")
    assert code == 0 and "unitree_g1" in out and "booster_t1" in out and "unitree_go2" in out


def test_demo_writes_every_output(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.demo import gif_reason

    code, _, _ = run(capsys, "demo", "--out", tmp_path / "d")
    assert code == 0
    names = sorted(p.name for p in (tmp_path / "d").iterdir())
    assert names == sorted(
        [
            "demo_walk.bvh",
            "demo_walk_unitree_g1.npz",
            "demo_walk_unitree_g1.pkl",
            "demo_walk_unitree_g1.csv",
            "demo_walk_unitree_g1.csv.meta.json",  # the export metadata of formats without room for it
            "demo_walk_unitree_g1.pkl.meta.json",
            "demo_walk_unitree_g1.json",
            "demo_walk_unitree_g1_quality.json",
            "demo_walk_unitree_g1.png",
            *(["demo_walk_unitree_g1.gif"] if gif_reason() is None else []),
        ]
    )
    code, _, err = run(capsys, "demo", "--out", tmp_path / "d")
    assert code == 2 and "exists" in err


def test_dog_clip_onto_go2_uses_the_natural_planner(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "dog.npz"
    code, stdout, _ = run(capsys, "retarget", data_path("dog_idle.bvh"), "--robot", "unitree_go2", "-o", out)
    assert code == 0 and "foot slip" in stdout
    z = np.load(out)
    assert z["dof_pos"].shape == (180, 12) and z["contacts"].shape == (180, 4)
    assert list(z["contact_names"]) == ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]


def test_humanoid_clip_onto_a_quadruped_exits_2(tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "o.npz"
    code, _, err = run(capsys, "retarget", walk_bvh, "--robot", "unitree_a1", "-o", out)
    assert code == 2 and "humanoid motion" in err and "quadruped" in err and not out.exists()
