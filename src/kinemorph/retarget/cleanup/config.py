"""Settings of the clean-up stage (one flat dataclass: the CLI and the app generate options from it)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ...errors import ConfigError


@dataclass(frozen=True)
class CleanupConfig:
    """Settings of the clean-up stage that runs after a humanoid engine (and the quadruped one).

    Attributes:
        speed_limit: no joint (nor the root's rotation) moves faster than this [rad/s];
            0.25 rad per frame at 30 fps is 7.5 rad/s, the quality threshold.
        anchor_weight: cost on a planted point's distance from its anchor [1/m^2], against
            joint_weight on joint deviations: large, so planted points hold to a fraction of a mm.
        joint_weight: cost on a joint's deviation from the engine's step [1/rad^2].
        root_position_weight: cost on the root's deviation from the engine's step [1/m^2].
        root_rotation_weight: cost on the root orientation's deviation [1/rad^2].
        lift_weight: cost pulling a foot's contact point that is not planted up off the floor,
            where the engine keeps it lower than lift_height [1/m^2].
        lift_height: height above the floor a foot's contact point that is not planted is lifted
            to [m].
        lift_speed: the fastest such a lift rises [m/s].
        touchdown_speed: a point planted while the robot holds it above the floor comes down at
            most this fast [m/s] (the engine may keep a foot high while the source's is down).
        hard_lift: the lift is a constraint (relaxed at push_speed), not only a cost.
        max_root_speed: the root moves at most this fast along each world axis, or as fast as
            the engine's motion moves it there (a large robot's run is faster) [m/s].
        liftoff_s: after a planted point lets go it first only rises, for this long [s].
        lift_ramp_s: the lift height ramps down to 0 over this time before a touch-down (and up
            after a lift-off) [s].
        swing_weight: cost pulling a free foot point toward the engine's foot over the floor
            [1/m^2], so that it lands where the engine's does (0: joint tracking only).
        return_time: time constant with which the motion returns onto the engine's after a
            constraint let go of it (a foot lifting off, a limb leaving a collision) [s].
        lift_time: a foot's contact point that is not planted moves sideways at most at its
            height above the floor divided by this [s], so that it lifts before it moves and
            nothing that touches the floor slides (0: no such rule).
        contact_tolerance: a frame whose planted points end farther than this times the frame
            time from their anchors (or whose geometry ends inside the floor or itself) gets
            another QP pass from where the first left it [m/s]: 1 mm per frame at 30 fps.
        max_passes: QP passes per frame at most.
        planned_return_time: return_time when the engine planned its own contacts and swings
            (the quadruped engine's natural mode): the stage then only closes what slips [s].
        planned_tolerance: contact_tolerance in that case [m/s]; planned swings are not lifted.
        floor_margin: collision geometry closer to the floor than this is constrained [m].
        self_collision: keep the robot's links apart (capsule proxies of its collision geometry).
        self_distance: least distance kept between two links' proxies [m].
        self_margin: link pairs closer than this are constrained [m].
        push_speed: how fast geometry found inside the floor or inside another link is pushed out
            [m/s] (the engine's frame may start there).
        flight_ballistic: in flight phases (no contact, both neighbours planted) the pelvis height
            follows a parabola under gravity from take-off to landing.
        max_flight_s: a contact-free phase up to this long is a flight; a longer one is followed
            as the engine gave it [s].
        heel_enter_height: source heel (ankle joint) height above its own floor at which it can
            become planted [m].
        toe_enter_height: source toe height above its floor at which it can become planted [m].
        exit_height: rise above the enter height at which a planted point lets go [m].
        enter_speed: source point speed below which it can become planted [m/s].
        exit_speed: source point speed above which a planted point lets go [m/s].
        body_contacts: also plant knees, hands, hips and back when the source puts them on the floor.
        body_contact_height: such a body's source joint height above the floor at which it counts
            as touching [m].
        min_contact_s: planted phases shorter than this are dropped [s].
        solver: QP backend of kinemorph.optim.qp: "daqp" or "osqp".
    """

    speed_limit: float = 7.0
    anchor_weight: float = 1e6
    joint_weight: float = 1.0
    root_position_weight: float = 2.0
    root_rotation_weight: float = 5.0
    lift_weight: float = 1e5
    lift_height: float = 0.015
    lift_speed: float = 1.0
    lift_ramp_s: float = 0.0
    liftoff_s: float = 0.033
    hard_lift: bool = True
    touchdown_speed: float = 0.5
    max_root_speed: float = 4.0
    swing_weight: float = 10.0
    return_time: float = 0.07
    lift_time: float = 0.0
    contact_tolerance: float = 0.03
    max_passes: int = 5
    planned_return_time: float = 0.02
    planned_tolerance: float = 0.003
    floor_margin: float = 0.04
    self_collision: bool = True
    self_distance: float = 0.005
    self_margin: float = 0.04
    push_speed: float = 0.5
    flight_ballistic: bool = True
    max_flight_s: float = 0.6
    heel_enter_height: float = 0.03
    toe_enter_height: float = 0.03
    exit_height: float = 0.03
    enter_speed: float = 0.35
    exit_speed: float = 0.6
    body_contacts: bool = True
    body_contact_height: float = 0.12
    min_contact_s: float = 0.1
    solver: str = "daqp"

    def __post_init__(self) -> None:
        positive = (
            "speed_limit", "anchor_weight", "joint_weight", "root_position_weight", "root_rotation_weight",
            "return_time", "planned_return_time", "planned_tolerance", "touchdown_speed", "push_speed",
            "enter_speed", "exit_speed", "max_root_speed", "lift_speed",
        )  # fmt: skip
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in positive and not v > 0:
                raise ConfigError(f"cleanup: {f.name} must be positive, got {v}")
            if isinstance(v, float) and v < 0:
                raise ConfigError(f"cleanup: {f.name} must not be negative, got {v}")
        if self.exit_speed < self.enter_speed:
            raise ConfigError(
                f"cleanup: exit_speed ({self.exit_speed}) must be at least enter_speed ({self.enter_speed})"
            )
        if self.solver not in ("daqp", "osqp"):
            raise ConfigError(f"cleanup: unknown solver {self.solver!r}; valid: daqp, osqp")
