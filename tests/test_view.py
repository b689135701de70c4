"""``kinemorph view``: the app opened straight on a result file (a real viser server, no browser):
the Preview page plays the file's motion on its robot, the source clip as an overlay, the quality
of the file; a robot whose joints differ is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import needs_menagerie
from kinemorph.errors import KinemorphError

pytestmark = needs_menagerie


@pytest.fixture(scope="module")
def app():  # type: ignore[no-untyped-def]
    pytest.importorskip("viser")
    from kinemorph.app.server import start_app

    a = start_app(port=0, verbose=False)
    yield a
    a.stop()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A generated walk's BVH and a G1 motion made from it (the pelvis following the hips)."""
    import kinemorph
    from kinemorph.motion import save_bvh
    from kinemorph.motion.procedural import procedural_walk
    from kinemorph.robots.robot_motion import RobotMotion

    folder = tmp_path_factory.mktemp("view")
    walk = procedural_walk(duration=6.0).slice(0, 60)
    src = save_bvh(walk, folder / "walk.bvh")
    robot = kinemorph.load_robot("unitree_g1")
    q = np.tile(robot.rest_qpos(), (60, 1))
    q[:, :2] = walk.positions[:, 0, :2]
    out = kinemorph.save(RobotMotion.from_qpos("unitree_g1", 30.0, q, robot.dof_names), folder / "walk.mjlab.npz")
    return out, src


def test_view_plays_the_file_with_the_source_overlay(app, files) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.app.view import open_result
    from kinemorph.io import load

    out, src = files
    text = open_result(app, out, source=src)
    assert "60 frames" in text and "unitree_g1" in text
    page = app.preview_page
    assert app.active is page and page.playback.num_frames == 60
    np.testing.assert_array_equal(app.state.result.dof_pos, load(out).dof_pos)
    assert app.state.report is not None and app.state.report.num_frames == 60
    # The overlay is the source's bodies at the same time; the robot's pelvis follows the hips.
    src_motion = app.state.motion
    np.testing.assert_allclose(page.keypoints(10), src_motion.positions[10], atol=1e-12)
    np.testing.assert_allclose(page.pose.positions[10, 1, :2], src_motion.positions[10, 0, :2], atol=1e-12)
    page.playback.seek(30)
    assert app.preview_page.controls["timeline"].value == 30


def test_view_refuses_a_robot_with_other_joints(app, files) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.app.view import open_result

    with pytest.raises(KinemorphError, match="joints"):
        open_result(app, files[0], robot="unitree_h1")


def test_view_names_a_missing_source(app, files, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.app.view import open_result

    with pytest.raises(KinemorphError, match="no such source"):
        open_result(app, files[0], source=tmp_path / "nope.bvh")


def test_preview_downloads_the_trainer_formats(app, files, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.app.view import open_result
    from kinemorph.io import EXPORT_FORMATS, detect_format, load

    open_result(app, files[0])
    assert set(app.preview_page.download_buttons) == set(EXPORT_FORMATS)
    for name in ("beyondmimic", "mimickit", "holosoma", "mjlab"):
        file_name, data = app.preview_page.download(name)
        path = tmp_path / file_name
        path.write_bytes(data)
        assert detect_format(path).name == name
        np.testing.assert_allclose(load(path, dof_names=app.state.result.dof_names).dof_pos, app.state.result.dof_pos)
