"""Function curves of a gait sample: cubic splines over a normalised interval, and a table that
evaluates many of them at once.

A curve is given by knots (u, value) where u in [0, 1] is the position within the curve's own
interval (0: its start, 1: its end), so that editing a sample's timing does not move its knots.
Three kinds, by what the curve describes:

- ``cycle``: over the whole two-step cycle, periodic (value and slope at u = 1 equal those at
  u = 0, so the motion is C1 where cycles join). The first knot is at u = 0.
- ``swing``: over a foot's swing, clamped to zero value and zero slope at both ends, so that the
  swing starts and ends at the nominal (flat-foot) lift-off and touch-down poses. Knots lie inside
  (0, 1); knots at the ends are allowed only with value 0.
- ``pitch``: heel and toe pitch over a swing. Their values at the ends are the pitches at lift-off
  and touch-down (the planner carries them into the stance), so they are not clamped; a monotone
  cubic (PCHIP) never overshoots its knots, so the pitch stays in its allowed range. Before the
  first and after the last knot the value is held.

Every curve becomes a piecewise cubic on [0, 1]; :class:`CurveTable` stacks many and evaluates
them all with a few numpy operations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.interpolate import CubicSpline, PchipInterpolator

CURVE_KINDS = ("cycle", "swing", "pitch")


def _constant(value: float) -> tuple[np.ndarray, np.ndarray]:
    return np.array([0.0, 1.0]), np.array([[0.0], [0.0], [0.0], [value]])


@dataclass(frozen=True)
class Curve:
    """A function curve: knots (u, value) over its interval, u in [0, 1].

    Attributes:
        kind: "cycle", "swing" or "pitch" (see the module docstring).
        knots: (u, value) pairs, u strictly increasing. Shape: (K, 2). An empty curve is zero.
    """

    kind: str
    knots: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    def pieces(self) -> tuple[np.ndarray, np.ndarray]:
        """Breakpoints (P + 1,) on [0, 1] and cubic coefficients (4, P), highest power first,
        in the local variable u - breakpoint (scipy's PPoly layout)."""
        k = np.asarray(self.knots, dtype=np.float64).reshape(-1, 2)
        u, y = k[:, 0], k[:, 1]
        if self.kind == "cycle":
            if len(u) == 0:
                return _constant(0.0)
            if len(u) == 1:
                return _constant(float(y[0]))
            s = CubicSpline(np.append(u, 1.0), np.append(y, y[0]), bc_type="periodic")
        elif self.kind == "swing":
            inner = (u > 0.0) & (u < 1.0)
            if not inner.any():
                return _constant(0.0)
            s = CubicSpline(
                np.concatenate([[0.0], u[inner], [1.0]]),
                np.concatenate([[0.0], y[inner], [0.0]]),
                bc_type="clamped",
            )
        elif self.kind == "pitch":
            if len(u) == 0:
                return _constant(0.0)
            if len(u) == 1:
                return _constant(float(y[0]))
            if u[0] > 0.0:
                u, y = np.append(0.0, u), np.append(y[0], y)
            if u[-1] < 1.0:
                u, y = np.append(u, 1.0), np.append(y, y[-1])
            s = PchipInterpolator(u, y)
        else:
            raise ValueError(f"unknown curve kind {self.kind!r}; valid: {', '.join(CURVE_KINDS)}")
        return np.asarray(s.x, dtype=np.float64), np.asarray(s.c, dtype=np.float64)

    def __call__(self, u: np.ndarray | float) -> np.ndarray:
        """Value at u (clipped to [0, 1])."""
        return CurveTable([self]).evaluate(np.asarray(u, dtype=np.float64)[..., None])[..., 0]


class CurveTable:
    """Many curves as one padded table of cubic pieces, evaluated together.

    ``evaluate(u)`` takes u of shape (..., C), one position per curve, and returns (..., C).
    """

    def __init__(self, curves: list[Curve]) -> None:
        pieces = [c.pieces() for c in curves]
        n = max(len(x) - 1 for x, _ in pieces) if pieces else 1
        self.num_curves = len(pieces)
        self.inner = np.full((self.num_curves, max(n - 1, 1)), np.inf)  # interior breakpoints
        self.start = np.zeros((self.num_curves, n))  # left breakpoint of each piece
        self.coef = np.zeros((4, self.num_curves, n))
        for i, (x, c) in enumerate(pieces):
            p = len(x) - 1
            self.inner[i, : p - 1] = x[1:-1]
            self.start[i, :p] = x[:-1]
            self.coef[:, i, :p] = c
        self._pieces = n
        self._row = np.arange(self.num_curves) * n

    def evaluate(self, u: np.ndarray) -> np.ndarray:
        """Values of every curve at its own u (clipped to [0, 1]). u: (..., C) -> (..., C)."""
        u = np.clip(u, 0.0, 1.0)
        idx = (u[..., None] >= self.inner).sum(axis=-1)
        flat = self._row + idx
        d = u - self.start.ravel()[flat]
        c = self.coef.reshape(4, -1)
        return ((c[0][flat] * d + c[1][flat]) * d + c[2][flat]) * d + c[3][flat]
