"""Soft touch-downs and lift-offs for the spatial stage: a height band for the swing's ends.

The quadruped planner's swing clearance (``swing_clearance``) holds a swinging foot at least
``swing_lift`` above the floor from its first swing frame to its last: made for a kinematic
motion (a lifted foot is not a sliding one), it asks a dynamic one to drop the paw by 4.5 cm in
the last frame before touch-down and to jerk it up as far on lift-off. On the dog clips the
spatial stage's paws came down at 1.5-1.8 m/s on average over their last frame (up to 4 m/s);
the temporal stage interpolates between frames, so its rollout's paws stamp into the stiff floor
and skid in their first 30 ms of contact (27 cm/s on average on dog_walk onto Go2).

Here, with tau the time left to touch-down, a swinging paw should be at most

    cap(tau) = speed tau + decel tau^2 / 2

above the floor (braking at a constant deceleration to ``speed`` at touch-down), and must be at
least half that (where the planner's clearance asked for more): the hard lower bound is eased to
the band. Lift-offs get the mirrored lower bound (time since lift-off), without a cap. The cap is
a task in the spatial QP (:func:`landing_task`) on the legs' joints only: a paw that cannot come
down in time within its joints' speed limits (a gallop) leaves the band rather than pull the
trunk down with it. Tried and dropped: holding the paw's x, y over its last frames and braking
its horizontal speed: the paws then lagged their swings by centimetres in the fast gaits and
landed out of reach, and the planted legs dragged the trunk down to the floor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...motion.contacts import contact_intervals


@dataclass(frozen=True)
class LandingBand:
    """Height bounds of swinging feet above the floor, per frame and foot.

    Attributes:
        lower: least height (hard) [m]. Shape: (T, F).
        upper: greatest height (the QP's task; +inf: none) [m]. Shape: (T, F).
    """

    lower: np.ndarray
    upper: np.ndarray


def landing_band(contacts: np.ndarray, clearance: np.ndarray, fps: float, *, speed: float, decel: float) -> LandingBand:
    """The band of the module docstring for the swings of ``contacts`` (T, F) bool, from the
    planner's lower bound ``clearance`` (T, F) [m]; speed [m/s] >= 0, decel [m/s^2] > 0."""
    lower = np.array(clearance, dtype=np.float64, copy=True)
    upper = np.full(lower.shape, np.inf)
    n = contacts.shape[0]
    for leg in range(contacts.shape[1]):
        for a, b in contact_intervals(~contacts[:, leg]):
            frames = np.arange(a, b)
            if b < n:  # a touch-down at frame b
                tau = (b - frames) / fps
                cap = speed * tau + 0.5 * decel * tau**2
                upper[a:b, leg] = cap
                lower[a:b, leg] = np.minimum(lower[a:b, leg], 0.5 * cap)
            if a > 0:  # a lift-off after frame a - 1
                tau = (frames - a + 1) / fps
                lower[a:b, leg] = np.minimum(lower[a:b, leg], 0.5 * (speed * tau + 0.5 * decel * tau**2))
    return LandingBand(lower, upper)


def landing_task(
    band: LandingBand, i: int, legs: np.ndarray, free: np.ndarray, foot_height: np.ndarray,
    pos: np.ndarray, jacs: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Rows R (k, nv) and targets e (k,) of the cap on frame i, minimised in the spatial QP as
    |R dq - e|^2: each of the swinging ``legs`` under a cap rises by the free step's rise (``free``
    (nv,): the step the QP would take without constraints), clipped so that it ends under the cap.
    pos (4, 3) [m], jacs (4, 3, nv): the foot centres and their Jacobians at the linearisation;
    foot_height (4,): a centre's height above the floor when its foot rests on it [m]. The rows act
    on the legs' joints only (the base's columns are zero, its free step taken as given)."""
    rows, rhs = [], []
    for leg in legs:
        if np.isfinite(band.upper[i, leg]):
            height = pos[leg, 2] - foot_height[leg]
            rise = float(jacs[leg, 2] @ free)
            rows.append(jacs[leg, 2])
            rhs.append(min(height + rise, band.upper[i, leg]) - height)
    if not rows:
        return np.zeros((0, free.shape[0])), np.zeros(0)
    r = np.array(rows)
    e = np.array(rhs) - r[:, :6] @ free[:6]
    r[:, :6] = 0.0
    return r, e


def ease_swings(points: np.ndarray, contacts: np.ndarray, *, hold: float) -> np.ndarray:
    """The keypoints ``points`` (T, F, P, 3) [m] with each bounded swing of ``contacts`` (T, F)
    bool re-timed in x, y: over the swing's frames a - 1 (last planted) to b (touch-down), of
    length L = b - a + 1, the point at phase phi = (t - a + 1) / L takes the source's x, y at
    a - 1 + L s(phi), s the smoothstep of (phi - hold) / (1 - 2 hold) clipped into [0, 1]. The
    paw covers the same path from the same lift-off to the same landing point, but leaves and
    arrives with no horizontal speed (it stands still over the first and last ``hold`` share of
    the swing, 0 <= hold < 0.5, while the clearance lifts and lowers it); z is untouched. Swings
    at the clip's ends (no lift-off or no touch-down in it) are left as they are. Measured (README,
    STMR; StmrConfig.swing_ease, off): the rollouts follow the 1.5 times faster swing middles
    worse and land with more sideways speed, not less."""
    out = np.array(points, dtype=np.float64, copy=True)
    n = contacts.shape[0]
    for leg in range(contacts.shape[1]):
        for a, b in contact_intervals(~contacts[:, leg]):
            if a == 0 or b >= n:
                continue
            span = b - a + 1
            t = np.arange(a - 1, b + 1)
            phi = np.clip(((t - a + 1) / span - hold) / (1.0 - 2.0 * hold), 0.0, 1.0)
            src = a - 1 + span * phi * phi * (3.0 - 2.0 * phi)
            for part in range(points.shape[2]):
                for axis in range(2):
                    out[t, leg, part, axis] = np.interp(src, t, points[t, leg, part, axis])
    return out
