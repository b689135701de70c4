"""From the gait planner's r(t) to the whole-body controller's targets.

Two consecutive planner frames bracket each control tick: positions are interpolated linearly
(orientations by normalised linear interpolation), velocities are their difference over the
planner step in real time. Sole frames become foot body poses through the robot's measured sole
offsets; footholds move by the step adjustment (each foot keeps the shift it landed with, and a
swinging foot blends from the shift it lifted off with to the current one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from ..gait.footsteps import min_separation, wrap_angle
from ..gait.kinematic import upper_joint_values
from ..gait.robot_table import RobotGait
from ..gait.sampler import f_soft
from ..gait.stylize import Reference
from ..robots.robot import Robot
from ..transforms import pose_inverse, quat_rotate
from .support import clamp_width


@dataclass
class Frame:
    """One planner frame as the controller's targets (world frame).

    Attributes:
        foot_pos: foot body origins [m]. Shape: (2, 3).
        foot_quat: foot body orientations, wxyz. Shape: (2, 4).
        pelvis_quat: wxyz. Shape: (4,).
        height: pelvis height [m].
        joints: every joint's target [rad]. Shape: (nj,).
        contacts: Shape: (2,) bool.
        points: which of each foot's contact points the reference has on the floor (a foot pivoting
            on its heel or toe carries force on those points only). Shape: (2, 4) bool.
        phase: gait phase.
        yaw: pelvis heading [rad].
    """

    foot_pos: np.ndarray
    foot_quat: np.ndarray
    pelvis_quat: np.ndarray
    height: float
    joints: np.ndarray
    contacts: np.ndarray
    phase: float
    yaw: float
    points: np.ndarray


class FrameMaker:
    """Turns single-frame References into :class:`Frame` s for one robot."""

    FLOOR_TOLERANCE = 0.004
    """[m] A contact point of a standing foot's reference within this height of the floor carries force."""

    def __init__(
        self, robot: Robot, rg: RobotGait, posture: np.ndarray, points: np.ndarray, max_width: float = np.inf
    ) -> None:
        self.points = points  # (2, 4, 3) in the foot bodies' frames
        self.max_width = max_width
        self.robot = robot
        self.rg = rg
        self.posture = np.asarray(posture, dtype=np.float64)
        inv = [pose_inverse(rg.sole_pos[f], rg.sole_rot[f]) for f in range(2)]
        self.inv = [
            (np.ascontiguousarray(p, dtype=np.float64), np.ascontiguousarray(q, dtype=np.float64)) for p, q in inv
        ]
        self.offset = np.zeros((2, 2))
        self.lift_offset = np.zeros((2, 2))
        self.was_contact = np.array([True, True])
        self.lift_sole = np.zeros((2, 2))
        self.sideways = 0.0  # commanded sideways speed [m/s]: != 0 limits the landing point (_reach_shift)

    def _reach_shift(
        self,
        f: int,
        sole: np.ndarray,
        stance: tuple[float, float, float],
        dyaw: float,
        progress: float,
        smooth: bool = True,
    ) -> np.ndarray:
        """Shift (2,) [m] of swing foot f's sole position ``sole`` (2,) that keeps the feet apart and
        within reach of the standing foot's planar pose ``stance`` (support.clamp_width). The planner's
        swing runs from the lift-off point L to the foothold T as L + s (T - L), s = f_soft(progress);
        with ``smooth`` the limits move T, and the swing foot by s times that (a smooth swing to the
        limited foothold; limiting the current position stops a wide strafing step at the reach
        within one tick, and the swinging leg's braking pushed G1 off its standing foot)."""
        side = 1 if f == 0 else -1
        need = min_separation(self.rg.body, dyaw)
        if not smooth:  # the current position
            return np.array(clamp_width((float(sole[0]), float(sole[1])), stance, side, self.max_width, need)) - sole
        s = f_soft(progress)
        if s < 1e-3:
            return np.zeros(2)
        land = self.lift_sole[f] + (sole - self.lift_sole[f]) / s
        moved = clamp_width((float(land[0]), float(land[1])), stance, side, self.max_width, need)
        return s * (np.array(moved) - land)

    def frame(self, ref: Reference, swing_progress: np.ndarray, step: np.ndarray) -> Frame:
        """``swing_progress``: share of each swing done (0..1; ignored in stance); ``step``: the
        current foothold shift (2,)."""
        contacts = ref.contacts[0]
        for f in range(2):
            if not contacts[f]:
                if self.was_contact[f]:
                    self.lift_offset[f] = self.offset[f]
                self.offset[f] = self.lift_offset[f] + f_soft(float(swing_progress[f])) * (step - self.lift_offset[f])
        for f in range(2):
            if not contacts[f] and self.was_contact[f]:  # lift-off: where the swing starts
                self.lift_sole[f] = ref.foot_pos[0, f, :2] + self.offset[f]
        self.was_contact = contacts.copy()
        pos = np.empty((2, 3))
        quat = np.empty((2, 4))
        for f in range(2):  # sole pose (+) (sole in the foot body)^-1, with MuJoCo's scalar routines
            ip, iq = self.inv[f]
            mujoco.mju_rotVecQuat(pos[f], ip, ref.foot_rot[0, f])
            pos[f] += ref.foot_pos[0, f]
            mujoco.mju_mulQuat(quat[f], ref.foot_rot[0, f], iq)
        pos[:, :2] += self.offset
        if contacts[0] != contacts[1]:  # single support: limit the reach, keep the feet apart
            f = 0 if not contacts[0] else 1
            o = 1 - f
            sole = ref.foot_pos[0, :, :2] + self.offset
            w, x, y, z = ref.foot_rot[0, o]
            stance = (float(sole[o, 0]), float(sole[o, 1]), math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
            w, x, y, z = ref.foot_rot[0, f]
            dyaw = wrap_angle(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) - stance[2])
            smooth = self.sideways != 0.0  # strafing (ControlConfig.smooth_reach)
            shift = self._reach_shift(f, sole[f], stance, dyaw, float(swing_progress[f]), smooth)
            pos[f, :2] += shift
            self.offset[f] += shift  # the foot keeps the moved foothold when it lands (and lifts off from it)
        joints = self.posture.copy()
        joints[self.rg.joints] = upper_joint_values(ref, self.robot, self.rg)[0]
        w, x, y, z = ref.pelvis_rot[0]
        yaw = float(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
        on = np.zeros((2, 4), dtype=bool)
        for f in range(2):
            if contacts[f]:
                z = pos[f, 2] + quat_rotate(quat[f], self.points[f])[:, 2]
                on[f] = z < z.min() + self.FLOOR_TOLERANCE
        return Frame(pos, quat, ref.pelvis_rot[0].copy(), float(ref.pelvis_pos[0, 2]), joints, contacts.copy(),
                     float(ref.phase[0]), yaw, on)  # fmt: skip


def quat_velocity(q0: np.ndarray, q1: np.ndarray, dt: float) -> np.ndarray:
    """World angular velocity [rad/s] taking q0 to q1 in dt [s]. Shape: (3,)."""
    conj = np.empty(4)
    mujoco.mju_negQuat(conj, q0)
    dq = np.empty(4)
    mujoco.mju_mulQuat(dq, q1, conj)
    v = np.empty(3)
    mujoco.mju_quat2Vel(v, dq, dt)
    return v


def nlerp(a: np.ndarray, b: np.ndarray, s: float) -> np.ndarray:
    """Normalised linear interpolation of quaternions (short arc); a, b (..., 4)."""
    if a.ndim == 1:
        sign = -1.0 if float(a @ b) < 0 else 1.0
        q = (1 - s) * a + (s * sign) * b
        return q / math.sqrt(float(q @ q))
    signs = np.where(np.sum(a * b, axis=-1, keepdims=True) < 0, -1.0, 1.0)
    q = (1 - s) * a + s * signs * b
    return q / np.linalg.norm(q, axis=-1, keepdims=True)
