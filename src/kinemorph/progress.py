"""One callback type for progress of every long loop (frames, files, iterations).

A callback receives (done, total); the CLI renders it as a progress bar, the app as a widget.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

Progress = Callable[[int, int], None]


def report(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


class ProgressBar:
    """A text progress bar on a terminal stream (redrawn in place; one final line when done)."""

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.start = time.perf_counter()
        self._last = -1.0

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        frac = done / total if total else 1.0
        filled = round(frac * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        end = "\n" if done >= total else ""
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total} {now - self.start:5.2f}s{end}")
        self.stream.flush()
