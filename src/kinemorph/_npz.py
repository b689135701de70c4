"""Reading .npz files safely: every member's header is checked before any array is inflated.

A .npz is a zip of .npy members. Before loading anything, :func:`read_npz` checks that the file
is a zip, that every member is a .npy whose header parses, whose dtype holds plain numbers or
text (never objects: pickles stay off), whose declared shape matches the member's uncompressed
size (a 300-byte file cannot claim 900 GiB), and that the members' uncompressed sizes add up to
at most ``limits.max_npz_bytes()`` (a zip bomb is refused from its headers). Callers then check
names, shapes and kinds with :func:`scalar` and :func:`array`.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .errors import MotionFileError
from .limits import MAX_FILE_BYTES, max_npz_bytes

_KINDS = {"b": "booleans", "i": "integers", "u": "integers", "f": "numbers", "U": "text", "S": "text"}


def _member_header(z: zipfile.ZipFile, info: zipfile.ZipInfo, where: Path) -> tuple[tuple[int, ...], np.dtype[Any]]:
    with z.open(info) as f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(f)
            else:
                shape, _, dtype = np.lib.format.read_array_header_2_0(f)
        except (ValueError, OSError, EOFError, SyntaxError) as exc:
            raise MotionFileError(where, f"member {info.filename!r} is not a valid .npy ({exc})") from None
    return tuple(int(n) for n in shape), dtype


def read_npz(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of a .npz by name, after the checks in the module docstring (MotionFileError
    names the file and what is wrong)."""
    p = Path(path)
    if not p.is_file():
        raise MotionFileError(p, "no such file")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise MotionFileError(p, f"file is larger than {MAX_FILE_BYTES / 1e9:g} GB")
    if not zipfile.is_zipfile(p):
        raise MotionFileError(p, "not a .npz (zip) file; a single .npy array is not accepted")
    cap = max_npz_bytes()
    try:
        with zipfile.ZipFile(p) as z:
            infos = z.infolist()
            total = sum(i.file_size for i in infos)
            if total > cap:
                raise MotionFileError(
                    p,
                    f"its arrays would take {total / 1e9:.2f} GB once decompressed; the limit is {cap / 1e9:g} GB "
                    "(KINEMORPH_MAX_NPZ_BYTES)",
                )
            out: dict[str, np.ndarray] = {}
            for info in infos:
                if not info.filename.endswith(".npy"):
                    raise MotionFileError(p, f"member {info.filename!r} is not a .npy array")
                shape, dtype = _member_header(z, info, p)
                if dtype.hasobject or dtype.kind not in _KINDS:
                    raise MotionFileError(p, f"array {info.filename[:-4]!r} has dtype {dtype}: only numbers and text")
                declared = int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
                if declared > info.file_size:
                    raise MotionFileError(
                        p,
                        f"array {info.filename[:-4]!r} claims shape {shape} ({declared} bytes) "
                        f"but holds {info.file_size} bytes",
                    )
                with z.open(info) as f:
                    out[info.filename[:-4]] = np.lib.format.read_array(f, allow_pickle=False)
            return out
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        raise MotionFileError(p, f"not a readable .npz ({exc})") from None


def _kind(a: np.ndarray) -> str:
    return _KINDS.get(a.dtype.kind, str(a.dtype))


def scalar(data: dict[str, Any], key: str, kind: str, where: str | Path, default: Any = None) -> Any:
    """A single value: a 0-d or one-element array of ``kind`` ("number" or "text"); ``default``
    when absent (None: required)."""
    if key not in data:
        if default is None:
            raise MotionFileError(where, f"missing {key!r}")
        return default
    a = np.asarray(data[key])
    if a.size != 1:
        raise MotionFileError(where, f"{key!r} must be a single value, got shape {a.shape}")
    if kind == "number":
        if a.dtype.kind not in "iuf":
            raise MotionFileError(where, f"{key!r} must be a number, got {_kind(a)} ({a.dtype})")
        v = float(a.reshape(()))
        if not np.isfinite(v):
            raise MotionFileError(where, f"{key!r} must be finite, got {v}")
        return v
    if a.dtype.kind not in "US":
        raise MotionFileError(where, f"{key!r} must be text, got {_kind(a)} ({a.dtype})")
    return str(a.reshape(()))


def array(data: dict[str, Any], key: str, where: str | Path, *, ndim: int, kinds: str = "iuf") -> np.ndarray:
    """A required array with ``ndim`` axes whose dtype kind is in ``kinds`` (e.g. "iuf": real
    numbers; complex values are refused, not cast)."""
    if key not in data:
        raise MotionFileError(where, f"missing {key!r}; found {', '.join(sorted(data)) or 'none'}")
    a = np.asarray(data[key])
    if a.ndim != ndim:
        raise MotionFileError(where, f"{key!r} must have {ndim} axes, got shape {a.shape}")
    if a.dtype.kind not in kinds:
        wanted = " or ".join(sorted({_KINDS[k] for k in kinds}))
        raise MotionFileError(where, f"{key!r} has dtype {a.dtype}; expected {wanted}")
    return a
