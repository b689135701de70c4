"""``kinemorph view`` end to end in headless Chromium: the app opened on a result file shows the
Preview page with the file's summary, its joint curves and the robot; a screenshot goes to
KINEMORPH_ARTIFACTS (default tests/artifacts/). Skips locally without Chromium, playwright or
viser; in CI (CI=true) that is a failure."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import needs_menagerie

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = needs_menagerie


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: CI must run the browser test")
    pytest.skip(reason)


def test_view_opens_the_result_in_the_browser(tmp_path: Path) -> None:
    try:
        import viser  # noqa: F401
        from playwright import sync_api
    except ImportError as exc:
        _missing(f"{exc.name} is not installed (pip install -e '.[app]')")
    if not Path(CHROMIUM).is_file():
        _missing(f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium)")
    import kinemorph
    from kinemorph.app.server import start_app
    from kinemorph.app.view import open_result
    from kinemorph.motion import save_bvh
    from kinemorph.motion.procedural import procedural_walk
    from kinemorph.robots.robot_motion import RobotMotion

    walk = procedural_walk(duration=6.0).slice(0, 90)
    src = save_bvh(walk, tmp_path / "walk.bvh")
    robot = kinemorph.load_robot("unitree_g1")
    q = np.tile(robot.rest_qpos(), (90, 1))
    q[:, :2] = walk.positions[:, 0, :2]
    q[:, 7:] += 0.2 * np.sin(np.arange(90) / 10.0)[:, None]
    q[:, 7:] = np.clip(q[:, 7:], robot.lower, robot.upper)
    out = kinemorph.save(RobotMotion.from_qpos("unitree_g1", 30.0, q, robot.dof_names), tmp_path / "walk.holosoma.npz")

    app = start_app(port=0, verbose=False)
    try:
        open_result(app, out, source=src)
        artifacts = Path(os.environ.get("KINEMORPH_ARTIFACTS") or Path(__file__).parent / "artifacts")
        artifacts.mkdir(parents=True, exist_ok=True)
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM,
                args=["--use-gl=swiftshader", "--enable-unsafe-swiftshader", "--no-sandbox"],
            )
            page = browser.new_page(viewport={"width": 1200, "height": 760})
            page.goto(f"http://127.0.0.1:{app.server.get_port()}")
            page.wait_for_function(
                "t => document.body.innerText.includes(t)", arg="viewing walk.holosoma.npz", timeout=30_000
            )
            assert "90 frames at 30 fps on unitree_g1, source walk.bvh" in page.inner_text("body")
            page.wait_for_function("() => document.querySelectorAll('.uplot').length >= 1", timeout=30_000)
            page.screenshot(path=str(artifacts / "view.png"))
            browser.close()
    finally:
        app.stop()
