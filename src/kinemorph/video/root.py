"""Where the root is: height from the legs and the floor, travel from the image.

World landmarks are hip-centred, so they say nothing about where the person is. The height comes
from the fitted legs: in every frame the lowest foot point (heel or toe tip) rests on the floor.
The travel comes from the image landmarks under a weak-perspective camera: the image spread of the
body against its metric spread gives f / depth per frame, and the hips' image position then gives
the lateral offset; both are low-passed, since the depth from scale is noisy.
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


def image_travel(
    world: np.ndarray,
    image: np.ndarray,
    size: tuple[int, int],
    weight: np.ndarray,
    fps: float,
    *,
    hfov_deg: float,
    cutoff_hz: float,
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

    Returns:
        Shape: (T, 2).
    """
    w_px, h_px = size
    f = 0.5 * w_px / np.tan(0.5 * np.radians(hfov_deg))
    px = image[..., :2] * np.array([w_px, h_px], dtype=float)
    wt = np.maximum(weight, 1e-6)[..., None]
    mean_px = (wt * px).sum(axis=1, keepdims=True) / wt.sum(axis=1, keepdims=True)
    mean_xy = (wt * world[..., :2]).sum(axis=1, keepdims=True) / wt.sum(axis=1, keepdims=True)
    dp, dx = px - mean_px, world[..., :2] - mean_xy
    k = (wt[..., 0] * (dp * dx).sum(-1)).sum(1) / np.maximum((wt[..., 0] * (dx * dx).sum(-1)).sum(1), 1e-9)
    depth = f / np.maximum(k, 1e-6)  # [m]
    hip_px = 0.5 * (px[:, INDEX["left_hip"]] + px[:, INDEX["right_hip"]])
    cam = np.concatenate(
        [(hip_px - 0.5 * np.array([w_px, h_px], dtype=float)) * (depth / f)[:, None], depth[:, None]], axis=1
    )
    path = (cam @ MP_TO_WORLD.T)[:, :2]
    path = low_pass(path, fps, cutoff_hz)
    return path - path[:1]


__all__ = ["image_travel", "root_height"]
