"""The phase map: a monotone cubic from a common gait phase to each cycle's own time.

Omega(phi) passes through (0, t_LLO = 0), (0.1, t_LTD), (0.5, t_RLO), (0.6, t_RTD), (1, T), so a
contact event sits at the same phase in every cycle; a time t_A of cycle A corresponds to
t_B = Omega_B(Omega_A^-1(t_A)) in cycle B, which maps contact events onto contact events.
The cubic is the Fritsch-Carlson monotone interpolant with scipy's PchipInterpolator slopes
(same values to rounding; checked in the tests), written out so that it evaluates for many
cycles at once.

``timing`` arrays hold [t_LTD, t_RLO, t_RTD, T] in their last axis (style.Timing.as_array).
"""

from __future__ import annotations

import numpy as np

PHASE_KNOTS = np.array([0.0, 0.1, 0.5, 0.6, 1.0])
"""Phases of left lift-off, left touch-down, right lift-off, right touch-down and cycle end."""

_KNOTS = (0.0, 0.1, 0.5, 0.6, 1.0)
PHASE_LEFT_TOUCHDOWN, PHASE_RIGHT_LIFTOFF, PHASE_RIGHT_TOUCHDOWN = 0.1, 0.5, 0.6


def _slopes(t: np.ndarray) -> np.ndarray:
    """PCHIP slopes at the five knots for knot values t (..., 5)."""
    h = np.diff(PHASE_KNOTS)  # (4,)
    delta = np.diff(t, axis=-1) / h  # (..., 4) all > 0 for ordered events
    d = np.zeros(t.shape)
    w1 = 2 * h[1:] + h[:-1]
    w2 = h[1:] + 2 * h[:-1]
    d[..., 1:-1] = (w1 + w2) / (w1 / delta[..., :-1] + w2 / delta[..., 1:])
    for end, (h0, h1, d0, d1) in (
        (0, (h[0], h[1], delta[..., 0], delta[..., 1])),
        (-1, (h[-1], h[-2], delta[..., -1], delta[..., -2])),
    ):
        e = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
        e = np.where(np.sign(e) != np.sign(d0), 0.0, e)
        e = np.where((np.sign(d0) != np.sign(d1)) & (np.abs(e) > 3 * np.abs(d0)), 3 * d0, e)
        d[..., end] = e
    return d


def segment_coefficients(timing: np.ndarray) -> np.ndarray:
    """Omega per knot segment as a + b s + c s^2 + e s^3, s in [0, 1] the position within the
    segment. timing (..., 4) -> (..., 4 segments, 4 coefficients [a, b, c, e])."""
    t = knot_times(timing)
    h = np.diff(PHASE_KNOTS)
    d = _slopes(t)
    t0, t1 = t[..., :-1], t[..., 1:]
    m0, m1 = d[..., :-1] * h, d[..., 1:] * h
    return np.stack([t0, m0, 3 * (t1 - t0) - 2 * m0 - m1, 2 * (t0 - t1) + m0 + m1], axis=-1)


def segment_of(phase: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knot segment index (0..3) and position s in [0, 1] within it, of phase(s) in [0, 1]."""
    k = _segment(np.asarray(phase, dtype=np.float64))
    return k, (phase - PHASE_KNOTS[k]) / np.diff(PHASE_KNOTS)[k]


def knot_times(timing: np.ndarray) -> np.ndarray:
    """Times of the five phase knots: [0, t_LTD, t_RLO, t_RTD, T]. (..., 4) -> (..., 5)."""
    timing = np.asarray(timing, dtype=np.float64)
    return np.concatenate([np.zeros((*timing.shape[:-1], 1)), timing], axis=-1)


def _segment(phase: np.ndarray) -> np.ndarray:
    return np.clip(np.searchsorted(PHASE_KNOTS, phase, side="right") - 1, 0, 3)


def contact_segment(phase: float) -> int:
    """The contact phase at a gait phase: 0 left swing, 1 double support (left leading), 2 right
    swing, 3 double support (right leading)."""
    return int(_segment(np.asarray(phase)))


def _hermite(phase: np.ndarray | float, timing: np.ndarray) -> tuple[np.ndarray, ...]:
    """Segment terms of the cubic Hermite Omega at phase(s); phase and timing[..., 0] broadcast."""
    phase = np.asarray(phase, dtype=np.float64)
    timing = np.asarray(timing, dtype=np.float64)
    shape = np.broadcast_shapes(phase.shape, timing.shape[:-1])
    phase = np.broadcast_to(phase, shape)
    timing = np.broadcast_to(timing, (*shape, 4))
    t = knot_times(timing)
    d = _slopes(t)
    k = _segment(phase)
    h = np.diff(PHASE_KNOTS)[k]
    s = (phase - PHASE_KNOTS[k]) / h
    t0 = np.take_along_axis(t, k[..., None], -1)[..., 0]
    t1 = np.take_along_axis(t, k[..., None] + 1, -1)[..., 0]
    d0 = np.take_along_axis(d, k[..., None], -1)[..., 0] * h
    d1 = np.take_along_axis(d, k[..., None] + 1, -1)[..., 0] * h
    return s, t0, t1, d0, d1, h


def omega(phase: np.ndarray | float, timing: np.ndarray) -> np.ndarray:
    """Cycle time [s] at gait phase(s) in [0, 1]. phase and timing[..., 0] broadcast."""
    s, t0, t1, d0, d1, _ = _hermite(phase, timing)
    s2, s3 = s * s, s * s * s
    return (2 * s3 - 3 * s2 + 1) * t0 + (s3 - 2 * s2 + s) * d0 + (-2 * s3 + 3 * s2) * t1 + (s3 - s2) * d1


def omega_rate(phase: np.ndarray | float, timing: np.ndarray) -> np.ndarray:
    """dOmega/dphase [s] at gait phase(s)."""
    s, t0, t1, d0, d1, h = _hermite(phase, timing)
    s2 = s * s
    ds = (6 * s2 - 6 * s) * t0 + (3 * s2 - 4 * s + 1) * d0 + (-6 * s2 + 6 * s) * t1 + (3 * s2 - 2 * s) * d1
    return ds / h


def omega_inverse(time: np.ndarray | float, timing: np.ndarray, *, iterations: int = 60) -> np.ndarray:
    """Gait phase in [0, 1] at cycle time(s) in [0, T] (the inverse of :func:`omega`): safeguarded
    Newton steps inside the knot segment, which holds the answer because Omega is monotone."""
    times = np.asarray(time, dtype=np.float64)
    timing = np.asarray(timing, dtype=np.float64)
    shape = np.broadcast_shapes(times.shape, timing.shape[:-1])
    timing = np.broadcast_to(timing, (*shape, 4))
    t = knot_times(timing)
    times = np.clip(np.broadcast_to(times, shape), 0.0, t[..., -1])
    k = np.clip((times[..., None] >= t[..., 1:-1]).sum(axis=-1), 0, 3)
    lo = PHASE_KNOTS[k].copy()
    hi = PHASE_KNOTS[k + 1].copy()
    t_lo = np.take_along_axis(t, k[..., None], -1)[..., 0]
    t_hi = np.take_along_axis(t, k[..., None] + 1, -1)[..., 0]
    phase = lo + (hi - lo) * (times - t_lo) / (t_hi - t_lo)
    for _ in range(iterations):
        f = omega(phase, timing) - times
        if np.all(np.abs(f) < 1e-13):
            break
        lo = np.where(f < 0, phase, lo)
        hi = np.where(f > 0, phase, hi)
        rate = omega_rate(phase, timing)
        step = phase - f / np.where(rate > 0, rate, np.inf)
        bad = ~((step > lo) & (step < hi))
        phase = np.where(bad, 0.5 * (lo + hi), step)
    return phase


class PhaseMap:
    """Omega of one cycle, in plain floats: the planner evaluates it once or twice per frame, where
    numpy's per-call overhead would dominate. Same curve as :func:`omega` (tested)."""

    __slots__ = ("_coef", "_t", "cycle")

    def __init__(self, timing: np.ndarray | tuple[float, float, float, float]) -> None:
        ltd, rlo, rtd, cycle = (float(x) for x in timing)
        t = (0.0, ltd, rlo, rtd, cycle)
        p = _KNOTS
        h = [p[i + 1] - p[i] for i in range(4)]
        delta = [(t[i + 1] - t[i]) / h[i] for i in range(4)]
        d = [0.0] * 5
        for i in range(1, 4):
            w1 = 2 * h[i] + h[i - 1]
            w2 = h[i] + 2 * h[i - 1]
            d[i] = (w1 + w2) / (w1 / delta[i - 1] + w2 / delta[i])
        for end, h0, h1, d0, d1 in ((0, h[0], h[1], delta[0], delta[1]), (4, h[3], h[2], delta[3], delta[2])):
            e = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
            if (e > 0) != (d0 > 0) or e == 0:
                e = 0.0
            elif (d0 > 0) != (d1 > 0) and abs(e) > 3 * abs(d0):
                e = 3 * d0
            d[end] = e
        # per segment: t(s) = a + b s + c s^2 + e s^3 with s in [0, 1] the position in the segment
        coef = []
        for i in range(4):
            t0, t1, m0, m1 = t[i], t[i + 1], d[i] * h[i], d[i + 1] * h[i]
            coef.append((t0, m0, 3 * (t1 - t0) - 2 * m0 - m1, 2 * (t0 - t1) + m0 + m1))
        self._coef = coef
        self._t = t
        self.cycle = cycle

    @staticmethod
    def _seg(phase: float) -> int:
        return 0 if phase < 0.1 else 1 if phase < 0.5 else 2 if phase < 0.6 else 3

    def time(self, phase: float) -> float:
        """Cycle time [s] at a phase in [0, 1]."""
        i = self._seg(phase)
        s = (phase - _KNOTS[i]) / (_KNOTS[i + 1] - _KNOTS[i])
        a, b, c, e = self._coef[i]
        return a + s * (b + s * (c + s * e))

    def phase(self, time: float) -> float:
        """Phase in [0, 1] at a cycle time in [0, T]."""
        t = self._t
        time = min(max(time, 0.0), self.cycle)
        i = 0 if time < t[1] else 1 if time < t[2] else 2 if time < t[3] else 3
        a, b, c, e = self._coef[i]
        lo, hi = 0.0, 1.0
        s = (time - t[i]) / (t[i + 1] - t[i])
        for _ in range(50):
            f = a + s * (b + s * (c + s * e)) - time
            if abs(f) < 1e-13:
                break
            if f < 0:
                lo = s
            else:
                hi = s
            rate = b + s * (2 * c + 3 * s * e)
            step = s - f / rate if rate > 0 else -1.0
            s = step if lo < step < hi else 0.5 * (lo + hi)
        return _KNOTS[i] + (_KNOTS[i + 1] - _KNOTS[i]) * s
