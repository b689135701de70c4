"""The trunk frame of a quadruped from its leg roots, as motion_imitation builds the robot's base
from the animal's keypoints (Peng et al., "Learning Agile Robotic Locomotion Skills by Imitating
Animals", RSS 2020), with the clip's mean pitch levelled and a zero-phase low-pass."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...filters import low_pass
from ...transforms import axis_angle_to_quat, quat_mul

FL, FR, RL, RR = range(4)


@dataclass(frozen=True)
class TrunkFrame:
    """Trunk position and heading/pitch over a clip (roll removed).

    Attributes:
        origin: centre of the four leg roots [m]. Shape: (T, 3).
        yaw: heading about world z, unwrapped [rad]. Shape: (T,).
        pitch: nose-down rotation about the trunk's lateral axis [rad]. Shape: (T,).
    """

    origin: np.ndarray
    yaw: np.ndarray
    pitch: np.ndarray

    @property
    def quat(self) -> np.ndarray:
        """Orientation R = Rz(yaw) Ry(pitch), wxyz. Shape: (T, 4)."""
        qz = axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), self.yaw)
        qy = axis_angle_to_quat(np.array([0.0, 1.0, 0.0]), self.pitch)
        return quat_mul(qz, qy)

    def matrices(self) -> np.ndarray:
        """Rotation matrices. Shape: (T, 3, 3)."""
        cy, sy = np.cos(self.yaw), np.sin(self.yaw)
        cp, sp = np.cos(self.pitch), np.sin(self.pitch)
        r = np.zeros((len(self.yaw), 3, 3))
        r[:, 0, 0], r[:, 0, 1], r[:, 0, 2] = cy * cp, -sy, cy * sp
        r[:, 1, 0], r[:, 1, 1], r[:, 1, 2] = sy * cp, cy, sy * sp
        r[:, 2, 0], r[:, 2, 1], r[:, 2, 2] = -sp, 0.0, cp
        return r


def trunk_from_roots(
    roots: np.ndarray, fps: float, *, cutoff_hz: float = 2.0, level_pitch: bool = True
) -> tuple[TrunkFrame, TrunkFrame]:
    """(raw, smoothed) trunk frames from leg roots (T, 4, 3) in the order FL, FR, RL, RR.

    Heading points from the hips' centre to the shoulders' centre; pitch is that line's elevation
    (nose up is negative pitch); roll is dropped; with level_pitch the clip's mean pitch is
    subtracted (a robot's trunk is level where an animal's shoulders sit higher than its hips).
    """
    front = 0.5 * (roots[:, FL] + roots[:, FR])
    hind = 0.5 * (roots[:, RL] + roots[:, RR])
    fwd = front - hind
    yaw = np.unwrap(np.arctan2(fwd[:, 1], fwd[:, 0]))
    pitch = np.arctan2(-fwd[:, 2], np.linalg.norm(fwd[:, :2], axis=1))
    if level_pitch:
        pitch = pitch - pitch.mean()
    origin = roots.mean(axis=1)
    raw = TrunkFrame(origin, yaw, pitch)
    smooth = TrunkFrame(
        low_pass(origin, fps, cutoff_hz), low_pass(yaw, fps, cutoff_hz), low_pass(pitch, fps, cutoff_hz)
    )
    return raw, smooth
