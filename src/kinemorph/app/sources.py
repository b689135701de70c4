"""What the browser may open: the sample clips under KINEMORPH_DATA, files uploaded through the page,
and robot models the server was started with. Never a path the browser names.

Uploads are limited in size, stored under a private temporary folder with a sanitised name, and
parsed by the library's own validated readers; a file that does not parse is deleted again.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UnknownNameError
from .upload_checks import ROBOT_SUFFIXES, ModelFiles, UploadError, find_model, model_files, unpack_zip

MAX_UPLOAD_BYTES = 50 * 1024 * 1024
"""Largest upload accepted [bytes] (counted as the bytes arrive: see upload_gate.py)."""

UNPACK_FACTOR = 10
"""A .npz or a robot .zip may unpack to at most this many times the upload limit."""

MOTION_SUFFIXES = (".bvh", ".npz")
ROBOT_UPLOADS = (*ROBOT_SUFFIXES, ".zip")
JSON_SUFFIXES = (".json",)


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
    _folders: dict[str, Path] = field(default_factory=dict)
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

    @property
    def unpack_limit(self) -> int:
        """Most bytes an uploaded .npz or robot .zip may unpack to."""
        return UNPACK_FACTOR * self.max_upload_bytes

    @property
    def folder(self) -> Path:
        """The private folder of this server's uploads (created on first use, removed by close)."""
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="kinemorph-app-")
        return Path(self._folder.name)

    def _check(self, name: str, content: bytes, suffixes: tuple[str, ...]) -> str:
        if len(content) > self.max_upload_bytes:
            raise UploadError(
                f"{name}: {len(content) / 1e6:.1f} MB is over the upload limit of {self.max_upload_bytes / 1e6:.0f} MB"
            )
        clean = safe_name(name)
        if not clean.lower().endswith(suffixes):
            raise UploadError(f"{name}: expected a {' or '.join(suffixes)} file")
        return clean

    def store(self, name: str, content: bytes, suffixes: tuple[str, ...]) -> tuple[str, Path]:
        """Keep an upload under a private folder; returns its key and path. Checks size and suffix
        only: the caller parses it (see :meth:`discard`)."""
        clean = self._check(name, content, suffixes)
        key = f"upload:{clean}"
        self.discard(key)
        path = self.folder / clean
        path.write_bytes(content)
        self._uploads[key] = path
        return key, path

    def store_robot(self, name: str, content: bytes) -> tuple[str, ModelFiles]:
        """Keep a robot upload in a folder of its own: a single MJCF/URDF, or a .zip of a model
        folder with its meshes (unpacked safely). Every file the model names must lie inside that
        folder; absent ones are listed in ``missing`` (the robot then loads without meshes)."""
        clean = self._check(name, content, ROBOT_UPLOADS)
        stem = Path(clean).stem
        folder = self.folder / f"robot-{stem}"
        key = f"upload:{stem}{'' if clean.lower().endswith('.zip') else Path(clean).suffix}"
        self.discard(key)
        folder.mkdir()
        try:
            if clean.lower().endswith(".zip"):
                archive = self.folder / f".{clean}"
                archive.write_bytes(content)
                try:
                    files = unpack_zip(archive, folder, name, self.unpack_limit)
                finally:
                    archive.unlink()
                model = find_model(files, folder, name)
                key = f"upload:{stem}/{model.relative_to(folder).as_posix()}"
            else:
                model = folder / clean
                model.write_bytes(content)
            found = model_files(model, folder, name)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        self._uploads[key] = model
        self._folders[key] = folder
        return key, found

    def discard(self, key: str) -> None:
        """Forget an upload and delete its file or folder (e.g. when it failed to parse)."""
        path = self._uploads.pop(key, None)
        folder = self._folders.pop(key, None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        elif path is not None and path.exists():
            path.unlink()

    def close(self) -> None:
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
        self._uploads.clear()
        self._folders.clear()
