"""Pass/fail thresholds of the dataset report: one limit per quality metric, defaults that flag
clear outliers, and a JSON file to set them.

The file is one object, metric name -> limit: a number is an upper bound, ``{"max": x}`` and
``{"min": x}`` give either bound, ``null`` drops a default::

    {"foot_slip_mean_cm_s": 12, "penetration_max_cm": {"max": 2.0}, "jerk_rms_rad_s3": null}

Metric names are the fields of kinemorph.quality.QualityReport (the manifest's ``quality``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..errors import ConfigError, MotionFileError, UnknownNameError
from ..quality import QualityReport


@dataclass(frozen=True)
class Threshold:
    """A limit on one metric.

    Attributes:
        metric: a QualityReport field name.
        max: the largest passing value (None: no upper bound).
        min: the smallest passing value (None: no lower bound).
    """

    metric: str
    max: float | None = None
    min: float | None = None

    def __post_init__(self) -> None:
        if self.max is None and self.min is None:
            raise ConfigError(f"threshold of {self.metric}: give max, min or both")
        for bound in (self.max, self.min):
            if bound is not None and not math.isfinite(bound):
                raise ConfigError(f"threshold of {self.metric}: bounds must be finite numbers, got {bound}")

    def passes(self, value: float | None) -> bool | None:
        """True / False against the bounds; None when the value is undefined (not judged)."""
        if value is None or not math.isfinite(float(value)):
            return None
        v = float(value)
        return (self.max is None or v <= self.max) and (self.min is None or v >= self.min)

    def worse(self, value: float) -> float:
        """A number that grows as the value gets worse (for ranking the worst clips)."""
        return float(value) if self.max is not None else -float(value)

    def text(self) -> str:
        parts = ([f">= {self.min:g}"] if self.min is not None else []) + (
            [f"<= {self.max:g}"] if self.max is not None else []
        )
        return " and ".join(parts)


METRICS: dict[str, str] = {f.name: f.metadata["label"] for f in fields(QualityReport) if "label" in f.metadata}
"""Every metric the report knows, with its label (metric and unit)."""

DEFAULT_THRESHOLDS: tuple[Threshold, ...] = (
    Threshold("foot_slip_mean_cm_s", max=20.0),
    Threshold("penetration_max_cm", max=5.0),
    Threshold("jerk_rms_rad_s3", max=2500.0),
    Threshold("joint_jump_frames", max=30),
    Threshold("trunk_tilt_max_deg", max=45.0),
    Threshold("limit_violations", max=0),
    Threshold("tracking_error_mean_cm", max=20.0),
)
"""Defaults: per-frame IK on clean walking clips gives slip 9-15 cm/s, penetration under 3 cm, jerk
400-800 rad/s^3, up to ~20 joint jumps and a keypoint tracking error near 10 cm (it averages links
the mapping does not match exactly) (README, quality results); the limits sit above that,
so that what fails is broken (sliding, sinking, shaking, fallen, out of limits, off target)."""


def thresholds_from_dict(
    d: Any, *, where: str, base: tuple[Threshold, ...] = DEFAULT_THRESHOLDS
) -> tuple[Threshold, ...]:
    """``base`` with the entries of a thresholds object applied (see the module docstring)."""
    if not isinstance(d, dict):
        raise MotionFileError(where, f"holds a {type(d).__name__}, expected an object metric -> limit")
    out = {t.metric: t for t in base}
    for name, spec in d.items():
        if name not in METRICS:
            raise UnknownNameError("metric", name, METRICS, where=where)
        if spec is None:
            out.pop(name, None)
        elif isinstance(spec, bool):
            raise MotionFileError(where, f"{name}: expected a number, {{'max': x}}, {{'min': x}} or null")
        elif isinstance(spec, int | float):
            out[name] = Threshold(name, max=float(spec))
        elif isinstance(spec, dict) and set(spec) <= {"max", "min"} and spec:
            try:
                out[name] = Threshold(name, **{k: None if v is None else float(v) for k, v in spec.items()})
            except (TypeError, ValueError, ConfigError) as exc:
                raise MotionFileError(where, f"{name}: {exc}") from None
        else:
            raise MotionFileError(where, f"{name}: expected a number, {{'max': x}}, {{'min': x}} or null, got {spec!r}")
    return tuple(out[m] for m in METRICS if m in out)


def load_thresholds(path: str | Path) -> tuple[Threshold, ...]:
    """The default thresholds with a JSON file's entries applied."""
    p = Path(path)
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MotionFileError(p, "no such thresholds file") from None
    except json.JSONDecodeError as exc:
        raise MotionFileError(p, exc.msg, line=exc.lineno) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MotionFileError(p, f"not a readable JSON file: {exc}") from None
    return thresholds_from_dict(d, where=str(p))
