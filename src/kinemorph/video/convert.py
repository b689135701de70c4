"""Video or landmark file in, LAFAN1 BVH out: the one job the CLI and the app run."""

from __future__ import annotations

from pathlib import Path

from .._files import check_writable
from ..errors import MotionFileError
from ..motion.files import save_bvh
from ..progress import Progress
from .decode import VIDEO_SUFFIXES
from .detect import detect_video
from .landmarks import LandmarkClip, read_landmarks, save_landmarks
from .solver import SolverConfig, VideoFit, solve_landmarks

INPUT_SUFFIXES = (".npz", *VIDEO_SUFFIXES)


def read_input(
    path: str | Path, *, pose_model: str | Path | None = None, progress: Progress | None = None
) -> LandmarkClip:
    """Landmarks of a landmark file (.npz) or of a video (pose detection with MediaPipe)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".npz":
        return read_landmarks(p)
    if suffix in VIDEO_SUFFIXES:
        return detect_video(p, pose_model=pose_model, progress=progress)
    raise MotionFileError(p, f"unsupported input {suffix or '(no suffix)'!r}; supported: {', '.join(INPUT_SUFFIXES)}")


def video_to_motion(
    path: str | Path,
    *,
    pose_model: str | Path | None = None,
    config: SolverConfig | None = None,
    progress: Progress | None = None,
) -> VideoFit:
    """Fit the LAFAN1 skeleton to the person in a video or a landmark file."""
    return solve_landmarks(read_input(path, pose_model=pose_model, progress=progress), config=config)


def convert(
    path: str | Path,
    output: str | Path,
    *,
    pose_model: str | Path | None = None,
    config: SolverConfig | None = None,
    landmarks_out: str | Path | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> VideoFit:
    """Video or landmark file -> BVH (LAFAN1 skeleton, Y-up centimetres), optionally also the
    landmarks as .npz. Outputs are checked before any work and written atomically; on an error
    nothing is written."""
    check_writable(output, force=force)
    if landmarks_out is not None:
        check_writable(landmarks_out, force=force)
    clip = read_input(path, pose_model=pose_model, progress=progress)
    fit = solve_landmarks(clip, config=config)
    if landmarks_out is not None:
        save_landmarks(clip, landmarks_out, force=force)
    save_bvh(fit.motion, output, force=force)
    return fit


__all__ = ["INPUT_SUFFIXES", "convert", "read_input", "video_to_motion"]
