"""Video uploads for the Motion page: a video (pose detection) or a landmark file becomes a LAFAN1
clip that opens like an uploaded BVH and goes on to Setup. No viser here: the page calls it.

Uploads are size-capped and stored like every upload (:mod:`~kinemorph.app.sources`); the video is
deleted once fitted, the fitted BVH is kept as ``upload:<name>_video.bvh``. Detection needs the
``[video]`` extra and a Pose Landmarker model named by ``KINEMORPH_POSE_MODEL``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ..motion.files import save_bvh
from ..progress import Progress
from ..video import VIDEO_SUFFIXES, VideoFit, video_to_motion
from ..video.blazepose import MP_TO_WORLD
from .sources import safe_name
from .state import AppState

VIDEO_UPLOADS = (*VIDEO_SUFFIXES, ".npz")
"""What the video upload button accepts: videos and BlazePose landmark files."""


def open_video(state: AppState, name: str, content: bytes, *, progress: Progress | None = None) -> VideoFit:
    """Fit an uploaded video or landmark file and open the result as the app's motion."""
    key, path = state.sources.store(name, content, VIDEO_UPLOADS)
    try:
        fit = video_to_motion(path, progress=progress)
    finally:
        state.sources.discard(key)
    stem = Path(safe_name(name)).stem
    with tempfile.TemporaryDirectory() as tmp:
        data = save_bvh(fit.motion, Path(tmp) / "fit.bvh").read_bytes()
    state.upload_motion(f"{stem}_video.bvh", data)
    return fit


def landmark_points(fit: VideoFit, frame: int) -> np.ndarray:
    """The frame's landmarks (as fitted: filled and smoothed input) in the Z-up world, placed at
    the fitted root. Shape: (33, 3) [m]."""
    f = min(max(frame, 0), fit.landmarks.num_frames - 1)
    return fit.landmarks.landmarks[f] @ MP_TO_WORLD.T + fit.motion.positions[f, 0]


__all__ = ["VIDEO_UPLOADS", "landmark_points", "open_video"]
