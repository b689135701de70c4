"""Checks on uploaded files before any library reader opens them (no viser here).

- a .npz must not inflate past a cap: the zip headers' uncompressed sizes and every member's
  declared array size are read before anything is decompressed;
- a robot upload (a single MJCF/URDF, or a .zip of a model folder with its meshes) may only
  reference files inside its own upload folder: ``<include>``, mesh, texture, hfield and skin
  files and the compiler's ``meshdir``/``texturedir``/``assetdir`` are resolved and an absolute
  path or an escape (``..``, a link) is refused; referenced files that are absent are reported,
  so that the robot can load without its meshes and the page can say so.
"""

from __future__ import annotations

import stat
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from .._npz import _member_header
from ..errors import KinemorphError

ROBOT_SUFFIXES = (".xml", ".urdf")
MAX_ZIP_MEMBERS = 5000
"""Most files one robot .zip may hold."""


class UploadError(KinemorphError):
    """An upload was refused: too large, wrong kind of file, not parseable, or unsafe."""


def check_npz(path: Path, name: str, cap: int) -> None:
    """Refuse a .npz whose arrays would take more than ``cap`` [bytes] once decompressed (from
    the zip headers), or whose member claims more bytes than it holds, before inflating it."""
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            total = sum(i.file_size for i in infos)
            if total > cap:
                raise UploadError(
                    f"{name}: its arrays would take {total / 1e6:.0f} MB once decompressed; "
                    f"the app's limit is {cap / 1e6:.0f} MB"
                )
            for info in infos:
                if not info.filename.endswith(".npy"):
                    continue  # the reader refuses it with its own message
                shape, dtype = _member_header(z, info, Path(name))
                declared = int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
                if declared > info.file_size:
                    raise UploadError(
                        f"{name}: array {info.filename[:-4]!r} claims shape {shape} ({declared} bytes) "
                        f"but holds {info.file_size} bytes"
                    )
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
        raise UploadError(f"{name}: not a readable .npz ({exc})") from None


def unpack_zip(content_path: Path, folder: Path, name: str, cap: int) -> list[Path]:
    """Unpack a robot .zip into ``folder``: plain files only (no links, no absolute paths, no
    ``..``), at most MAX_ZIP_MEMBERS of them and ``cap`` [bytes] in all (from the headers,
    checked again while inflating). Returns the files written."""
    try:
        z = zipfile.ZipFile(content_path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UploadError(f"{name}: not a readable .zip ({exc})") from None
    written: list[Path] = []
    with z:
        infos = [i for i in z.infolist() if not i.is_dir()]
        if len(infos) > MAX_ZIP_MEMBERS:
            raise UploadError(f"{name}: {len(infos)} files; a robot .zip may hold at most {MAX_ZIP_MEMBERS}")
        total = sum(i.file_size for i in infos)
        if total > cap:
            raise UploadError(f"{name}: unpacks to {total / 1e6:.0f} MB; the app's limit is {cap / 1e6:.0f} MB")
        root = folder.resolve()
        budget = cap
        for info in infos:
            rel = PurePosixPath(info.filename.replace("\\", "/"))
            mode = info.external_attr >> 16
            if rel.is_absolute() or ".." in rel.parts or stat.S_ISLNK(mode):
                raise UploadError(f"{name}: member {info.filename!r} points outside the upload (refused)")
            target = root.joinpath(*rel.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with z.open(info) as src, open(target, "wb") as dst:
                    while chunk := src.read(1 << 20):
                        budget -= len(chunk)
                        if budget < 0:
                            raise UploadError(f"{name}: unpacks past the app's limit of {cap / 1e6:.0f} MB")
                        dst.write(chunk)
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
                raise UploadError(f"{name}: member {info.filename!r} cannot be unpacked ({exc})") from None
            written.append(target)
    return written


@dataclass(frozen=True)
class ModelFiles:
    """What a robot model file references, all inside its upload folder.

    Attributes:
        model: the model file.
        referenced: every file it names (includes, meshes, textures...), resolved.
        missing: those of them that are absent, relative to the upload folder.
    """

    model: Path
    referenced: tuple[Path, ...]
    missing: tuple[str, ...]


def _inside(path: Path, root: Path, what: str, name: str) -> Path:
    resolved = path.resolve()
    if resolved != root and root not in resolved.parents:
        raise UploadError(f"{name}: {what} points outside the upload's own folder (refused)")
    return resolved


def _parse(path: Path, name: str) -> ET.Element:
    try:
        return ET.parse(path).getroot()
    except (ET.ParseError, OSError, UnicodeDecodeError) as exc:
        raise UploadError(f"{name}: not a readable XML model ({exc})") from None


def model_files(model: Path, root: Path, name: str) -> ModelFiles:
    """Resolve every file an MJCF or URDF model names, following ``<include>`` (inside ``root``
    only); UploadError on an absolute path or an escape."""
    root = root.resolve()
    base = _inside(model, root, "the model", name).parent
    dirs = {"meshdir": base, "texturedir": base}
    refs: list[tuple[str, str]] = []  # (kind of dir, relative path)
    queue, seen = [_inside(model, root, "the model", name)], set()
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        urdf = path.suffix.lower() == ".urdf"
        for el in _parse(path, name).iter():
            for attr, value in el.attrib.items():
                if el.tag == "compiler" and attr in ("meshdir", "texturedir", "assetdir"):
                    if Path(value).is_absolute():
                        raise UploadError(f"{name}: compiler {attr}={value!r} is an absolute path (refused)")
                    d = _inside(base / value, root, f"compiler {attr}={value!r}", name)
                    for k in ("meshdir", "texturedir") if attr == "assetdir" else (attr,):
                        dirs[k] = d
                elif urdf and attr == "filename":
                    refs.append(("meshdir", PurePosixPath(value.replace("\\", "/")).name))  # MuJoCo keeps the name only
                elif not urdf and attr.startswith("file"):
                    if Path(value).is_absolute() or value.startswith("~"):
                        raise UploadError(f"{name}: <{el.tag} {attr}={value!r}> is an absolute path (refused)")
                    if el.tag == "include":
                        inc = _inside(base / value, root, f"<include file={value!r}>", name)
                        if not inc.is_file():
                            raise UploadError(f"{name}: <include file={value!r}>: no such file in the upload")
                        queue.append(inc)
                    else:
                        refs.append(("texturedir" if el.tag in ("texture", "hfield") else "meshdir", value))
    referenced, missing = [], []
    for kind, rel in refs:
        p = _inside(dirs[kind] / rel, root, f"file {rel!r}", name)
        referenced.append(p)
        if not p.is_file():
            missing.append(str(p.relative_to(root)))
    return ModelFiles(model, tuple(referenced), tuple(dict.fromkeys(missing)))


def find_model(files: list[Path], root: Path, name: str) -> Path:
    """The robot model of an unpacked folder: among the .xml/.urdf files not named ``scene*``
    (a scene wraps the robot in a floor and lights), one that no other includes, the shallowest;
    UploadError when there is none."""
    models = [f for f in files if f.suffix.lower() in ROBOT_SUFFIXES]
    if not models:
        raise UploadError(f"{name}: no .xml or .urdf model in the .zip")
    robots = [m for m in models if not m.stem.lower().startswith("scene")] or models
    included: set[Path] = set()
    for m in robots:
        try:
            for el in ET.parse(m).getroot().iter("include"):
                included.add((m.parent / el.attrib.get("file", "")).resolve())
        except (ET.ParseError, OSError):
            continue
    top = [m for m in robots if m.resolve() not in included] or robots
    top.sort(key=lambda m: (len(m.relative_to(root).parts), m.name))
    return top[0]


__all__ = ["ModelFiles", "UploadError", "check_npz", "find_model", "model_files", "unpack_zip"]
