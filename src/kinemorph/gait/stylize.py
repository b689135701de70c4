"""The stylized components of r(t), composed on top of the planner's nominal ones, for many frames at once.

- pelvis: height = the body's nominal height + the style's height curve; orientation = path yaw
  composed with the style's yaw, pitch, roll (Euler ZYX);
- feet: pose composition p = p_nominal (+) p_style, where p_style = translation (x, y, z swing
  offsets) then rotation yaw, heel/toe pitch, roll (intrinsic z, y, x); the pitch turns the foot
  about its heel point (heel pitch <= 0) or toe point (toe pitch >= 0), so the pivot stays where
  it is and the rest of the sole is above it: a foot never goes below the floor by pitching. In
  stance only the pitch acts: it ramps linearly from 0 to the lift-off value before lift-off and
  from the touch-down value to 0 after touch-down, about a pivot that stays on its foothold, so a
  standing foot's contact point does not move. A foot is lifted where roll or combined pitches
  (in swing, or blended from samples that pivot differently) would put a sole corner below the floor;
- upper body: the style's curves (offsets from the robot's rest pose, see style.UPPER_BODY_JOINTS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..transforms import euler_to_quat, quat_rotate
from .footsteps import GaitBody
from .sampler import StyleTables
from .style import CURVE_KEYS, FOOT_CURVES, UPPER_BODY_JOINTS

if TYPE_CHECKING:
    from .planner import Nominal

_COL = {k: i for i, k in enumerate(CURVE_KEYS)}
_UPPER = [_COL[f"upper.{n}"] for n in UPPER_BODY_JOINTS]
_FOOT = np.array([[_COL[f"{side}.{n}"] for n in FOOT_CURVES] for side in ("left_foot", "right_foot")])  # (2, 7)


@dataclass(frozen=True)
class Reference:
    """The reference motion r(t) over frames, world frame Z-up, quaternions wxyz.

    Attributes:
        time: [s]. Shape: (N,).
        phase: gait phase in [0, 1) (left swing [0, 0.1), right swing [0.5, 0.6)). Shape: (N,).
        command: commanded velocity [vx, vy, yaw rate]. Shape: (N, 3).
        weights: share of each key sample (style.KEY_SAMPLES). Shape: (N, 9).
        path: path frame x, y [m], yaw [rad]. Shape: (N, 3).
        pelvis_pos: pelvis x, y (the path point; r(t) itself prescribes only the height, a
            controller places the pelvis horizontally) and height [m]. Shape: (N, 3).
        pelvis_rot: pelvis orientation. Shape: (N, 4).
        foot_pos: sole points of the left and right foot [m]. Shape: (N, 2, 3).
        foot_rot: sole frames of the left and right foot. Shape: (N, 2, 4).
        contacts: foot on the floor, left then right. Shape: (N, 2) bool.
        upper: upper-body joint offsets from the rest pose [rad]. Shape: (N, U).
        upper_names: names of the upper columns (style.UPPER_BODY_JOINTS). Shape: (U,).
    """

    time: np.ndarray
    phase: np.ndarray
    command: np.ndarray
    weights: np.ndarray
    path: np.ndarray
    pelvis_pos: np.ndarray
    pelvis_rot: np.ndarray
    foot_pos: np.ndarray
    foot_rot: np.ndarray
    contacts: np.ndarray
    upper: np.ndarray
    upper_names: tuple[str, ...] = UPPER_BODY_JOINTS

    @property
    def num_frames(self) -> int:
        return int(self.time.shape[0])

    def sole_corners(self, body: GaitBody) -> np.ndarray:
        """World positions of the four sole corners of each foot [m]. Shape: (N, 2, 4, 3)."""
        c = np.array([[body.heel, body.half_width, 0.0], [body.heel, -body.half_width, 0.0],
                      [body.toe, body.half_width, 0.0], [body.toe, -body.half_width, 0.0]])  # fmt: skip
        return self.foot_pos[:, :, None] + quat_rotate(self.foot_rot[:, :, None], c)

    def pivots(self, body: GaitBody) -> np.ndarray:
        """The point each foot turns about, in its sole frame: the toe point while pitched toes-down,
        the heel point while pitched toes-up, the sole point while flat [m]. Shape: (N, 2, 3).
        On the floor this point does not move (exactly, in r(t))."""
        x_axis_z = quat_rotate(self.foot_rot, np.array([1.0, 0.0, 0.0]))[..., 2]  # -sin(pitch)
        x = np.where(x_axis_z < -1e-12, body.toe, np.where(x_axis_z > 1e-12, body.heel, 0.0))
        return np.stack([x, np.zeros_like(x), np.zeros_like(x)], axis=-1)

    def stance_slip(self, body: GaitBody) -> np.ndarray:
        """Horizontal motion of each standing foot's pivot between consecutive frames on the floor [m]
        (0 in r(t)). Shape: (N - 1, 2)."""
        return pivot_slip(self.foot_pos, self.foot_rot, self.pivots(body), self.contacts)


def pivot_slip(foot_pos: np.ndarray, foot_rot: np.ndarray, pivots: np.ndarray, contacts: np.ndarray) -> np.ndarray:
    """Horizontal distance [m] by which the point a foot turns about moves between consecutive frames
    where the foot is on the floor (0 elsewhere). ``pivots`` (sole frame) per frame; between a
    pitched and a flat frame the pitched frame's pivot is the one that must stay.
    foot_pos (N, F, 3), foot_rot (N, F, 4), pivots (N, F, 3), contacts (N, F) -> (N - 1, F)."""
    point = np.where((pivots[1:, :, :1] != 0.0), pivots[1:], pivots[:-1])
    now = foot_pos[1:] + quat_rotate(foot_rot[1:], point)
    before = foot_pos[:-1] + quat_rotate(foot_rot[:-1], point)
    moved = np.linalg.norm((now - before)[..., :2], axis=-1)
    return np.where(contacts[1:] & contacts[:-1], moved, 0.0)


def zyx_quat(yaw: np.ndarray, pitch: np.ndarray, roll: np.ndarray) -> np.ndarray:
    """Quaternion of Rz(yaw) Ry(pitch) Rx(roll) (intrinsic z, y, x). Shape: (..., 4)."""
    return euler_to_quat(np.stack(np.broadcast_arrays(yaw, pitch, roll), axis=-1), "zyx")


def _pivot_translation(heel: np.ndarray, toe: np.ndarray, body: GaitBody) -> tuple[np.ndarray, np.ndarray]:
    """x and z of the sole point's translation when the foot pitches by ``heel`` about the heel
    point, then by ``toe`` about the toe point (y is 0)."""
    h, t = body.heel, body.toe
    v1x = h - h * np.cos(heel) - t
    v1z = h * np.sin(heel)
    return v1x * np.cos(toe) + v1z * np.sin(toe) + t, -v1x * np.sin(toe) + v1z * np.cos(toe)


def _lowest_corner(z: np.ndarray, pitch: np.ndarray, roll: np.ndarray, body: GaitBody) -> np.ndarray:
    """Lowest world z of the sole's corners, for a sole point at height z with Rz Ry(pitch) Rx(roll):
    a corner (x, y, 0) sits at z - sin(pitch) x + cos(pitch) sin(roll) y."""
    along = -np.sin(pitch)[..., None] * np.array([body.heel, body.toe])
    across = np.abs(np.cos(pitch) * np.sin(roll)) * body.half_width
    return z + along.min(axis=-1) - across


def stylize(nominal: Nominal, tables: StyleTables, body: GaitBody) -> Reference:
    """r(t) from the planner's nominal frames: the style's curves blended and composed (see module)."""
    n = nominal
    curves = tables.curves(n.phase, n.weights)  # (N, C)
    start, end = tables.at_ends(n.weights)

    pelvis_pos = np.stack([n.path[:, 0], n.path[:, 1], body.pelvis_height + curves[:, _COL["pelvis.height"]]], axis=-1)
    pelvis_rot = zyx_quat(n.path[:, 2] + curves[:, _COL["pelvis.yaw"]], curves[:, _COL["pelvis.pitch"]],
                          curves[:, _COL["pelvis.roll"]])  # fmt: skip

    # both feet at once: (N, 2) per quantity
    swing = ~n.contacts
    foot = curves[:, _FOOT]  # (N, 2, 7) in the order of style.FOOT_CURVES
    moving = np.where(swing[..., None], foot, 0.0)
    stance = n.liftoff_ramp[..., None] * start[:, _FOOT[:, 5:]] + n.touchdown_ramp[..., None] * end[:, _FOOT[:, 5:]]
    pitches = np.where(swing[..., None], foot[..., 5:], stance) * n.fade[:, None, None]  # heel, toe
    heel, toe = pitches[..., 0], pitches[..., 1]
    foot_yaw, roll, total_pitch = moving[..., 3], moving[..., 4], heel + toe
    px, pz = _pivot_translation(heel, toe, body)
    # the style's pose in the nominal foot frame: offsets, then Rz(yaw) applied to the pivot translation
    lx = moving[..., 0] + np.cos(foot_yaw) * px
    ly = moving[..., 1] + np.sin(foot_yaw) * px
    lz = moving[..., 2] + pz
    nyaw = n.feet[..., 2]
    cn, sn = np.cos(nyaw), np.sin(nyaw)
    z = lz + np.maximum(0.0, -_lowest_corner(lz, total_pitch, roll, body))  # lift where a corner would dip
    foot_pos = np.stack([n.feet[..., 0] + cn * lx - sn * ly, n.feet[..., 1] + sn * lx + cn * ly, z], axis=-1)
    # Rz(nominal yaw) Rz(yaw) Ry(pitch) Rx(roll) = Rz(nominal yaw + yaw) Ry(pitch) Rx(roll)
    foot_rot = zyx_quat(nyaw + foot_yaw, total_pitch, roll)

    return Reference(
        time=n.time,
        phase=n.phase,
        command=n.command,
        weights=n.weights,
        path=n.path,
        pelvis_pos=pelvis_pos,
        pelvis_rot=pelvis_rot,
        foot_pos=foot_pos,
        foot_rot=foot_rot,
        contacts=n.contacts.copy(),
        upper=curves[:, _UPPER],
    )
