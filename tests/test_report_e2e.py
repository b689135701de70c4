"""End to end in headless Chromium: a 100-clip dataset report opens without console errors.

The folder is made in-process (tests/report_dataset.py: 96 good clips, 3 spoiled, 1 failed); the
page is loaded from file:// with playwright and Debian's Chromium, every console message of
level error and every page error is collected, and a full-page screenshot goes to
KINEMORPH_ARTIFACTS (default tests/artifacts/). Skips locally when Chromium or playwright is
missing; in CI (CI=true) that is a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import needs_menagerie
from report_dataset import SUNK, make_folder

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = needs_menagerie


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: CI must run the browser test")
    pytest.skip(reason)


def test_report_of_100_clips_opens_in_chromium_without_errors(tmp_path: Path) -> None:
    try:
        from playwright import sync_api
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[app]')")
    if not Path(CHROMIUM).is_file():
        _missing(f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium)")
    from kinemorph.report import write_report

    folder = make_folder(tmp_path / "out", extra=93)
    files = write_report(folder)
    assert len(files.report.clips) == 100
    artifacts = Path(os.environ.get("KINEMORPH_ARTIFACTS") or Path(__file__).parent / "artifacts")
    artifacts.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    requests: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(files.html.as_uri())
        page.wait_for_load_state("load")
        assert page.title().startswith("kinemorph dataset report")
        assert page.locator("#summary .card").first.inner_text().startswith("100")
        assert page.locator("svg").count() >= len(files.report.metrics)
        assert page.get_by_text(SUNK).count() >= 2  # among the worst clips and in the table
        page.screenshot(path=str(artifacts / "report.png"), full_page=True)
        browser.close()
    assert errors == []
    assert requests == [files.html.as_uri()]  # self-contained: nothing else is fetched
