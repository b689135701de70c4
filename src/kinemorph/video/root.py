"""Where the root is: height from the legs and the floor, travel from the image.

World landmarks are hip-centred, so they say nothing about where the person is. The height comes
from the fitted legs: in every frame the lowest foot point (heel or toe tip) rests on the floor.
The travel comes from the image landmarks: world landmarks are in the camera's axes, so the hips'
position in camera coordinates is the translation that projects them onto their image positions
through a pinhole of the assumed field of view (a linear least-squares problem per frame). The
path is low-passed, since the depth, which rests on the body's apparent size, is noisy.
"""

from __future__ import annotations

import numpy as np

from ..filters import low_pass
from .blazepose import INDEX, MP_TO_WORLD, marker_positions
from .rig import FOOT_POINTS, motion_from_local, rig


def root_height(local_rot: np.ndarray, fps: float) -> np.ndarray:
    """Root height [m] per frame that puts the lowest foot point on the floor z = 0. Shape: (T,)."""
    m = motion_from_local(local_rot, np.zeros((local_rot.shape[0], 3)), fps, source="<fit>")
    feet = marker_positions(m)[:, [INDEX[n] for n in FOOT_POINTS], 2]
    return rig().floor_height - feet.min(axis=1)


def level_rotation(points: np.ndarray) -> np.ndarray:
    """Rotation (3, 3) that makes the clip's median body axis vertical: the smallest turn taking the
    median direction from the ankles' mid-point to the shoulders' mid-point onto +z. Points: the
    33 landmarks (T, 33, 3) in the Z-up world. For a tilted camera and a mostly upright person."""
    ankles = 0.5 * (points[:, INDEX["left_ankle"]] + points[:, INDEX["right_ankle"]])
    shoulders = 0.5 * (points[:, INDEX["left_shoulder"]] + points[:, INDEX["right_shoulder"]])
    axis = shoulders - ankles
    up = np.median(axis / np.linalg.norm(axis, axis=1, keepdims=True), axis=0)
    up /= np.linalg.norm(up)
    z = np.array([0.0, 0.0, 1.0])
    v, c = np.cross(up, z), float(up @ z)
    if c < -0.999:  # upside down: half a turn about x
        return np.diag([1.0, -1.0, -1.0])
    vx = np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    return np.eye(3) + vx + vx @ vx / (1.0 + c)  # Rodrigues for the turn from up to z


def image_travel(
    world: np.ndarray,
    image: np.ndarray,
    size: tuple[int, int],
    weight: np.ndarray,
    fps: float,
    *,
    hfov_deg: float,
    cutoff_hz: float,
    rotation: np.ndarray | None = None,
) -> np.ndarray:
    """Horizontal root path [m] in the Z-up world (the camera's axes), starting at the origin.

    Args:
        world: world landmarks [m], MediaPipe axes. Shape: (T, 33, 3).
        image: normalised image landmarks. Shape: (T, 33, 3).
        size: image (width, height) [px].
        weight: per-landmark weight (visibility). Shape: (T, 33).
        fps: frame rate [1/s].
        hfov_deg: the camera's assumed horizontal field of view [deg].
        cutoff_hz: low-pass cutoff of the path [Hz].
        rotation: leveling rotation (3, 3) applied to the camera's Z-up axes first, or None.

    Returns:
        Shape: (T, 2).
    """
    w_px, h_px = size
    f = 0.5 * w_px / np.tan(0.5 * np.radians(hfov_deg))
    d = image[..., :2] * np.array([w_px, h_px], dtype=float) - 0.5 * np.array([w_px, h_px], dtype=float)
    x, y, z = world[..., 0], world[..., 1], world[..., 2]
    # pinhole: d = f (p + t)_xy / (p + t)_z for every landmark p, linear in the hips' position t
    zero = np.zeros_like(x)
    rows = np.stack(
        [
            np.stack([np.full_like(x, f), zero, -d[..., 0]], axis=-1),
            np.stack([zero, np.full_like(x, f), -d[..., 1]], axis=-1),
        ],
        axis=-2,
    )  # (T, 33, 2, 3)
    rhs = np.stack([d[..., 0] * z - f * x, d[..., 1] * z - f * y], axis=-1)  # (T, 33, 2)
    wt = np.maximum(weight, 1e-6)[..., None, None]
    normal = np.einsum("tkai,tkaj->tij", wt * rows, rows) + np.eye(3) * (1e-9 * f * f)  # never singular
    cam = np.linalg.solve(normal, np.einsum("tkai,tka->ti", wt * rows, rhs)[..., None])[..., 0]  # hips, camera
    path = cam @ MP_TO_WORLD.T
    if rotation is not None:
        path = path @ rotation.T
    path = path[:, :2]
    path = low_pass(path, fps, cutoff_hz)
    return path - path[:1]


__all__ = ["image_travel", "level_rotation", "root_height"]
