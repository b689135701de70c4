"""The One-Euro filter (Casiez, Roussel and Vogel, "1€ Filter: A Simple Speed-based Low-pass Filter
for Noisy Input in Interactive Systems", CHI 2012), vectorised over channels.

Each channel is an exponential low-pass whose cutoff rises with the signal's (low-passed) speed:
cutoff = min_cutoff + beta * |dx/dt|. Slow signals are smoothed hard (little jitter), fast ones
lightly (little lag). For offline use, ``zero_lag`` runs the filter forward and then backward over
the forward result, which cancels the phase lag of the forward pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError


@dataclass(frozen=True)
class OneEuroConfig:
    """Parameters of the One-Euro filter.

    The defaults were chosen on LAFAN1 walking and dancing with 1 cm landmark noise (README, "Video").

    Attributes:
        min_cutoff: cutoff at rest [Hz]; lower removes more jitter from slow motion.
        beta: speed coefficient [1/unit of the signal]; higher follows fast motion with less lag.
        d_cutoff: cutoff of the speed estimate [Hz].
        zero_lag: forward then backward pass (offline use): no lag, twice the smoothing.
        enabled: False passes the signal through unchanged.
    """

    min_cutoff: float = 2.0
    beta: float = 2.0
    d_cutoff: float = 1.0
    zero_lag: bool = True
    enabled: bool = True

    def __post_init__(self) -> None:
        for name in ("min_cutoff", "d_cutoff"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v > 0):
                raise ConfigError(f"One-Euro {name} must be a positive number [Hz], got {v!r}")
        if not (np.isfinite(self.beta) and self.beta >= 0):
            raise ConfigError(f"One-Euro beta must be a non-negative number, got {self.beta!r}")


def _alpha(cutoff: np.ndarray | float, dt: float) -> np.ndarray:
    tau = 1.0 / (2.0 * np.pi * np.asarray(cutoff))
    return 1.0 / (1.0 + tau / dt)


def _forward(x: np.ndarray, dt: float, cfg: OneEuroConfig) -> np.ndarray:
    out = np.empty_like(x)
    prev = x[0].copy()
    dprev = np.zeros_like(prev)
    a_d = float(_alpha(cfg.d_cutoff, dt))
    out[0] = prev
    for t in range(1, x.shape[0]):
        dx = (x[t] - prev) / dt
        dprev = dprev + a_d * (dx - dprev)
        a = _alpha(cfg.min_cutoff + cfg.beta * np.abs(dprev), dt)
        prev = prev + a * (x[t] - prev)
        out[t] = prev
    return out


def one_euro(x: np.ndarray, fps: float, config: OneEuroConfig | None = None) -> np.ndarray:
    """Filter x along axis 0 (frames); every other axis is an independent channel.

    Args:
        x: samples. Shape: (T, ...).
        fps: sample rate [1/s].
        config: filter parameters (default OneEuroConfig()).

    Returns:
        The filtered signal, same shape as x.
    """
    cfg = config or OneEuroConfig()
    x = np.asarray(x, dtype=np.float64)
    if not cfg.enabled or x.shape[0] < 2:
        return x.copy()
    if not (np.isfinite(fps) and fps > 0):
        raise ConfigError(f"fps must be positive, got {fps!r}")
    dt = 1.0 / fps
    flat = x.reshape(x.shape[0], -1)
    y = _forward(flat, dt, cfg)
    if cfg.zero_lag:
        y = _forward(y[::-1], dt, cfg)[::-1]
    return y.reshape(x.shape)


__all__ = ["OneEuroConfig", "one_euro"]
