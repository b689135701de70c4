"""Landmark files: BlazePose landmarks per frame, what detection writes and the solver reads.

File layout (numpy .npz, read with allow_pickle off):
    landmarks        (T, 33, 3) float, MediaPipe world landmarks: metres, origin at the hip centre,
                     x to the image's right, y down, z away from the camera; BlazePose order
    visibility       optional (T, 33) float in [0, 1] (default: all 1)
    fps              optional scalar > 0 [1/s] (otherwise the caller gives it)
    image_landmarks  optional (T, 33, 3) float: normalised image landmarks (x, y in [0, 1] of the
                     image width and height, z relative depth), from which the root's travel comes
    image_size       (2,) int, width and height [px]; required with image_landmarks
    detected         optional (T,) bool: frames where the detector found the person (the others
                     were filled from their neighbours)
No value may be NaN or infinite: frames without a detection are filled before a file is written.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._files import write_atomic
from .._npz import read_npz
from ..errors import MotionFileError
from .blazepose import NUM_LANDMARKS

_KEYS = ("landmarks", "visibility", "fps", "image_landmarks", "image_size", "detected")


@dataclass(frozen=True)
class LandmarkClip:
    """BlazePose landmarks over a clip.

    Attributes:
        landmarks: world landmarks [m], MediaPipe axes. Shape: (T, 33, 3).
        visibility: per-landmark confidence in [0, 1]. Shape: (T, 33).
        fps: frame rate [1/s], or None when unknown.
        image_landmarks: normalised image landmarks, or None. Shape: (T, 33, 3).
        image_size: (width, height) [px] of the frames, or None.
        detected: frames where the person was detected. Shape: (T,).
        source: where it came from, for messages.
    """

    landmarks: np.ndarray
    visibility: np.ndarray
    fps: float | None = None
    image_landmarks: np.ndarray | None = None
    image_size: tuple[int, int] | None = None
    detected: np.ndarray | None = None
    source: str = "<memory>"

    def __post_init__(self) -> None:
        _check(self, self.source)

    @property
    def num_frames(self) -> int:
        return int(self.landmarks.shape[0])

    @property
    def num_detected(self) -> int:
        return self.num_frames if self.detected is None else int(np.count_nonzero(self.detected))


def _finite(name: str, a: np.ndarray, where: str) -> None:
    bad = ~np.isfinite(a)
    if bad.any():
        idx = np.argwhere(bad)[0]
        at = f"frame {idx[0]}" + (f", landmark {idx[1]}" if a.ndim > 1 else "")
        raise MotionFileError(where, f"{name} has a non-finite value ({a[tuple(idx)]}) at {at}")


def _check(clip: LandmarkClip, where: str) -> None:
    lm = clip.landmarks
    if lm.ndim != 3 or lm.shape[1:] != (NUM_LANDMARKS, 3) or lm.shape[0] == 0:
        raise MotionFileError(where, f"landmarks must have shape (T>0, {NUM_LANDMARKS}, 3), got {lm.shape}")
    t = lm.shape[0]
    _finite("landmarks", lm, where)
    if clip.visibility.shape != (t, NUM_LANDMARKS):
        raise MotionFileError(where, f"visibility must have shape ({t}, {NUM_LANDMARKS}), got {clip.visibility.shape}")
    _finite("visibility", clip.visibility, where)
    if clip.visibility.min() < 0.0 or clip.visibility.max() > 1.0:
        raise MotionFileError(where, "visibility values must lie in [0, 1]")
    if clip.fps is not None and not (np.isfinite(clip.fps) and 0.0 < clip.fps <= 10_000.0):
        raise MotionFileError(where, f"fps must be in (0, 10000], got {clip.fps}")
    if clip.image_landmarks is not None:
        if clip.image_landmarks.shape != lm.shape:
            raise MotionFileError(
                where, f"image_landmarks must have shape {lm.shape} like landmarks, got {clip.image_landmarks.shape}"
            )
        _finite("image_landmarks", clip.image_landmarks, where)
        if clip.image_size is None or len(clip.image_size) != 2 or min(clip.image_size) <= 0:
            raise MotionFileError(where, f"image_landmarks need image_size (width, height > 0), got {clip.image_size}")
    if clip.detected is not None and clip.detected.shape != (t,):
        raise MotionFileError(where, f"detected must have shape ({t},), got {clip.detected.shape}")


def _numeric(name: str, a: np.ndarray, where: str) -> np.ndarray:
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
        raise MotionFileError(where, f"{name} must hold numbers, got dtype {a.dtype}")
    return a.astype(np.float64)


def read_landmarks(path: str | Path) -> LandmarkClip:
    """Read a landmark .npz (layout in the module docstring). Raises MotionFileError naming the
    file and what is wrong (missing key, shape, dtype, NaN)."""
    p = Path(path)
    where = str(p)
    if not p.is_file():
        raise MotionFileError(p, "no such file")
    data = read_npz(p)
    if "landmarks" not in data:
        raise MotionFileError(p, f"missing key 'landmarks'; found {', '.join(sorted(data)) or 'none'}")
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise MotionFileError(p, f"unknown key(s) {', '.join(unknown)}; valid: {', '.join(_KEYS)}")
    lm = _numeric("landmarks", data["landmarks"], where)
    vis = _numeric("visibility", data["visibility"], where) if "visibility" in data else None
    if vis is None and lm.ndim == 3:
        vis = np.ones(lm.shape[:2])
    fps = None
    if "fps" in data:
        f = _numeric("fps", data["fps"], where)
        if f.size != 1:
            raise MotionFileError(p, f"fps must be one number, got shape {f.shape}")
        fps = float(f.reshape(()))
    image = _numeric("image_landmarks", data["image_landmarks"], where) if "image_landmarks" in data else None
    size = None
    if "image_size" in data:
        s = _numeric("image_size", data["image_size"], where)
        if s.shape != (2,):
            raise MotionFileError(p, f"image_size must be (width, height), got shape {s.shape}")
        size = (int(s[0]), int(s[1]))
    detected = None
    if "detected" in data:
        if data["detected"].dtype != bool:
            raise MotionFileError(p, f"detected must be booleans, got dtype {data['detected'].dtype}")
        detected = data["detected"]
    return LandmarkClip(
        landmarks=lm,
        visibility=vis if vis is not None else np.ones((0, NUM_LANDMARKS)),
        fps=fps,
        image_landmarks=image,
        image_size=size,
        detected=detected,
        source=where,
    )


def save_landmarks(clip: LandmarkClip, path: str | Path, *, force: bool = False) -> Path:
    """Write a landmark .npz atomically (nothing is left behind on failure)."""
    arrays: dict[str, np.ndarray] = {"landmarks": clip.landmarks, "visibility": clip.visibility}
    if clip.fps is not None:
        arrays["fps"] = np.array(float(clip.fps))
    if clip.image_landmarks is not None and clip.image_size is not None:
        arrays["image_landmarks"] = clip.image_landmarks
        arrays["image_size"] = np.array(clip.image_size, dtype=np.int64)
    if clip.detected is not None:
        arrays["detected"] = np.asarray(clip.detected, dtype=bool)

    def write(f: io.BufferedIOBase) -> None:  # type: ignore[type-arg]
        np.savez(f, **arrays)  # type: ignore[arg-type]

    return write_atomic(path, write, force=force)  # type: ignore[arg-type]


__all__ = ["LandmarkClip", "read_landmarks", "save_landmarks"]
