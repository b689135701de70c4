"""Signal filters shared by the engines."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter1d


def low_pass(x: np.ndarray, fps: float, cutoff_hz: float) -> np.ndarray:
    """Zero-phase low-pass along axis 0: a Gaussian whose -3 dB frequency is cutoff_hz [Hz]
    (sigma = 0.1325 / cutoff seconds), no phase lag. The ends are extended by odd reflection
    (as filtfilt does), so a steady motion keeps its speed up to the last frame; clips of any
    length work. cutoff_hz <= 0 returns x unchanged."""
    x = np.asarray(x, dtype=float)
    n = x.shape[0]
    if cutoff_hz <= 0 or n < 2:
        return x.copy()
    sigma = 0.1325 / cutoff_hz * fps
    pad = min(n - 1, int(np.ceil(4 * sigma)))
    head = 2 * x[:1] - x[pad:0:-1]
    tail = 2 * x[-1:] - x[-2 : -pad - 2 : -1]
    padded = np.concatenate([head, x, tail], axis=0)
    return gaussian_filter1d(padded, sigma, axis=0, mode="nearest")[pad : pad + n]
