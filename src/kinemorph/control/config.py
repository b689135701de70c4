"""Settings of the walking controller (controller.py): rates, reach limits, the parts' settings."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ConfigError
from .capture import CaptureConfig
from .feedback import FeedbackConfig
from .gate import GateConfig
from .mpc import MpcConfig
from .stance import StanceConfig
from .stepping import SteppingConfig
from .wbc import WbcConfig


@dataclass(frozen=True)
class ControlConfig:
    """Settings of the walking controller.

    Attributes:
        plan_rate: gait planner and MPC rate [Hz].
        control_rate: whole-body QP rate [Hz] (a multiple of plan_rate; the physics step divides it).
        follow_rate: rate at which the CoM reference is pulled to the measured CoM [1/s]
            (0: the MPC runs open loop from its own plan; large: from the measurement).
        settle_time: the gait waits this long on both feet at the start while the MPC shifts the
            CoM for the first step [s].
        capture: push recovery (capture.py, on by default): above a push estimate's threshold the
            MPC's reference stays near the robot, the footholds move with it, the gait walks with the push.
        stepping: capture stepping (stepping.py, on by default) while the push estimate is above
            1.1 N/kg: the coming foothold along the push at the DCM's predicted touch-down point plus
            the push's offset, earlier steps when that is out of reach or across the standing foot.
        max_step_width: a swing foot lands at most this much wider than the standing stance width
            (the robot's foot spacing) sideways of the standing foot [m] (inf: as planned); sideways
            steps the legs cannot reach with the pelvis over the standing foot are shortened.
        contact_margin: inward margin of the contact points from the sole edges [m].
        late_touchdown: a foot the plan puts down before it reaches the floor stays a swinging
            foot, pressed down by ``late_descent`` below its reference [m], while the gait runs at
            most at ``late_kappa`` times real time (touchdown.py); off: the plan's clock decides.
        mpc, wbc, feedback: the parts' settings.
        stance: the speed stance (stance.py): on robots whose ankle motors cannot hold the CoP at the
            toe, the pelvis lowers and the feet come closer with the forward speed, and at speed the
            whole-body QP keeps standing feet and torque limits as constraints.
        gate: the lift-off gate (gate.py): no lift-off while the capture point is behind the leading foot.
        scaled_preview: the MPC's preview stretches the current phase by the time scaling that slows
            it (kappa < 1: the phase ends 1/kappa times later), so a double support the gate holds is
            planned as the longer one it is (else the CoP goes over to the next foot too early).
        sideways_reach: share of the legs' sideways reach per cycle (``max_step_width`` wider than
            the stance width, less the feet's least separation) that a sideways command may use;
            a style whose cycle is too slow for the commanded strafing speed runs its clock faster
            (pace = |v_y| T / (share reach), within the single-support limits) at the same speed,
            so its strides stay within that share (0: off, the planner's path runs ahead of the
            clamped feet). 1.2, the default, above the 1.2-1.3 that the reach fixes alone walk on
            G1: T1's relaxed strafing walks 20 s (fell at 10.88 s without); 1.0 made T1's relaxed
            schedule fall at 12.46 s (README).
        smooth_reach: the reach limits' strafing fixes engage while a sideways command's stride per
            cycle (|v_y| T) is more than this share of the legs' sideways reach per cycle
            (support.reach_share; 0: whenever strafing, inf: never): they move a swing's landing
            point and the swing follows smoothly (else they cap its current position) and the preview
            limits a moved foothold against the other foot's moved foothold (else its raw one: landings
            planned up to 0.9 m apart when the planner's path runs ahead of the feet). At 1 G1's
            relaxed and injured strafing at 0.2 m/s (stride 1.2-1.3 of the reach) walk 20 s, but
            relaxed at 0.1 and 0.15 m/s (0.66, 0.97) fell; at 0.5, the default since 2026-12-06, they
            walk too; at 0 (whenever strafing) G1's neutral schedule fell at 17.79 s and neutral
            strafing at 0.1 m/s (0.46) falls either way (docs/WALKING.md, "Slow strafing").
    """

    plan_rate: float = 125.0
    control_rate: float = 500.0
    follow_rate: float = 0.0
    settle_time: float = 0.8
    max_step_width: float = 0.07
    contact_margin: float = 0.005
    late_touchdown: bool = True
    late_descent: float = 0.02
    late_kappa: float = 0.3
    mpc: MpcConfig = field(default_factory=MpcConfig)
    wbc: WbcConfig = field(default_factory=WbcConfig)
    feedback: FeedbackConfig = field(default_factory=FeedbackConfig)
    gate: GateConfig = field(default_factory=GateConfig)
    capture: CaptureConfig = field(default_factory=CaptureConfig)
    stepping: SteppingConfig = field(default_factory=SteppingConfig)
    stance: StanceConfig = field(default_factory=StanceConfig)
    scaled_preview: bool = True
    sideways_reach: float = 1.2
    smooth_reach: float = 0.5

    def __post_init__(self) -> None:
        ratio = self.control_rate / self.plan_rate
        if not (self.plan_rate >= 25 and ratio >= 1 and abs(ratio - round(ratio)) < 1e-9):
            raise ConfigError(
                f"control_rate ({self.control_rate} Hz) must be a whole multiple of "
                f"plan_rate ({self.plan_rate} Hz >= 25)"
            )
        if not 0 < self.late_kappa <= 1:
            raise ConfigError(f"late_kappa must be in (0, 1] (a gait clock rate), got {self.late_kappa}")
