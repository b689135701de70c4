"""Video decoding through imageio-ffmpeg (the ffmpeg binary its wheel ships); imported lazily."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from ..errors import KinemorphError

VIDEO_SUFFIXES = (".mp4", ".webm", ".mov", ".mkv", ".avi", ".m4v")


class VideoError(KinemorphError):
    """A video cannot be read, holds no person, or detection cannot run."""


@dataclass(frozen=True)
class VideoInfo:
    """What the container says.

    Attributes:
        fps: frame rate [1/s].
        size: frame (width, height) [px], after any rotation the file asks for.
        duration: length [s] (0 when unknown).
    """

    fps: float
    size: tuple[int, int]
    duration: float

    @property
    def frames(self) -> int:
        """Expected number of frames (the decoder gives the exact count)."""
        return max(round(self.fps * self.duration), 0)


def _ffmpeg() -> Any:
    try:
        import imageio_ffmpeg
    except ImportError:
        raise VideoError("reading videos needs imageio-ffmpeg: pip install 'kinemorph[video]'") from None
    return imageio_ffmpeg


class VideoReader:
    """Frames of a video file as RGB arrays (H, W, 3) uint8, in order.

    Use as a context manager; ``info`` is read on entry. Raises VideoError (file and reason) for a
    missing or unreadable file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._gen: Any = None
        self.info = VideoInfo(fps=0.0, size=(0, 0), duration=0.0)

    def __enter__(self) -> VideoReader:
        if not self.path.is_file():
            raise VideoError(f"{self.path}: no such video file")
        ff = _ffmpeg()
        try:
            self._gen = ff.read_frames(str(self.path), pix_fmt="rgb24")
            meta = next(self._gen)
        except (OSError, RuntimeError, StopIteration, ValueError) as exc:
            self.close()
            first = str(exc).strip().splitlines()
            raise VideoError(
                f"{self.path}: not a readable video ({first[-1] if first else type(exc).__name__})"
            ) from None
        fps = float(meta.get("fps") or 0.0)
        size = tuple(int(v) for v in meta.get("size") or (0, 0))
        if not (np.isfinite(fps) and fps > 0) or len(size) != 2 or min(size) <= 0:
            self.close()
            raise VideoError(f"{self.path}: not a readable video (no video stream with a frame rate and size)")
        self.info = VideoInfo(fps=fps, size=(size[0], size[1]), duration=float(meta.get("duration") or 0.0))
        return self

    def __iter__(self) -> Iterator[np.ndarray]:
        w, h = self.info.size
        try:
            for raw in self._gen:
                yield np.frombuffer(raw, dtype=np.uint8).reshape(h, w, 3)
        except (OSError, RuntimeError) as exc:
            raise VideoError(f"{self.path}: decoding failed ({str(exc).strip()[:200]})") from None

    def close(self) -> None:
        if self._gen is not None:
            self._gen.close()
            self._gen = None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


__all__ = ["VIDEO_SUFFIXES", "VideoError", "VideoInfo", "VideoReader"]
