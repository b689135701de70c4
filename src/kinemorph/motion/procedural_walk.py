"""Kinematic rules of a walking gait: walk envelope, root path, footstep plan, foot
trajectories and analytic leg IK. World frame Z-up, metres, seconds, radians.

The procedural walk's own kinematics (a helper of :mod:`kinemorph.motion.procedural`; the
authored stylized gaits are kinemorph.gait, a different thing). Stride phase c (in strides, from the
first lift-off of the right foot): right lift-off at c = 0, right touchdown at 1 - STANCE,
left lift-off at 0.5, left touchdown at 1.5 - STANCE. Left is side +1, right -1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..transforms import unit_vectors

STANCE = 0.6  # stance share of a stride (double support 0.1 stride after each touchdown)
FOOTPRINT_AT = 0.42  # the ankle lies under the hip this far into its stance
HEEL_ROLL = 0.1  # heel strike to foot flat [strides]
HEEL_OFF = 0.25  # heel off to lift off [strides]


def smooth(u: np.ndarray | float) -> np.ndarray:
    """Quintic smoothstep of u clipped to [0, 1]: zero slope and curvature at both ends."""
    u = np.clip(u, 0.0, 1.0)
    return u**3 * (10.0 - 15.0 * u + 6.0 * u * u)


def smooth_integral(u: np.ndarray | float) -> np.ndarray:
    """Integral of :func:`smooth` from 0 to u (u clipped to [0, 1]); 0.5 at u = 1."""
    u = np.clip(u, 0.0, 1.0)
    return u**4 * (2.5 - 3.0 * u + u * u)


@dataclass(frozen=True)
class WalkTiming:
    """When the walk happens: a smooth envelope w(t) in [0, 1] scales speed and gait amplitudes.

    Attributes:
        speed: walking speed at w = 1 [m/s]; 0 for a clip without walking.
        period: stride period (two steps) [s].
        t_rise: the envelope leaves 0 [s]; rise: it reaches 1 this much later [s].
        t_stop: the envelope is back to 0 [s]; fall: it starts falling this much earlier [s].
        t_go: first lift-off (right foot) [s].
    """

    speed: float
    period: float
    t_rise: float = np.inf
    rise: float = 1.0
    t_stop: float = np.inf
    fall: float = 1.0
    t_go: float = np.inf

    @property
    def walking(self) -> bool:
        return self.speed > 0.0 and np.isfinite(self.t_go)

    def envelope(self, t: np.ndarray) -> np.ndarray:
        """w(t) in [0, 1]. Shape: t.shape."""
        t = np.asarray(t, dtype=np.float64)
        if not self.walking:
            return np.zeros_like(t)
        up = smooth((t - self.t_rise) / self.rise)
        return up * (1.0 - smooth((t - (self.t_stop - self.fall)) / self.fall))

    def progress(self, t: np.ndarray) -> np.ndarray:
        """Distance walked along the path by time t [m]: the integral of speed * w. Shape: t.shape."""
        t = np.asarray(t, dtype=np.float64)
        if not self.walking:
            return np.zeros_like(t)
        full0, full1 = self.t_rise + self.rise, self.t_stop - self.fall
        u_up = (t - self.t_rise) / self.rise
        u_dn = np.clip((t - full1) / self.fall, 0.0, 1.0)
        mid = np.clip(t, full0, full1) - full0
        return self.speed * (self.rise * smooth_integral(u_up) + mid + self.fall * (u_dn - smooth_integral(u_dn)))

    def phase(self, t: np.ndarray) -> np.ndarray:
        """Stride phase c(t) [strides] (see the module docstring). Shape: t.shape."""
        t0 = self.t_go if np.isfinite(self.t_go) else 0.0
        return (np.asarray(t, dtype=np.float64) - t0) / self.period


@dataclass(frozen=True)
class WalkPath:
    """Root path of constant curvature [1/m] starting at the origin heading +x."""

    curvature: float = 0.0

    def heading(self, s: np.ndarray) -> np.ndarray:
        """Heading [rad] at arc length s [m]."""
        return self.curvature * np.asarray(s, dtype=np.float64)

    def point(self, s: np.ndarray) -> np.ndarray:
        """Point [m] at arc length s [m]. Shape: s.shape + (2,)."""
        s = np.asarray(s, dtype=np.float64)
        k = self.curvature
        if abs(k) < 1e-9:
            return np.stack([s, np.zeros_like(s)], axis=-1)
        return np.stack([np.sin(k * s) / k, (1.0 - np.cos(k * s)) / k], axis=-1)

    def left(self, s: np.ndarray) -> np.ndarray:
        """Unit normal to the left of the path. Shape: s.shape + (2,)."""
        h = self.heading(s)
        return np.stack([-np.sin(h), np.cos(h)], axis=-1)


@dataclass(frozen=True)
class FootShape:
    """Foot geometry in a foot-heading frame (x forward, z up) with the sole flat on the floor [m]."""

    ankle_height: float = 0.08
    ball_forward: float = 0.144  # ball (toe joint) ahead of the ankle
    ball_height: float = 0.02
    heel_back: float = 0.06  # heel contact point behind the ankle, on the floor

    def pivoted(self, point: np.ndarray, pitch: np.ndarray) -> np.ndarray:
        """Where a foot point (3,) lies when the foot is pitched by ``pitch`` [rad] (toes up > 0)
        about the heel (pitch > 0) or the ball (pitch < 0). Shape: pitch.shape + (3,)."""
        heel = np.array([-self.heel_back, 0.0, 0.0])
        ball = np.array([self.ball_forward, 0.0, self.ball_height])
        pivot = np.where((np.asarray(pitch) > 0.0)[..., None], heel, ball)
        d = point - pivot
        c, s = np.cos(pitch)[..., None], np.sin(pitch)[..., None]
        return pivot + np.stack(
            [d[..., 0] * c[..., 0] - d[..., 2] * s[..., 0], d[..., 1], d[..., 0] * s[..., 0] + d[..., 2] * c[..., 0]],
            axis=-1,
        )


@dataclass(frozen=True)
class Stance:
    """One footprint of one foot.

    Attributes:
        start: touchdown [s] (-inf for the starting stance); end: lift-off [s] (+inf for the last).
        ankle: ground point under the ankle with the foot flat [m]. Shape: (2,).
        yaw: foot heading [rad]. strike: heel-strike pitch, toes up [rad]. push: pitch at lift-off, heel up [rad].
    """

    start: float
    end: float
    ankle: np.ndarray
    yaw: float
    strike: float = 0.0
    push: float = 0.0


@dataclass(frozen=True)
class StepStyle:
    """Foot placement: half widths [m], toe-out [rad], foot roll angles at a 1.3 m stride [rad], swing [m]."""

    half_width_walk: float = 0.05
    half_width_stand: float = 0.09
    toe_out: float = np.radians(5.0)
    strike: float = np.radians(15.0)
    push: float = np.radians(40.0)
    clearance: float = 0.10  # ankle rise over its flat height at mid-swing
    bulge: float = 0.01  # outward swing arc


def plan_steps(timing: WalkTiming, path: WalkPath, side: int, style: StepStyle) -> list[Stance]:
    """Footprints of one foot: the ankle comes under the hip FOOTPRINT_AT into each stance, the
    stances follow the stride schedule from t_go, and the last one lies beside the stopped root."""

    def footprint(t: float) -> tuple[np.ndarray, float]:
        s = timing.progress(np.array(t))
        w = float(timing.envelope(np.array(t)))
        half = style.half_width_stand + (style.half_width_walk - style.half_width_stand) * w
        xy = path.point(s) + side * half * path.left(s)
        return xy, float(path.heading(s)) + side * style.toe_out

    first, yaw0 = footprint(-1.0)
    stances = [Stance(-np.inf, np.inf, first, yaw0)]
    if not timing.walking:
        return stances
    T = timing.period
    offset = 0.0 if side < 0 else 0.5
    for k in range(100_000):
        lift = timing.t_go + (k + offset) * T
        down = lift + (1.0 - STANCE) * T
        at = down + FOOTPRINT_AT * STANCE * T
        final = at >= timing.t_stop - 1e-9
        xy, yaw = footprint(min(at, timing.t_stop))
        ratio = min(float(np.linalg.norm(xy - stances[-1].ankle)) / 1.3, 1.1)
        stances[-1] = replace(stances[-1], end=lift, push=style.push * ratio)
        stances.append(Stance(down, np.inf, xy, yaw, strike=style.strike * ratio))
        if final:
            break
    return stances


def _stance_pose(st: Stance, t: np.ndarray, foot: FootShape, period: float) -> tuple[np.ndarray, np.ndarray]:
    """Ankle position (N, 3) [m] and foot pitch (N,) [rad] during a stance: heel roll, flat, heel off."""
    pitch = st.strike * (1.0 - smooth((t - st.start) / (HEEL_ROLL * period)))
    pitch = pitch - st.push * smooth((t - (st.end - HEEL_OFF * period)) / (HEEL_OFF * period))
    local = foot.pivoted(np.array([0.0, 0.0, foot.ankle_height]), pitch)
    c, s = np.cos(st.yaw), np.sin(st.yaw)
    world = np.stack(
        [st.ankle[0] + c * local[:, 0] - s * local[:, 1], st.ankle[1] + s * local[:, 0] + c * local[:, 1], local[:, 2]],
        axis=-1,
    )
    return world, pitch


def foot_trajectory(
    stances: list[Stance], t: np.ndarray, foot: FootShape, style: StepStyle, period: float, side: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ankle position (N, 3) [m], foot yaw (N,) [rad] and pitch (N,) [rad] at times t (N,) [s]."""
    n = t.shape[0]
    ankle, yaw, pitch = np.zeros((n, 3)), np.zeros(n), np.zeros(n)
    for i, st in enumerate(stances):
        on = (t >= st.start) & (t <= st.end)
        if on.any():
            ankle[on], pitch[on] = _stance_pose(st, t[on], foot, period)
            yaw[on] = st.yaw
        if i + 1 == len(stances):
            break
        nxt = stances[i + 1]
        sw = (t > st.end) & (t < nxt.start)
        if not sw.any():
            continue
        a0, p0 = _stance_pose(st, np.array([st.end]), foot, period)
        a1, p1 = _stance_pose(nxt, np.array([nxt.start]), foot, period)
        u = (t[sw] - st.end) / (nxt.start - st.end)
        m = smooth(u)[:, None]  # minimum-jerk progress: at rest at lift-off and touchdown
        bump = u * u * (1.0 - u) ** 3 / 0.03456  # lift: peaks (at 1) at u = 0.4, early in the swing
        step = a1[0, :2] - a0[0, :2]
        ratio = min(max(float(np.linalg.norm(step)) / 1.3, 0.5), 1.0)
        lift = max(style.clearance * ratio - (0.5 * (a0[0, 2] + a1[0, 2]) - foot.ankle_height), 0.02)
        out = np.array([-np.sin(st.yaw), np.cos(st.yaw)]) * side
        arc = style.bulge * ratio * 16.0 * u * u * (1.0 - u) ** 2
        ankle[sw, :2] = a0[0, :2] + m * step + arc[:, None] * out
        ankle[sw, 2] = a0[0, 2] + m[:, 0] * (a1[0, 2] - a0[0, 2]) + lift * bump
        pitch[sw] = p0[0] + m[:, 0] * (p1[0] - p0[0])
        dyaw = (nxt.yaw - st.yaw + np.pi) % (2.0 * np.pi) - np.pi
        yaw[sw] = st.yaw + m[:, 0] * dyaw
    return ankle, yaw, pitch


def reach_height(hip_xy: np.ndarray, ankle: np.ndarray, reach: float) -> np.ndarray:
    """Highest hip height [m] that keeps the ankle within ``reach`` [m] of the hip. hip_xy (N, 2), ankle (N, 3)."""
    d = np.minimum(np.linalg.norm(hip_xy - ankle[:, :2], axis=-1), 0.95 * reach)
    return ankle[:, 2] + np.sqrt(reach * reach - d * d)


def softmin(values: list[np.ndarray], width: float) -> np.ndarray:
    """Smooth minimum (never above the true minimum) with a blend width [same unit as values]."""
    v = np.stack(values)
    lo = v.min(axis=0)
    return lo - width * np.log(np.sum(np.exp(-(v - lo) / width), axis=0))


def smooth_below(x: np.ndarray, half: int) -> np.ndarray:
    """A smoothed copy of x (N,) that never exceeds x: a running minimum over ±half samples,
    then a running mean over the same window (every mean term is a minimum over a window
    containing the sample itself)."""
    if half < 1:
        return x.copy()
    pad = np.pad(x, half, mode="edge")
    win = np.lib.stride_tricks.sliding_window_view(pad, 2 * half + 1)
    low = np.pad(win.min(axis=1), half, mode="edge")
    kernel = np.hanning(2 * half + 3)[1:-1]
    return np.convolve(low, kernel / kernel.sum(), mode="valid")


def leg_ik(
    hip: np.ndarray, ankle: np.ndarray, pole: np.ndarray, thigh: float, shank: float
) -> tuple[np.ndarray, np.ndarray]:
    """Analytic two-bone IK: global thigh and shank frames (N, 3, 3) in LAFAN1's leg convention
    (x along the bone, y towards the knee's front, z = x × y to the subject's right; the knee
    bends about z). hip, ankle: (N, 3) [m]; pole (N, 3): where the knee should point."""
    d_vec = ankle - hip
    d = np.linalg.norm(d_vec, axis=-1)
    u = d_vec / d[:, None]
    dc = np.clip(d, abs(thigh - shank) + 1e-6, (thigh + shank) * (1.0 - 1e-9))
    cos_a = np.clip((thigh**2 + dc**2 - shank**2) / (2.0 * thigh * dc), -1.0, 1.0)
    n = unit_vectors(pole - np.sum(pole * u, axis=-1, keepdims=True) * u)
    x_t = cos_a[:, None] * u + np.sqrt(1.0 - cos_a**2)[:, None] * n
    knee = hip + thigh * x_t
    x_s = unit_vectors(hip + dc[:, None] * u - knee)
    z = unit_vectors(np.cross(u, n))
    r_thigh = np.stack([x_t, np.cross(z, x_t), z], axis=-1)
    r_shank = np.stack([x_s, np.cross(z, x_s), z], axis=-1)
    return r_thigh, r_shank
