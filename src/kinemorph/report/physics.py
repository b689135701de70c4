"""The physics verdict of each clip for the dataset report (opt-in: about 0.3 s per 4 s clip on G1).

Each clip's output goes through kinemorph.sim.simulate: inverse dynamics with floor contacts and a
torque-controlled replay. Mode ``dynamics`` requires the checks that do not depend on the replay's
controller (residual base force, motor torques, penetration: ``dynamics_feasible``); mode
``replay`` requires the whole verdict (also no fall, tracking, saturation: ``feasible``). The
replay's controller holds stances and slow motions but is no walking controller, so ``replay``
fails most walks whose dynamics are consistent (kinemorph.sim.verdict).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConfigError, UnknownNameError

if TYPE_CHECKING:
    from ..robots.robot import Robot
    from ..robots.robot_motion import RobotMotion

PHYSICS_MODES = ("dynamics", "replay")


@dataclass(frozen=True)
class PhysicsVerdict:
    """A clip's physics verdict.

    Attributes:
        feasible: every check of the verdict passed.
        dynamics_feasible: the inverse-dynamics checks passed.
        reasons: one sentence per failed check.
        fell: the replay fell or diverged.
        time_to_fall_s: when [s], None when it did not.
    """

    feasible: bool
    dynamics_feasible: bool
    reasons: tuple[str, ...]
    fell: bool
    time_to_fall_s: float | None

    def passes(self, mode: str) -> bool:
        return self.dynamics_feasible if mode == "dynamics" else self.feasible

    def to_dict(self) -> dict[str, object]:
        return {
            "feasible": self.feasible,
            "dynamics_feasible": self.dynamics_feasible,
            "reasons": list(self.reasons),
            "fell": self.fell,
            "time_to_fall_s": self.time_to_fall_s,
        }


def check_mode(mode: str | None) -> None:
    if mode is not None and mode not in PHYSICS_MODES:
        raise UnknownNameError("physics mode", str(mode), PHYSICS_MODES)


def physics_verdict(motion: RobotMotion, robot: Robot) -> PhysicsVerdict:
    """The verdict of one motion (kinemorph.sim.simulate with its default configuration)."""
    from ..sim import simulate

    if motion.num_frames < 3:
        raise ConfigError(f"{motion.num_frames} frames: too short for the physics verdict")
    rep = simulate(motion, robot)
    return PhysicsVerdict(
        feasible=bool(rep.feasible),
        dynamics_feasible=bool(rep.dynamics_feasible),
        reasons=tuple(rep.reasons),
        fell=bool(rep.fell),
        time_to_fall_s=None if rep.time_to_fall_s is None else float(rep.time_to_fall_s),
    )
