"""Style data: gait samples (time intervals, attributes, function curves) at the key velocities.

After Hopkins et al., "Interactive Design of Stylized Walking Gaits for Robotic Characters"
(ACM TOG 2024). A walk cycle is two steps long and starts at left lift-off:

    0 = t_LLO < t_LTD < t_RLO < t_RTD < T          (L/R: left/right, LO/TD: lift-off/touch-down)

left swing [0, t_LTD], double support [t_LTD, t_RLO], right swing [t_RLO, t_RTD], double support
[t_RTD, T]. A style holds one sample per key velocity (``KEY_SAMPLES``); the sampler blends them
for any commanded velocity. Styles are robot-independent: lengths are metres added to the robot's
own standing geometry, upper-body curves use the joint names of ``UPPER_BODY_JOINTS`` (each robot
maps them onto its joints in gait/robot_table.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError
from .splines import Curve

KEY_SAMPLES = (
    "standing",
    "forward_slow",
    "forward_fast",
    "backward_slow",
    "backward_fast",
    "turn_left",
    "turn_right",
    "strafe_left",
    "strafe_right",
)
"""The nine key samples of a style, by commanded velocity [vx, vy, yaw rate]: standing (stepping
in place), slow and fast forward, slow and fast backward, turning left and right in place,
strafing left and right."""

MIN_SINGLE_SUPPORT = 0.15
"""[s] Shortest swing (the other foot's single support)."""

MIN_DOUBLE_SUPPORT = 0.08
"""[s] Shortest double support (both feet on the floor)."""

MAX_HEEL_TOE_SHARE = 0.5
"""A heel/toe transition lasts at most this share of the foot's stance."""

PELVIS_CURVES = ("height", "yaw", "pitch", "roll")
"""Pelvis curves over the cycle: height offset [m], yaw, pitch, roll relative to the path frame
(Euler ZYX) [rad]."""

FOOT_CURVES = ("x", "y", "z", "yaw", "roll", "heel_pitch", "toe_pitch")
"""Foot curves over the foot's swing: offsets x, y, z [m] in the nominal foot frame, yaw and roll
[rad] (zero at the swing's ends), heel pitch in [-pi/2, 0] and toe pitch in [0, pi/2] [rad] (the
foot pivots about its heel or toe point; their end values carry into the stance transitions)."""

UPPER_BODY_JOINTS = (
    "waist_yaw",
    "waist_pitch",
    "shoulder_pitch_l",
    "shoulder_pitch_r",
    "shoulder_roll_l",
    "shoulder_roll_r",
    "elbow_l",
    "elbow_r",
    "head_yaw",
    "head_pitch",
)
"""Robot-independent upper-body joints [rad], offsets from the robot's rest pose. Positive:
waist_yaw turns the torso left of the pelvis, waist_pitch leans it forward, shoulder_pitch swings
the arm forward, shoulder_roll raises it sideways (away from the body), elbow bends it, head_yaw
turns the head left, head_pitch tilts it down."""

CURVE_GROUPS: dict[str, tuple[tuple[str, ...], str]] = {
    "pelvis": (PELVIS_CURVES, "cycle"),
    "left_foot": (FOOT_CURVES, "swing"),
    "right_foot": (FOOT_CURVES, "swing"),
    "upper": (UPPER_BODY_JOINTS, "cycle"),
}
"""Curve groups: names and kind (heel_pitch and toe_pitch are of kind "pitch")."""

CURVE_KEYS: tuple[str, ...] = tuple(f"{g}.{n}" for g, (names, _) in CURVE_GROUPS.items() for n in names)
"""Every curve of a sample as "group.name", in the order of the planner's tables."""

MAX_SPLAY = np.pi / 4
"""[rad] Largest toe-out (or toe-in) of a foot."""

ATTRIBUTES = ("stance_width", "stance_splay", "x_bias", "heel_toe_liftoff", "heel_toe_touchdown")


class StyleError(ConfigError):
    """A style is malformed; the message names the style, the sample and the field."""


def curve_kind(key: str) -> str:
    group, name = key.split(".", 1)
    if name in ("heel_pitch", "toe_pitch"):
        return "pitch"
    return CURVE_GROUPS[group][1]


@dataclass(frozen=True)
class Timing:
    """A sample's time intervals [s]: the cycle [0, cycle], the left swing [0, left_touchdown]
    and the right swing [right_liftoff, right_touchdown].

    Attributes:
        cycle: cycle duration T [s] (two steps).
        left_touchdown: t_LTD [s]; the left swing starts at 0.
        right_liftoff: t_RLO [s].
        right_touchdown: t_RTD [s].
    """

    cycle: float
    left_touchdown: float
    right_liftoff: float
    right_touchdown: float

    def as_array(self) -> np.ndarray:
        """[t_LTD, t_RLO, t_RTD, T]. Shape: (4,)."""
        return np.array([self.left_touchdown, self.right_liftoff, self.right_touchdown, self.cycle])

    def stance(self, side: str) -> float:
        """Time the foot spends on the floor per cycle [s]."""
        swing = self.left_touchdown if side == "left" else self.right_touchdown - self.right_liftoff
        return self.cycle - swing


@dataclass(frozen=True)
class Attributes:
    """A sample's constants.

    Attributes:
        stance_width: distance added between the feet, beyond the robot's standing width [m].
        stance_splay: toe-out of each foot from the path heading [rad] (left turns left).
        x_bias: forward offset of both footholds from the path point [m].
        heel_toe_liftoff: before lift-off the foot pivots into its lift-off pitch over this time [s].
        heel_toe_touchdown: after touch-down the foot pivots from its touch-down pitch to flat over this time [s].
    """

    stance_width: float = 0.0
    stance_splay: float = 0.0
    x_bias: float = 0.0
    heel_toe_liftoff: float = 0.0
    heel_toe_touchdown: float = 0.0

    def as_array(self) -> np.ndarray:
        """In the order of ``ATTRIBUTES``. Shape: (5,)."""
        return np.array([getattr(self, a) for a in ATTRIBUTES])


@dataclass(frozen=True)
class GaitSample:
    """One authored walk cycle at a key velocity.

    Attributes:
        name: its key in the style (one of ``KEY_SAMPLES``).
        velocity: the velocity it is authored for, [vx [m/s], vy [m/s], yaw rate [rad/s]]. Shape: (3,).
        timing: its time intervals.
        attributes: its constants.
        curves: function curves by "group.name" (see ``CURVE_KEYS``); a missing curve is zero.
    """

    name: str
    velocity: np.ndarray
    timing: Timing
    attributes: Attributes
    curves: dict[str, Curve] = field(default_factory=dict)

    def curve(self, key: str) -> Curve:
        """The curve "group.name", or a zero curve of the right kind."""
        if key not in CURVE_KEYS:
            raise ConfigError(f"unknown curve {key!r}; valid: {', '.join(CURVE_KEYS)}")
        return self.curves.get(key) or Curve(curve_kind(key))


@dataclass(frozen=True)
class Style:
    """A walking style: one gait sample per key velocity.

    Attributes:
        name: the style's name.
        description: one line for listings.
        samples: by name, every one of ``KEY_SAMPLES``.
        source: where it was loaded from (file path or packaged name), for messages.
    """

    name: str
    description: str
    samples: dict[str, GaitSample]
    source: str = ""

    def __post_init__(self) -> None:
        missing = [k for k in KEY_SAMPLES if k not in self.samples]
        if missing:
            raise StyleError(f"style {self.name!r}: missing key samples {', '.join(missing)}")

    def ordered(self) -> list[GaitSample]:
        """The samples in the order of ``KEY_SAMPLES``."""
        return [self.samples[k] for k in KEY_SAMPLES]
