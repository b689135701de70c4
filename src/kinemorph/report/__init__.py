"""The dataset report of a batch output folder: every clip judged against thresholds.

    files = write_report("out/")                    # out/report.html, out/report.json
    keep_passing(build_report("out/"), "train/")    # only the clips that pass

``report.html`` is self-contained (inline SVG): the summary, the thresholds, each metric's
distribution over clips, the worst clips per thresholded metric with per-frame curves, and every
clip's verdict. ``report.json`` holds the per-clip figures, the thresholds and the pass list.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .._files import write_text_atomic
from ..batch.manifest import MANIFEST_NAME, Manifest
from ..errors import KinemorphError
from ..progress import Progress
from .dataset import ClipResult, DatasetReport, build_report, read_records
from .html import render_html
from .perframe import ClipCurves
from .physics import PHYSICS_MODES, PhysicsVerdict
from .thresholds import DEFAULT_THRESHOLDS, METRICS, Threshold, load_thresholds, thresholds_from_dict

REPORT_HTML = "report.html"
REPORT_JSON = "report.json"


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote.

    Attributes:
        html: the page.
        json: the figures.
        report: the verdicts.
        seconds: time to build and write both [s].
    """

    html: Path
    json: Path
    report: DatasetReport
    seconds: float


def write_report(
    folder: str | Path,
    *,
    thresholds: tuple[Threshold, ...] = DEFAULT_THRESHOLDS,
    worst: int = 3,
    physics: str | None = None,
    progress: Progress | None = None,
) -> ReportFiles:
    """Judge a batch output folder and write ``folder/report.html`` and ``folder/report.json``
    (atomically, replacing earlier ones). ``physics`` ("dynamics" or "replay") adds each clip's
    physics verdict (kinemorph.sim; about 0.3 s per 4 s clip). KinemorphError when the folder has
    no manifest."""
    from .. import __version__

    t0 = time.perf_counter()
    f = Path(folder)
    curves = ClipCurves(f)
    report = build_report(f, thresholds=thresholds, physics=physics, curves=curves, progress=progress)
    page = render_html(report, worst=worst, version=__version__, curves=curves)
    figures = write_text_atomic(f / REPORT_JSON, report.to_json(), force=True)
    html = write_text_atomic(f / REPORT_HTML, page, force=True)
    return ReportFiles(html, figures, report, time.perf_counter() - t0)


@dataclass(frozen=True)
class KeptClips:
    """What :func:`keep_passing` copied.

    Attributes:
        folder: the subset's folder.
        clips: outputs copied (relative paths).
        files: files copied (outputs and their sidecars).
    """

    folder: Path
    clips: tuple[str, ...]
    files: int


def keep_passing(report: DatasetReport, dest: str | Path) -> KeptClips:
    """Copy the clips that pass (with their metadata sidecars) into ``dest`` at the same relative
    paths, with a manifest of their records, so that ``dest`` is a clean training subset that
    :func:`write_report` reads too. ``dest`` must be new or empty and outside the batch folder.
    The subset is assembled in a temporary folder beside ``dest`` and renamed at the end, so
    that a failure leaves nothing."""
    from ..io import sidecar_path

    out = Path(dest)
    src = report.folder.resolve()
    if out.resolve() == src or out.resolve().is_relative_to(src):
        raise KinemorphError(f"{out}: the subset must be outside the batch folder {report.folder}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise KinemorphError(f"{out}: exists and is not an empty folder; the subset goes into a new folder")
    keep = report.passing
    missing = [c.output for c in keep if not (report.folder / c.output).is_file()]
    if missing:
        raise KinemorphError(f"{report.folder}: passing outputs are missing: {', '.join(missing[:5])}")
    records = read_records(report.folder)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    files = 0
    try:
        for c in keep:
            for p in (report.folder / c.output, sidecar_path(report.folder / c.output)):
                if p.is_file():
                    target = tmp / p.relative_to(report.folder)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(p, target)
                    files += 1
        Manifest(tmp).rewrite({c.output: records[c.output] for c in keep})
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700; the subset gets the usual permissions
        if out.exists():
            out.rmdir()
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return KeptClips(out, tuple(c.output for c in keep), files)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


__all__ = [
    "DEFAULT_THRESHOLDS",
    "MANIFEST_NAME",
    "METRICS",
    "PHYSICS_MODES",
    "REPORT_HTML",
    "REPORT_JSON",
    "ClipResult",
    "DatasetReport",
    "KeptClips",
    "PhysicsVerdict",
    "ReportFiles",
    "Threshold",
    "build_report",
    "keep_passing",
    "load_thresholds",
    "render_html",
    "thresholds_from_dict",
    "write_report",
]
