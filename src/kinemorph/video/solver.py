"""Landmarks to a LAFAN1 motion: visibility weighting, One-Euro smoothing, bone aiming, joint
limits, root height and travel. The result loads, retargets and saves like any LAFAN1 clip."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError
from ..motion.motion import Motion
from .blazepose import MP_TO_WORLD, NUM_LANDMARKS
from .fit import fit_globals, local_rotations
from .landmarks import LandmarkClip
from .limits import LIMITS, refill, spread_to_limbs, violations
from .one_euro import OneEuroConfig, one_euro
from .rig import motion_from_local, rig, with_derived
from .root import image_travel, level_rotation, root_height

TRAVEL = ("auto", "image", "in_place")


@dataclass(frozen=True)
class SolverConfig:
    """Options of the landmark solver.

    Attributes:
        fps: output frame rate [1/s]: the landmarks are resampled to it; None keeps the clip's
            (needed when the clip has none).
        smoothing: One-Euro filter on the landmarks (zero-lag by default: the solver runs offline).
        visibility_low: a landmark below this visibility is ignored in that frame and filled from
            the frames around it.
        visibility_high: at or above it a landmark has full weight; in between it is blended with
            the fill.
        joint_limits: reject poses outside human ranges (limits.LIMITS) and refill them.
        travel: "auto" (from the image landmarks when the clip has them, else in place), "image",
            "in_place".
        camera_hfov_deg: assumed horizontal field of view of the camera [deg], for the travel.
        level: turn the clip so that the person's median body axis (ankles to shoulders) is vertical,
            for a camera that was tilted; only for clips where the person is mostly upright.
        travel_cutoff_hz: low-pass cutoff of the root's travel [Hz].
    """

    fps: float | None = None
    smoothing: OneEuroConfig = field(default_factory=OneEuroConfig)
    visibility_low: float = 0.3
    visibility_high: float = 0.7
    joint_limits: bool = True
    travel: str = "auto"
    camera_hfov_deg: float = 60.0
    travel_cutoff_hz: float = 1.0
    level: bool = False

    def __post_init__(self) -> None:
        if self.fps is not None and not (np.isfinite(self.fps) and 0 < self.fps <= 1000):
            raise ConfigError(f"fps must be in (0, 1000] [1/s], got {self.fps!r}")
        if not (0.0 <= self.visibility_low < self.visibility_high <= 1.0):
            raise ConfigError(
                f"need 0 <= visibility_low < visibility_high <= 1, got {self.visibility_low}, {self.visibility_high}"
            )
        if self.travel not in TRAVEL:
            raise ConfigError(f"travel must be one of {', '.join(TRAVEL)}, got {self.travel!r}")
        if not (10.0 <= self.camera_hfov_deg <= 170.0):
            raise ConfigError(f"camera_hfov_deg must be in [10, 170], got {self.camera_hfov_deg!r}")
        if not self.travel_cutoff_hz > 0:
            raise ConfigError(f"travel_cutoff_hz must be positive [Hz], got {self.travel_cutoff_hz!r}")


@dataclass(frozen=True)
class FitReport:
    """What the solver did.

    Attributes:
        frames: output frames.
        fps: output frame rate [1/s].
        detected: input frames where the person was detected.
        filled: input frames without a detection, filled from their neighbours.
        low_visibility: (frame, landmark) pairs under visibility_low, filled from their neighbours.
        rejected: per joint, frames outside the joint limits (refilled from their neighbours).
        rejected_frames: frames with at least one rejected joint.
        travel: "image" or "in place".
        notes: remarks for the user (e.g. why the root stays in place).
        seconds: solver time [s].
    """

    frames: int
    fps: float
    detected: int
    filled: int
    low_visibility: int
    rejected: dict[str, int]
    rejected_frames: int
    travel: str
    notes: tuple[str, ...]
    seconds: float

    def summary(self) -> str:
        """One line for the user."""
        worst = sorted(self.rejected.items(), key=lambda kv: -kv[1])[:3]
        rej = ", ".join(f"{k} {v}" for k, v in worst if v) or "none"
        return (
            f"{self.frames} frames at {self.fps:g} fps; person detected in {self.detected}, "
            f"{self.filled} filled from neighbours; {self.low_visibility} low-visibility landmarks filled; "
            f"{self.rejected_frames} frames outside joint limits (refilled; {rej}); root travel: {self.travel}"
        )


@dataclass(frozen=True)
class VideoFit:
    """A fitted clip: the LAFAN1 motion, the report, and the landmarks it came from (resampled)."""

    motion: Motion
    report: FitReport
    landmarks: LandmarkClip


def resample(clip: LandmarkClip, fps_in: float, fps_out: float) -> LandmarkClip:
    """The clip linearly resampled from fps_in to fps_out [1/s] (detection flags: nearest frame)."""
    n_out = max(round((clip.num_frames - 1) * fps_out / fps_in) + 1, 1)
    t_in = np.arange(clip.num_frames) / fps_in
    t_out = np.minimum(np.arange(n_out) / fps_out, t_in[-1])

    def lin(a: np.ndarray) -> np.ndarray:
        flat = a.reshape(a.shape[0], -1)
        return np.stack([np.interp(t_out, t_in, flat[:, c]) for c in range(flat.shape[1])], -1).reshape(
            (n_out, *a.shape[1:])
        )

    near = np.clip(np.round(t_out * fps_in).astype(int), 0, clip.num_frames - 1)
    return LandmarkClip(
        landmarks=lin(clip.landmarks),
        visibility=np.clip(lin(clip.visibility), 0.0, 1.0),
        fps=fps_out,
        image_landmarks=None if clip.image_landmarks is None else lin(clip.image_landmarks),
        image_size=clip.image_size,
        detected=None if clip.detected is None else clip.detected[near],
        source=clip.source,
    )


def weighted_fill(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Blend each landmark (T, K, 3) with its interpolation from the frames where its weight (T, K)
    in [0, 1] is full: x' = w x + (1 - w) interp. A landmark with no full-weight frame is kept."""
    out = x.copy()
    t = np.arange(x.shape[0])
    for k in np.nonzero((weight < 1.0).any(axis=0))[0]:
        good = weight[:, k] >= 1.0
        if not good.any():
            continue
        w = weight[:, k, None]
        fill = np.stack([np.interp(t, t[good], x[good, k, c]) for c in range(3)], axis=-1)
        out[:, k] = w * x[:, k] + (1.0 - w) * fill
    return out


def solve_landmarks(clip: LandmarkClip, *, config: SolverConfig | None = None) -> VideoFit:
    """Fit the LAFAN1 skeleton to BlazePose landmarks.

    Raises ConfigError when neither the clip nor the config gives a frame rate, or when travel
    "image" is asked of a clip without image landmarks.
    """
    cfg = config or SolverConfig()
    start = time.perf_counter()
    fps_in = clip.fps if clip.fps is not None else cfg.fps
    if fps_in is None:
        raise ConfigError(f"{clip.source}: the landmarks carry no fps; give the frame rate (CLI: --fps)")
    detected = clip.num_detected
    filled = clip.num_frames - detected
    if cfg.fps is not None and clip.fps is not None and abs(cfg.fps - clip.fps) > 1e-9:
        clip = resample(clip, clip.fps, cfg.fps)
    fps = float(cfg.fps if cfg.fps is not None else fps_in)

    span = cfg.visibility_high - cfg.visibility_low
    weight = np.clip((clip.visibility - cfg.visibility_low) / span, 0.0, 1.0)
    if clip.detected is not None:
        weight[~clip.detected] = 0.0
    low = int(np.count_nonzero(weight == 0.0)) - (clip.num_frames - clip.num_detected) * NUM_LANDMARKS
    lm = one_euro(weighted_fill(clip.landmarks, weight), fps, cfg.smoothing)

    world = lm @ MP_TO_WORLD.T
    tilt = level_rotation(world) if cfg.level else None
    if tilt is not None:
        world = world @ tilt.T
    local = local_rotations(fit_globals(with_derived(world)))
    rejected = {lim.joint: 0 for lim in LIMITS}
    rejected_frames = 0
    if cfg.joint_limits:
        bad = violations(local)
        local = refill(local, spread_to_limbs(bad))
        names = rig().skeleton.names
        rejected = {lim.joint: int(bad[:, names.index(lim.joint)].sum()) for lim in LIMITS}
        rejected_frames = int(bad.any(axis=1).sum())

    root = np.zeros((clip.num_frames, 3))
    root[:, 2] = root_height(local, fps)
    notes: list[str] = []
    if tilt is not None:
        angle = np.degrees(np.arccos(np.clip(tilt[2, 2], -1.0, 1.0)))
        notes.append(f"levelled: the clip was turned by {angle:.1f} deg to make the body axis vertical")
    use_image = cfg.travel == "image" or (cfg.travel == "auto" and clip.image_landmarks is not None)
    if use_image:
        if clip.image_landmarks is None or clip.image_size is None:
            raise ConfigError(f"{clip.source}: travel 'image' needs image landmarks, and the clip has none")
        root[:, :2] = image_travel(
            lm,
            clip.image_landmarks,
            clip.image_size,
            weight,
            fps,
            hfov_deg=cfg.camera_hfov_deg,
            cutoff_hz=cfg.travel_cutoff_hz,
            rotation=tilt,
        )
        notes.append(f"root travel from the image, assuming a {cfg.camera_hfov_deg:g} deg horizontal field of view")
    else:
        why = "as asked" if cfg.travel == "in_place" else "the landmarks carry no image positions"
        notes.append(f"root stays in place ({why}); its height follows the legs and the floor")
    motion = motion_from_local(local, root, fps, source=clip.source)
    report = FitReport(
        frames=clip.num_frames,
        fps=fps,
        detected=detected,
        filled=filled,
        low_visibility=max(low, 0),
        rejected=rejected,
        rejected_frames=rejected_frames,
        travel="image" if use_image else "in place",
        notes=tuple(notes),
        seconds=time.perf_counter() - start,
    )
    return VideoFit(motion=motion, report=report, landmarks=clip)


__all__ = ["TRAVEL", "FitReport", "SolverConfig", "VideoFit", "resample", "solve_landmarks", "weighted_fill"]
