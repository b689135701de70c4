"""A progress bar over files with the elapsed time and an estimate of the time left."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class FileProgressBar:
    """A Progress callback (done, total) drawn on a terminal stream: bar, count, elapsed, ETA.

    The estimate is the mean time per finished file times the files left; it is shown once a
    file has finished.
    """

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.start: float | None = None  # the first call (done = 0) starts the clock
        self._last = -1.0

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.start is None:
            self.start = now
        if 0 < done < total and now - self._last < 0.1:
            return
        self._last = now
        elapsed = now - self.start
        frac = done / total if total else 1.0
        filled = round(frac * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        eta = f", ETA {_duration(elapsed / done * (total - done))}" if 0 < done < total else ""
        end = "\n" if done >= total else ""
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total} files, {_duration(elapsed)}{eta}  {end}")
        self.stream.flush()


def _duration(seconds: float) -> str:
    s = round(seconds)
    if s < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"
