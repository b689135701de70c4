"""Keypoint trajectories in an .npz: other animals, other capture systems, hand-made animation.

File layout (numpy .npz):
    keypoints  (T, K, 3) positions, in ``unit`` and with ``up`` as the vertical axis
    names      (K,) keypoint names (unique)
    fps        frames per second
    up         optional, "z" (default) or "y"
    unit       optional, "m" (default), "cm", "mm" or "inch"
    family     optional, "quadruped", "humanoid" or "other" (default)
    legs       optional, (4, 2) names: (leg root, paw) for FL, FR, RL, RR (quadruped retargeting)

The motion has a root joint named "origin" at the world origin and one joint per keypoint,
positioned by position channels, with identity orientations (keypoints carry no rotation).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from .._files import write_atomic
from .._npz import array, read_npz, scalar
from ..errors import MotionFileError
from ..limits import MAX_FPS, MIN_FPS
from .motion import FAMILIES, Motion
from .presets import _Y_UP_TO_Z_UP, UNITS
from .skeleton import POSITION_CHANNELS, Skeleton

ROOT = "origin"


def keypoint_motion(
    positions: np.ndarray,
    names: list[str] | tuple[str, ...],
    fps: float,
    *,
    family: str = "other",
    legs: tuple[tuple[str, str], ...] = (),
    source: str = "<memory>",
) -> Motion:
    """A Motion from keypoint positions (T, K, 3) [m], world Z-up."""
    t, k, _ = positions.shape
    names = tuple(str(n) for n in names)
    sk = Skeleton(
        names=(ROOT, *names),
        parents=np.array([-1] + [0] * k, dtype=np.int64),
        offsets=np.vstack([np.zeros(3), positions[0]]),
        channels=((),) + (POSITION_CHANNELS,) * k,
    )
    local_rot = np.zeros((t, k + 1, 4))
    local_rot[..., 0] = 1.0
    local_pos = np.concatenate([np.zeros((t, 1, 3)), positions], axis=1)
    return Motion.from_local(sk, fps, local_rot, local_pos, family=family, source=source, preset="keypoints", legs=legs)


def read_keypoints(path: str | Path) -> Motion:
    """Read a keypoint .npz (layout in the module docstring); MotionFileError names what is wrong."""
    p = Path(path)
    data = read_npz(p)
    missing = [key for key in ("keypoints", "names", "fps") if key not in data]
    if missing:
        raise MotionFileError(p, f"missing key(s) {', '.join(missing)}; found {', '.join(sorted(data)) or 'none'}")
    kp = array(data, "keypoints", p, ndim=3)
    if kp.shape[2] != 3 or kp.shape[0] == 0 or kp.shape[1] == 0:
        raise MotionFileError(p, f"keypoints must have shape (T>0, K>0, 3), got {kp.shape}")
    kp = kp.astype(np.float64)
    bad = ~np.isfinite(kp)
    if bad.any():
        f, j, _ = np.argwhere(bad)[0]
        raise MotionFileError(p, f"keypoint {j} has a non-finite value at frame {f}")
    names = [str(n) for n in array(data, "names", p, ndim=1, kinds="US")]
    if len(names) != kp.shape[1]:
        raise MotionFileError(p, f"{len(names)} names for {kp.shape[1]} keypoints")
    if len(set(names)) != len(names) or ROOT in names:
        raise MotionFileError(p, f"keypoint names must be unique and not {ROOT!r}")
    fps = scalar(data, "fps", "number", p)
    if not MIN_FPS <= fps <= MAX_FPS:
        raise MotionFileError(p, f"fps {fps:g} is outside {MIN_FPS:g} to {MAX_FPS:g}")
    up = scalar(data, "up", "text", p, "z")
    unit = scalar(data, "unit", "text", p, "m")
    family = scalar(data, "family", "text", p, "other")
    if up not in ("y", "z"):
        raise MotionFileError(p, f"up must be 'y' or 'z', got {up!r}")
    if unit not in UNITS:
        raise MotionFileError(p, f"unit must be one of {', '.join(UNITS)}, got {unit!r}")
    if family not in FAMILIES:
        raise MotionFileError(p, f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    legs: tuple[tuple[str, str], ...] = ()
    if "legs" in data:
        raw = array(data, "legs", p, ndim=2, kinds="US").astype(str)
        if raw.shape != (4, 2):
            raise MotionFileError(p, f"legs must be (4, 2) names (root, paw) for FL, FR, RL, RR, got shape {raw.shape}")
        unknown = sorted(set(raw.ravel()) - set(names))
        if unknown:
            raise MotionFileError(p, f"legs name unknown keypoints {', '.join(unknown)}; valid: {', '.join(names)}")
        legs = tuple((str(a), str(b)) for a, b in raw)
    kp = kp * UNITS[unit]
    if up == "y":
        kp = kp @ _Y_UP_TO_Z_UP.T
    return keypoint_motion(kp, names, fps, family=family, legs=legs, source=str(p))


def save_keypoints(motion: Motion, path: str | Path, *, bodies: list[str] | None = None, force: bool = False) -> Path:
    """Write a motion's body positions (default: every body) as a keypoint .npz (Z-up, metres)."""
    names = list(bodies) if bodies is not None else list(motion.body_names)
    idx = [motion.index(n) for n in names]
    arrays: dict[str, np.ndarray] = {
        "keypoints": motion.positions[:, idx],
        "names": np.array(names),
        "fps": np.array(motion.fps),
        "up": np.array("z"),
        "unit": np.array("m"),
        "family": np.array(motion.family),
    }
    if motion.legs:
        arrays["legs"] = np.array(motion.legs)

    def write(f: io.BufferedIOBase) -> None:  # type: ignore[type-arg]
        np.savez(f, **arrays)  # type: ignore[arg-type]

    return write_atomic(path, write, force=force)  # type: ignore[arg-type]
