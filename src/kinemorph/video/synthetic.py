"""BlazePose landmarks made from a LAFAN1-rigged clip, as a filmed person would give them.

What a perfect detector would report for the clip's subject seen by a level pinhole camera: world
landmarks (the markers of :mod:`~kinemorph.video.blazepose` on the clip's own joints, hip-centred,
in the camera's axes) and normalised image landmarks (the markers projected into the image), with
optional Gaussian noise. Tests, benchmarks and the README's figures use it; real footage goes
through :mod:`~kinemorph.video.detect`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..motion.motion import Motion
from .blazepose import INDEX, MP_TO_WORLD, marker_positions
from .landmarks import LandmarkClip


@dataclass(frozen=True)
class Camera:
    """A pinhole camera (level unless ``pitch`` tilts it).

    Attributes:
        position: optical centre in the Z-up world [m], or None: 3 m in front of the clip's area,
            at 1.2 m height, looking along ``yaw``.
        yaw: heading of the viewing direction about +z [rad] (0: looking along +y).
        pitch: downward tilt of the viewing direction [rad] (0: level).
        hfov_deg: horizontal field of view [deg].
        size: image (width, height) [px].
    """

    position: tuple[float, float, float] | None = None
    yaw: float = 0.0
    pitch: float = 0.0
    hfov_deg: float = 60.0
    size: tuple[int, int] = (1280, 720)

    @property
    def focal(self) -> float:
        """Focal length [px]."""
        return 0.5 * self.size[0] / np.tan(0.5 * np.radians(self.hfov_deg))

    def axes(self) -> np.ndarray:
        """Camera axes (x right, y down, z forward, MediaPipe's) as columns in the world. (3, 3)."""
        c, s = np.cos(self.yaw), np.sin(self.yaw)
        yaw = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        cp, sp = np.cos(self.pitch), np.sin(self.pitch)
        tilt = np.array([[1.0, 0.0, 0.0], [0.0, cp, sp], [0.0, -sp, cp]])  # about x by -pitch
        return yaw @ tilt @ MP_TO_WORLD


def _placed(camera: Camera, pts: np.ndarray) -> np.ndarray:
    if camera.position is not None:
        return np.asarray(camera.position, dtype=float)
    fwd = camera.axes()[:, 2]
    along = pts.reshape(-1, 3) @ fwd
    centre = pts.reshape(-1, 3).mean(axis=0)
    centre = centre - (centre @ fwd) * fwd  # on the line through the area's centre
    pos = centre + (along.min() - 3.0) * fwd
    return np.array([pos[0], pos[1], 1.2])


def synthetic_landmarks(
    motion: Motion, *, noise: float = 0.0, seed: int = 0, camera: Camera | None = None, image: bool = True
) -> LandmarkClip:
    """Landmarks of a LAFAN1-rigged clip seen by ``camera`` (default Camera()).

    Args:
        motion: a clip with LAFAN1 joint names (any proportions).
        noise: standard deviation of Gaussian noise on every world coordinate [m]; image landmarks
            get the same noise seen at the subject's distance.
        seed: seed of the noise.
        camera: the camera; the world landmarks' axes are its axes.
        image: also make image landmarks (from which the solver takes the root's travel).
    """
    if noise < 0:
        raise ConfigError(f"noise must be >= 0 [m], got {noise}")
    cam = camera or Camera()
    pts = marker_positions(motion)
    hip = 0.5 * (pts[:, INDEX["left_hip"]] + pts[:, INDEX["right_hip"]])
    axes = cam.axes()
    rng = np.random.default_rng(seed)
    world = (pts - hip[:, None]) @ axes
    if noise > 0:
        world = world + rng.normal(0.0, noise, world.shape)
    image_lm = None
    if image:
        rel = (pts - _placed(cam, pts)) @ axes  # camera coordinates [m]
        if (rel[..., 2] <= 0.1).any():
            raise ConfigError("the clip passes behind or through the camera; place it further away")
        if noise > 0:
            rel = rel + rng.normal(0.0, noise, rel.shape)
        w, h = cam.size
        f = cam.focal
        depth = rel[..., 2]
        hip_depth = 0.5 * (depth[:, INDEX["left_hip"]] + depth[:, INDEX["right_hip"]])
        image_lm = np.stack(
            [
                0.5 + f * rel[..., 0] / depth / w,
                0.5 + f * rel[..., 1] / depth / h,
                f * (depth - hip_depth[:, None]) / hip_depth[:, None] / w,
            ],
            axis=-1,
        )
    return LandmarkClip(
        landmarks=world,
        visibility=np.ones(world.shape[:2]),
        fps=motion.fps,
        image_landmarks=image_lm,
        image_size=cam.size if image else None,
        source=f"synthetic({motion.source})",
    )


__all__ = ["Camera", "synthetic_landmarks"]
