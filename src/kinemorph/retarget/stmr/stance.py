"""Stances the quadruped planner's contact detection misses, added for STMR's contact schedule.

The planner's detection (retarget/quadruped/planner.py: a paw low and slow is planted) is made to
lock feet for the kinematic engine; a dynamic rollout needs every support. Two cases where the
source's dog stands on a paw that the detection calls swinging (measured on the shared dog clips):

- a paw resting a few centimetres above its floor (a capture marker off the sole, a paw lifted
  a little), slow for a while: planted when it is at most ``rest_height`` above its floor and
  slower than ``rest_speed`` for at least ``rest_s``;
- a fast gait whose paws never slow below the detection's speed: in a swing longer than
  ``long_swing_s``, each dip of the paw to within ``dip_height`` of its floor (a local minimum
  of its height) is a touch-down of ``dip_frames`` frames.

A real flight (all paws up while the trunk falls freely) has no dip near the floor and stays a
flight.
"""

from __future__ import annotations

import numpy as np

from ...motion.contacts import contact_intervals, speeds
from ...motion.motion import Motion
from ..quadruped.planner import paw_floors

REST_HEIGHT = 0.09
REST_SPEED = 0.3
REST_S = 0.2
LONG_SWING_S = 0.6
DIP_HEIGHT = 0.03
DIP_FRAMES = 3


def complete_contacts(motion: Motion, contacts: np.ndarray) -> np.ndarray:
    """The planner's contacts (T, 4) bool with the stances of the module docstring added."""
    paws = np.stack([motion.body(p)[0] for _, p in motion.legs], axis=1)  # (T, 4, 3)
    roots = np.stack([motion.body(r)[0] for r, _ in motion.legs], axis=1)
    return complete_paw_contacts(paws, motion.fps, contacts, roots)


def complete_paw_contacts(
    paws: np.ndarray, fps: float, contacts: np.ndarray, roots: np.ndarray | None = None
) -> np.ndarray:
    """complete_contacts on paw positions (T, F, 3) [m] sampled at fps [1/s]; contacts (T, F) bool;
    the leg roots' positions (T, F, 3) for the paws' floors (quadruped.planner.paw_floors)."""
    floors = paw_floors(paws, roots)
    out = contacts.copy()
    rest_frames = max(2, round(REST_S * fps))
    long_swing = max(3, round(LONG_SWING_S * fps))
    for leg in range(paws.shape[1]):
        h = paws[:, leg, 2] - floors[leg]
        v = speeds(paws[:, leg], fps)
        for a, b in contact_intervals((h <= REST_HEIGHT) & (v <= REST_SPEED)):
            if b - a >= rest_frames:
                out[a:b, leg] = True
        for a, b in contact_intervals(~out[:, leg]):
            if b - a < long_swing:
                continue
            for t in range(a, b):
                lo, hi = max(a, t - 1), min(b, t + 2)
                if h[t] <= DIP_HEIGHT and h[t] <= h[lo:hi].min():
                    s = max(a, t - DIP_FRAMES // 2)
                    out[s : min(b, s + DIP_FRAMES), leg] = True
    return out
