"""Batch retargeting: one output per input with a manifest and a summary, resume by hash, fault
isolation (corrupt files, crashed workers, killed runs), the local pool and Ray.

Every clip here is generated (kinemorph.motion.procedural) into tmp_path; no third-party data.
"""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import HAS_MENAGERIE
from kinemorph.batch import Manifest, Record, prepare_settings, run_batch
from kinemorph.batch.inputs import find_inputs, output_rels
from kinemorph.batch.local import Crash, LocalExecutor
from kinemorph.batch.progress import FileProgressBar
from kinemorph.cli import main
from kinemorph.errors import KinemorphError
from kinemorph.motion import save_bvh
from kinemorph.motion.procedural import procedural_walk

needs_menagerie = pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set (robot models)")
ROBOT = "unitree_g1"


def write_clips(folder: Path, count: int, seconds: float) -> list[Path]:
    """``count`` generated walks of different speeds, turn rates and seeds, half in a subfolder."""
    paths = []
    for i in range(count):
        motion = procedural_walk(
            duration=max(seconds, 8.0), speed=0.8 + 0.1 * (i % 6), turn_rate=0.2 * (i % 3 - 1), seed=i
        )
        if seconds < 8.0:
            motion = motion.slice(30, 30 + round(seconds * motion.fps))
        path = folder / ("sub" if i % 2 else "") / f"walk_{i}.bvh"
        path.parent.mkdir(parents=True, exist_ok=True)
        save_bvh(motion, path)
        paths.append(path)
    return paths


def arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def assert_same_outputs(a: Path, b: Path) -> None:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*.npz"))
    files_b = sorted(p.relative_to(b) for p in b.rglob("*.npz"))
    assert files_a == files_b
    for rel in files_a:
        x, y = arrays(a / rel), arrays(b / rel)
        assert x.keys() == y.keys()
        for k in x:
            np.testing.assert_array_equal(x[k], y[k], err_msg=f"{rel}: {k}")


def partial_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob(".*.tmp")]


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 short clips (3 s, 90 frames) in clips/ and clips/sub/."""
    folder = tmp_path_factory.mktemp("clips")
    write_clips(folder, 8, 3.0)
    return folder


@pytest.fixture(scope="module")
def long_clips(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 clips of 20 s, long enough for a run to be interrupted in the middle."""
    folder = tmp_path_factory.mktemp("long")
    write_clips(folder, 8, 20.0)
    return folder


@pytest.fixture(scope="module")
def reference(clips: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The short clips retarget in this process one by one (this also fills numba's kernel cache,
    which the workers then load)."""
    if not HAS_MENAGERIE:
        pytest.skip("MENAGERIE_ROOT is not set (robot models)")
    import kinemorph

    out = tmp_path_factory.mktemp("reference")
    robot = kinemorph.load_robot(ROBOT)
    from kinemorph.pipeline import RetargetJob, run_job

    for src in clips.rglob("*.bvh"):  # the one pipeline the workers run (engine auto: with its clean-up)
        result = run_job(RetargetJob(kinemorph.load_motion(src), robot, evaluate=False)).result
        target = out / src.relative_to(clips).with_suffix(".npz")
        target.parent.mkdir(parents=True, exist_ok=True)
        kinemorph.save(result, target, robot=robot)
    return out


@pytest.fixture(scope="module")
def long_reference(long_clips: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The long clips through one uninterrupted batch."""
    if not HAS_MENAGERIE:
        pytest.skip("MENAGERIE_ROOT is not set (robot models)")
    out = tmp_path_factory.mktemp("long_reference")
    assert run_batch([str(long_clips / "**" / "*.bvh")], out, robot=ROBOT, workers=2).done == 8
    return out


def run_cli(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# -- inputs, manifest, progress: no worker processes -------------------------------------------------
def test_outputs_keep_the_path_below_the_pattern_base(clips: Path) -> None:
    sources = find_inputs([str(clips / "**" / "*.bvh")])
    rels = output_rels(sources, ".pkl")
    assert sorted(rels) == sorted([f"walk_{i}.pkl" for i in (0, 2, 4, 6)] + [f"sub/walk_{i}.pkl" for i in (1, 3, 5, 7)])
    assert [s.rel.as_posix() for s in find_inputs([clips / "sub" / "walk_1.bvh"])] == ["walk_1.bvh"]


def test_inputs_that_would_share_an_output_are_refused(tmp_path: Path) -> None:
    for name in ("a.bvh", "a.txt"):
        (tmp_path / name).write_text("x")
    with pytest.raises(KinemorphError, match=r"would both be written to a\.npz"):
        output_rels(find_inputs([str(tmp_path / "a.*")]), ".npz")


def test_a_pattern_matching_nothing_or_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KinemorphError, match="no file matches"):
        find_inputs([str(tmp_path / "*.bvh")])
    with pytest.raises(KinemorphError, match="is a folder"):
        find_inputs([tmp_path])


def test_the_output_folder_is_never_an_input(tmp_path: Path) -> None:
    (tmp_path / "a.npz").write_text("x")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.npz").write_text("x")
    found = find_inputs([str(tmp_path / "**" / "*.npz")], exclude=tmp_path / "out")
    assert [s.rel.as_posix() for s in found] == ["a.npz"]


def test_manifest_keeps_the_latest_record_and_skips_a_torn_line(tmp_path: Path) -> None:
    m = Manifest(tmp_path)
    m.append(Record(input="a.bvh", output="a.npz", status="failed", error="boom"))
    m.append(Record(input="a.bvh", output="a.npz", status="ok"))
    m.append(Record(input="b.bvh", output="b.npz", status="ok"))
    m.close()
    with open(m.path, "a") as f:
        f.write('{"input": "c.bvh", "outp')  # a run killed in the middle of a line
    records = m.read()
    assert sorted(records) == ["a.npz", "b.npz"] and records["a.npz"].ok
    m.rewrite(records)
    assert len(m.path.read_text().splitlines()) == 2


def test_progress_bar_shows_count_and_time_left() -> None:
    stream = io.StringIO()
    bar = FileProgressBar("batch", stream=stream)
    bar(0, 4)
    time.sleep(0.15)  # the bar redraws at most every 0.1 s
    bar(1, 4)
    bar(4, 4)
    text = stream.getvalue()
    assert "1/4 files" in text and "ETA" in text and text.endswith("\n")


@needs_menagerie
def test_settings_hash_covers_robot_engine_config_mapping_format_and_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kinemorph import GmrConfig, load_mapping

    base = prepare_settings(robot=ROBOT).digest
    assert prepare_settings(robot=ROBOT).digest == base
    mapping = tmp_path / "m.json"
    load_mapping(ROBOT).save(mapping)
    changed = [
        prepare_settings(robot="booster_t1").digest,
        prepare_settings(robot=ROBOT, config=GmrConfig(damping=0.6)).digest,
        prepare_settings(robot=ROBOT, mapping=mapping).digest,
        prepare_settings(robot=ROBOT, format=".csv").digest,
        prepare_settings(robot=ROBOT, preset="lafan1").digest,
    ]
    data = json.loads(mapping.read_text())
    data["ik_match_table1"]["pelvis"][1] = 50.0
    mapping.write_text(json.dumps(data))
    changed.append(prepare_settings(robot=ROBOT, mapping=mapping).digest)
    monkeypatch.setattr("kinemorph.batch.jobs.__version__", "99.0")
    changed.append(prepare_settings(robot=ROBOT).digest)
    assert len({base, *changed}) == len(changed) + 1


# -- the local executor's crash handling, with stand-in jobs ------------------------------------------
def _stand_in_job(item: tuple[str, str]) -> str:
    """Importable by the spawned workers: 'crash' always kills its worker, 'crash-once' the first time."""
    kind, marker = item
    if kind == "crash":
        os._exit(3)
    if kind == "crash-once" and not os.path.exists(marker):
        Path(marker).write_text("crashed")
        os.kill(os.getpid(), signal.SIGKILL)
    return kind


def test_a_worker_crash_is_retried_once_and_the_rest_complete(tmp_path: Path) -> None:
    marker = str(tmp_path / "crashed-once")
    items = [(k, marker) for k in ("crash", "crash-once", "a", "b", "c", "d")]
    done = {d.item[0]: d for d in LocalExecutor(2, retries=1).map(_stand_in_job, items)}
    assert sorted(done) == ["a", "b", "c", "crash", "crash-once", "d"]
    crash = done["crash"].value
    assert isinstance(crash, Crash) and crash.attempts == 2 and "died" in crash.message
    assert done["crash-once"].value == "crash-once" and done["crash-once"].attempts == 2
    assert all(done[k].value == k for k in "abcd")


# -- whole batches ---------------------------------------------------------------------------------------
@needs_menagerie
def test_each_input_gives_one_output_a_manifest_line_and_a_summary_row(
    clips: Path, reference: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = run_batch([str(clips / "**" / "*.bvh")], out, robot=ROBOT, workers=2)
    assert (result.total, result.done, result.skipped, result.failed) == (8, 8, 0, 0)
    assert_same_outputs(out, reference)
    lines = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    assert len(lines) == 8 and {d["status"] for d in lines} == {"ok"}
    first = lines[0]
    assert first["output"] == "sub/walk_1.npz" and first["frames"] == 90 and first["error"] is None
    assert first["seconds"] > 0 and first["quality"]["foot_slip_mean_cm_s"] > 0
    # the robot and mapping are loaded once per worker, and the kernels come from numba's cache
    assert {d["robot_loads"] for d in lines} == {1}
    assert len({d["worker"] for d in lines}) <= 2
    assert max(d["seconds_worker_start"] for d in lines) < 10.0  # a cold compile takes 15-60 s
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert len(rows) == 8 and rows[0]["status"] == "ok" and float(rows[0]["jerk_rms_rad_s3"]) > 0
    assert not partial_files(out)


@needs_menagerie
def test_rerun_skips_up_to_date_outputs_and_redoes_the_rest(clips: Path, tmp_path: Path) -> None:
    src = tmp_path / "clips"
    src.mkdir()
    for p in clips.glob("*.bvh"):
        (src / p.name).write_bytes(p.read_bytes())
    pattern, out = str(src / "*.bvh"), tmp_path / "out"
    assert run_batch([pattern], out, robot=ROBOT, workers=1).done == 4
    again = run_batch([pattern], out, robot=ROBOT, workers=1)
    assert (again.done, again.skipped, again.executor) == (0, 4, "none")

    (src / "walk_0.bvh").write_bytes((clips / "sub" / "walk_1.bvh").read_bytes())  # input changed
    (out / "walk_2.npz").unlink()  # output missing
    (out / "walk_4.npz").write_bytes(b"truncated")  # output not the file recorded
    redo = run_batch([pattern], out, robot=ROBOT, workers=1)
    assert sorted(r.output for r in redo.records) == ["walk_0.npz", "walk_2.npz", "walk_4.npz"]
    assert redo.skipped == 1

    from kinemorph import GmrConfig

    assert run_batch([pattern], out, robot=ROBOT, workers=1, config=GmrConfig(damping=0.6)).done == 4
    assert run_batch([pattern], out, robot=ROBOT, workers=1, config=GmrConfig(damping=0.6), force=True).done == 4


@needs_menagerie
def test_corrupt_files_fail_with_their_message_and_the_rest_complete(
    clips: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "clips"
    for p in clips.rglob("*.bvh"):
        target = src / p.relative_to(clips)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(p.read_bytes())
    (src / "garbage.bvh").write_text("this is not a BVH file\n")
    text = (clips / "walk_0.bvh").read_text()
    (src / "sub" / "truncated.bvh").write_text(text[: len(text) // 3])
    out = tmp_path / "out"
    code, stdout, stderr = run_cli(
        capsys, "batch", src / "**" / "*.bvh", "--robot", ROBOT, "--out", out, "--workers", "2", "--format", "npz"
    )
    assert code == 3
    assert len(list(out.rglob("*.npz"))) == 8
    assert not (out / "garbage.npz").exists() and not (out / "sub" / "truncated.npz").exists()
    records = Manifest(out).read()
    failed = {k: r for k, r in records.items() if not r.ok}
    assert sorted(failed) == ["garbage.npz", "sub/truncated.npz"]
    assert "garbage.bvh:1" in (failed["garbage.npz"].error or "")
    assert "truncated.bvh" in (failed["sub/truncated.npz"].error or "")
    assert "failed: " in stderr and "garbage.bvh" in stderr and "10 inputs: 8 retargeted" in stdout
    # the failures are redone on a rerun, the rest skipped
    code, stdout, _ = run_cli(capsys, "batch", src / "**" / "*.bvh", "--robot", ROBOT, "--out", out, "--quiet")
    assert code == 3


@needs_menagerie
@pytest.mark.parametrize(
    "args",
    [
        ["nothing/*.bvh", "--robot", ROBOT],
        ["CLIPS", "--robot", ROBOT, "--damping", "-1"],
        ["CLIPS", "--robot", "no_such_robot"],
        ["CLIPS", "--robot", ROBOT, "--workers", "0"],
        ["CLIPS", "--robot", ROBOT, "--mapping", "missing.json"],
    ],
    ids=["no-match", "bad-option", "unknown-robot", "no-workers", "missing-mapping"],
)
def test_bad_input_exits_2_and_writes_nothing(
    args: list[str], clips: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = [str(clips / "*.bvh") if a == "CLIPS" else a for a in args]
    code, _, err = run_cli(capsys, "batch", *args, "--out", out)
    assert code == 2 and err.startswith("kinemorph: error:")
    assert not out.exists()


@needs_menagerie
def test_ray_missing_is_a_bad_option(
    clips: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "batch", clips / "*.bvh", "--robot", ROBOT, "--out", out, "--ray", "auto")
    assert code == 2 and "pip install 'kinemorph[ray]'" in err and not out.exists()


# -- killed runs -----------------------------------------------------------------------------------------
def _start_cli(pattern: str, out: Path, workers: int) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "kinemorph.cli", "batch", pattern, "--robot", ROBOT, "--out", str(out)]
    cmd += ["--workers", str(workers), "--quiet"]
    return subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_for_first_record(out: Path, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        manifest = out / "manifest.jsonl"
        if manifest.exists() and manifest.read_text().strip():
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError("no file finished in time")


@needs_menagerie
@pytest.mark.parametrize("how", ["sigint-group", "sigkill-main"])
def test_a_killed_run_leaves_complete_outputs_and_a_rerun_finishes_identically(
    how: str, long_clips: Path, long_reference: Path, tmp_path: Path
) -> None:
    pattern = str(long_clips / "**" / "*.bvh")
    out = tmp_path / "out"
    proc = _start_cli(pattern, out, workers=1)
    _wait_for_first_record(out, proc)
    if how == "sigint-group":  # Ctrl-C in a terminal signals the main process and its workers
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    else:
        proc.kill()
        proc.wait(timeout=30)
        time.sleep(1.0)  # the orphaned worker notices within 0.5 s and exits
    written = list(out.rglob("*.npz"))
    assert 1 <= len(written) < 8
    for p in written:  # every output there is complete
        assert arrays(p)["dof_pos"].shape[1] == 29
    rerun = run_batch([pattern], out, robot=ROBOT, workers=2)
    assert rerun.failed == 0 and rerun.done >= 1 and rerun.done + rerun.skipped == 8
    assert_same_outputs(out, long_reference)
    assert not partial_files(out)
    assert all(r.ok for r in Manifest(out).read().values()) and len(Manifest(out).read()) == 8


@needs_menagerie
def test_a_worker_killed_mid_run_is_replaced_and_its_file_redone(
    long_clips: Path, long_reference: Path, tmp_path: Path
) -> None:
    pattern = str(long_clips / "**" / "*.bvh")
    killed: list[int] = []

    def kill_a_worker(rec: Record) -> None:
        if not killed:
            # the other worker than the one that just reported: it is busy with a file (the one
            # that reported may be between files, holding none, and then nothing would be redone)
            done_by = int(str(rec.worker).rsplit(":", 1)[-1]) if rec.worker else -1
            children = multiprocessing.active_children()
            victim = next((c for c in children if c.pid != done_by), children[0])
            os.kill(victim.pid or 0, signal.SIGKILL)
            killed.append(victim.pid or 0)

    out = tmp_path / "out"
    result = run_batch([pattern], out, robot=ROBOT, workers=2, on_record=kill_a_worker)
    assert killed and result.failed == 0 and result.done == 8
    assert any(r.attempts == 2 for r in result.records)
    assert not partial_files(out)
    assert_same_outputs(out, long_reference)


# -- Ray -------------------------------------------------------------------------------------------------
@needs_menagerie
def test_ray_runs_the_same_batch(clips: Path, reference: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'kinemorph[ray]')")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        out = tmp_path / "out"
        code, stdout, _ = run_cli(
            capsys, "batch", clips / "**" / "*.bvh", "--robot", ROBOT, "--out", out, "--ray", "auto"
        )
        assert code == 0 and "8 retargeted" in stdout and "ray" in stdout
    finally:
        ray.shutdown()
    assert_same_outputs(out, reference)
    records = Manifest(out).read().values()
    assert {r.robot_loads for r in records} == {1} and len({r.worker for r in records}) <= 2
