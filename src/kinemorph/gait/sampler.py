"""The gait sampler: a style's parameters for any commanded velocity, by phase-space blending.

Velocity interpolation in three steps (Hopkins et al. 2024, "Interactive Design of Stylized
Walking Gaits for Robotic Characters"), with f_soft(a) = 3a^2 - 2a^3 (zero slope at 0 and 1, so
the blend is C1 where the velocity crosses from one pair of samples to the next):

1. forward/backward: the two samples bracketing vx along backward_fast < backward_slow <
   standing < forward_slow < forward_fast, ratio f_soft((vx - vx_A) / (vx_B - vx_A));
2. turn/strafe: with yaw rate and vy normalised by the turn and strafe samples' velocities, the
   polar angle beta of (yaw_n, vy_n) picks the two neighbouring samples among turn_left (0),
   strafe_left (pi/2), turn_right (pi), strafe_right (-pi/2), ratio f_soft of the angle fraction;
   the radius rho is clipped to 1;
3. the two results blend with ratio f_soft(rho (1 - eta f_soft(|x_n|))), eta = 0.5, x_n = vx over
   the fast sample's vx in that direction (clipped to 1).

The result is a weight per sample (they sum to 1). Blending is linear in those weights:
attributes and interval ends directly, curves at the phase-equivalent time of each sample
(phase.py), which the planner does in :class:`StyleTables`.

C1 in the velocity: everywhere inside the unit disc of (yaw_n, vy_n); on its rim only where
vx = 0 (with vx != 0 the clip of rho at 1 meets a non-zero slope of step 3, as in the paper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .phase import segment_coefficients, segment_of
from .splines import CurveTable
from .style import CURVE_KEYS, KEY_SAMPLES, Style

ETA = 0.5
"""Gain of step 3: how much forward speed reduces the turn/strafe samples' share."""

_X_ORDER = ("backward_fast", "backward_slow", "standing", "forward_slow", "forward_fast")
_POLAR = (("turn_right", -math.pi), ("strafe_right", -math.pi / 2), ("turn_left", 0.0), ("strafe_left", math.pi / 2))
_INDEX = {k: i for i, k in enumerate(KEY_SAMPLES)}


def f_soft(a: float) -> float:
    """3a^2 - 2a^3 on a clipped to [0, 1]."""
    a = min(max(a, 0.0), 1.0)
    return a * a * (3.0 - 2.0 * a)


def _bracket(x: float, knots: list[float]) -> tuple[int, float]:
    """Index i and ratio of x between knots[i] and knots[i + 1] (held at the ends)."""
    if x <= knots[0]:
        return 0, 0.0
    for i in range(len(knots) - 1):
        if x < knots[i + 1]:
            return i, f_soft((x - knots[i]) / (knots[i + 1] - knots[i]))
    return len(knots) - 2, 1.0


@dataclass(frozen=True)
class GaitParams:
    """A style's blended parameters at one velocity.

    Attributes:
        weights: share of each key sample (order of style.KEY_SAMPLES), summing to 1. Shape: (9,).
        timing: blended [t_LTD, t_RLO, t_RTD, T] [s]. Shape: (4,).
        attributes: blended attributes (order of style.ATTRIBUTES). Shape: (5,).
    """

    weights: np.ndarray
    timing: np.ndarray
    attributes: np.ndarray


class Sampler:
    """Blends a style's samples for commanded velocities [vx, vy, yaw rate]."""

    def __init__(self, style: Style, *, eta: float = ETA) -> None:
        self.style = style
        self.eta = eta
        s = style.samples
        self._x = [float(s[k].velocity[0]) for k in _X_ORDER]
        self._x_idx = [_INDEX[k] for k in _X_ORDER]
        self._yaw_max = (float(s["turn_left"].velocity[2]), -float(s["turn_right"].velocity[2]))
        self._vy_max = (float(s["strafe_left"].velocity[1]), -float(s["strafe_right"].velocity[1]))
        self._x_max = (float(s["forward_fast"].velocity[0]), -float(s["backward_fast"].velocity[0]))
        polar = [*_POLAR, ("turn_right", math.pi)]
        self._beta = [b for _, b in polar]
        self._beta_idx = [_INDEX[k] for k, _ in polar]
        ordered = style.ordered()
        self.timing = np.array([x.timing.as_array() for x in ordered])  # (9, 4)
        self.attributes = np.array([x.attributes.as_array() for x in ordered])  # (9, 5)

    def weights(self, velocity: np.ndarray | tuple[float, float, float]) -> np.ndarray:
        """Share of each key sample at a velocity. Shape: (9,)."""
        vx, vy, wz = (float(v) for v in velocity)
        w = np.zeros(len(KEY_SAMPLES))
        i, a = _bracket(vx, self._x)
        w[self._x_idx[i]] += 1.0 - a
        w[self._x_idx[i + 1]] += a
        yaw_n = wz / self._yaw_max[0] if wz >= 0 else wz / self._yaw_max[1]
        vy_n = vy / self._vy_max[0] if vy >= 0 else vy / self._vy_max[1]
        rho = min(math.hypot(yaw_n, vy_n), 1.0)
        if rho > 0.0:
            x_n = min(abs(vx) / (self._x_max[0] if vx >= 0 else self._x_max[1]), 1.0)
            a3 = f_soft(rho * (1.0 - self.eta * f_soft(x_n)))
            j, b = _bracket(math.atan2(vy_n, yaw_n), self._beta)
            w *= 1.0 - a3
            w[self._beta_idx[j]] += a3 * (1.0 - b)
            w[self._beta_idx[j + 1]] += a3 * b
        return w

    def sample(self, velocity: np.ndarray | tuple[float, float, float]) -> GaitParams:
        """Blended parameters at a velocity."""
        w = self.weights(velocity)
        return GaitParams(w, w @ self.timing, w @ self.attributes)

    def blend(self, weights: np.ndarray) -> GaitParams:
        """Parameters of any convex combination of the samples (e.g. two samples A, B with 1 - alpha, alpha)."""
        w = np.asarray(weights, dtype=np.float64)
        return GaitParams(w, w @ self.timing, w @ self.attributes)


class StyleTables:
    """Every curve of every sample of a style, evaluated at a gait phase and blended by weights.

    ``curves(phase, weights)`` gives blended curve values (..., C) in the order of
    style.CURVE_KEYS: each sample's curve at the sample's own time Omega_s(phase), mapped into the
    curve's interval (cycle, left swing or right swing), then weighted.
    """

    def __init__(self, style: Style) -> None:
        ordered = style.ordered()
        self.keys = CURVE_KEYS
        self.table = CurveTable([s.curve(k) for s in ordered for k in CURVE_KEYS])
        self.timing = np.array([s.timing.as_array() for s in ordered])  # (S, 4)
        self._omega = segment_coefficients(self.timing)  # (S, 4, 4)
        self.num_samples = len(ordered)
        n = self.num_samples * len(self.keys)
        self._at_0 = self.table.evaluate(np.zeros(n)).reshape(self.num_samples, -1)  # (S, C) at u = 0
        self._at_1 = self.table.evaluate(np.ones(n)).reshape(self.num_samples, -1)  # (S, C) at u = 1
        # each curve's interval in each sample: u = (t - start) * scale
        group = np.array([k.split(".", 1)[0] for k in CURVE_KEYS])
        ltd, rlo, rtd, cycle = (self.timing[:, i : i + 1] for i in range(4))
        left, right = group == "left_foot", group == "right_foot"
        self._start = np.where(right, rlo, 0.0)  # (S, C)
        self._scale = np.where(left, 1.0 / ltd, np.where(right, 1.0 / (rtd - rlo), 1.0 / cycle))

    def positions(self, phase: np.ndarray) -> np.ndarray:
        """u of every curve of every sample at gait phase(s). (N,) -> (N, S, C)."""
        k, s = segment_of(np.asarray(phase, dtype=np.float64))
        c = self._omega[:, k].transpose(1, 0, 2)  # (N, S, 4): each sample's Omega on that segment
        s = s[:, None]
        t = c[..., 0] + s * (c[..., 1] + s * (c[..., 2] + s * c[..., 3]))  # (N, S) = Omega_s(phase)
        return (t[..., None] - self._start) * self._scale

    def values(self, u: np.ndarray) -> np.ndarray:
        """Curve values of every sample at positions u (N, S, C) -> (N, S, C)."""
        n, s, c = u.shape
        return self.table.evaluate(u.reshape(n, s * c)).reshape(n, s, c)

    def curves(self, phase: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Blended curve values at phases (N,) with sample weights (N, S). Shape: (N, C)."""
        return np.einsum("ns,nsc->nc", weights, self.values(self.positions(phase)))

    def at_ends(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Blended curve values at u = 0 and u = 1 of every curve (lift-off and touch-down values of
        the swing curves). weights (N, S) -> two (N, C)."""
        return weights @ self._at_0, weights @ self._at_1
