"""Settings of the quadruped engine (one flat dataclass over IkSettings: the CLI generates its options from it)."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ConfigError
from ..settings import IkSettings

MODES = ("natural", "plain")


@dataclass(frozen=True)
class QuadrupedConfig(IkSettings):
    """Settings of the quadruped engine: the IK step's (IkSettings, with the defaults below), plus

    Attributes:
        mode: "natural" plans the whole clip (trunk frame, hip-relative feet, contacts, foot
            locking) before a regularised IK; "plain" is root + four feet keypoint IK with the
            robot's shipped mapping (GMR's method).
        cutoff_hz: low-pass cutoff of the planned trunk [Hz].
        stride_window_s: running-mean window that centres each stride under its hip [s].
        clearance: least height of a swinging foot above the floor at mid-swing [m].
        swing_lift: least height of a swinging foot above the floor on every swing frame [m].
        stance_height: height above the floor at which planted feet are held [m]; a few millimetres
            absorb the IK's tracking error so that planted feet do not sink into the floor.
        clearance_ramp: share of a swing over which the clearance builds up (and falls).
        max_swing_s: a swing up to this long is planned from hold to hold; a longer one follows the
            source with an eased correction [s].
        reach_margin: foot targets stay within this share of the leg's full reach from the hip.
        contact_enter_height: paw height above its floor at which it can become planted [m].
        contact_exit_height: paw height above its floor at which it stops being planted [m].
        contact_enter_speed: paw speed below which it can become planted [m/s].
        contact_exit_speed: paw speed above which it stops being planted [m/s].
        base_height_min: lowest base height target [m].
        base_height_max: highest base height target [m].
        foot_weight: IK cost on foot positions [1/m].
        stance_weight: factor on a planted foot's cost (held harder than a swinging one).
        roll_paws: planted sphere paws roll with their calves (a second solve on targets moved
            along the first solve's turns; rolling.py) instead of turning on the spot, which
            slides their contact points.
        base_position_weight: IK cost on the base position [1/m].
        base_rotation_weight: IK cost on the base orientation [1/rad].
        posture_weight: pull of every joint toward the robot's rest keyframe [1/rad].
        max_joint_speed: no joint moves faster than this from frame to frame [rad/s]; swing feet lag
            their targets rather than jump (0.25 rad per frame at 30 fps is 7.5 rad/s).
        lm_damping: per-task damping, times the task's squared weighted error (GMR uses 1; with the
            large weights of planted feet that would stall the steps).
    """

    mode: str = "natural"
    cutoff_hz: float = 1.2
    stride_window_s: float = 0.8
    clearance: float = 0.05
    swing_lift: float = 0.045
    stance_height: float = 0.003
    clearance_ramp: float = 0.2
    max_swing_s: float = 0.6
    reach_margin: float = 0.9
    contact_enter_height: float = 0.035
    contact_exit_height: float = 0.06
    contact_enter_speed: float = 0.6
    contact_exit_speed: float = 1.0
    base_height_min: float = 0.24
    base_height_max: float = 0.38
    foot_weight: float = 50.0
    stance_weight: float = 5.0
    roll_paws: bool = True
    base_position_weight: float = 20.0
    base_rotation_weight: float = 20.0
    posture_weight: float = 0.3
    max_joint_speed: float = 7.0
    damping: float = 0.5
    lm_damping: float = 0.01
    tolerance: float = 1e-3
    max_extra_iterations: int = 10

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mode not in MODES:
            raise ConfigError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        positive = (
            "stride_window_s", "contact_enter_speed", "contact_exit_speed", "foot_weight", "stance_weight",
        )  # fmt: skip
        for name in positive:
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name} must be positive, got {getattr(self, name)}")
        non_negative = (
            "cutoff_hz", "clearance", "contact_enter_height", "base_position_weight", "base_rotation_weight",
        )  # fmt: skip
        for name in non_negative:
            if not getattr(self, name) >= 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not 0 < self.reach_margin <= 1:
            raise ConfigError(f"reach_margin must be in (0, 1], got {self.reach_margin}")
        if not self.max_swing_s > 0:
            raise ConfigError(f"max_swing_s must be positive, got {self.max_swing_s}")
        if not 0 < self.clearance_ramp <= 0.5:
            raise ConfigError(f"clearance_ramp must be in (0, 0.5], got {self.clearance_ramp}")
        if not 0 <= self.swing_lift <= self.clearance:
            raise ConfigError("need 0 <= swing_lift <= clearance")
        if self.contact_exit_height < self.contact_enter_height:
            raise ConfigError("contact_exit_height must be >= contact_enter_height (hysteresis)")
        if self.contact_exit_speed < self.contact_enter_speed:
            raise ConfigError("contact_exit_speed must be >= contact_enter_speed (hysteresis)")
        if not 0 < self.base_height_min < self.base_height_max:
            raise ConfigError("need 0 < base_height_min < base_height_max")
