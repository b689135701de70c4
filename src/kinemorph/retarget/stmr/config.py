"""Settings of the STMR engine (one flat dataclass over IkSettings: the CLI generates its options from it)."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ConfigError
from ...optim.ilqr import JACOBIANS
from ..settings import IkSettings

STAGES = ("both", "spatial")


@dataclass(frozen=True)
class StmrConfig(IkSettings):
    """Settings of the STMR engine: the unconstrained IK step's (IkSettings, defaults below), plus

    Attributes:
        stages: "both" runs the spatial (SMR) and the temporal (TMR) stage; "spatial" only SMR.
        contacts: file of per-foot contact booleans (T, 4), FL FR RL RR, as .npy, .npz (key
            "contacts") or .csv/.txt (one row per frame, 0/1); "" detects them from the source.
        foot_weight: IK cost on the foot keypoints [1/m].
        knee_weight: IK cost on the knee keypoints (the unit-vector shape cue) [1/m].
        hip_weight: IK cost on the hip and thigh keypoints [1/m].
        base_position_weight: IK cost on the base position [1/m].
        base_rotation_weight: IK cost on the base orientation [1/rad].
        smr_gain: K of the spatial QP: share of the distance to the IK solution closed per frame
            on top of the IK velocity (0: velocity only, 1: straight to the IK pose).
        swing_lift: least height of a swinging foot above the floor from lift-off on [m].
        swing_clearance: least height of a swinging foot at mid-swing [m].
        smr_iterations: linearisations of the foot constraints per frame.
        landing_speed: a swinging paw's downward speed at touch-down in the spatial stage's
            soft-landing band (landing.py) [m/s].
        landing_decel: the band's braking: a paw tau before touch-down should be at most
            landing_speed tau + landing_decel tau^2 / 2 above the floor and must be at least half
            that [m/s^2] (4: the setting measured in docs/STMR.md); 0 (default): no band, the
            planner's clearance on every swing frame. Only for the temporal stage's reference
            (stages "both"): a spatial-only output keeps the planner's clearance (a paw hovering
            within 3 cm of the floor while it still moves reads as slip in kinemorph.quality).
        swing_ease: each swing's paw (and knee) keypoints re-timed in x, y so that the paw leaves
            and arrives with no horizontal speed (landing.ease_swings; same path, same landing point).
        swing_hold: share of each swing at either end over which the eased paw stands still in x, y
            (0 <= swing_hold < 0.5).
        smr_contact_point: a planted sphere paw holds its contact point still (its material
            velocity; the paw rolls with its calf) rather than its sphere's centre (spatial.py).
        ballistic_history: frames of the base trajectory fitted before a flight phase.
        alpha_min: least temporal scale of a segment (0.5: twice as fast).
        alpha_max: largest temporal scale of a segment (2: twice as slow).
        alpha_speed_floor: a segment is not sped up beyond the joint speed limit
            (``max_joint_speed``): its least alpha is its fastest joint's speed over the limit.
        segments: temporal segments S (cut at contact changes); 0 picks up to ``max_segments``.
        max_segments: segments when ``segments`` is 0.
        control_dt: control (and physics) step of the temporal stage [s] (rounded so that a
            whole number of steps fits a source frame).
        floor_margin: the temporal stage's floor pushes back from this height above z = 0 on
            [m]: MuJoCo's soft contact lets a loaded foot sink a few millimetres, which this
            keeps above the floor's surface (the output's feet do not go into the floor).
        floor_timeconst: the time constant of the floor's contacts [s] in the temporal stage's
            rollouts, kept with the output's controls so that kinemorph.sim replays them on the
            same floor (MuJoCo's solref; its default 0.02 lets a paw that lands with horizontal
            speed v slide v x 9 ms and a trotting Go2's paws sink 1 cm; 0.004 s, four 1 ms physics
            steps: 1 mm of slide at 0.6 m/s, no sinking, but the outputs saturate more and the
            time-warping proof fails, docs/STMR.md; None, the default: MuJoCo's 0.02 s).
        floor_friction_timeconst: the time constant of the floor contacts' friction rows alone [s]
            in the rollouts (MuJoCo's solreffriction; kinemorph.sim.build_torque_model), kept with
            the output's controls like floor_timeconst: a landing paw stops sliding within a few
            milliseconds while it sinks as on the floor_timeconst floor (None: as the contacts').
        friction_pass: after the outer loop, the chosen alpha is solved once more on a floor whose
            friction rows have this time constant [s] (warm-started from the chosen solution) and
            that solution replaces the chosen one when the verdict ranks it better (the outer
            loop's key: not fallen, then feasible, then the objective with the replay's criteria);
            its controls keep that floor. Only with outer_verdict, and only when stiffer than the
            rollouts' own friction rows. None: no such pass.
        physics_dt: the temporal stage's rollouts step the physics at about this step
            (round(control_dt / physics_dt) steps per control step; kinemorph.sim replays at
            1 ms) [s]; 0: one physics step per control step.
        jacobians: the iLQR's Jacobians of a control step (optim.ilqr.IlqrSettings.jacobians):
            "step", one step of the control model (whose floor is at least two control steps
            soft); "frozen", the rollouts' physics step at the control step's start, applied once
            per substep (the rollouts' own floor, at the same cost); "chain", the product over the
            substeps (as many times the cost as substeps).
        threads: threads the iLQR computes its finite-difference Jacobians on (about half of an
            inner solve's time; the result is the same for any count). 2 uses both cores of a
            2-core machine; 1 keeps one STMR run to one core (a batch of runs in parallel).
        outer_evaluations: inner solves of the outer loop (CMA-ES over alpha) at most.
        outer_population: CMA-ES population per generation.
        outer_sigma: CMA-ES initial step on log(alpha).
        inner_iterations: iLQR iterations per outer evaluation (warm-started).
        final_iterations: iLQR iterations on the chosen alpha.
        window_s: horizon of each receding-horizon iLQR solve of the inner problem [s].
        commit_s: share of each solve committed before the next one starts from its end [s].
        servo_kp: stiffness of the joint servos of the dynamics [N m / rad] (0: the replay's; None,
            the default: 40 for a robot of Go2's or A1's size, scaled up for a robot that stands with
            more gravity stiffness: stmr/dynamics.servo_gains).
        servo_kd: damping of the joint servos [N m s / rad] (0: the replay's; None: 1, scaled the same way).
        base_track_weight: iLQR weight on base position error [1/m^2].
        base_rot_weight: iLQR weight on base orientation error [1/rad^2].
        joint_track_weight: iLQR weight on joint angle error [1/rad^2].
        velocity_weight: iLQR weight on velocity error [s^2/m^2].
        effort_weight: iLQR weight on the PD target's distance from the reference joint angle.
        foot_track_weight: iLQR weight on a planted foot's distance from its target [1/m^2].
        foot_velocity_weight: iLQR weight on a planted foot's speed (slip) [s^2/m^2].
        foot_landing_weight: iLQR weight on a landing foot's velocity error in the last 60 ms of
            its swing and the first 30 ms of its stance [s^2/m^2].
        foot_swing_weight: iLQR weight on a swinging foot's distance from its target [1/m^2].
        floor_slip_weight: iLQR weight on the downward speed of a foot's lowest point while it is
            within ``floor_slip_band`` of the floor, on the rollout itself (a soft landing wherever
            the rollout puts the paw down; stmr/floor_cost.py, sphere feet) [s^2/m^2]; 0: off.
        floor_slip_band: height under which that cost sets in, fully at the floor [m].
        contact_point_weight: iLQR weight on a planted foot's contact-point velocity (the lowest
            point of its sphere: a rolling paw's does not move; stmr/floor_cost.py) [s^2/m^2].
        joint_speed_weight: iLQR weight on an actuated joint's speed over ``max_joint_speed`` on
            the rollout (stmr/speed_cost.py: the output's joint jumps were the rollout's joints
            running at 8-13 rad/s; 1000 measured in the README) [s^2/rad^2]; 0: off.
        clearance_weight: iLQR weight on a non-foot collision geom (a calf, a thigh, the trunk)
            coming closer than ``body_clearance`` to the floor on the rollout (stmr/clearance_cost.py:
            only the feet may push on the floor) [1/m^2]; 0: off.
        body_clearance: height above the floor under which that cost sets in [m].
        torque_weight: iLQR weight on a servo's torque over ``torque_margin`` of its motor's limit,
            in units of the limit, at each control step's start (stmr/torque_cost.py: the verdict
            fails a replay whose motors sit at their limits in over a fifth of its steps); 0: off.
        torque_margin: share of the limit where that cost sets in, in (0, 1].
        duration_weight: outer-loop cost per unit of |log alpha| (keeps the source's timing
            unless a change pays).
        seed: seed of the outer optimiser.
        verdict: replay the output in kinemorph.sim and keep the verdict in info["sim_verdict"].
        outer_verdict: the outer loop scores every candidate by the verdict's criteria too (the
            replay of its output with its own controls: fell, base error, slip, saturation).
    """

    stages: str = "both"
    contacts: str = ""
    foot_weight: float = 50.0
    knee_weight: float = 3.0
    hip_weight: float = 2.0
    base_position_weight: float = 20.0
    base_rotation_weight: float = 20.0
    smr_gain: float = 0.3
    swing_lift: float = 0.045
    swing_clearance: float = 0.05
    smr_iterations: int = 2
    landing_speed: float = 0.1
    landing_decel: float = 0.0
    swing_ease: bool = False
    swing_hold: float = 0.0
    smr_contact_point: bool = True
    ballistic_history: int = 5
    alpha_min: float = 0.5
    alpha_max: float = 2.0
    alpha_speed_floor: bool = True
    segments: int = 0
    max_segments: int = 4
    control_dt: float = 0.0055
    floor_margin: float = 0.0
    floor_timeconst: float | None = None
    floor_friction_timeconst: float | None = None
    friction_pass: float | None = None
    physics_dt: float = 0.001
    jacobians: str = "step"
    threads: int = 2
    outer_evaluations: int = 12
    outer_population: int = 4
    outer_sigma: float = 0.3
    inner_iterations: int = 2
    final_iterations: int = 3
    window_s: float = 0.8
    commit_s: float = 0.2
    servo_kp: float | None = None
    servo_kd: float | None = None
    base_track_weight: float = 2000.0
    base_rot_weight: float = 500.0
    joint_track_weight: float = 20.0
    velocity_weight: float = 1.0
    effort_weight: float = 10.0
    foot_track_weight: float = 2000.0
    foot_velocity_weight: float = 50.0
    foot_landing_weight: float = 0.0
    foot_swing_weight: float = 0.0
    floor_slip_weight: float = 0.0
    floor_slip_band: float = 0.02
    contact_point_weight: float = 0.0
    joint_speed_weight: float = 1000.0
    clearance_weight: float = 0.0
    body_clearance: float = 0.02
    torque_weight: float = 100.0
    torque_margin: float = 0.9
    duration_weight: float = 0.2
    seed: int = 0
    verdict: bool = True
    outer_verdict: bool = True
    damping: float = 0.5
    lm_damping: float = 0.01
    tolerance: float = 1e-3
    max_extra_iterations: int = 10
    max_joint_speed: float = 7.0
    posture_weight: float = 0.3

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.stages not in STAGES:
            raise ConfigError(f"stages must be one of {', '.join(STAGES)}, got {self.stages!r}")
        if not (0 < self.alpha_min <= self.alpha_max):
            raise ConfigError(
                f"alpha bounds must satisfy 0 < alpha_min <= alpha_max, got [{self.alpha_min}, {self.alpha_max}]"
                + (" (inverted)" if self.alpha_min > self.alpha_max > 0 else "")
            )
        if not 0 <= self.smr_gain <= 1:
            raise ConfigError(f"smr_gain must be in [0, 1], got {self.smr_gain}")
        if not 0.002 <= self.control_dt <= 0.02:
            raise ConfigError(f"control_dt must be in [0.002, 0.02] s, got {self.control_dt}")
        for name in ("smr_iterations", "ballistic_history", "max_segments", "outer_population"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("segments", "outer_evaluations", "inner_iterations", "final_iterations"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in (
            "foot_weight", "knee_weight", "hip_weight", "base_track_weight", "base_rot_weight",
            "joint_track_weight", "velocity_weight", "effort_weight", "duration_weight", "foot_track_weight",
            "foot_velocity_weight", "foot_landing_weight", "foot_swing_weight", "floor_slip_weight",
            "contact_point_weight", "landing_speed", "landing_decel", "torque_weight",
        ):  # fmt: skip
            if not getattr(self, name) >= 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not 0 <= self.swing_lift <= self.swing_clearance:
            raise ConfigError("need 0 <= swing_lift <= swing_clearance")
        if not (self.window_s > 0 and 0 < self.commit_s <= self.window_s and self.outer_sigma > 0):
            raise ConfigError("need window_s > 0, 0 < commit_s <= window_s and outer_sigma > 0")
        if not 1 <= self.threads <= 64:
            raise ConfigError(f"threads must be in [1, 64], got {self.threads}")
        if self.jacobians not in JACOBIANS:
            raise ConfigError(f"jacobians must be one of {', '.join(JACOBIANS)}, got {self.jacobians!r}")
        if not 0 <= self.physics_dt <= self.control_dt:
            raise ConfigError(f"physics_dt must be in [0, control_dt], got {self.physics_dt}")
        if not self.joint_speed_weight >= 0:
            raise ConfigError(f"joint_speed_weight must be >= 0, got {self.joint_speed_weight}")
        if not 0 <= self.swing_hold < 0.5:
            raise ConfigError(f"swing_hold must be in [0, 0.5), got {self.swing_hold}")
        if not (self.clearance_weight >= 0 and 0 <= self.body_clearance <= 0.1):
            raise ConfigError(
                f"need clearance_weight >= 0 and body_clearance in [0, 0.1] m, got {self.clearance_weight}, "
                f"{self.body_clearance}"
            )
        if not 0 < self.torque_margin <= 1:
            raise ConfigError(f"torque_margin must be in (0, 1], got {self.torque_margin}")
        if not self.floor_slip_band > 0:
            raise ConfigError(f"floor_slip_band must be > 0, got {self.floor_slip_band}")
        for name in ("floor_timeconst", "floor_friction_timeconst", "friction_pass"):
            value = getattr(self, name)
            if value is not None and not 0 < value <= 0.1:
                raise ConfigError(f"{name} must be in (0, 0.1] s, got {value}")
        if not 0 <= self.floor_margin <= 0.02:
            raise ConfigError(f"floor_margin must be in [0, 0.02] m, got {self.floor_margin}")
        if any(g is not None and not g >= 0 for g in (self.servo_kp, self.servo_kd)):
            raise ConfigError("servo_kp and servo_kd must be >= 0")
