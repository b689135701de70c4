"""End to end in headless Chromium: the app in a real browser, driven by playwright.

Loads a sample, retargets it onto G1, sees the plot, downloads the NPZ and checks its contents;
switches to a dog clip and sees Go2 selected with the humanoids greyed out. Screenshots go to
KINEMORPH_ARTIFACTS (default tests/artifacts/). Skips with the reason when Chromium, playwright or
viser is missing locally; CI (.ci/run) installs all three.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import data_path, needs_data, needs_menagerie

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [needs_data, needs_menagerie]


def _missing(reason: str) -> None:
    """Skip locally; in CI (CI=true, where .ci/run installs everything) a missing piece is a failure."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: CI must run the browser test")
    pytest.skip(reason)


def _artifacts() -> Path:
    folder = Path(os.environ.get("KINEMORPH_ARTIFACTS") or Path(__file__).parent / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser_page():  # type: ignore[no-untyped-def]
    try:
        import viser  # noqa: F401
        from playwright import sync_api
    except ImportError as exc:
        _missing(f"{exc.name} is not installed (pip install -e '.[app]')")
    if not Path(CHROMIUM).is_file():
        _missing(f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium)")
    data_path("walk.bvh")
    data_path("dog_walk.bvh")
    from kinemorph.app.server import start_app

    app = start_app(port=0, verbose=False)
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM,
                args=["--use-gl=swiftshader", "--enable-unsafe-swiftshader", "--no-sandbox"],
            )
            page = browser.new_page(viewport={"width": 1200, "height": 760}, accept_downloads=True)
            page.goto(f"http://127.0.0.1:{app.server.get_port()}")
            page.set_default_timeout(60_000)  # software WebGL on a shared 2-core machine is slow to respond
            page.wait_for_function("() => document.body.innerText.includes('Open clip')", timeout=30_000)
            _wait_text(page, "Page: Motion")  # the whole panel has arrived
            yield app, page
            browser.close()
    finally:
        app.stop()


def _choose(page, label: str, option: str) -> None:  # type: ignore[no-untyped-def]
    """Pick an option of a viser dropdown (a Mantine Select) by its current value's text box."""
    page.get_by_role("combobox", name=label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()


def _wait_text(page, text: str, timeout: float = 30_000) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function("t => document.body.innerText.includes(t)", arg=text, timeout=timeout)


def test_sample_to_g1_npz_and_dog_to_go2_in_the_browser(browser_page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app, page = browser_page
    t0 = time.perf_counter()
    art = _artifacts()

    _choose(page, "Clip", "sample:walk.bvh")
    page.get_by_role("button", name="Open clip").click()
    _wait_text(page, "preset lafan1 (humanoid), 1800 frames")
    page.screenshot(path=str(art / "app_motion.png"))

    page.get_by_role("button", name="Preview", exact=True).click()
    page.get_by_role("button", name="Retarget", exact=True).click()
    _wait_text(page, "1800 frames onto unitree_g1", timeout=60_000)
    assert page.locator(".uplot").count() >= 2  # the error curve and the joint curves
    page.screenshot(path=str(art / "app_preview.png"))

    with page.expect_download(timeout=30_000) as info:
        page.get_by_role("button", name="Download NPZ").click()
    npz = tmp_path / info.value.suggested_filename
    info.value.save_as(npz)
    assert npz.name == "walk_unitree_g1.npz"
    with np.load(npz) as z:
        assert z["dof_pos"].shape == (1800, 29) and z["root_pos"].shape == (1800, 3)
        assert z["root_rot"].shape == (1800, 4) and float(z["fps"]) == 30.0
        assert np.allclose(np.linalg.norm(z["root_rot"], axis=1), 1.0)
        assert list(z["dof_names"]) == list(app.state.robot().dof_names)
        assert np.allclose(z["dof_pos"], app.state.result.dof_pos)

    page.get_by_role("button", name="Motion", exact=True).click()
    _choose(page, "Clip", "sample:dog_walk.bvh")
    page.get_by_role("button", name="Open clip").click()
    _wait_text(page, "preset dog (quadruped)")
    page.get_by_role("button", name="Setup", exact=True).click()
    _wait_text(page, "Robot: unitree_go2 (quadruped)")
    assert page.get_by_role("button", name="unitree_g1", exact=True).is_disabled()
    assert page.get_by_role("button", name="unitree_go2", exact=True).is_enabled()
    page.screenshot(path=str(art / "app_setup_dog.png"))
    assert time.perf_counter() - t0 < 300  # a hang, not a speed check (the machine is shared)


def _client(app):  # type: ignore[no-untyped-def]
    clients = list(app.server.get_clients().values())
    assert clients, "the browser is not connected"
    return clients[-1]


def _until(check, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.time() + timeout
    while not check():
        if time.time() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.1)


def test_preview_drops_a_stale_result_when_the_robot_changes(browser_page) -> None:  # type: ignore[no-untyped-def]
    app, page = browser_page
    art = _artifacts()
    page.get_by_role("button", name="Motion", exact=True).click()
    _choose(page, "Clip", "sample:walk.bvh")
    page.get_by_role("button", name="Open clip").click()
    _wait_text(page, "preset lafan1 (humanoid), 1800 frames")
    page.get_by_role("button", name="Preview", exact=True).click()
    _wait_text(page, "Page: Preview")
    page.get_by_role("button", name="Retarget", exact=True).click()
    _wait_text(page, "1800 frames onto unitree_g1", timeout=60_000)
    _wait_text(page, "frames/s")  # live progress line: frames done and rate
    assert app.preview_page.quality_md.content

    page.get_by_role("button", name="Setup", exact=True).click()
    page.get_by_role("button", name="booster_t1", exact=True).click()
    _wait_text(page, "Robot: booster_t1")
    page.get_by_role("button", name="Preview", exact=True).click()
    _wait_text(page, "No current result: the robot changed to booster_t1")
    assert app.state.result is None and app.preview_page.quality_md.content == ""
    assert app.preview_page.kp_view is None and app.preview_page.bar.value == 0.0
    assert not app.views["booster_t1"].visible if "booster_t1" in app.views else True
    page.screenshot(path=str(art / "app_preview_stale.png"))
    page.get_by_role("button", name="Download NPZ").click()
    _wait_text(page, "retarget first")

    page.get_by_role("button", name="Setup", exact=True).click()
    page.get_by_role("button", name="unitree_g1", exact=True).click()
    _wait_text(page, "Robot: unitree_g1")


def test_the_camera_follows_the_skeleton_and_is_kept_on_reload(browser_page) -> None:  # type: ignore[no-untyped-def]
    app, page = browser_page
    art = _artifacts()
    page.get_by_role("button", name="Motion", exact=True).click()
    _wait_text(page, "Page: Motion")
    if app.state.motion_key != "sample:walk.bvh":
        _choose(page, "Clip", "sample:walk.bvh")
        page.get_by_role("button", name="Open clip").click()
        _wait_text(page, "preset lafan1 (humanoid), 1800 frames")
    assert page.get_by_role("checkbox", name="Follow camera").is_checked()
    motion = app.state.motion
    start = np.array(_client(app).camera.look_at)
    page.get_by_role("button", name="Play", exact=True).click()

    def walked_away() -> bool:  # playback speed depends on the machine's load: wait for the distance
        here = motion.positions[app.motion_page.playback.frame, 0]
        return bool(np.linalg.norm(here[:2] - start[:2]) > 1.2)

    _until(walked_away, timeout=60.0)
    page.get_by_role("button", name="Pause", exact=True).click()
    root = motion.positions[app.motion_page.playback.frame, 0]
    assert np.linalg.norm(root[:2] - start[:2]) > 1.0  # the skeleton walked away from where the view started

    def following() -> bool:
        return bool(np.linalg.norm(np.array(_client(app).camera.look_at)[:2] - root[:2]) < 0.3)

    _until(following)
    page.screenshot(path=str(art / "app_follow.png"))

    kept = app.camera[1].copy()
    page.reload()
    page.wait_for_function("() => document.body.innerText.includes('Open clip')", timeout=30_000)
    _until(lambda: len(app.server.get_clients()) >= 1 and np.allclose(_client(app).camera.look_at, kept, atol=0.05))
    assert page.get_by_role("checkbox", name="Follow camera").is_checked()


def test_an_upload_over_the_limit_is_refused_with_a_notice(browser_page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app, page = browser_page
    page.get_by_role("button", name="Motion", exact=True).click()
    limit = app.uploads.max_bytes
    app.uploads.max_bytes = app.state.sources.max_upload_bytes = 100_000
    try:
        big = tmp_path / "big.bvh"
        big.write_bytes(data_path("walk.bvh").read_bytes()[:300_000])
        with page.expect_file_chooser() as chooser:
            page.get_by_role("button", name="Upload BVH / NPZ").click()
        chooser.value.set_files(str(big))
        _wait_text(page, "over the upload limit of 0 MB")
        assert app.uploads.refused[-1].filename == "big.bvh"
        assert "upload:big.bvh" not in app.state.sources.motions()
        page.screenshot(path=str(_artifacts() / "app_upload_limit.png"))
    finally:
        app.uploads.max_bytes = app.state.sources.max_upload_bytes = limit

    from test_app_uploads import _arm  # a small biped MJCF

    model = tmp_path / "arm.xml"
    model.write_bytes(_arm())
    page.get_by_role("button", name="Setup", exact=True).click()
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Upload robot (MJCF/URDF, or .zip with meshes)").click()
    chooser.value.set_files(str(model))
    _wait_text(page, "Robot: upload:arm.xml")  # an upload under the limit goes through the gate
    assert app.state.robot_key == "upload:arm.xml"


def test_the_gait_page_simulates_the_walk_in_the_browser(browser_page) -> None:  # type: ignore[no-untyped-def]
    app, page = browser_page
    art = _artifacts()
    page.get_by_role("button", name="Gait", exact=True).click()
    _wait_text(page, "Page: Gait")
    page.get_by_text("Simulate (physics)", exact=True).click()  # open the folder
    box = page.get_by_role("textbox", name="length [s]", exact=True)
    box.fill("2")
    box.press("Enter")
    _until(lambda: float(app.gait_page.sim_len.value) == 2.0)
    page.get_by_role("button", name="Simulate", exact=True).click()
    _wait_text(page, "Simulated: walked 2.0 s", timeout=120_000)
    sim = app.gait_page.sim.result
    assert sim is not None and not sim.fell and app.gait_page.motion is sim.motion
    page.screenshot(path=str(art / "app_gait_simulate.png"))
