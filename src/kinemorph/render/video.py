"""Videos of a RobotMotion: frames picked at the video's rate, rendered offscreen and streamed to
the encoder one at a time (nothing holds the clip's frames): an animated GIF (Pillow, which
matplotlib already brings; gif.py) or an H.264 MP4 (imageio-ffmpeg, the [app] extra, in its own
process, so encoding overlaps rendering).

Defaults by format: MP4 640x360 at the motion's rate (at most 30 fps); GIF 320x180 at 15 fps and
at most GIF_MAX_SECONDS (a longer clip is cut there, and the result says so): a 60 s walk is
about 10 MB as GIF (README, Videos)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._files import atomic_path, check_writable
from ..errors import ConfigError
from ..progress import Progress, report
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from .backend import RenderError, gl_backend
from .gif import GifWriter
from .stage import Camera, FrameRenderer, render_model

GIF_MAX_SECONDS = 60.0
"""Longest GIF written [s]; the rest of a longer clip is left out (with a note). MP4 has no cap."""

FORMAT_DEFAULTS = {".mp4": (640, 360, 30.0), ".gif": (320, 180, 15.0)}
"""Per format: width [px], height [px], highest default frame rate [1/s]."""

X264_PRESET = "ultrafast"
"""libx264 speed preset: the fastest, so that the encoder takes little of the CPU the renderer needs
(a 60 s 640x360 walk is still only a few MB)."""

VIDEO_FORMATS = {
    ".gif": "animated GIF (Pillow)",
    ".mp4": "H.264 MP4 (imageio-ffmpeg: pip install 'kinemorph[app]')",
}
"""Video formats by suffix."""


@dataclass(frozen=True)
class RenderConfig:
    """How a video is made.

    Attributes:
        width: image width [px]; None: the format's default (MP4 640, GIF 320; with only the
            height given, 16:9).
        height: image height [px]; None: the format's default (MP4 360, GIF 180).
        fps: video frame rate [1/s]; frames are taken from the motion at this rate. None: the
            motion's own rate, at most 30 (MP4) or 15 (GIF).
        start: first time shown [s].
        duration: length shown [s]; None: to the end of the motion.
        follow: the camera follows the robot's root; otherwise it looks at the clip's centre.
        azimuth: camera azimuth [deg].
        elevation: camera elevation [deg] (negative: from above).
        distance: camera distance [m]; None: from the robot's height (and the clip's extent when
            not following).
        shadows: the sun casts shadows (off by default: in software OpenGL they cost about 2.5x
            the time of a frame).
        shadow_size: the shadow map's size [px] (its cost in software GL grows with its area).
        mesh_cell: the robot's meshes are drawn simplified by vertex clustering on a grid this
            fine [m] (0: every triangle; 0.006 keeps a sixth of G1's and renders about 4x faster).
    """

    width: int | None = None
    height: int | None = None
    fps: float | None = None
    start: float = 0.0
    duration: float | None = None
    follow: bool = True
    azimuth: float = 135.0
    elevation: float = -15.0
    distance: float | None = None
    shadows: bool = False
    shadow_size: int = 1024
    mesh_cell: float = 0.006

    def __post_init__(self) -> None:
        for side in (self.width, self.height):
            if side is not None and not 16 <= side <= 4096:
                raise ConfigError(f"video size must be 16..4096 px, got {self.width}x{self.height}")
        if not 64 <= self.shadow_size <= 8192:
            raise ConfigError(f"shadow_size must be 64..8192 px, got {self.shadow_size}")
        if not 0 <= self.mesh_cell <= 0.05:
            raise ConfigError(f"mesh_cell must be 0..0.05 m, got {self.mesh_cell}")
        if self.fps is not None and not 0 < self.fps <= 120:
            raise ConfigError(f"fps must be in (0, 120], got {self.fps}")
        if not self.start >= 0 or (self.duration is not None and not self.duration > 0):
            raise ConfigError("start must be >= 0 and duration > 0")
        if self.distance is not None and not self.distance > 0:
            raise ConfigError(f"distance must be positive, got {self.distance}")

    def size(self, suffix: str) -> tuple[int, int]:
        """(width, height) [px] for a video format (FORMAT_DEFAULTS fill what is not given)."""
        w0, h0, _ = FORMAT_DEFAULTS.get(suffix, FORMAT_DEFAULTS[".mp4"])
        if self.width is None and self.height is None:
            return w0, h0
        if self.width is None:
            h = int(self.height or h0)
            return max(16, 2 * round(h * 8 / 9)), h
        if self.height is None:
            return int(self.width), max(16, 2 * round(self.width * 9 / 32))
        return int(self.width), int(self.height)


@dataclass(frozen=True)
class RenderInfo:
    """What a render produced: the file, its frame count and rate, the backend and the time taken
    [s]; ``extra`` splits the time (seconds_setup, seconds_render: drawing and reading pixels,
    seconds_encode: handing frames to the encoder and finishing the file, seconds_encoder_cpu:
    the CPU time of the ffmpeg process, which runs beside the renderer); ``notes`` say what was
    left out (a GIF cut at GIF_MAX_SECONDS)."""

    path: Path
    frames: int
    fps: float
    backend: str
    seconds: float
    extra: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def frames_per_s(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else math.inf


def frame_indices(motion: RobotMotion, cfg: RenderConfig, suffix: str = ".mp4") -> tuple[np.ndarray, float]:
    """The motion frames shown (nearest to each video frame's time) and the video rate [1/s]; a
    GIF stops at GIF_MAX_SECONDS."""
    fps = float(cfg.fps or min(motion.fps, FORMAT_DEFAULTS.get(suffix, FORMAT_DEFAULTS[".mp4"])[2]))
    end = motion.num_frames / motion.fps if cfg.duration is None else cfg.start + cfg.duration
    end = min(end, motion.num_frames / motion.fps)
    if suffix == ".gif":
        end = min(end, cfg.start + GIF_MAX_SECONDS)
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


def _mp4_writer(path: Path, fps: float, size: tuple[int, int]) -> Any:
    """An imageio-ffmpeg generator taking bottom-up RGB frames (as OpenGL reads them: ffmpeg
    flips them, which saves a copy per frame here)."""
    try:
        import imageio_ffmpeg
    except ImportError:
        raise RenderError("MP4 output needs imageio-ffmpeg: pip install 'kinemorph[app]' (or write a .gif)") from None
    writer = imageio_ffmpeg.write_frames(
        str(path), size, fps=fps, codec="libx264", pix_fmt_out="yuv420p", macro_block_size=1,
        output_params=["-vf", "vflip", "-preset", X264_PRESET, "-crf", "26", "-f", "mp4"],
        ffmpeg_log_level="error",
    )  # fmt: skip
    writer.send(None)
    return writer


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
    idx, fps = frame_indices(motion, cfg, suffix)
    notes = _cut_note(motion, cfg, suffix, len(idx), fps)
    width, height = cfg.size(suffix)
    t0 = time.perf_counter()
    backend = gl_backend()
    model = render_model(
        robot, width, height, shadows=cfg.shadows, shadow_size=cfg.shadow_size, mesh_cell=cfg.mesh_cell
    )
    qpos = motion.qpos[idx]
    stature = float(np.ptp(robot.fk(robot.rest_qpos()).positions[0, 1:, 2])) or 1.0
    look = camera_targets(motion.root_pos[idx], fps, follow=cfg.follow, smoothing=0.5, height=0.55 * stature)
    distance = cfg.distance or 2.2 * stature + (0.0 if cfg.follow else 0.6 * float(np.ptp(motion.root_pos[:, :2])))
    camera = Camera(cfg.azimuth, cfg.elevation, distance, cfg.follow)
    seconds_setup = time.perf_counter() - t0
    t_render = t_encode = 0.0
    cpu0 = _children_cpu()
    with FrameRenderer(model, width, height) as renderer, atomic_path(p, force=force) as tmp:
        gif = suffix == ".gif"
        writer = GifWriter(tmp, fps) if gif else _mp4_writer(tmp, fps, (width, height))
        try:
            for k, i in enumerate(idx):
                t1 = time.perf_counter()
                image = renderer.render(qpos[k], look[k], camera, None if points is None else points[i], flip=gif)
                t2 = time.perf_counter()
                writer.send(image)
                t_render, t_encode = t_render + t2 - t1, t_encode + time.perf_counter() - t2
                report(progress, k + 1, len(idx))
        finally:
            t1 = time.perf_counter()
            writer.close()
            t_encode += time.perf_counter() - t1
    seconds = time.perf_counter() - t0
    extra = {"seconds_setup": seconds_setup, "seconds_render": t_render, "seconds_encode": t_encode,
             "seconds_encoder_cpu": _children_cpu() - cpu0}  # fmt: skip
    return RenderInfo(p, len(idx), fps, backend, seconds, extra, notes)


def _children_cpu() -> float:
    """CPU time [s] of this process's finished child processes (the ffmpeg encoder)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _cut_note(motion: RobotMotion, cfg: RenderConfig, suffix: str, frames: int, fps: float) -> tuple[str, ...]:
    end = (
        motion.num_frames / motion.fps
        if cfg.duration is None
        else min(cfg.start + cfg.duration, motion.num_frames / motion.fps)
    )
    if suffix == ".gif" and end - cfg.start > GIF_MAX_SECONDS + 1e-9:
        return (
            f"a GIF holds at most {GIF_MAX_SECONDS:g} s: {frames / fps:g} s of {end - cfg.start:g} s written "
            "(write an .mp4 for the whole clip, or choose --start and --duration)",
        )
    return ()


def _overlay(motion: RobotMotion, overlay: np.ndarray | bool) -> np.ndarray | None:
    if overlay is True:
        return None if motion.keypoints is None else motion.keypoints.positions
    if overlay is False:
        return None
    pts = np.asarray(overlay, dtype=np.float64)
    if pts.ndim != 3 or pts.shape[0] != motion.num_frames or pts.shape[2] != 3:
        raise RenderError(f"overlay points must have shape ({motion.num_frames}, K, 3), got {pts.shape}")
    return pts
