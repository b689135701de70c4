"""The dataset report's figures: every clip of a batch output folder judged against thresholds."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..batch.manifest import MANIFEST_NAME, Manifest, Record
from ..errors import KinemorphError
from ..progress import Progress, report
from .perframe import ClipCurves
from .physics import PhysicsVerdict, check_mode, physics_verdict
from .thresholds import DEFAULT_THRESHOLDS, METRICS, Threshold


@dataclass(frozen=True)
class ClipResult:
    """One clip's verdict.

    Attributes:
        output: the output path relative to the folder (the manifest's key).
        input: the input file the batch read.
        status: the batch's status ("ok" or "failed").
        error: why the batch failed on it.
        frames: frames retargeted.
        fps: frame rate [1/s].
        quality: metric name -> value (None where undefined).
        failures: why it does not pass: "failed in the batch", "<metric> <value> (limit <= x)" or
            "physics (<mode>): <reasons>".
        physics: the physics verdict, when the report was asked for one and it could be made.
        physics_note: why there is no physics verdict ("" when there is one or none was asked for).
    """

    output: str
    input: str
    status: str
    error: str | None
    frames: int | None
    fps: float | None
    quality: dict[str, int | float | None]
    failures: tuple[str, ...]
    physics: PhysicsVerdict | None = None
    physics_note: str = ""

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass(frozen=True)
class DatasetReport:
    """Every clip of a batch folder, judged.

    Attributes:
        folder: the batch output folder.
        thresholds: the limits applied.
        clips: one result per manifest record, sorted by output.
        metrics: the metrics present in the manifest, in QualityReport's order.
        physics: the physics mode required ("dynamics" or "replay"), None when not asked for.
    """

    folder: Path
    thresholds: tuple[Threshold, ...]
    clips: tuple[ClipResult, ...]
    metrics: tuple[str, ...]
    physics: str | None = None

    @property
    def passing(self) -> tuple[ClipResult, ...]:
        return tuple(c for c in self.clips if c.passed)

    def values(self, metric: str) -> list[tuple[ClipResult, float]]:
        """(clip, value) of every clip with a defined value of ``metric``."""
        return [(c, float(v)) for c in self.clips if (v := c.quality.get(metric)) is not None]

    def threshold(self, metric: str) -> Threshold | None:
        return next((t for t in self.thresholds if t.metric == metric), None)

    def worst(self, metric: str, count: int) -> list[tuple[ClipResult, float]]:
        """The ``count`` clips with the worst values (largest, or smallest for a lower bound)."""
        t = self.threshold(metric)
        key = (lambda cv: t.worse(cv[1])) if t is not None else (lambda cv: cv[1])
        return sorted(self.values(metric), key=key, reverse=True)[:count]

    def to_dict(self) -> dict[str, Any]:
        """What report.json holds: summary, thresholds, per-clip figures and the pass list."""
        return {
            "folder": str(self.folder),
            "summary": {
                "clips": len(self.clips),
                "batch_ok": sum(c.status == "ok" for c in self.clips),
                "batch_failed": sum(c.status != "ok" for c in self.clips),
                "passed": len(self.passing),
            },
            "physics": self.physics,
            "thresholds": {t.metric: {"max": t.max, "min": t.min} for t in self.thresholds},
            "metrics": {m: METRICS.get(m, m) for m in self.metrics},
            "clips": [
                {
                    "output": c.output,
                    "input": c.input,
                    "status": c.status,
                    "error": c.error,
                    "frames": c.frames,
                    "fps": c.fps,
                    "passed": c.passed,
                    "failures": list(c.failures),
                    "quality": c.quality,
                    "physics": None if c.physics is None else c.physics.to_dict(),
                    "physics_note": c.physics_note,
                }
                for c in self.clips
            ],
            "pass": [c.output for c in self.passing],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, allow_nan=False) + "\n"


def read_records(folder: str | Path) -> dict[str, Record]:
    """The manifest's records; KinemorphError saying what was expected when there is none."""
    f = Path(folder)
    expected = (
        f"expected the output folder of `kinemorph batch INPUTS --out DIR`, which holds DIR/{MANIFEST_NAME} "
        "(one JSON line per clip with its quality figures)"
    )
    if not f.is_dir():
        raise KinemorphError(f"{f}: no such folder; {expected}")
    manifest = Manifest(f)
    if not manifest.path.is_file():
        raise KinemorphError(f"{f}: no {MANIFEST_NAME}; {expected}")
    records = manifest.read()
    if not records:
        raise KinemorphError(f"{manifest.path}: no readable record; {expected}")
    return records


def _judge(rec: Record, thresholds: tuple[Threshold, ...]) -> tuple[str, ...]:
    if not rec.ok:
        return (f"failed in the batch: {rec.error or rec.error_type or 'unknown error'}",)
    quality = rec.quality or {}
    out = []
    for t in thresholds:
        value = quality.get(t.metric)
        if t.passes(value) is False:
            out.append(f"{t.metric} {float(value):.4g} (limit {t.text()})")  # type: ignore[arg-type]
    return tuple(out)


def _physics(rec: Record, curves: ClipCurves) -> tuple[PhysicsVerdict | None, str]:
    if not rec.ok:
        return None, ""
    motion = curves.motion(rec.output)
    if isinstance(motion, str):
        return None, motion
    robot = curves.robot(motion.robot)
    if robot is None or tuple(robot.dof_names) != tuple(motion.dof_names):
        return None, f"robot model of {motion.robot!r} not available"
    try:
        return physics_verdict(motion, robot), ""
    except KinemorphError as exc:
        return None, str(exc)


def build_report(
    folder: str | Path,
    *,
    thresholds: tuple[Threshold, ...] = DEFAULT_THRESHOLDS,
    physics: str | None = None,
    curves: ClipCurves | None = None,
    progress: Progress | None = None,
) -> DatasetReport:
    """Judge every clip of a batch output folder (its manifest) against ``thresholds``, and with
    ``physics`` ("dynamics" or "replay", see report/physics.py) against the physics verdict too;
    ``progress`` is called with (clips judged, clips) during the physics verdicts."""
    check_mode(physics)
    records = read_records(folder)
    curves = curves or ClipCurves(Path(folder))
    clips = []
    present: set[str] = set()
    for n, key in enumerate(sorted(records)):
        rec = records[key]
        verdict, note = _physics(rec, curves) if physics else (None, "")
        failures = _judge(rec, thresholds)
        if physics and verdict is not None and not verdict.passes(physics):
            failures += (f"physics ({physics}): {'; '.join(verdict.reasons)}",)
        if physics:
            report(progress, n + 1, len(records))
        quality = {k: v for k, v in (rec.quality or {}).items() if v is None or isinstance(v, int | float)}
        present |= set(quality)
        clips.append(
            ClipResult(
                output=rec.output,
                input=rec.input,
                status=rec.status,
                error=rec.error,
                frames=rec.frames,
                fps=rec.fps,
                quality=quality,
                failures=failures,
                physics=verdict,
                physics_note=note,
            )
        )
    metrics = tuple(m for m in METRICS if m in present) + tuple(sorted(present - set(METRICS)))
    return DatasetReport(Path(folder), tuple(thresholds), tuple(clips), metrics, physics)
