"""Finding the input files of a batch, and where each one's output goes.

A pattern's folder part before its first wildcard is its base: ``clips/**/*.bvh`` has base
``clips``, so ``clips/a/walk.bvh`` becomes ``OUT/a/walk.npz``. A plain file path has its own
folder as base; a folder stands for every motion file under it (itself the base). Patterns use
:mod:`glob` syntax with ``**`` matching any depth. A match outside its base (``clips/*/../../x``,
a link out) is refused: every output lands under the output folder.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import KinemorphError

MOTION_SUFFIXES = (".bvh", ".npz")
"""The files a folder input contributes (motion files kinemorph.motion.load_motion reads)."""

_MAGIC = re.compile(r"[*?[]")


@dataclass(frozen=True)
class Source:
    """A matched input file.

    Attributes:
        path: the file, as matched (relative to the working folder when the pattern was).
        rel: its path relative to its pattern's base, POSIX, with the input's suffix.
    """

    path: Path
    rel: PurePosixPath


def _base(pattern: str) -> Path:
    parts = Path(pattern).parts
    fixed: list[str] = []
    for part in parts:
        if _MAGIC.search(part):
            break
        fixed.append(part)
    return Path(*fixed) if fixed else Path(".")


def find_inputs(patterns: Sequence[str | Path], *, exclude: Path | None = None) -> list[Source]:
    """The files matching ``patterns`` (each pattern must match at least one), sorted, each once.

    exclude: a folder whose files are never inputs (the batch's output folder).
    Raises KinemorphError for a pattern that matches nothing or names a folder.
    """
    if not patterns:
        raise KinemorphError("no input pattern given")
    skip = exclude.resolve() if exclude is not None else None
    seen: set[Path] = set()
    found: list[Source] = []
    for raw in patterns:
        pattern = str(raw)
        if not _MAGIC.search(pattern) and Path(pattern).is_dir():
            base = Path(pattern)
            matches = sorted(str(p) for p in base.rglob("*") if p.is_file() and p.suffix.lower() in MOTION_SUFFIXES)
            if not matches:
                raise KinemorphError(f"{pattern}: is a folder with no motion file in it ({', '.join(MOTION_SUFFIXES)})")
        else:
            base = _base(pattern) if _MAGIC.search(pattern) else Path(pattern).parent
            matches = sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
        if not matches:
            raise KinemorphError(f"{pattern}: no file matches" + ("" if _MAGIC.search(pattern) else " (no such file)"))
        root = base.resolve()
        for m in matches:
            path = Path(m)
            resolved = path.resolve()
            if resolved in seen or (skip is not None and resolved.is_relative_to(skip)):
                continue
            if not resolved.is_relative_to(root):
                raise KinemorphError(
                    f"{path}: lies outside the pattern's base folder {base} (through '..' or a link), so its "
                    "output would land outside the output folder; give a pattern without '..'"
                )
            seen.add(resolved)
            found.append(Source(path, PurePosixPath(resolved.relative_to(root).as_posix())))
    if not found:
        raise KinemorphError(
            f"no input file outside the output folder {exclude} matches {', '.join(map(str, patterns))}"
        )
    return found


def output_rels(sources: Sequence[Source], suffix: str) -> list[str]:
    """Each source's output path relative to the output folder; KinemorphError when two collide."""
    owner: dict[str, Path] = {}
    out: list[str] = []
    for s in sources:
        rel = str(s.rel.with_suffix(suffix))
        if rel in owner:
            raise KinemorphError(
                f"{owner[rel]} and {s.path} would both be written to {rel}; rename one or run them as separate batches"
            )
        owner[rel] = s.path
        out.append(rel)
    return out
