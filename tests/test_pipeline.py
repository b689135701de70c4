"""The one retarget job (kinemorph.pipeline): engine and config resolution, checks before any
write, and every face running it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import HAS_MENAGERIE, robot_or_skip
from kinemorph.cli import main
from kinemorph.errors import ConfigError, KinemorphError
from kinemorph.motion.keypoints import save_keypoints
from kinemorph.pipeline import Outputs, RetargetJob, check_job_settings, engine_config, run_job
from kinemorph.retarget import ENGINES, GmrConfig, QuadrupedConfig
from test_quadruped import synthetic_trot

needs_models = pytest.mark.skipif(not HAS_MENAGERIE, reason="robot models need MENAGERIE_ROOT")


def test_engine_config_takes_compat_then_overrides() -> None:
    cfg = engine_config(ENGINES["gmr"], compat="gmr", overrides={"damping": 0.7})
    assert cfg == GmrConfig(human_height=1.75, ground="off", init="qpos0", damping=0.7)


def test_unknown_compat_and_option_and_bad_value_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"engine quadruped has no 'gmr' settings; valid: none"):
        engine_config(ENGINES["quadruped"], compat="gmr")
    with pytest.raises(ConfigError, match=r"no engine has an option 'dampign'; valid: .*damping"):
        check_job_settings(RetargetJob("x.bvh", "unitree_g1", options={"dampign": 1.0}))
    with pytest.raises(ConfigError, match="damping"):
        check_job_settings(RetargetJob("x.bvh", "unitree_g1", engine="gmr", options={"damping": -1.0}))


def test_options_reach_only_the_engines_that_have_them() -> None:
    job = RetargetJob("x.bvh", "r", options={"damping": 0.2, "mode": "plain"})
    from kinemorph.pipeline import job_config

    assert job_config(ENGINES["gmr"], job) == GmrConfig(damping=0.2)
    assert job_config(ENGINES["quadruped"], job) == QuadrupedConfig(damping=0.2, mode="plain")


def test_one_file_named_twice_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    with pytest.raises(KinemorphError, match="named twice"):
        Outputs((out,), report=out).check()
    assert not out.exists()


@needs_models
def test_a_job_writes_every_output_and_reports_its_stages(tmp_path: Path) -> None:
    from kinemorph.motion.procedural import procedural_walk

    outputs = Outputs((tmp_path / "w.npz", tmp_path / "w.csv"), report=tmp_path / "q.json")
    done = run_job(RetargetJob(procedural_walk(duration=5.0), "unitree_g1", outputs=outputs))
    assert done.engine == "gmr" and done.report is not None
    assert all(p.exists() for p in outputs.paths())
    assert done.times.total > 0 and done.result.settings["engine"] == "gmr"


@needs_models
@pytest.mark.parametrize("engine", ["gmr", "mesh"])
def test_engines_are_pure_and_leave_the_model_alone(engine: str) -> None:
    """The model's joint ranges are untouched and the result does not depend on what the robot's
    own MjData held before (each solve works on its own MjData)."""
    from kinemorph.motion.procedural import procedural_walk

    robot = robot_or_skip("unitree_g1")
    clip = procedural_walk(duration=5.0)
    ranges = robot.model.jnt_range.copy()
    first = run_job(RetargetJob(clip, robot, engine=engine, evaluate=False)).result
    robot.data.qpos[:] = np.random.default_rng(0).normal(size=robot.nq)
    second = run_job(RetargetJob(clip, robot, engine=engine, evaluate=False)).result
    np.testing.assert_array_equal(robot.model.jnt_range, ranges)
    np.testing.assert_array_equal(first.qpos, second.qpos)


@needs_models
def test_the_gait_output_leaves_the_knee_ranges_alone() -> None:
    from kinemorph.gait import load_style
    from kinemorph.gait.commands import parse_command
    from kinemorph.gait.kinematic import gait_motion

    robot = robot_or_skip("unitree_g1")
    ranges = robot.model.jnt_range.copy()
    gait_motion(load_style("neutral"), robot, parse_command("0.3,0,0"), 2.0)
    np.testing.assert_array_equal(robot.model.jnt_range, ranges)


def _dog_clips(folder: Path, count: int) -> None:
    folder.mkdir()
    for i in range(count):
        clip = synthetic_trot(seconds=1.5, speed=0.5 + 0.2 * i)
        save_keypoints(clip, folder / f"dog{i}.npz", bodies=[b for b in clip.body_names if b != "origin"])


@needs_models
def test_batch_picks_the_quadruped_engine_per_clip_without_engine(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.io import load

    _dog_clips(tmp_path / "dogs", 2)
    code = main(["batch", str(tmp_path / "dogs" / "*.npz"), "--robot", "unitree_go2", "--out", str(tmp_path / "d"),
                 "--workers", "1", "--quiet"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    for i in range(2):
        back = load(tmp_path / "d" / f"dog{i}.npz")
        assert back.contacts is not None and back.contacts.shape[1] == 4  # the quadruped engine's contact mask


@needs_models
def test_every_face_runs_the_one_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    import kinemorph.pipeline as pipeline
    from kinemorph.motion import save_bvh
    from kinemorph.motion.procedural import procedural_walk

    calls: list[str] = []
    real = pipeline.run_job

    def spy(job: RetargetJob, **kw):  # type: ignore[no-untyped-def]
        calls.append(str(job.source)[:20])
        return real(job, **kw)

    monkeypatch.setattr(pipeline, "run_job", spy)
    monkeypatch.setattr("kinemorph.demo.run_job", spy)
    monkeypatch.setattr("kinemorph.app.state.run_job", spy)
    clip = tmp_path / "w.bvh"
    save_bvh(procedural_walk(duration=5.0), clip)
    assert main(["retarget", str(clip), "--robot", "unitree_g1", "-o", str(tmp_path / "w.npz"), "--quiet"]) == 0
    assert main(["demo", "--out", str(tmp_path / "demo")]) == 0
    from kinemorph.app.state import AppState

    state = AppState()
    state.motion = procedural_walk(duration=5.0)
    state.run_retarget()
    assert len(calls) == 3, calls
