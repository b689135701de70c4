"""Planar geometry of the footstep plan: the walking path, stance offsets, footholds.

Poses here are planar (x [m], y [m], yaw [rad]) in plain floats: the planner evaluates them once
per frame, where numpy's per-call overhead would dominate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import ConfigError

Pose2 = tuple[float, float, float]

FOOT_MARGIN = 0.02
"""[m] Least gap kept between the soles of the two feet when a foothold is projected out of the stance foot."""


@dataclass(frozen=True)
class GaitBody:
    """What the planner needs of a robot: its standing geometry and the shape of its soles.

    Attributes:
        pelvis_height: height of the pelvis above the floor at which the robot walks when the
            style's pelvis curve is zero [m].
        foot_spacing: lateral distance between the two feet's sole points when standing [m].
        foot_x: forward offset of the sole points from the pelvis when standing [m].
        heel: x of the heel point in the sole frame [m] (negative: behind the sole point).
        toe: x of the toe point in the sole frame [m] (positive).
        half_width: half the width of the sole [m].
    """

    pelvis_height: float = 0.70
    foot_spacing: float = 0.22
    foot_x: float = 0.0
    heel: float = -0.06
    toe: float = 0.13
    half_width: float = 0.04

    def __post_init__(self) -> None:
        for name in ("pelvis_height", "foot_spacing", "toe", "half_width"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"GaitBody.{name} must be positive, got {getattr(self, name)}")
        if not self.heel < 0:
            raise ConfigError(f"GaitBody.heel must be negative (behind the sole point), got {self.heel}")


def wrap_angle(a: float) -> float:
    """Angle in [-pi, pi)."""
    return (a + math.pi) % (2 * math.pi) - math.pi


def advance_path(pose: Pose2, velocity: tuple[float, float, float], dt: float) -> Pose2:
    """Path pose after moving ``dt`` [s] at a body-frame velocity [vx, vy, yaw rate] (exact arc)."""
    x, y, yaw = pose
    vx, vy, wz = velocity
    a = wz * dt
    if abs(a) < 1e-6:
        s, c = dt - a * a * dt / 6.0, 0.5 * a * dt
    else:
        s, c = math.sin(a) / wz, (1.0 - math.cos(a)) / wz
    dx, dy = vx * s - vy * c, vx * c + vy * s
    cy, sy = math.cos(yaw), math.sin(yaw)
    return x + cy * dx - sy * dy, y + sy * dx + cy * dy, yaw + a


def compose(a: Pose2, b: Pose2) -> Pose2:
    """Planar pose composition a (+) b: b expressed in a's frame."""
    c, s = math.cos(a[2]), math.sin(a[2])
    return a[0] + c * b[0] - s * b[1], a[1] + s * b[0] + c * b[1], a[2] + b[2]


def stance_offset(body: GaitBody, side: int, stance_width: float, splay: float, x_bias: float) -> Pose2:
    """Nominal pose of a standing foot in the path frame; side +1 left, -1 right."""
    half = 0.5 * max(body.foot_spacing + stance_width, 0.0)
    return body.foot_x + x_bias, side * half, side * splay


def min_separation(body: GaitBody, dyaw: float) -> float:
    """Least lateral distance between two sole points whose feet differ in yaw by dyaw, so that the
    soles (rectangles heel..toe by 2 half_width) keep FOOT_MARGIN apart."""
    reach = max(-body.heel, body.toe)
    return body.half_width * (1.0 + abs(math.cos(dyaw))) + reach * abs(math.sin(dyaw)) + FOOT_MARGIN


def project_out(foothold: Pose2, stance: Pose2, side: int, body: GaitBody) -> Pose2:
    """The foothold of the swing foot on ``side`` (+1 left, -1 right), moved sideways in the stance
    foot's frame until it is at least :func:`min_separation` from the stance foot on its own side
    (feet never land crossed or overlapping). Continuous in both poses."""
    c, s = math.cos(stance[2]), math.sin(stance[2])
    dx, dy = foothold[0] - stance[0], foothold[1] - stance[1]
    lx, ly = c * dx + s * dy, -s * dx + c * dy
    need = min_separation(body, wrap_angle(foothold[2] - stance[2]))
    if side * ly >= need:
        return foothold
    ly = side * need
    return stance[0] + c * lx - s * ly, stance[1] + s * lx + c * ly, foothold[2]


def lerp_pose(a: Pose2, b: Pose2, alpha: float) -> Pose2:
    """Linear interpolation of position, shortest-arc interpolation of yaw (planar SLERP)."""
    return (
        a[0] + alpha * (b[0] - a[0]),
        a[1] + alpha * (b[1] - a[1]),
        a[2] + alpha * wrap_angle(b[2] - a[2]),
    )
