"""Velocity commands: one constant command, or a schedule of (time, velocity) points.

Between points the velocity changes linearly (an acceleration, a turn coming on); before the first
and after the last point it is held. A schedule file is CSV with a header ``time,vx,vy,yaw_rate``
or JSON ``{"commands": [[time, vx, vy, yaw_rate], ...]}``; times in seconds, vx and vy in m/s,
yaw rate in rad/s (body frame: x forward, y left, yaw counter-clockwise).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ConfigError, MotionFileError

_HEADER = ("time", "vx", "vy", "yaw_rate")


COMMAND_LIMITS = (1.5, 1.0, 2.0)
"""Largest |vx| [m/s], |vy| [m/s] and |yaw rate| [rad/s] a command may ask (walking, not running)."""


@dataclass(frozen=True)
class Commands:
    """A velocity command over time.

    Attributes:
        times: strictly increasing [s]. Shape: (K,).
        velocities: [vx [m/s], vy [m/s], yaw rate [rad/s]] at each time. Shape: (K, 3).
    """

    times: np.ndarray
    velocities: np.ndarray

    def __post_init__(self) -> None:
        t = np.asarray(self.times, dtype=np.float64)
        v = np.asarray(self.velocities, dtype=np.float64)
        if t.ndim != 1 or len(t) == 0 or v.shape != (len(t), 3):
            raise ConfigError(f"commands need times (K,) and velocities (K, 3), got {t.shape} and {v.shape}")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(v))):
            raise ConfigError("commands contain NaN or infinite values")
        if np.any(np.diff(t) <= 0):
            raise ConfigError("command times must be strictly increasing")
        for k, (name, unit) in enumerate((("vx", "m/s"), ("vy", "m/s"), ("yaw rate", "rad/s"))):
            worst = float(np.abs(v[:, k]).max())
            if worst > COMMAND_LIMITS[k]:
                raise ConfigError(
                    f"command {name} {worst:g} {unit} is beyond what a walking biped does "
                    f"(|{name}| <= {COMMAND_LIMITS[k]:g} {unit})"
                )

    @classmethod
    def constant(cls, velocity: Sequence[float] | np.ndarray) -> Commands:
        return cls(np.zeros(1), np.asarray(velocity, dtype=np.float64).reshape(1, 3))

    def at(self, time: np.ndarray | float) -> np.ndarray:
        """Velocity at time(s). Shape: (..., 3)."""
        t = np.asarray(time, dtype=np.float64)
        return np.stack([np.interp(t, self.times, self.velocities[:, i]) for i in range(3)], axis=-1)

    @property
    def end(self) -> float:
        """Time of the last point [s]."""
        return float(self.times[-1])


def parse_command(text: str) -> Commands:
    """A constant command from "vx,vy,yaw_rate" (e.g. "0.3,0,0")."""
    message = f"--command must be three numbers vx,vy,yaw_rate (m/s, m/s, rad/s), got {text!r}"
    try:
        values = [float(p) for p in text.split(",")]
    except ValueError:
        raise ConfigError(message) from None
    if len(values) != 3 or not all(math.isfinite(x) for x in values):
        raise ConfigError(message)
    return Commands.constant(values)


def _rows_csv(path: Path, text: str) -> list[tuple[int, list[str]]]:
    rows = [(i + 1, r) for i, r in enumerate(csv.reader(io.StringIO(text))) if any(c.strip() for c in r)]
    if not rows:
        raise MotionFileError(path, "empty schedule")
    line, header = rows[0]
    if tuple(c.strip() for c in header) != _HEADER:
        raise MotionFileError(path, f"header must be {','.join(_HEADER)}, got {','.join(header)}", line)
    return rows[1:]


def load_schedule(path: str | Path) -> Commands:
    """Read a command schedule (.csv or .json, see the module docstring)."""
    p = Path(path)
    try:
        if p.stat().st_size > 50_000_000:
            raise MotionFileError(p, "a schedule file over 50 MB is not a schedule")
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MotionFileError(p, f"not a text file ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise MotionFileError(p, f"cannot read schedule: {exc.strerror or exc}") from None
    if p.suffix.lower() == ".json":
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise MotionFileError(p, f"invalid JSON: {exc.msg}", exc.lineno) from None
        points = raw.get("commands") if isinstance(raw, dict) else None
        if not isinstance(points, list) or not points:
            raise MotionFileError(p, 'expected {"commands": [[time, vx, vy, yaw_rate], ...]}')
        rows = [(0, [str(x) for x in r] if isinstance(r, list) else [repr(r)]) for r in points]
    elif p.suffix.lower() == ".csv":
        rows = _rows_csv(p, text)
    else:
        raise MotionFileError(p, "a schedule is .csv (time,vx,vy,yaw_rate) or .json")
    values: list[list[float]] = []
    for k, (line, r) in enumerate(rows):
        where = line or None
        if len(r) != 4:
            raise MotionFileError(p, f"point {k + 1}: expected 4 values time,vx,vy,yaw_rate, got {len(r)}", where)
        try:
            row = [float(c) for c in r]
        except ValueError:
            raise MotionFileError(p, f"point {k + 1}: not a number in {r}", where) from None
        if not all(math.isfinite(x) for x in row):
            raise MotionFileError(p, f"point {k + 1}: NaN or infinite value", where)
        if values and row[0] <= values[-1][0]:
            raise MotionFileError(p, f"point {k + 1}: time {row[0]:g} s is not after {values[-1][0]:g} s", where)
        values.append(row)
    if not values:
        raise MotionFileError(p, "no command points")
    arr = np.array(values)
    return Commands(arr[:, 0], arr[:, 1:])
