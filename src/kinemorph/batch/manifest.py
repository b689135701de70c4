"""The batch's record of every file: a manifest in JSON lines and a summary CSV.

``manifest.jsonl`` holds one :class:`Record` per output. During a run each finished file is
appended as one line; at the start and end of a run the file is rewritten (atomically) with the
latest record per output, sorted by output, so that a run killed in the middle of a line leaves
nothing a later run misreads. ``summary.csv`` is the same records as a table, with the quality
metrics as columns.
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import IO, Any

from .._files import write_text_atomic

MANIFEST_NAME = "manifest.jsonl"
SUMMARY_NAME = "summary.csv"


@dataclass
class Record:
    """What happened to one input.

    Attributes:
        input: the input path as matched.
        output: the output path relative to the output folder (POSIX); the record's key.
        status: "ok" or "failed".
        error: why it failed (the error's message, naming the file and line where known).
        seconds: time spent on the file in the worker: load, retarget, evaluate, save, hash [s].
        attempts: how many workers took the file (2 after a worker crash and its retry).
        key: settings-and-input hash the output was made with (see jobs.job_key).
        input_sha256: content hash of the input.
        output_sha256: content hash of the output written.
        output_bytes: its size [bytes].
        frames: frames retargeted.
        fps: frame rate of the output [1/s].
        seconds_load: time to read the motion file [s].
        seconds_retarget: time of the retarget call [s].
        seconds_compile: the engine's kernel compile or cache-load time within that call [s].
        seconds_evaluate: time of the quality metrics [s].
        seconds_save: time to write the output [s].
        quality: the quality report's numbers (QualityReport.to_dict; null where undefined).
        worker: "host:pid" of the worker process.
        robot_loads: how many times that worker process had loaded a robot so far (1: once per worker).
        seconds_worker_start: that worker's one-time start for these settings: loading the robot and
            mapping, and the warm-up that loads the engine's compiled kernels from numba's cache [s].
        started: when the worker started the file [Unix time, s].
        finished: when it finished [Unix time, s].
        error_type: the exception's type name, for failures.
        traceback: the traceback of an unexpected error (a bug, not a bad input).
    """

    input: str
    output: str
    status: str
    error: str | None = None
    seconds: float = 0.0
    attempts: int = 1
    key: str = ""
    input_sha256: str = ""
    output_sha256: str | None = None
    output_bytes: int | None = None
    frames: int | None = None
    fps: float | None = None
    seconds_load: float | None = None
    seconds_retarget: float | None = None
    seconds_compile: float | None = None
    seconds_evaluate: float | None = None
    seconds_save: float | None = None
    quality: dict[str, Any] | None = None
    worker: str | None = None
    robot_loads: int | None = None
    seconds_worker_start: float | None = None
    started: float | None = None
    finished: float | None = None
    error_type: str | None = None
    traceback: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> str:
        return json.dumps(asdict(self), allow_nan=False, default=_jsonable)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Record:
        """A record from its JSON object; keys this version does not know are ignored. TypeError
        when a field has the wrong type (e.g. a number where the output path belongs)."""
        if not isinstance(d, dict):
            raise TypeError("a manifest line must be a JSON object")
        kinds = {f.name: f.type for f in fields(cls)}
        values = {k: v for k, v in d.items() if k in kinds}
        for k, v in values.items():
            if not _fits(v, str(kinds[k])):
                raise TypeError(f"{k}: {type(v).__name__} does not fit {kinds[k]}")
        return cls(**values)


def _fits(value: Any, annotation: str) -> bool:
    """Whether a JSON value fits a Record field's annotation (str, int, float, dict, optional)."""
    if value is None:
        return "None" in annotation
    base = annotation.split("|")[0].strip().split("[")[0]
    if base == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if base == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, {"str": str, "dict": dict}.get(base, object))


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        v = value.item()
        return None if isinstance(v, float) and not math.isfinite(v) else v
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


class Manifest:
    """The manifest of one output folder."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / MANIFEST_NAME
        self._file: IO[str] | None = None

    def read(self) -> dict[str, Record]:
        """The latest record per output. Lines that do not parse (a run killed mid-write, bytes
        that are not text, a field of the wrong type) are skipped with a warning; their inputs
        are then redone."""
        records: dict[str, Record] = {}
        if not self.path.is_file():
            return records
        skipped: list[int] = []
        with open(self.path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    rec = Record.from_dict(json.loads(line))
                except (json.JSONDecodeError, TypeError, ValueError):
                    skipped.append(number)
                    continue
                records[rec.output] = rec
        if skipped:
            shown = ", ".join(map(str, skipped[:5])) + (" ..." if len(skipped) > 5 else "")
            warnings.warn(
                f"{self.path}: skipped {len(skipped)} line(s) that are not manifest records (line {shown}); "
                "their inputs are redone",
                stacklevel=2,
            )
        return records

    def rewrite(self, records: dict[str, Record]) -> None:
        """Replace the manifest with these records, one line each, sorted by output (atomic)."""
        self.close()
        text = "".join(records[k].to_json() + "\n" for k in sorted(records))
        write_text_atomic(self.path, text, force=True)

    def append(self, record: Record) -> None:
        """Add one record as a line, flushed at once so that a killed run keeps it."""
        if self._file is None:
            self._file = open(self.path, "a", encoding="utf-8")  # kept open over the run
        self._file.write(record.to_json() + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


_COLUMNS = (
    "input",
    "output",
    "status",
    "error",
    "seconds",
    "seconds_retarget",
    "frames",
    "fps",
    "attempts",
    "worker",
)


def summary_csv(records: dict[str, Record]) -> str:
    """One row per record, sorted by output: the main fields, then every quality metric."""
    metrics: list[str] = []
    for rec in records.values():
        for name in rec.quality or {}:
            if name not in metrics:
                metrics.append(name)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*_COLUMNS, *metrics])
    for k in sorted(records):
        rec = records[k]
        row = [_cell(getattr(rec, c)) for c in _COLUMNS]
        row += [_cell((rec.quality or {}).get(m)) for m in metrics]
        w.writerow(row)
    return buf.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def write_summary(folder: Path, records: dict[str, Record]) -> Path:
    return write_text_atomic(folder / SUMMARY_NAME, summary_csv(records), force=True)
