"""Atomic file output: write to a temporary file beside the target, then rename."""

from __future__ import annotations

import glob
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .errors import KinemorphError, OutputExistsError


def check_writable(path: str | Path, *, force: bool = False) -> Path:
    """Refuse an existing output unless force, a missing parent folder, and a folder where a file
    cannot be created (tried for real: read-only folders, /proc, full disks all refuse)."""
    p = Path(path)
    if p.exists() and not force:
        raise OutputExistsError(f"{p}: exists; pass force=True (CLI: --force) to overwrite")
    if p.exists() and p.is_dir():
        raise KinemorphError(f"{p}: is a directory")
    if not p.parent.exists():
        raise KinemorphError(f"{p}: folder {p.parent} does not exist")
    if not p.parent.is_dir():
        raise KinemorphError(f"{p}: {p.parent} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise KinemorphError(f"{p}: cannot write in {p.parent} ({exc.strerror or exc})") from None
    return p


STALE_SECONDS = 3600.0
"""A temporary file of ours older than this is a leftover of a killed write [s]."""


def remove_stale_temporaries(path: Path) -> None:
    """Remove leftovers of killed writes of ``path`` (``.NAME.XXXXXXXX.tmp`` beside it, older
    than STALE_SECONDS, so that a write in progress elsewhere is left alone)."""
    now = time.time()
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        try:
            if now - tmp.stat().st_mtime > STALE_SECONDS:
                tmp.unlink()
        except OSError:
            pass


@contextmanager
def atomic_path(path: str | Path, *, force: bool = False) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto ``path`` on success,
    remove it on failure, so that a failed write leaves nothing behind."""
    p = check_writable(path, force=force)
    remove_stale_temporaries(p)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise KinemorphError(f"{p}: cannot write in {p.parent} ({exc.strerror or exc})") from None
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; outputs get the usual permissions
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        try:
            os.replace(tmp_path, p)
        except OSError as exc:
            raise KinemorphError(f"{p}: cannot write it ({exc.strerror or exc})") from None
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_atomic(path: str | Path, writer: Callable[[IO[bytes]], object], *, force: bool = False) -> Path:
    """Write through ``writer(file)`` into a temporary file, then rename onto ``path``."""
    with atomic_path(path, force=force) as tmp:
        with open(tmp, "wb") as f:
            writer(f)
    return Path(path)


def write_text_atomic(path: str | Path, text: str, *, force: bool = False) -> Path:
    return write_atomic(path, lambda f: f.write(text.encode("utf-8")), force=force)
