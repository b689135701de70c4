"""Video defaults by format, the streaming GIF writer, and the simplified render meshes: GIFs get
15 fps, 320x180 and a 60 s cap (with a note), frames go to the encoder one at a time, and G1's
meshes drawn at a sixth of their triangles look the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.render import RenderConfig, RenderError, frame_indices, gl_backend, render_model
from kinemorph.render.gif import GifWriter
from kinemorph.render.video import GIF_MAX_SECONDS, _cut_note
from kinemorph.robots.mesh_lod import read_binary_stl, simplify_spec_meshes
from kinemorph.robots.robot_motion import RobotMotion


def _still(frames: int, fps: float = 30.0) -> RobotMotion:
    root = np.zeros((frames, 3))
    rot = np.tile([1.0, 0.0, 0.0, 0.0], (frames, 1))
    return RobotMotion("r", fps, root, rot, np.zeros((frames, 1)), ("j",))


def test_each_format_has_its_own_size_and_rate() -> None:
    cfg = RenderConfig()
    assert cfg.size(".mp4") == (640, 360) and cfg.size(".gif") == (320, 180)
    assert RenderConfig(width=480).size(".gif") == (480, 270)
    assert RenderConfig(height=360).size(".gif") == (640, 360)
    motion = _still(300, 60.0)
    assert frame_indices(motion, cfg, ".mp4")[1] == 30.0 and frame_indices(motion, cfg, ".gif")[1] == 15.0


def test_a_long_gif_is_cut_at_the_cap_with_a_note() -> None:
    motion = _still(30 * 90)  # 90 s
    idx, fps = frame_indices(motion, RenderConfig(), ".gif")
    assert len(idx) / fps == pytest.approx(GIF_MAX_SECONDS)
    note = _cut_note(motion, RenderConfig(), ".gif", len(idx), fps)
    assert note and "at most 60 s" in note[0] and "90 s" in note[0]
    assert _cut_note(motion, RenderConfig(), ".mp4", 2700, 30.0) == ()
    assert len(frame_indices(motion, RenderConfig(), ".mp4")[0]) == 2700  # MP4 has no cap


def test_the_gif_writer_streams_frames_onto_one_palette(tmp_path: Path) -> None:
    from PIL import Image

    colours = np.array([[200, 30, 30], [30, 200, 30], [30, 30, 200], [240, 240, 240]], dtype=np.uint8)
    path = tmp_path / "x.gif"
    with GifWriter(path, 15.0) as w:
        for k in range(40):
            frame = np.empty((36, 64, 3), dtype=np.uint8)
            frame[:] = colours[3]
            frame[:, :16] = colours[k % 3]
            frame[:, 16:32] = colours[0]
            frame[:, 32:48] = colours[1]
            frame[:, 48:] = colours[2]
            w.send(frame)
        assert w.frames == 40
    with Image.open(path) as im:
        assert im.n_frames == 40 and im.info["loop"] == 0
        delays = []
        for k in range(40):
            im.seek(k)
            delays.append(im.info["duration"])
        assert set(delays) <= {60, 70} and sum(delays) == pytest.approx(40 / 15 * 1000, abs=10)
        im.seek(31)
        got = np.asarray(im.convert("RGB"))
    assert np.abs(got[0, 0].astype(int) - colours[31 % 3]).max() <= 4


def test_an_ascii_stl_is_not_read_as_binary(tmp_path: Path) -> None:
    p = tmp_path / "a.stl"
    p.write_bytes(b"solid a\nendsolid a\n" + bytes(100))
    assert read_binary_stl(p) is None


def test_bad_render_sizes_and_mesh_cells_are_refused() -> None:
    from kinemorph.errors import ConfigError

    for bad in ({"width": 8}, {"shadow_size": 16}, {"mesh_cell": -1.0}, {"mesh_cell": 1.0}):
        with pytest.raises(ConfigError):
            RenderConfig(**bad)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def g1():  # type: ignore[no-untyped-def]
    robot_or_skip("unitree_g1")
    import kinemorph

    return kinemorph.load_robot("unitree_g1")


def test_g1s_meshes_are_simplified_before_compiling(g1) -> None:  # type: ignore[no-untyped-def]
    import mujoco

    spec = mujoco.MjSpec.from_file(str(g1.path))
    full = spec.compile()
    spec = mujoco.MjSpec.from_file(str(g1.path))
    assert simplify_spec_meshes(spec, 0.006) > 20
    light = spec.compile()
    assert light.nmeshface < full.nmeshface / 4
    for i in range(full.nmesh):  # each mesh keeps its place and extent (its bounding box) within 1 cm
        a = full.mesh_vert[full.mesh_vertadr[i] : full.mesh_vertadr[i] + full.mesh_vertnum[i]]
        b = light.mesh_vert[light.mesh_vertadr[i] : light.mesh_vertadr[i] + light.mesh_vertnum[i]]
        assert np.abs((a.max(0) - a.min(0)) - (b.max(0) - b.min(0))).max() < 0.012


def test_simplified_meshes_render_like_the_full_ones(g1) -> None:  # type: ignore[no-untyped-def]
    try:
        gl_backend()
    except RenderError as exc:
        pytest.skip(f"no offscreen OpenGL here: {exc}")
    from kinemorph.render import Camera, FrameRenderer

    images = []
    for cell in (0.0, 0.006):
        model = render_model(g1, 320, 240, mesh_cell=cell, shadows=False)
        with FrameRenderer(model, 320, 240) as fr:
            images.append(fr.render(g1.rest_qpos(), np.array([0.0, 0.0, 0.7]), Camera(distance=2.5)).astype(float))
    robot_pixels = np.abs(images[0] - images[1]).max(axis=2) > 40
    assert robot_pixels.mean() < 0.01  # under 1% of the pixels differ visibly
