"""Hardening (issue 11, part A): every bad input a new user tried gets one `kinemorph: error:`
line, exit code 2, no traceback and nothing written; bounded memory on hostile files."""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from conftest import HAS_MENAGERIE
from kinemorph.cli import main
from kinemorph.motion import Motion, save_bvh

needs_models = pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set (robot models)")


@pytest.fixture
def walk_bvh(tmp_path: Path, generated_walk: Motion) -> Path:
    p = tmp_path / "walk.bvh"
    save_bvh(generated_walk.slice(0, 60), p)
    return p


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def expect_error(capsys: pytest.CaptureFixture[str], folder: Path, args: list[str], pattern: str) -> str:
    """Run the command; assert exit 2, exactly one error line matching ``pattern``, no traceback,
    and no new file in ``folder``."""
    import re

    before = _files(folder)
    code = main([str(a) for a in args])
    _, err = capsys.readouterr()
    assert code == 2, err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("kinemorph: error: "), err
    assert "Traceback" not in err
    assert re.search(pattern, lines[0]), lines[0]
    assert _files(folder) == before, "something was written"
    return lines[0]


# -- outputs -----------------------------------------------------------------------------------
@needs_models
@pytest.mark.parametrize(
    "output, extra, pattern",
    [
        ("/proc/x.npz", [], "cannot write in /proc"),
        ("{tmp}/walk.bvh/x.npz", [], "is not a folder"),
        ("{tmp}/o.json", ["--report", "{tmp}/o.json"], "named twice"),
        ("{tmp}/o.npz", ["--plot", "{tmp}/no/such/p.png"], "does not exist"),
    ],
    ids=["proc", "parent is a file", "one file twice", "missing folder for the plot"],
)
def test_outputs_are_checked_before_anything_is_written(
    tmp_path: Path,
    walk_bvh: Path,
    capsys,
    output: str,
    extra: list[str],
    pattern: str,  # type: ignore[no-untyped-def]
) -> None:
    fill = [a.format(tmp=tmp_path) for a in [output, *extra]]
    expect_error(capsys, tmp_path, ["retarget", walk_bvh, "--robot", "unitree_g1", "-o", *fill], pattern)


def test_a_write_that_fails_midway_raises_a_kinemorph_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kinemorph._files import write_text_atomic
    from kinemorph.errors import KinemorphError

    def refuse(*a, **k):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("os.replace", refuse)
    with pytest.raises(KinemorphError, match="Permission denied"):
        write_text_atomic(tmp_path / "x.txt", "hello")
    assert list(tmp_path.iterdir()) == []


def test_stale_temporaries_of_killed_writes_are_removed_at_the_next_write(tmp_path: Path) -> None:
    from kinemorph._files import STALE_SECONDS, write_text_atomic

    old = tmp_path / ".x.txt.abcd1234.tmp"
    fresh = tmp_path / ".x.txt.efgh5678.tmp"
    old.write_text("left by a killed run")
    fresh.write_text("another writer's, in progress")
    past = time.time() - STALE_SECONDS - 10
    os.utime(old, (past, past))
    write_text_atomic(tmp_path / "x.txt", "done")
    assert not old.exists() and fresh.exists() and (tmp_path / "x.txt").read_text() == "done"


# -- mappings ------------------------------------------------------------------------------------
@needs_models
@pytest.mark.parametrize(
    "change, pattern",
    [
        (("ground_height", "abc"), "ground_height must be a number"),
        (("ground_height", [1, 2]), "ground_height must be a number"),
        (("human_height_assumption", math.nan), "human_height_assumption"),
        (("use_ik_match_table1", "no"), "use_ik_match_table1 must be true or false"),
        (("robot_root_name", "no_such_root"), "unknown robot body 'no_such_root'; valid: .*pelvis"),
        (("weight", math.nan), "weights must be >= 0 and finite"),
    ],
    ids=["text height", "list height", "NaN stature", "flag as text", "unknown root", "NaN weight"],
)
def test_mapping_scalars_are_validated(tmp_path: Path, walk_bvh: Path, capsys, change, pattern) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.mapping.mapping import load_mapping

    d = load_mapping("unitree_g1").to_dict()
    key, value = change
    if key == "weight":
        d["ik_match_table1"]["pelvis"][1] = value
    else:
        d[key] = value
    m = tmp_path / "m.json"
    m.write_text(json.dumps(d))
    expect_error(
        capsys, tmp_path, ["retarget", walk_bvh, "--robot", "unitree_g1", "--mapping", m, "-o", tmp_path / "o.npz"],
        pattern,
    )  # fmt: skip


# -- keypoint files --------------------------------------------------------------------------------
def _keypoints(**over: object) -> dict[str, object]:
    base: dict[str, object] = {
        "keypoints": np.zeros((5, 2, 3)),
        "names": np.array(["a", "b"]),
        "fps": np.array(30.0),
    }
    base.update(over)
    return base


def _npz(path: Path, arrays: dict[str, object]) -> Path:
    np.savez(path, **arrays)  # type: ignore[arg-type]
    return path


@pytest.mark.parametrize(
    "arrays, pattern",
    [
        (_keypoints(fps=np.array([30.0, 60.0])), "'fps' must be a single value"),
        (_keypoints(fps=np.array("thirty")), "'fps' must be a number"),
        (_keypoints(up=np.array(["y", "z"])), "'up' must be a single value"),
        (_keypoints(keypoints=np.zeros((5, 2, 3), dtype=complex)), "'keypoints' has dtype complex"),
        (_keypoints(fps=np.array(1e-100)), "outside 1 to 10000"),
    ],
    ids=["fps vector", "fps text", "up vector", "complex", "fps tiny"],
)
def test_keypoint_files_with_bad_fields_are_refused(tmp_path: Path, arrays, pattern) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.errors import KinemorphError
    from kinemorph.motion import load_motion

    with pytest.raises(KinemorphError, match=pattern):
        load_motion(_npz(tmp_path / "k.npz", arrays))


def test_a_bare_npy_named_npz_is_refused(tmp_path: Path) -> None:
    from kinemorph.errors import KinemorphError
    from kinemorph.motion import load_motion

    p = tmp_path / "k.npz"
    with open(p, "wb") as f:
        np.save(f, np.zeros(3))
    with pytest.raises(KinemorphError, match=r"single \.npy array is not accepted"):
        load_motion(p)


def test_a_header_claiming_a_huge_array_is_refused_without_allocating(tmp_path: Path) -> None:
    """A 300-byte member whose .npy header declares 894 GiB: refused from its header."""
    from kinemorph._npz import read_npz
    from kinemorph.errors import KinemorphError

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**5, 1200)})
    p = tmp_path / "k.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("keypoints.npy", buf.getvalue() + b"\0" * 64)
    with pytest.raises(KinemorphError, match="claims shape"):
        read_npz(p)


def test_a_zip_bomb_is_refused_from_its_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kinemorph._npz import read_npz
    from kinemorph.errors import KinemorphError

    p = tmp_path / "bomb.npz"
    np.savez_compressed(p, keypoints=np.zeros((1000, 100, 3)))  # 2.4 MB inflated, a few kB on disk
    assert p.stat().st_size < 100_000
    monkeypatch.setenv("KINEMORPH_MAX_NPZ_BYTES", "1000000")
    with pytest.raises(KinemorphError, match="once decompressed; the limit is"):
        read_npz(p)


def test_pickled_arrays_are_refused(tmp_path: Path) -> None:
    from kinemorph._npz import read_npz
    from kinemorph.errors import KinemorphError

    p = tmp_path / "obj.npz"
    np.savez(p, names=np.array([{"a": 1}], dtype=object))
    with pytest.raises(KinemorphError, match="only numbers and text"):
        read_npz(p)


# -- BVH -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("frame_time", ["1e-300", "1e-100", "0.00001", "2.5", "inf"])
def test_extreme_frame_times_are_refused_with_file_and_line(tmp_path: Path, walk_bvh: Path, frame_time: str) -> None:
    from kinemorph.errors import KinemorphError
    from kinemorph.motion import load_motion

    text = walk_bvh.read_text().splitlines()
    line = next(i for i, s in enumerate(text) if s.startswith("Frame Time:"))
    text[line] = f"Frame Time: {frame_time}"
    p = tmp_path / "ft.bvh"
    p.write_text("\n".join(text) + "\n")
    with pytest.raises(KinemorphError, match=rf"ft.bvh:{line + 1}: "):
        load_motion(p)


def test_a_bvh_with_a_byte_order_mark_is_read(tmp_path: Path, walk_bvh: Path) -> None:
    from kinemorph.motion import load_motion

    p = tmp_path / "bom.bvh"
    p.write_bytes(b"\xef\xbb\xbf" + walk_bvh.read_bytes())
    assert load_motion(p).num_frames == load_motion(walk_bvh).num_frames


# -- gait, demo, compare, solver settings ---------------------------------------------------------
@needs_models
@pytest.mark.parametrize(
    "args, pattern",
    [
        (["--duration", "1e9"], r"duration must be in \(0, 3600\]"),
        (["--duration", "inf"], r"duration must be in \(0, 3600\]"),
        (["--duration", "10", "--fps", "1e9"], r"fps must be in \[25, 1000\]"),
    ],
    ids=["huge duration", "infinite duration", "huge fps"],
)
def test_gait_bounds(tmp_path: Path, capsys, args: list[str], pattern: str) -> None:  # type: ignore[no-untyped-def]
    expect_error(
        capsys, tmp_path, ["gait", "--robot", "unitree_g1", "--command", "0.3,0,0", *args, "-o", tmp_path / "g.npz"],
        pattern,
    )  # fmt: skip


@needs_models
def test_a_binary_schedule_is_refused(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "s.csv"
    bad.write_bytes(bytes(range(256)) * 4)
    expect_error(
        capsys, tmp_path, ["gait", "--robot", "unitree_g1", "--schedule", bad, "-o", tmp_path / "g.npz"],
        "not a text file",
    )  # fmt: skip


@needs_models
def test_a_refused_demo_leaves_nothing_behind(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "d"
    expect_error(capsys, tmp_path, ["demo", "--robot", "unitree_go2", "--out", out], "humanoid motion.*quadruped")
    assert not out.exists() or not any(out.iterdir())


@needs_models
def test_an_infinite_tolerance_is_refused(tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["retarget", walk_bvh, "--robot", "unitree_g1", "--tolerance", "inf", "-o", tmp_path / "o.npz"]
    expect_error(capsys, tmp_path, args, "tolerance must be a finite number")


@needs_models
def test_compare_with_no_engine_is_refused(tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    expect_error(capsys, tmp_path, ["compare", walk_bvh, "--robot", "unitree_g1", "--engines", ","], "valid: .*gmr")


@needs_models
def test_a_robot_file_that_does_not_parse_gives_one_line(tmp_path: Path, walk_bvh: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco>\n  <worldbody>\n    <body name='a'><geom size='x'/></body>\n</mujoco>\n")
    expect_error(capsys, tmp_path, ["retarget", walk_bvh, "--robot", bad, "-o", tmp_path / "o.npz"], "bad.xml")


@needs_models
def test_zero_quaternions_in_a_motion_file_are_refused(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "z.csv"
    n = 29
    rows = ["0,0,0.8,0,0,0,0" + ",0" * n for _ in range(3)]
    p.write_text("\n".join(rows) + "\n")
    expect_error(capsys, tmp_path, ["render", p, "--robot", "unitree_g1", "-o", tmp_path / "z.gif"], "quaternion")


# -- batch -----------------------------------------------------------------------------------------
@needs_models
def test_batch_outputs_never_escape_the_output_folder(tmp_path: Path, generated_walk: Motion, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "data" / "a").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    save_bvh(generated_walk.slice(0, 30), tmp_path / "src" / "notes.bvh")
    (tmp_path / "src" / "notes.npz").write_text("precious")
    pattern = str(tmp_path / "data" / "*" / ".." / ".." / "src" / "*.bvh")
    expect_error(capsys, tmp_path, ["batch", pattern, "--robot", "unitree_g1", "--out", tmp_path / "out"], "outside")
    assert (tmp_path / "src" / "notes.npz").read_text() == "precious"


@needs_models
@pytest.mark.parametrize("garbage", [bytes(range(256)), b'{"input": 1, "output": 2, "status": []}\n'])
def test_a_damaged_manifest_is_skipped_with_a_warning(tmp_path: Path, generated_walk: Motion, garbage: bytes) -> None:
    from kinemorph.batch import run_batch

    clips = tmp_path / "clips"
    clips.mkdir()
    save_bvh(generated_walk.slice(0, 30), clips / "a.bvh")
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.jsonl").write_bytes(garbage)
    with pytest.warns(UserWarning, match=r"skipped \d+ line"):
        result = run_batch([clips], out, robot="unitree_g1", workers=1)
    assert result.done == 1 and (out / "a.npz").is_file()


# -- pipes -----------------------------------------------------------------------------------------
def test_a_closed_pipe_ends_quietly(walk_bvh: Path) -> None:
    cmd = f"{sys.executable} -m kinemorph.cli inspect {walk_bvh} | head -1"
    done = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().startswith(str(walk_bvh)) and "Traceback" not in done.stderr, done.stderr
