"""Temporal deformation of STMR (Yoon et al., T-RO 2025, Sec. VI): segments, s_alpha(t), targets.

The clip is cut into S segments at contact changes; segment k's duration is scaled by alpha_k.
s_alpha maps control time to source time (piecewise linear); the targets at each control step
are the spatial stage's trajectory linearly interpolated at s_alpha(t_k) (quaternions by nlerp),
and the contact schedule is warped with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ...errors import ConfigError


def contact_changes(contacts: np.ndarray) -> np.ndarray:
    """Frames (ascending) at which any foot's contact flips: contacts[f] != contacts[f - 1]."""
    return np.flatnonzero((contacts[1:] != contacts[:-1]).any(axis=1)) + 1


def segment_bounds(contacts: np.ndarray, segments: int) -> np.ndarray:
    """Segment boundaries in frames (S + 1,), from 0 to T - 1, inner cuts at contact changes as close
    as possible to equal divisions of the clip. ConfigError when the changes allow fewer segments."""
    n = contacts.shape[0]
    changes = contact_changes(contacts)
    changes = changes[(changes > 0) & (changes < n - 1)]
    if segments - 1 > len(changes):
        raise ConfigError(
            f"segments={segments}: the contact schedule changes {len(changes)} times, so at most "
            f"{len(changes) + 1} segments can be cut at contact changes"
        )
    cuts: list[int] = []
    free = list(changes)
    for k in range(1, segments):
        ideal = k * (n - 1) / segments
        best = min((c for c in free if not cuts or c > cuts[-1]), key=lambda c: abs(c - ideal), default=None)
        if best is None:
            raise ConfigError(f"segments={segments}: not enough contact changes after frame {cuts[-1]}")
        cuts.append(int(best))
        free = [c for c in free if c > best]
    return np.array([0, *cuts, n - 1], dtype=np.int64)


@dataclass(frozen=True)
class Warp:
    """A time warp on a control grid.

    Attributes:
        alpha: scale per segment. Shape: (S,).
        bounds: segment boundaries in source frames. Shape: (S + 1,).
        dt: control step [s].
        source_time: source time of each control step [s]. Shape: (K + 1,).
    """

    alpha: np.ndarray
    bounds: np.ndarray
    dt: float
    source_time: np.ndarray

    @property
    def steps(self) -> int:
        return int(self.source_time.shape[0] - 1)

    @classmethod
    def of(cls, alpha: np.ndarray, bounds: np.ndarray, fps: float, dt: float) -> Warp:
        a = np.asarray(alpha, dtype=np.float64)
        src = bounds / fps  # source times of the boundaries
        ctrl = np.concatenate([[0.0], np.cumsum(a * np.diff(src))])  # control times of the boundaries
        # the step stays dt, the rollout's physics step times its substeps (a stretched step would
        # put the controls' clock off the physics': their replay would switch controls between
        # physics steps the rollout did not); the last step ends within one step after the clip's
        # end, the clip's last frame held there
        k = max(1, int(np.ceil(ctrl[-1] / dt - 1e-9)))
        return cls(a, np.asarray(bounds), dt, np.interp(np.arange(k + 1) * dt, ctrl, src))

    def frames(self, fps: float) -> np.ndarray:
        """Source frame (float) of each control step. Shape: (K + 1,)."""
        return self.source_time * fps

    def segment_of_step(self, fps: float) -> np.ndarray:
        """Segment index of each control step. Shape: (K + 1,)."""
        return np.clip(np.searchsorted(self.bounds[1:-1], self.frames(fps), side="right"), 0, len(self.alpha) - 1)


def interpolate_qpos(m: mujoco.MjModel, qpos: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """qpos (T, nq) at fractional frames (K,): linear, the free joint's quaternion by nlerp."""
    n = qpos.shape[0]
    f = np.clip(frames, 0, n - 1)
    i = np.minimum(np.floor(f).astype(np.int64), n - 2)
    w = (f - i)[:, None]
    out = qpos[i] * (1 - w) + qpos[i + 1] * w
    a, b = qpos[i, 3:7], qpos[i + 1, 3:7]
    b = np.where((np.sum(a * b, axis=1) < 0)[:, None], -b, b)
    quat = a * (1 - w) + b * w
    out[:, 3:7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    return out


def velocities(m: mujoco.MjModel, qpos: np.ndarray, dt: float) -> np.ndarray:
    """Tangent velocities (K, nv) of qpos (K, nq) sampled every dt: central differences inside."""
    k = qpos.shape[0]
    out = np.zeros((k, m.nv))
    fwd = np.zeros((max(k - 1, 0), m.nv))
    for j in range(k - 1):
        mujoco.mj_differentiatePos(m, fwd[j], dt, qpos[j], qpos[j + 1])
    if k > 1:
        out[0], out[-1] = fwd[0], fwd[-1]
        out[1:-1] = 0.5 * (fwd[:-1] + fwd[1:])
    return out


def warp_contacts(contacts: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """The contact schedule (T, F) at fractional frames (K,): each step takes its nearest frame's."""
    idx = np.clip(np.rint(frames).astype(np.int64), 0, contacts.shape[0] - 1)
    return contacts[idx]


def check_bounds(alpha_min: float, alpha_max: float) -> None:
    if not (np.isfinite(alpha_min) and np.isfinite(alpha_max) and 0 < alpha_min <= alpha_max):
        raise ConfigError(f"alpha bounds [{alpha_min}, {alpha_max}] are empty or inverted: need 0 < min <= max")
