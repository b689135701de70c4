"""What the browser may open: the sample clips under KINEMORPH_DATA, files uploaded through the page,
and robot models the server was started with. Never a path the browser names.

Uploads are limited in size, stored under a private temporary folder with a sanitised name, and
parsed by the library's own validated readers; a file that does not parse is deleted again.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import KinemorphError, UnknownNameError

MAX_UPLOAD_BYTES = 50 * 1024 * 1024
"""Largest upload accepted [bytes]."""

MOTION_SUFFIXES = (".bvh", ".npz")
ROBOT_SUFFIXES = (".xml", ".urdf")
JSON_SUFFIXES = (".json",)


class UploadError(KinemorphError):
    """An upload was refused: too large, wrong kind of file, or not parseable."""


def samples_folder() -> Path | None:
    """KINEMORPH_DATA/motions when the variable is set and the folder exists."""
    root = os.environ.get("KINEMORPH_DATA")
    if not root:
        return None
    folder = Path(root) / "motions"
    return folder if folder.is_dir() else None


def safe_name(name: str) -> str:
    """A file name with no folder part and only [A-Za-z0-9._-] (others become _)."""
    base = re.split(r"[\\/]", name)[-1].strip()
    base = re.sub(r"[^A-Za-z0-9._-]", "_", base).lstrip(".")
    return base[:120] or "upload"


@dataclass
class Sources:
    """The files the app can open, by key: ``sample:<name>`` (KINEMORPH_DATA/motions),
    ``upload:<name>`` (this server's uploads) and ``model:<name>`` (robot models given on the
    command line).

    Attributes:
        max_upload_bytes: the upload size limit [bytes].
        robot_models: robot model files the server was started with (MJCF or URDF).
    """

    max_upload_bytes: int = MAX_UPLOAD_BYTES
    robot_models: tuple[Path, ...] = ()
    _uploads: dict[str, Path] = field(default_factory=dict)
    _folder: tempfile.TemporaryDirectory[str] | None = None

    def samples(self) -> dict[str, Path]:
        """Sample clips by key, sorted."""
        folder = samples_folder()
        if folder is None:
            return {}
        return {f"sample:{p.name}": p for p in sorted(folder.iterdir()) if p.suffix.lower() in MOTION_SUFFIXES}

    def motions(self) -> dict[str, Path]:
        """Every motion file the browser may open, by key: samples, then uploads."""
        ups = {k: p for k, p in self._uploads.items() if p.suffix.lower() in MOTION_SUFFIXES}
        return {**self.samples(), **ups}

    def models(self) -> dict[str, Path]:
        """Robot model files by key: the command line's, then uploads."""
        given = {f"model:{p.name}": p for p in self.robot_models}
        ups = {k: p for k, p in self._uploads.items() if p.suffix.lower() in ROBOT_SUFFIXES}
        return {**given, **ups}

    def path(self, key: str, kind: str = "motion") -> Path:
        """The file behind a key; UnknownNameError lists the valid keys (never a free path)."""
        table = self.motions() if kind == "motion" else self.models()
        if key not in table:
            raise UnknownNameError(f"{kind} file", key, table)
        return table[key]

    def store(self, name: str, content: bytes, suffixes: tuple[str, ...]) -> tuple[str, Path]:
        """Keep an upload under a private folder; returns its key and path. Checks size and suffix
        only: the caller parses it (see :meth:`discard`)."""
        if len(content) > self.max_upload_bytes:
            raise UploadError(
                f"{name}: {len(content) / 1e6:.1f} MB is over the upload limit of {self.max_upload_bytes / 1e6:.0f} MB"
            )
        clean = safe_name(name)
        if not clean.lower().endswith(suffixes):
            raise UploadError(f"{name}: expected a {' or '.join(suffixes)} file")
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="kinemorph-app-")
        path = Path(self._folder.name) / clean
        path.write_bytes(content)
        key = f"upload:{clean}"
        self._uploads[key] = path
        return key, path

    def discard(self, key: str) -> None:
        """Forget an upload and delete its file (e.g. when it failed to parse)."""
        path = self._uploads.pop(key, None)
        if path is not None and path.exists():
            path.unlink()

    def close(self) -> None:
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
        self._uploads.clear()
