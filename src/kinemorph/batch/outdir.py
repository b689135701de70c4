"""The output folder of a batch: one run at a time (a lock), and no leftovers of killed writes."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from ..errors import KinemorphError

LOCK_NAME = ".kinemorph-batch.lock"
# The atomic writer's temporary files: ".NAME.XXXXXXXX.tmp" beside the target (tempfile.mkstemp).
_PARTIAL = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold the folder's batch lock; KinemorphError when another run holds it."""
    import fcntl

    f: IO[str] = open(folder / LOCK_NAME, "a")
    try:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise KinemorphError(f"{folder}: another kinemorph batch is writing into this folder") from None
        yield
    finally:
        f.close()


def remove_partials(folder: Path) -> int:
    """Delete the temporary files that killed writes left in ``folder`` and below; their count.
    Call with the lock held: an output being written belongs to this run only."""
    removed = 0
    for dirpath, _, names in os.walk(folder):
        for name in names:
            if _PARTIAL.match(name):
                Path(dirpath, name).unlink(missing_ok=True)
                removed += 1
    return removed
