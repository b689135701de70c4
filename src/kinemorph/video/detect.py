"""Pose detection: MediaPipe's Pose Landmarker (Tasks API) on every frame of a video.

MediaPipe is an optional dependency (``pip install 'kinemorph[video]'``), imported only here and
only when detection runs. Its wheels carry no model: the user passes the Pose Landmarker's
``.task`` file (``pose_model`` / ``KINEMORPH_POSE_MODEL``). Frames where no person is found are
filled from their neighbours; a video where no frame has a person is an error.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..progress import Progress, report
from .blazepose import NUM_LANDMARKS
from .decode import VideoError, VideoReader
from .landmarks import LandmarkClip

MODEL_ENV = "KINEMORPH_POSE_MODEL"
MODEL_PAGE = "https://ai.google.dev/edge/mediapipe/solutions/vision/pose_landmarker#models"
MODEL_URL = (
    "https://storage.googleapis.com/mediapipe-models/pose_landmarker/pose_landmarker_full/float16/latest/"
    "pose_landmarker_full.task"
)


@dataclass(frozen=True)
class Detection:
    """One person in one frame.

    Attributes:
        world: world landmarks [m], MediaPipe axes. Shape: (33, 3).
        image: normalised image landmarks. Shape: (33, 3).
        visibility: per-landmark visibility in [0, 1]. Shape: (33,).
    """

    world: np.ndarray
    image: np.ndarray
    visibility: np.ndarray


Detector = Callable[[np.ndarray, int], Detection | None]
"""detector(frame RGB (H, W, 3) uint8, timestamp [ms]) -> the person, or None."""


def resolve_model(pose_model: str | Path | None) -> Path:
    """The Pose Landmarker model file: the argument, else $KINEMORPH_POSE_MODEL; VideoError
    saying where the official file is published when neither names an existing file."""
    where = (
        f"the official MediaPipe Pose Landmarker models (pose_landmarker_lite/full/heavy.task) are published at "
        f"{MODEL_PAGE} (e.g. {MODEL_URL})"
    )
    given = pose_model if pose_model is not None else os.environ.get(MODEL_ENV) or None
    if given is None:
        raise VideoError(f"pose detection needs a model file: pass --pose-model FILE.task or set {MODEL_ENV}; {where}")
    path = Path(given)
    if not path.is_file():
        raise VideoError(f"{path}: no such pose model file; {where}")
    return path


class PoseDetector:
    """MediaPipe Pose Landmarker in video mode (one person). Call with (frame, timestamp_ms)."""

    def __init__(
        self, model: str | Path, *, min_detection: float = 0.5, min_presence: float = 0.5, min_tracking: float = 0.5
    ) -> None:
        try:
            from mediapipe.tasks.python import BaseOptions, vision
        except ImportError:
            raise VideoError("pose detection needs MediaPipe: pip install 'kinemorph[video]'") from None
        import mediapipe as mp

        self._mp = mp
        options = vision.PoseLandmarkerOptions(
            base_options=BaseOptions(model_asset_path=str(model)),
            running_mode=vision.RunningMode.VIDEO,
            num_poses=1,
            min_pose_detection_confidence=min_detection,
            min_pose_presence_confidence=min_presence,
            min_tracking_confidence=min_tracking,
        )
        try:
            self._landmarker: Any = vision.PoseLandmarker.create_from_options(options)
        except (RuntimeError, ValueError) as exc:
            raise VideoError(f"{model}: not a usable Pose Landmarker model ({str(exc).strip()[:200]})") from None

    def __call__(self, frame: np.ndarray, timestamp_ms: int) -> Detection | None:
        image = self._mp.Image(image_format=self._mp.ImageFormat.SRGB, data=np.ascontiguousarray(frame))
        result = self._landmarker.detect_for_video(image, timestamp_ms)
        if not result.pose_world_landmarks:
            return None
        world = np.array([(p.x, p.y, p.z) for p in result.pose_world_landmarks[0]], dtype=np.float64)
        img = np.array([(p.x, p.y, p.z) for p in result.pose_landmarks[0]], dtype=np.float64)
        vis = np.array([p.visibility or 0.0 for p in result.pose_landmarks[0]], dtype=np.float64)
        return Detection(world=world, image=img, visibility=np.clip(vis, 0.0, 1.0))

    def close(self) -> None:
        self._landmarker.close()


def _fill(a: np.ndarray, found: np.ndarray) -> np.ndarray:
    """Frames without a detection (rows where found is False) interpolated from their neighbours."""
    t = np.arange(a.shape[0])
    flat = a.reshape(a.shape[0], -1).copy()
    for c in range(flat.shape[1]):
        flat[~found, c] = np.interp(t[~found], t[found], flat[found, c])
    return flat.reshape(a.shape)


def detect_frames(
    frames: Iterable[np.ndarray],
    detector: Detector,
    *,
    fps: float,
    size: tuple[int, int],
    source: str,
    total: int = 0,
    progress: Progress | None = None,
) -> LandmarkClip:
    """Run a detector over frames; fill the frames without a person from their neighbours (their
    visibility is 0 and ``detected`` is False). VideoError when no frame has a person."""
    world, image, vis, found = [], [], [], []
    empty = np.full((NUM_LANDMARKS, 3), np.nan)
    for i, frame in enumerate(frames):
        det = detector(frame, round(1000.0 * i / fps))
        found.append(det is not None)
        world.append(empty if det is None else det.world)
        image.append(empty if det is None else det.image)
        vis.append(np.zeros(NUM_LANDMARKS) if det is None else det.visibility)
        report(progress, i + 1, max(total, i + 1))
    if not found:
        raise VideoError(f"{source}: the video has no frames")
    ok = np.array(found)
    if not ok.any():
        raise VideoError(f"{source}: no person detected in any of its {len(found)} frames")
    return LandmarkClip(
        landmarks=_fill(np.array(world), ok),
        visibility=np.array(vis),
        fps=fps,
        image_landmarks=_fill(np.array(image), ok),
        image_size=size,
        detected=ok,
        source=source,
    )


def detect_video(
    path: str | Path, *, pose_model: str | Path | None = None, progress: Progress | None = None
) -> LandmarkClip:
    """BlazePose landmarks of the person in a video file (decoded with imageio-ffmpeg)."""
    with VideoReader(path) as video:  # an unreadable video is reported before a missing model
        detector = PoseDetector(resolve_model(pose_model))
        try:
            return detect_frames(
                video,
                detector,
                fps=video.info.fps,
                size=video.info.size,
                source=str(path),
                total=video.info.frames,
                progress=progress,
            )
        finally:
            detector.close()


__all__ = ["MODEL_ENV", "MODEL_PAGE", "MODEL_URL", "Detection", "PoseDetector", "detect_frames", "detect_video"]
