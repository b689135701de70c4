"""The feasibility verdict: one SimReport from the inverse dynamics and the replay.

``feasible`` is True when every one of these holds (thresholds in SimConfig):

- the replay did not diverge (NaN state or a MuJoCo warning);
- the robot did not fall: trunk tilt from the reference trunk's up axis at most 45 deg and base
  height at least 60% of the reference's, at every frame;
- the replay tracked: base position RMS error <= ``max_base_rms_m`` (0.10 m: a tenth of a step
  or of a humanoid's leg, beyond which the robot does something else than the motion);
- contacts explain the motion: mean residual base force <= ``max_residual_mean`` (10% of body
  weight) and its 95th percentile <= ``max_residual_p95`` (30%). A real robot has no force on
  its base; a few percent come from finite differences of jittery kinematics, a flight phase that
  the motion does not make ballistic or a trunk held in the air without support gives 100%;
- the residual does not add up: over any ``residual_window_s`` (0.5 s) the residual wrench gives
  the base at most ``max_residual_velocity`` (0.10 m/s) and ``max_residual_angular_velocity``
  (0.15 rad/s, 0.1 m/s at 0.7 m) of velocity that no contact provides. A small residual sustained
  for a few tenths of a second is what tips a tracked walk over: 0.1 m/s moves the capture point by
  v / sqrt(g / h) = 2.6 cm for a centre of mass 0.7 m high (G1), a quarter of a foot's length,
  about what balance can absorb without leaving the motion;
- the required torques fit the motors: the inverse-dynamics torque exceeds a limit in at most
  ``max_over_limit`` (5%) of frames;
- no collision geometry goes deeper than ``max_penetration_m`` (2 cm) into the floor;
- the replay's motors sit at their limits in at most ``max_saturation`` (20%) of physics steps.

Each failed check adds one sentence to ``reasons``. The checks of the inverse dynamics (residual,
torques, penetration) do not depend on a controller; ``dynamics_feasible`` says whether they
pass. The replay's checks (fall, tracking, saturation) judge the motion together with the
replay's controller (replay.py), which holds stances and slow motions but is no walking
controller: a walk whose dynamics are consistent can still fall in the replay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..transforms import quat_rotate

TILT_LIMIT_DEG = 45.0
HEIGHT_FRACTION = 0.6


@dataclass(frozen=True)
class Thresholds:
    """Limits of the verdict (see the module docstring)."""

    max_base_rms_m: float = 0.10
    max_residual_mean: float = 0.10
    max_residual_p95: float = 0.30
    max_over_limit: float = 0.05
    max_penetration_m: float = 0.02
    max_saturation: float = 0.20
    residual_window_s: float = 0.5
    max_residual_velocity: float = 0.10
    max_residual_angular_velocity: float = 0.15


@dataclass(frozen=True)
class SimReport:
    """Feasibility of a robot motion. Figures of the replay are over the simulated frames.

    Attributes:
        robot: robot name.
        feasible: every check of ``kinemorph.sim.verdict`` passed.
        dynamics_feasible: the checks of the inverse dynamics passed (residual, torques,
            penetration): they do not depend on the replay's controller.
        reasons: one sentence per failed check (empty when feasible).
        fell: trunk tilt > 45 deg from the reference or base below 60% of the reference height.
        time_to_fall_s: time of the fall [s] (None when it did not fall).
        diverged: the simulation blew up (NaN, MuJoCo warning); time_to_fall_s is then that time.
        duration_s: length of the motion [s].
        simulated_s: time simulated before the end, the fall or the divergence [s].
        base_position_rms_m: base position error against the reference [m].
        base_orientation_rms_deg: base orientation error [deg].
        joint_rms_rad: joint angle error over all joints and frames [rad].
        torque_saturation_fraction: physics steps with any motor at its limit during the replay.
        residual_force_mean_fraction: mean |residual base force| / weight (inverse dynamics).
        residual_force_p95_fraction: its 95th percentile.
        residual_force_max_fraction: its maximum.
        residual_velocity_max_m_s: largest |integral of the residual's linear base acceleration|
            over a window of ``residual_window_s`` [m/s]: base velocity the contacts cannot give.
        residual_angular_velocity_max_rad_s: the same for the angular acceleration [rad/s].
        id_torque_over_limit_fraction: frames whose inverse-dynamics torque exceeds a motor limit.
        id_torque_peak_ratio: max |inverse-dynamics torque| / limit over joints and frames.
        id_torque_peak_joint: the joint of that peak.
        required_friction_p95: 95th percentile of the friction coefficient the motion asks of the
            floor (|F_xy| / F_z of the net floor force it needs; inverse.Dynamics.required_friction).
        required_friction_max: its maximum.
        floor_friction: the floor's friction coefficient.
        max_penetration_m: deepest point of the collision geometry under the floor in the motion [m].
        contact_slip_cm_s: mean tangential speed of points touching the floor in the replay [cm/s]
            (every body, every touch: swinging feet that brush the floor count too).
        planted_foot_slip_cm_s: mean tangential contact-point speed of planted feet in the replay
            [cm/s]: a foot (robot.feet) that carries load on a frame and on the frame before or
            after it (simulate.planted_feet), averaged over those (frame, foot) entries.
        brief_foot_touches: (frame, foot) entries where a foot carries load on that frame alone.
        assist_force_mean_fraction: mean base-assist force / weight (0 when the assist is off).
        realtime_factor: simulated seconds per wall-clock second of the replay.
        timestep_s: physics step [s].
        divergence: what made the replay diverge ("" when it did not).
        controller: what drove the replay: "own controls" (the motion's RobotMotion.controls,
            sim/controlled.py) or "tracking replay" (sim/replay.py).
        floor_bodies: bodies the motion has on or under the floor that its contact mask leaves
            out, with their frame counts, most first: the inverse dynamics lets only the contact
            bodies (the feet) push, so these show up as residual.
    """

    robot: str
    feasible: bool
    dynamics_feasible: bool
    reasons: list[str]
    fell: bool
    time_to_fall_s: float | None
    diverged: bool
    duration_s: float
    simulated_s: float
    base_position_rms_m: float
    base_orientation_rms_deg: float
    joint_rms_rad: float
    torque_saturation_fraction: float
    residual_force_mean_fraction: float
    residual_force_p95_fraction: float
    residual_force_max_fraction: float
    residual_velocity_max_m_s: float
    residual_angular_velocity_max_rad_s: float
    id_torque_over_limit_fraction: float
    id_torque_peak_ratio: float
    id_torque_peak_joint: str
    required_friction_p95: float
    required_friction_max: float
    floor_friction: float
    max_penetration_m: float
    contact_slip_cm_s: float
    planted_foot_slip_cm_s: float
    brief_foot_touches: int
    assist_force_mean_fraction: float
    realtime_factor: float
    timestep_s: float
    divergence: str = ""
    controller: str = "tracking replay"
    thresholds: dict[str, float] = field(default_factory=dict)
    floor_bodies: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """Two lines for a terminal."""
        verdict = "FEASIBLE" if self.feasible else "INFEASIBLE"
        if not self.feasible and self.dynamics_feasible:
            verdict += ", dynamically consistent"
        fall = f"fell at {self.time_to_fall_s:.2f} s" if self.fell else "did not fall"
        if self.diverged:
            fall = f"diverged at {self.time_to_fall_s:.2f} s"
        line = (
            f"{self.robot}: {verdict} ({fall}); base {100 * self.base_position_rms_m:.1f} cm / "
            f"{self.base_orientation_rms_deg:.1f} deg rms, joints {self.joint_rms_rad:.3f} rad rms, "
            f"residual {100 * self.residual_force_mean_fraction:.1f}% weight, "
            f"saturation {100 * self.torque_saturation_fraction:.1f}%, slip {self.contact_slip_cm_s:.1f} cm/s "
            f"(planted feet {self.planted_foot_slip_cm_s:.1f}); "
            f"controller: {self.controller}"
        )
        return line + "".join(f"\n  - {r}" for r in self.reasons)


def up_axes(quat_wxyz: np.ndarray) -> np.ndarray:
    """Body z axis in the world per quaternion. Shape: (T, 3)."""
    z = np.zeros((quat_wxyz.shape[0], 3))
    z[:, 2] = 1.0
    return quat_rotate(quat_wxyz, z)


def fall_test(ref_qpos: np.ndarray) -> Callable[[int, np.ndarray], bool]:
    """A callable(frame, qpos) -> bool: True once the robot has fallen (module doc)."""
    ups = up_axes(ref_qpos[:, 3:7])
    cos_limit = np.cos(np.radians(TILT_LIMIT_DEG))

    def fallen(frame: int, qpos: np.ndarray) -> bool:
        up = up_axes(qpos[None, 3:7])[0]
        if float(up @ ups[frame]) < cos_limit:
            return True
        return bool(qpos[2] < HEIGHT_FRACTION * ref_qpos[frame, 2])

    return fallen


def orientation_error_deg(a_wxyz: np.ndarray, b_wxyz: np.ndarray) -> np.ndarray:
    """Angle between orientations [deg]. Shapes: (T, 4) -> (T,)."""
    dot = np.abs(np.sum(a_wxyz * b_wxyz, axis=1)) / (np.linalg.norm(a_wxyz, axis=1) * np.linalg.norm(b_wxyz, axis=1))
    return np.degrees(2 * np.arccos(np.clip(dot, -1.0, 1.0)))


def residual_velocity(acc: np.ndarray, fps: float, window_s: float) -> float:
    """max over windows of |sum of acc dt|: the velocity a residual acceleration (T, k) adds up to."""
    c = np.vstack([np.zeros(acc.shape[1]), np.cumsum(acc, axis=0) / fps])
    n = max(1, round(window_s * fps))
    if c.shape[0] <= n:
        return float(np.linalg.norm(c[-1] - c[0]))
    return float(np.linalg.norm(c[n:] - c[:-n], axis=1).max())


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else 0.0
