"""The stylized components of r(t), composed on top of the planner's nominal ones, for many frames at once.

- pelvis: height = the body's nominal height + the style's height curve; orientation = path yaw
  composed with the style's yaw, pitch, roll (Euler ZYX);
- feet: pose composition p = p_nominal (+) p_style, where p_style = translation (x, y, z swing
  offsets) then rotation yaw, heel/toe pitch, roll (intrinsic z, y, x); the pitch turns the foot
  about its heel point (heel pitch <= 0) or toe point (toe pitch >= 0), so the pivot stays where
  it is and the rest of the sole is above it: a foot never goes below the floor by pitching. In
  stance only the pitch acts: it ramps linearly from 0 to the lift-off value before lift-off and
  from the touch-down value to 0 after touch-down, about a pivot that stays on its foothold, so a
  standing foot's contact point does not move. Swing frames are lifted where roll or combined
  pitches would put a sole corner below the floor;
- upper body: the style's curves (offsets from the robot's rest pose, see style.UPPER_BODY_JOINTS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..transforms import euler_to_quat, quat_rotate
from .footsteps import GaitBody
from .sampler import StyleTables
from .style import CURVE_KEYS, UPPER_BODY_JOINTS

if TYPE_CHECKING:
    from .planner import Nominal

_COL = {k: i for i, k in enumerate(CURVE_KEYS)}
_UPPER = [_COL[f"upper.{n}"] for n in UPPER_BODY_JOINTS]


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


def _pivot_translation(heel: np.ndarray, toe: np.ndarray, body: GaitBody) -> np.ndarray:
    """Translation of the sole point when the foot pitches by ``heel`` about the heel point, then by
    ``toe`` about the toe point. Shape: (..., 3)."""
    h, t = body.heel, body.toe
    v1x = h - h * np.cos(heel) - t
    v1z = h * np.sin(heel)
    x = v1x * np.cos(toe) + v1z * np.sin(toe) + t
    z = -v1x * np.sin(toe) + v1z * np.cos(toe)
    return np.stack([x, np.zeros_like(x), z], axis=-1)


def stylize(nominal: Nominal, tables: StyleTables, body: GaitBody) -> Reference:
    """r(t) from the planner's nominal frames: the style's curves blended and composed (see module)."""
    n = nominal
    curves = tables.curves(n.phase, n.weights)  # (N, C)
    start, end = tables.at_ends(n.weights)
    count = len(n.time)

    yaw = n.path[:, 2]
    pelvis_pos = np.stack([n.path[:, 0], n.path[:, 1], body.pelvis_height + curves[:, _COL["pelvis.height"]]], axis=-1)
    euler = np.stack([yaw + curves[:, _COL["pelvis.yaw"]], curves[:, _COL["pelvis.pitch"]],
                      curves[:, _COL["pelvis.roll"]]], axis=-1)  # fmt: skip
    pelvis_rot = euler_to_quat(euler, "zyx")

    foot_pos = np.zeros((count, 2, 3))
    foot_rot = np.zeros((count, 2, 4))
    for f, side in enumerate(("left_foot", "right_foot")):
        swing = ~n.contacts[:, f]

        def col(name: str, values: np.ndarray = curves, side: str = side) -> np.ndarray:
            return values[:, _COL[f"{side}.{name}"]]

        offset = np.stack([col("x"), col("y"), col("z")], axis=-1) * swing[:, None]
        foot_yaw = col("yaw") * swing
        roll = col("roll") * swing
        pitch = {}
        for name in ("heel_pitch", "toe_pitch"):
            stance = n.liftoff_ramp[:, f] * col(name, start) + n.touchdown_ramp[:, f] * col(name, end)
            pitch[name] = np.where(swing, col(name), stance) * n.fade
        total_pitch = pitch["heel_pitch"] + pitch["toe_pitch"]
        pivot = _pivot_translation(pitch["heel_pitch"], pitch["toe_pitch"], body)
        local = offset + quat_rotate(euler_to_quat(foot_yaw[:, None], "z"), pivot)
        ground = np.concatenate([n.feet[:, f, :2], np.zeros((count, 1))], axis=1)
        foot_pos[:, f] = ground + quat_rotate(euler_to_quat(n.feet[:, f, 2:3], "z"), local)
        # Rz(nominal yaw) Rz(yaw) Ry(pitch) Rx(roll) = Rz(nominal yaw + yaw) Ry(pitch) Rx(roll)
        foot_rot[:, f] = euler_to_quat(np.stack([n.feet[:, f, 2] + foot_yaw, total_pitch, roll], axis=-1), "zyx")

    ref = Reference(
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
    # lift swing frames whose roll or combined pitches put a sole corner below the floor
    low = ref.sole_corners(body)[..., 2].min(axis=-1)  # (N, 2)
    lift = np.where(~n.contacts, np.maximum(0.0, -low), 0.0)
    foot_pos[..., 2] += lift
    return ref
