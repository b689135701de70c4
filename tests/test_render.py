"""Videos: frame choice and camera (plain numpy), then a few frames of a generated walk on G1
rendered offscreen to GIF (and MP4 when imageio-ffmpeg is installed); skipped with the reason
when no OpenGL backend (EGL or OSMesa) works here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.errors import ConfigError
from kinemorph.render import RenderConfig, RenderError, camera_targets, frame_indices, gl_backend, render_video
from kinemorph.robots.robot_motion import RobotMotion


def _still(frames: int = 90, fps: float = 30.0) -> RobotMotion:
    root = np.zeros((frames, 3))
    root[:, 0] = np.linspace(0.0, 1.0, frames)
    rot = np.tile([1.0, 0.0, 0.0, 0.0], (frames, 1))
    return RobotMotion("r", fps, root, rot, np.zeros((frames, 1)), ("j",))


def test_frames_are_picked_at_the_video_rate() -> None:
    idx, fps = frame_indices(_still(90, 30.0), RenderConfig(fps=10.0))
    assert fps == 10.0 and idx.tolist() == list(range(0, 90, 3))


def test_start_and_duration_select_a_window() -> None:
    idx, _ = frame_indices(_still(90, 30.0), RenderConfig(fps=30.0, start=1.0, duration=0.5))
    assert idx[0] == 30 and len(idx) == 15


def test_default_rate_is_the_motions_at_most_30() -> None:
    assert frame_indices(_still(120, 60.0), RenderConfig())[1] == 30.0
    assert frame_indices(_still(40, 20.0), RenderConfig())[1] == 20.0


def test_start_past_the_end_is_refused() -> None:
    with pytest.raises(ConfigError, match="past the end"):
        frame_indices(_still(30, 30.0), RenderConfig(start=2.0))


@pytest.mark.parametrize("bad", [{"width": 8}, {"fps": 0.0}, {"duration": -1.0}, {"distance": 0.0}])
def test_bad_render_settings_are_refused(bad: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError):
        RenderConfig(**bad)


def test_following_camera_lags_behind_then_catches_up() -> None:
    root = np.zeros((200, 3))
    root[20:, 0] = 1.0  # a step of 1 m at frame 20
    look = camera_targets(root, 30.0, follow=True, smoothing=0.5, height=0.7)
    assert look[19, 0] == 0.0 and 0.0 < look[21, 0] < 0.2 and look[-1, 0] > 0.99
    assert np.all(look[:, 2] == 0.7)


def test_fixed_camera_looks_at_the_paths_centre() -> None:
    root = np.array([[0.0, 0.0, 0.8], [2.0, 1.0, 0.8]])
    look = camera_targets(root, 30.0, follow=False, smoothing=0.5, height=0.6)
    assert np.allclose(look, [[1.0, 0.5, 0.6], [1.0, 0.5, 0.6]])


@pytest.fixture(scope="module")
def g1_walk():  # type: ignore[no-untyped-def]
    robot_or_skip("unitree_g1")
    try:
        gl_backend()
    except RenderError as exc:
        pytest.skip(f"no offscreen OpenGL here: {exc}")
    import kinemorph
    from kinemorph.motion.procedural import procedural_walk

    robot = kinemorph.load_robot("unitree_g1", meshes=True)
    return kinemorph.retarget(procedural_walk(), robot), robot


def test_a_walk_renders_to_a_gif(g1_walk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PIL import Image

    result, robot = g1_walk
    out = tmp_path / "walk.gif"
    info = render_video(result, robot, out, RenderConfig(width=160, height=120, fps=10.0, duration=0.5))
    assert info.frames == 5 and info.backend in ("egl", "osmesa")
    with Image.open(out) as im:
        assert im.size == (160, 120) and im.n_frames == 5
        first = np.asarray(im.convert("RGB"), dtype=np.float64)
    assert first.std() > 10  # a picture, not a blank frame
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_walk_renders_to_an_mp4(g1_walk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("imageio_ffmpeg", reason="imageio-ffmpeg is not installed (the [app] extra)")
    result, robot = g1_walk
    out = tmp_path / "walk.mp4"
    render_video(result, robot, out, RenderConfig(width=160, height=120, fps=10.0, duration=0.3))
    assert out.stat().st_size > 1000 and out.read_bytes()[4:8] == b"ftyp"


def test_a_motion_for_another_robot_is_refused(g1_walk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, robot = g1_walk
    with pytest.raises(RenderError, match="joints"):
        render_video(_still(), robot, tmp_path / "x.gif")
    assert not (tmp_path / "x.gif").exists()


def test_unsupported_video_format_is_refused(g1_walk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result, robot = g1_walk
    with pytest.raises(RenderError, match="unsupported video format"):
        render_video(result, robot, tmp_path / "x.avi")


def test_render_command_writes_a_gif_from_an_npz(g1_walk, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import kinemorph
    from kinemorph.cli import main

    result, robot = g1_walk
    npz = kinemorph.save(result, tmp_path / "walk_unitree_g1.npz", robot=robot)
    out = tmp_path / "walk.gif"
    code = main(["render", str(npz), "--robot", "unitree_g1", "-o", str(out), "--fps", "5", "--duration", "0.4",
                 "--width", "96", "--height", "64", "--quiet"])  # fmt: skip
    assert code == 0 and out.is_file()
    assert main(["render", str(npz), "--robot", "unitree_g1", "-o", str(out), "--quiet"]) == 2
    assert "exists" in capsys.readouterr().err
