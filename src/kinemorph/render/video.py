"""Videos of a RobotMotion: frames picked at the video's rate, rendered offscreen, written as an
animated GIF (Pillow, which matplotlib already brings) or an MP4 (imageio-ffmpeg, the [app] extra)."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._files import atomic_path, check_writable
from ..errors import ConfigError
from ..progress import Progress, report
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from .backend import RenderError, gl_backend
from .stage import Camera, FrameRenderer, render_model

VIDEO_FORMATS = {
    ".gif": "animated GIF (Pillow)",
    ".mp4": "H.264 MP4 (imageio-ffmpeg: pip install 'kinemorph[app]')",
}
"""Video formats by suffix."""


@dataclass(frozen=True)
class RenderConfig:
    """How a video is made.

    Attributes:
        width: image width [px].
        height: image height [px].
        fps: video frame rate [1/s]; frames are taken from the motion at this rate. None: the
            motion's own rate, at most 30.
        start: first time shown [s].
        duration: length shown [s]; None: to the end of the motion.
        follow: the camera follows the robot's root; otherwise it looks at the clip's centre.
        azimuth: camera azimuth [deg].
        elevation: camera elevation [deg] (negative: from above).
        distance: camera distance [m]; None: from the robot's height (and the clip's extent when
            not following).
        shadows: the sun casts shadows (costs about a third of the time in software GL).
    """

    width: int = 480
    height: int = 360
    fps: float | None = None
    start: float = 0.0
    duration: float | None = None
    follow: bool = True
    azimuth: float = 135.0
    elevation: float = -15.0
    distance: float | None = None
    shadows: bool = True

    def __post_init__(self) -> None:
        if not (16 <= self.width <= 4096 and 16 <= self.height <= 4096):
            raise ConfigError(f"video size must be 16..4096 px, got {self.width}x{self.height}")
        if self.fps is not None and not 0 < self.fps <= 120:
            raise ConfigError(f"fps must be in (0, 120], got {self.fps}")
        if not self.start >= 0 or (self.duration is not None and not self.duration > 0):
            raise ConfigError("start must be >= 0 and duration > 0")
        if self.distance is not None and not self.distance > 0:
            raise ConfigError(f"distance must be positive, got {self.distance}")


@dataclass(frozen=True)
class RenderInfo:
    """What a render produced: the file, its frame count and rate, the backend and the time taken [s]."""

    path: Path
    frames: int
    fps: float
    backend: str
    seconds: float
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def frames_per_s(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else math.inf


def frame_indices(motion: RobotMotion, cfg: RenderConfig) -> tuple[np.ndarray, float]:
    """The motion frames shown (nearest to each video frame's time) and the video rate [1/s]."""
    fps = float(cfg.fps or min(motion.fps, 30.0))
    end = motion.num_frames / motion.fps if cfg.duration is None else cfg.start + cfg.duration
    end = min(end, motion.num_frames / motion.fps)
    times = np.arange(cfg.start, end - 1e-9, 1.0 / fps)
    if len(times) == 0:
        raise ConfigError(f"start {cfg.start:g} s is past the end of the motion ({motion.num_frames / motion.fps:g} s)")
    idx = np.minimum(np.round(times * motion.fps).astype(np.int64), motion.num_frames - 1)
    return idx, fps


def camera_targets(root: np.ndarray, fps: float, *, follow: bool, smoothing: float, height: float) -> np.ndarray:
    """Points the camera looks at, one per frame [m]: the root smoothed (exponentially, time constant
    ``smoothing`` [s]) when following, else the centre of the root's path; at ``height`` [m]."""
    out = np.empty_like(root)
    if follow:
        a = 1.0 - math.exp(-1.0 / (fps * smoothing)) if smoothing > 0 else 1.0
        out[0] = root[0]
        for i in range(1, len(root)):
            out[i] = out[i - 1] + a * (root[i] - out[i - 1])
    else:
        out[:] = 0.5 * (root.min(axis=0) + root.max(axis=0))
    out[:, 2] = height
    return out


def _write_gif(frames: Iterable[np.ndarray], path: Path, fps: float) -> None:
    from PIL import Image

    images = [Image.fromarray(f).quantize(colors=255, method=Image.Quantize.MEDIANCUT) for f in frames]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], duration=round(1000 / fps), loop=0)


def _write_mp4(frames: Iterable[np.ndarray], path: Path, fps: float, size: tuple[int, int]) -> None:
    try:
        import imageio_ffmpeg
    except ImportError:
        raise RenderError("MP4 output needs imageio-ffmpeg: pip install 'kinemorph[app]' (or write a .gif)") from None
    writer = imageio_ffmpeg.write_frames(
        str(path), size, fps=fps, codec="libx264", pix_fmt_out="yuv420p", macro_block_size=1,
        output_params=["-f", "mp4"], ffmpeg_log_level="error",
    )  # fmt: skip
    writer.send(None)
    try:
        for f in frames:
            writer.send(np.ascontiguousarray(f))
    finally:
        writer.close()


def render_video(
    motion: RobotMotion,
    robot: Robot,
    path: str | Path,
    config: RenderConfig | None = None,
    *,
    overlay: np.ndarray | bool = True,
    force: bool = False,
    progress: Progress | None = None,
) -> RenderInfo:
    """Render ``motion`` on ``robot`` into ``path`` (.gif or .mp4, see VIDEO_FORMATS), atomically.

    overlay: source keypoints drawn over the robot: True uses the motion's own keypoints (the
    targets its engine tracked) when it has them, an array gives them (T, K, 3) [m], False none.
    """
    cfg = config or RenderConfig()
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in VIDEO_FORMATS:
        raise RenderError(f"{p}: unsupported video format; supported: {', '.join(VIDEO_FORMATS)}")
    if tuple(motion.dof_names) != robot.dof_names:
        raise RenderError(f"the motion's joints are not robot {robot.name}'s (render with the robot it was made for)")
    check_writable(p, force=force)
    points = _overlay(motion, overlay)
    idx, fps = frame_indices(motion, cfg)
    t0 = time.perf_counter()
    backend = gl_backend()
    model = render_model(robot, cfg.width, cfg.height, shadows=cfg.shadows)
    qpos = motion.qpos[idx]
    stature = float(np.ptp(robot.fk(robot.rest_qpos()).positions[0, 1:, 2])) or 1.0
    look = camera_targets(motion.root_pos[idx], fps, follow=cfg.follow, smoothing=0.5, height=0.55 * stature)
    distance = cfg.distance or 2.2 * stature + (0.0 if cfg.follow else 0.6 * float(np.ptp(motion.root_pos[:, :2])))
    camera = Camera(cfg.azimuth, cfg.elevation, distance, cfg.follow)
    seconds_setup = time.perf_counter() - t0

    def frames(renderer: FrameRenderer) -> Iterator[np.ndarray]:
        for k, i in enumerate(idx):
            yield renderer.render(qpos[k], look[k], camera, None if points is None else points[i])
            report(progress, k + 1, len(idx))

    with FrameRenderer(model, cfg.width, cfg.height) as renderer, atomic_path(p, force=force) as tmp:
        if suffix == ".gif":
            _write_gif(frames(renderer), tmp, fps)
        else:
            _write_mp4(frames(renderer), tmp, fps, (cfg.width, cfg.height))
    seconds = time.perf_counter() - t0
    return RenderInfo(p, len(idx), fps, backend, seconds, {"seconds_setup": seconds_setup})


def _overlay(motion: RobotMotion, overlay: np.ndarray | bool) -> np.ndarray | None:
    if overlay is True:
        return None if motion.keypoints is None else motion.keypoints.positions
    if overlay is False:
        return None
    pts = np.asarray(overlay, dtype=np.float64)
    if pts.ndim != 3 or pts.shape[0] != motion.num_frames or pts.shape[2] != 3:
        raise RenderError(f"overlay points must have shape ({motion.num_frames}, K, 3), got {pts.shape}")
    return pts
