"""Dataset report: verdicts against thresholds, report.json and the self-contained report.html,
thresholds files, per-frame curves through the kinematics, the passing subset, bad folders."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import HAS_MENAGERIE
from kinemorph.errors import KinemorphError, MotionFileError, UnknownNameError
from kinemorph.report import (
    DEFAULT_THRESHOLDS,
    METRICS,
    Threshold,
    build_report,
    keep_passing,
    load_thresholds,
    thresholds_from_dict,
    write_report,
)
from kinemorph.report.perframe import ClipCurves
from kinemorph.report.svg import histogram, line_plot
from report_dataset import FAILED, GLIDING, GOOD, OVER_LIMITS, SUNK, make_folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not HAS_MENAGERIE:
        pytest.skip("MENAGERIE_ROOT is not set (local mujoco-menagerie copy; the tests never download)")
    return make_folder(tmp_path_factory.mktemp("batch"))


# -- verdicts ---------------------------------------------------------------------------------------


def test_good_clips_pass_and_spoiled_ones_fail_for_their_reason(folder: Path) -> None:
    report = build_report(folder)
    verdict = {c.output: c for c in report.clips}
    assert sorted(verdict) == sorted([*GOOD, SUNK, OVER_LIMITS, GLIDING, FAILED])
    for rel in GOOD:
        assert verdict[rel].passed, verdict[rel].failures
    assert [f.split()[0] for f in verdict[SUNK].failures] == ["penetration_max_cm"]
    assert [f.split()[0] for f in verdict[OVER_LIMITS].failures] == ["limit_violations"]
    assert [f.split()[0] for f in verdict[GLIDING].failures] == ["foot_slip_mean_cm_s"]
    assert verdict[FAILED].failures[0].startswith("failed in the batch: clips/broken.bvh:4")
    assert {c.output for c in report.passing} == set(GOOD)


def test_report_json_holds_figures_thresholds_and_the_pass_list(folder: Path) -> None:
    files = write_report(folder)
    d = json.loads(files.json.read_text())
    assert d["pass"] == sorted(GOOD)
    assert d["summary"] == {"clips": 7, "batch_ok": 6, "batch_failed": 1, "passed": 3}
    assert d["thresholds"]["penetration_max_cm"] == {"max": 5.0, "min": None}
    sunk = next(c for c in d["clips"] if c["output"] == SUNK)
    assert sunk["passed"] is False and sunk["quality"]["penetration_max_cm"] > 9.0
    assert sunk["frames"] == 90


def test_report_html_is_self_contained_with_a_picture_per_metric(folder: Path) -> None:
    page = write_report(folder).html.read_text()
    assert "<script" not in page and not re.search(r'(src|href)="(https?:)?//', page)
    report = build_report(folder)
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg"') >= len(report.metrics) + 1
    for m in report.metrics:
        assert METRICS[m] in page
    assert f"kinemorph view {folder / SUNK}" in page  # the worst clip of penetration, to open


def test_worst_clips_are_ranked_by_value(folder: Path) -> None:
    report = build_report(folder)
    worst = report.worst("penetration_max_cm", 2)
    assert worst[0][0].output == SUNK and worst[0][1] >= worst[1][1]


# -- per-frame curves ------------------------------------------------------------------------------


def test_clearance_curve_agrees_with_the_penetration_metric(folder: Path) -> None:
    curves = ClipCurves(folder)
    low = curves.curves(SUNK, "penetration_max_cm")
    assert not isinstance(low, str)
    deepest = -float(np.min(low.series["lowest point"]))
    quality = next(c for c in build_report(folder).clips if c.output == SUNK).quality
    assert deepest == pytest.approx(quality["penetration_max_cm"], abs=1e-9)


def test_limit_margin_curve_shows_the_excess(folder: Path) -> None:
    margin = ClipCurves(folder).curves(OVER_LIMITS, "limit_violations")
    assert not isinstance(margin, str)
    assert float(np.min(margin.series["margin"])) == pytest.approx(-0.2, abs=1e-9)


def test_metric_without_curve_says_so(folder: Path) -> None:
    assert "no per-frame curve" in ClipCurves(folder).curves(GOOD[0], "tracking_error_mean_cm")


# -- thresholds -------------------------------------------------------------------------------------


def test_thresholds_file_sets_drops_and_bounds(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"foot_slip_mean_cm_s": 5, "jerk_rms_rad_s3": None, "planted_fraction": {"min": 0.3}}))
    got = {t.metric: t for t in load_thresholds(path)}
    assert got["foot_slip_mean_cm_s"] == Threshold("foot_slip_mean_cm_s", max=5.0)
    assert "jerk_rms_rad_s3" not in got
    assert got["planted_fraction"].passes(0.2) is False and got["planted_fraction"].passes(0.5) is True
    assert got["penetration_max_cm"] == next(t for t in DEFAULT_THRESHOLDS if t.metric == "penetration_max_cm")


def test_thresholds_change_the_verdicts(folder: Path) -> None:
    strict = thresholds_from_dict({"jerk_rms_rad_s3": 1e-3}, where="test")  # the arms swing
    assert build_report(folder, thresholds=strict).passing == ()


def test_unknown_metric_lists_the_valid_ones(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"slip": 3}')
    with pytest.raises(UnknownNameError, match="foot_slip_mean_cm_s"):
        load_thresholds(path)


@pytest.mark.parametrize("text", ['{"foot_slip_mean_cm_s": "a"}', '{"foot_slip_mean_cm_s": {"above": 1}}', "[1]"])
def test_bad_thresholds_name_the_file(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(MotionFileError, match=r"t\.json"):
        load_thresholds(path)


def test_threshold_of_undefined_value_is_not_judged() -> None:
    assert Threshold("tracking_error_mean_cm", max=1.0).passes(None) is None


# -- bad folders ------------------------------------------------------------------------------------


def test_folder_without_manifest_says_what_it_expected(tmp_path: Path) -> None:
    with pytest.raises(KinemorphError, match=r"no manifest\.jsonl; expected the output folder of `kinemorph batch"):
        write_report(tmp_path)
    with pytest.raises(KinemorphError, match="no such folder"):
        write_report(tmp_path / "missing")
    assert list(tmp_path.iterdir()) == []


# -- the passing subset -------------------------------------------------------------------------------


def test_keep_passing_copies_only_passing_clips(folder: Path, tmp_path: Path) -> None:
    kept = keep_passing(build_report(folder), tmp_path / "train")
    assert sorted(kept.clips) == sorted(GOOD)
    files = sorted(str(p.relative_to(kept.folder)) for p in kept.folder.rglob("*") if p.is_file())
    assert files == sorted(["manifest.jsonl", "sub/walk_b.npz", "walk_a.npz", "walk_c.csv", "walk_c.csv.meta.json"])
    assert (kept.folder / "walk_a.npz").read_bytes() == (folder / "walk_a.npz").read_bytes()
    again = build_report(kept.folder)
    assert len(again.clips) == 3 and len(again.passing) == 3


def test_a_failed_copy_leaves_no_subset(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    real = shutil.copy2
    calls: list[Path] = []

    def copy_then_fail(a, b):  # type: ignore[no-untyped-def]
        calls.append(Path(a))
        if len(calls) > 1:
            raise OSError("disk full")
        return real(a, b)

    monkeypatch.setattr(shutil, "copy2", copy_then_fail)
    with pytest.raises(OSError, match="disk full"):
        keep_passing(build_report(folder), tmp_path / "train")
    assert list(tmp_path.iterdir()) == []


def test_keep_passing_refuses_a_used_or_inner_folder(folder: Path, tmp_path: Path) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "x").write_text("keep")
    with pytest.raises(KinemorphError, match="not an empty folder"):
        keep_passing(build_report(folder), used)
    with pytest.raises(KinemorphError, match="outside the batch folder"):
        keep_passing(build_report(folder), folder / "subset")


# -- pictures -----------------------------------------------------------------------------------------


def test_histogram_counts_every_value_and_marks_the_limit() -> None:
    values = [0.5, 1.0, 1.5, 2.0, 8.0, 9.0]
    svg = histogram(values, title="x", limit_max=5.0, bins=10)
    counts = [int(n) for n in re.findall(r"<title>(\d+) clips in", svg)]
    assert sum(counts) == len(values)
    assert svg.count('fill="#e45756"') == 2  # the two bins above the limit
    assert "stroke-dasharray" in svg


def test_line_plot_breaks_at_undefined_frames() -> None:
    a = np.array([1.0, 2.0, np.nan, np.nan, 3.0, 4.0])
    svg = line_plot({"a": a}, fps=30.0, title="t")
    assert svg.count("<polyline") == 2


def test_text_is_escaped() -> None:
    assert "<b>" not in histogram([1.0], title="<b>")


# -- physics verdict ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def physics_files(folder: Path):  # type: ignore[no-untyped-def]
    return write_report(folder, physics="dynamics")


def test_physics_verdict_fails_what_contacts_cannot_explain(physics_files) -> None:  # type: ignore[no-untyped-def]
    verdict = {c.output: c for c in physics_files.report.clips}
    for rel in GOOD:
        assert verdict[rel].physics is not None and verdict[rel].physics.dynamics_feasible, verdict[rel].physics
        assert verdict[rel].passed
    sunk = verdict[SUNK]
    assert sunk.physics is not None and not sunk.physics.dynamics_feasible
    assert any(f.startswith("physics (dynamics):") and "into the floor" in f for f in sunk.failures)
    assert verdict[FAILED].physics is None


def test_physics_verdict_is_in_both_files(physics_files) -> None:  # type: ignore[no-untyped-def]
    d = json.loads(physics_files.json.read_text())
    assert d["physics"] == "dynamics"
    sunk = next(c for c in d["clips"] if c["output"] == SUNK)
    assert sunk["physics"]["dynamics_feasible"] is False and sunk["physics"]["reasons"]
    assert "physically feasible (dynamics)" in physics_files.html.read_text()


def test_unknown_physics_mode_lists_the_modes(folder: Path) -> None:
    with pytest.raises(UnknownNameError, match="dynamics, replay"):
        build_report(folder, physics="full")
