"""BVH reader and writer.

The reader accepts any channel order, rotation and position channels on any joint, and
End Sites; the frame time is read from the file. It returns the raw content in the file's
own axes and units (:class:`BvhData`); presets (``presets.py``) turn that into a
:class:`~kinemorph.motion.motion.Motion` in the library's Z-up metre convention.
Every malformed input raises :class:`~kinemorph.errors.MotionFileError` with the line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import MotionFileError
from ..limits import MAX_FILE_BYTES, MAX_FPS, MAX_FRAMES, MIN_FPS
from ..transforms import euler_to_quat
from .bvh_writer import format_bvh
from .skeleton import POSITION_CHANNELS, ROTATION_CHANNELS, VALID_CHANNELS, EndSite, Skeleton

__all__ = ["BvhData", "format_bvh", "parse_bvh", "read_bvh"]


@dataclass(frozen=True)
class BvhData:
    """Raw BVH content in the file's own axes and units.

    Attributes:
        skeleton: joint tree; offsets in file units.
        frame_time: seconds per frame [s], as written in the file.
        values: channel values, one row per frame, in file order. Shape: (T, C).
    """

    skeleton: Skeleton
    frame_time: float
    values: np.ndarray

    @property
    def num_frames(self) -> int:
        return int(self.values.shape[0])

    def local_transforms(self) -> tuple[np.ndarray, np.ndarray]:
        """Local joint rotations (T, J, 4) wxyz and translations (T, J, 3) in file units.

        A joint's translation is its offset, unless it has position channels, whose
        values then replace the offset (the convention of LAFAN1 and of 3ds Max exports).
        """
        sk = self.skeleton
        t = self.num_frames
        rot = np.zeros((t, sk.num_joints, 4))
        rot[..., 0] = 1.0
        pos = np.broadcast_to(sk.offsets, (t, sk.num_joints, 3)).copy()
        col = 0
        for j, chans in enumerate(sk.channels):
            block = self.values[:, col : col + len(chans)]
            col += len(chans)
            rot_cols = [i for i, c in enumerate(chans) if c in ROTATION_CHANNELS]
            if rot_cols:
                rot[:, j] = euler_to_quat(np.radians(block[:, rot_cols]), sk.rotation_order(j))
            for i, c in enumerate(chans):
                if c in POSITION_CHANNELS:
                    pos[:, j, POSITION_CHANNELS.index(c)] = block[:, i]
        return rot, pos


class _Lines:
    """Header tokens with their line numbers."""

    def __init__(self, path: str | None, lines: list[str]) -> None:
        self.path = path
        self.lines = lines
        self.i = 0  # index of the next line to read

    def error(self, message: str, line: int | None = None) -> MotionFileError:
        return MotionFileError(self.path, message, self.i if line is None else line)

    def next_tokens(self, what: str) -> list[str]:
        while self.i < len(self.lines):
            toks = self.lines[self.i].split()
            self.i += 1
            if toks:
                return toks
        raise MotionFileError(self.path, f"file ends early: expected {what}", len(self.lines))


def _float(tok: str, lines: _Lines, what: str) -> float:
    try:
        v = float(tok)
    except ValueError:
        raise lines.error(f"{what}: {tok!r} is not a number") from None
    if not math.isfinite(v):
        raise lines.error(f"{what}: {tok!r} is not finite")
    return v


def _parse_offset(lines: _Lines) -> np.ndarray:
    toks = lines.next_tokens("OFFSET")
    if toks[0] != "OFFSET":
        raise lines.error(f"expected OFFSET, found {toks[0]!r}")
    if len(toks) != 4:
        raise lines.error(f"OFFSET needs 3 numbers, found {len(toks) - 1}")
    return np.array([_float(t, lines, "OFFSET") for t in toks[1:]])


def _parse_channels(lines: _Lines) -> tuple[str, ...]:
    toks = lines.next_tokens("CHANNELS")
    if toks[0] != "CHANNELS":
        raise lines.error(f"expected CHANNELS, found {toks[0]!r}")
    if len(toks) < 2:
        raise lines.error("CHANNELS needs a count")
    try:
        n = int(toks[1])
    except ValueError:
        raise lines.error(f"CHANNELS count {toks[1]!r} is not an integer") from None
    names = tuple(toks[2:])
    if n != len(names):
        raise lines.error(f"CHANNELS says {n} channels but names {len(names)}")
    if n > 6:
        raise lines.error(f"CHANNELS: at most 6 channels per joint, found {n}")
    for c in names:
        if c not in VALID_CHANNELS:
            raise lines.error(f"unknown channel {c!r}; valid: {', '.join(VALID_CHANNELS)}")
    if len(set(names)) != len(names):
        raise lines.error(f"repeated channel in {' '.join(names)}")
    return names


def _parse_hierarchy(lines: _Lines) -> Skeleton:
    toks = lines.next_tokens("HIERARCHY")
    if toks != ["HIERARCHY"]:
        raise lines.error(f"expected HIERARCHY, found {' '.join(toks)!r}")
    names: list[str] = []
    parents: list[int] = []
    offsets: list[np.ndarray] = []
    channels: list[tuple[str, ...]] = []
    end_sites: list[EndSite] = []
    stack: list[int | None] = []  # joint index per open brace, None for an End Site

    toks = lines.next_tokens("ROOT")
    if toks[0] != "ROOT" or len(toks) != 2:
        raise lines.error("expected 'ROOT <name>'")
    # (kind, name, line of its ROOT / JOINT / End Site keyword): errors about the joint cite that line.
    pending: tuple[str, str, int] | None = ("ROOT", toks[1], lines.i)
    while True:
        if pending is not None:
            kind, name, at = pending
            pending = None
            if lines.next_tokens("{") != ["{"]:
                raise lines.error(f"expected '{{' after {kind} {name}")
            if kind == "End":
                if not stack or stack[-1] is None:
                    raise lines.error("End Site outside a joint", at)
                end_sites.append(EndSite(parent=int(stack[-1]), offset=_parse_offset(lines)))
                stack.append(None)
            else:
                if name in names:
                    raise lines.error(f"joint name {name!r} appears twice", at)
                parent = -1 if not stack else stack[-1]
                if kind == "JOINT" and parent is None:
                    raise lines.error("JOINT inside an End Site", at)
                names.append(name)
                parents.append(-1 if parent is None else parent)
                offsets.append(_parse_offset(lines))
                channels.append(_parse_channels(lines))
                stack.append(len(names) - 1)
        toks = lines.next_tokens("'}' or JOINT")
        head = toks[0]
        if head == "}":
            stack.pop()
            if not stack:
                break
        elif head == "JOINT":
            if len(toks) != 2:
                raise lines.error("expected 'JOINT <name>'")
            pending = ("JOINT", toks[1], lines.i)
        elif head == "End":
            if toks != ["End", "Site"]:
                raise lines.error("expected 'End Site'")
            pending = ("End", "Site", lines.i)
        elif head == "ROOT":
            raise lines.error("only one ROOT is supported")
        else:
            raise lines.error(f"unexpected {head!r} in HIERARCHY")
    return Skeleton(
        names=tuple(names),
        parents=np.array(parents, dtype=np.int64),
        offsets=np.array(offsets, dtype=np.float64).reshape(-1, 3),
        channels=tuple(channels),
        end_sites=tuple(end_sites),
    )


_FRAMES = re.compile(r"^Frames:\s*(\S+)\s*$")
_FRAME_TIME = re.compile(r"^Frame\s+Time:\s*(\S+)\s*$")


def parse_bvh(text: str, path: str | Path | None = None) -> BvhData:
    """Parse BVH text. ``path`` is used in error messages only."""
    spath = None if path is None else str(path)
    all_lines = text.splitlines()
    lines = _Lines(spath, all_lines)
    skeleton = _parse_hierarchy(lines)

    toks = lines.next_tokens("MOTION")
    if toks != ["MOTION"]:
        raise lines.error(f"expected MOTION, found {' '.join(toks)!r}")
    toks = lines.next_tokens("Frames:")
    m = _FRAMES.match(" ".join(toks))
    if not m:
        raise lines.error("expected 'Frames: <count>'")
    try:
        num_frames = int(m.group(1))
    except ValueError:
        raise lines.error(f"frame count {m.group(1)!r} is not an integer") from None
    if num_frames <= 0:
        raise lines.error(f"the motion has {num_frames} frames; at least one is needed")
    toks = lines.next_tokens("Frame Time:")
    m = _FRAME_TIME.match(" ".join(toks))
    if not m:
        raise lines.error("expected 'Frame Time: <seconds>'")
    frame_time = _float(m.group(1), lines, "Frame Time")
    if frame_time <= 0.0:
        raise lines.error(f"Frame Time must be positive, found {frame_time}")
    if not 1.0 / MAX_FPS <= frame_time <= 1.0 / MIN_FPS:
        raise lines.error(
            f"Frame Time {frame_time:g} s is outside {1.0 / MAX_FPS:g} to {1.0 / MIN_FPS:g} s "
            f"(frame rates {MIN_FPS:g} to {MAX_FPS:g} fps)"
        )
    if num_frames > MAX_FRAMES:
        raise lines.error(f"the header says {num_frames} frames; at most {MAX_FRAMES} are read")

    first = lines.i  # 0-based index of the first data line
    data_lines = all_lines[first:]
    # Trailing blank lines are harmless; blank lines inside the data are not.
    while data_lines and not data_lines[-1].strip():
        data_lines.pop()
    n_ch = skeleton.num_channels
    blank = next((k for k, line in enumerate(data_lines) if not line.strip()), None)
    if blank is not None and n_ch > 0:
        raise MotionFileError(spath, "blank line inside the frame data", first + blank + 1)
    if len(data_lines) < num_frames:
        raise MotionFileError(
            spath,
            f"file ends early: header says {num_frames} frames, found {len(data_lines)} data lines",
            first + len(data_lines),
        )
    if len(data_lines) > num_frames:
        raise MotionFileError(
            spath, f"more data lines than the {num_frames} frames the header says", first + num_frames + 1
        )
    values = _parse_values(data_lines, n_ch, spath, first)
    return BvhData(skeleton=skeleton, frame_time=frame_time, values=values)


def _parse_values(data_lines: list[str], n_ch: int, path: str | None, first: int) -> np.ndarray:
    """All frames at once; on any problem, find the offending line for the message."""
    flat = " ".join(data_lines).split()
    try:
        arr = np.array(flat, dtype=np.float64)
    except ValueError:
        arr = None
    if arr is not None and arr.size == n_ch * len(data_lines):
        values = arr.reshape(len(data_lines), n_ch)
        bad = ~np.isfinite(values)
        if not bad.any():
            return values
        row, col = np.argwhere(bad)[0]
        raise MotionFileError(path, f"value {values[row, col]} in channel {col + 1} is not finite", first + row + 1)
    for k, line in enumerate(data_lines):
        toks = line.split()
        if len(toks) != n_ch:
            raise MotionFileError(path, f"expected {n_ch} channel values, found {len(toks)}", first + k + 1)
        for c, tok in enumerate(toks):
            try:
                v = float(tok)
            except ValueError:
                raise MotionFileError(path, f"channel {c + 1}: {tok!r} is not a number", first + k + 1) from None
            if not math.isfinite(v):
                raise MotionFileError(path, f"channel {c + 1}: {tok!r} is not finite", first + k + 1)
    raise MotionFileError(path, "could not read the frame values", first + 1)  # pragma: no cover


def read_bvh(path: str | Path) -> BvhData:
    """Read a BVH file. Raises MotionFileError for anything malformed."""
    p = Path(path)
    if not p.is_file():
        raise MotionFileError(p, "no such file")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise MotionFileError(p, f"file is larger than {MAX_FILE_BYTES / 1e9:g} GB")
    try:
        text = p.read_text(encoding="utf-8-sig", errors="strict")  # a byte-order mark is accepted
    except UnicodeDecodeError as exc:
        raise MotionFileError(p, f"not a text file ({exc.reason} at byte {exc.start})") from None
    return parse_bvh(text, p)
