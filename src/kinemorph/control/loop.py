"""The simulation loop: a stylized gait walked by the controller on a torque-controlled copy of the
robot in MuJoCo, with pushes, logging and a fall check.

Per control tick: ``mj_step1`` (kinematics, mass matrix, bias forces of the current state), the
controller's torques into the motors, ``mj_step2``, then the remaining physics steps of the tick
with the same torques. The robot starts standing in the kinematic output's first pose (the
gait's crouch, feet on the floor) and the state comes from the simulator (no estimator).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import mujoco
import numpy as np

from ..errors import ConfigError, KinemorphError
from ..gait.commands import Commands
from ..gait.kinematic import solve_reference
from ..gait.phase import contact_segment
from ..gait.planner import plan
from ..gait.robot_table import robot_gait
from ..gait.style import Style
from ..progress import Progress, report
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from ..sim.model import build_torque_model
from .controller import ControlConfig, GaitController
from .log import ControlLog, LogBuilder
from .push import Push
from .record import WALK_FLOOR_SOLIMP, ControlRecorder

FALL_FRACTION = 0.6
"""The robot has fallen when its pelvis is below this share of the planned pelvis height."""


class ControlError(KinemorphError):
    """The controller could not walk the gait (it fell, or a solver failed): says when and in which phase."""


def phase_name(phase: float) -> str:
    """The contact phase at a gait phase (gait.planner: left swing [0, 0.1), right swing [0.5, 0.6))."""
    names = ("left swing", "double support (left leading)", "right swing", "double support (right leading)")
    return names[contact_segment(phase)]


@dataclass(frozen=True)
class SimulationConfig:
    """Settings of a simulated walk.

    Attributes:
        timestep: physics step [s]; divides the control period.
        friction: floor friction coefficient.
        fps: frame rate of the output motion [1/s] (divides the control rate).
        control: the controller's settings.
        raise_on_fall: raise ControlError when the robot falls (else the result says so).
    """

    timestep: float = 0.001
    friction: float = 0.8
    fps: float = 50.0
    control: ControlConfig = field(default_factory=ControlConfig)
    raise_on_fall: bool = True


@dataclass(frozen=True)
class GaitSimulation:
    """A simulated walk.

    Attributes:
        motion: the simulated robot motion (contacts: the plan's).
        log: references, measurements, forces, torques and feedback per planner tick.
        fell: whether the pelvis went below FALL_FRACTION of its planned height.
        fall_time: when [s] (None when it did not fall).
        fall_phase: the contact phase at the fall ("" when none).
        simulated_s: simulated time [s].
        wall_s: wall-clock time of the loop [s].
    """

    motion: RobotMotion
    log: ControlLog
    fell: bool
    fall_time: float | None
    fall_phase: str
    simulated_s: float
    wall_s: float

    @property
    def realtime_factor(self) -> float:
        return self.simulated_s / self.wall_s if self.wall_s > 0 else float("inf")


def _standing(style: Style, robot: Robot, rg: object, command: np.ndarray) -> np.ndarray:
    """The kinematic output's first pose: the crouched stance the plan starts from. Shape: (nq,)."""
    ref = plan(style, Commands.constant(command), 0.1, rate=50.0, body=rg.body)  # type: ignore[attr-defined]
    return solve_reference(ref, robot, measured=rg).qpos[0].copy()  # type: ignore[arg-type]


def _foot_forces(m: mujoco.MjModel, d: mujoco.MjData, feet: tuple[int, int]) -> np.ndarray:
    """World floor force on each foot's subtree [N]. Shape: (2, 3)."""
    out = np.zeros((2, 3))
    f6 = np.zeros(6)
    for i in range(d.ncon):
        c = d.contact[i]
        b1, b2 = int(m.geom_bodyid[c.geom1]), int(m.geom_bodyid[c.geom2])
        for f, body in enumerate(feet):
            if body in (b1, b2):
                mujoco.mj_contactForce(m, d, i, f6)
                w = c.frame.reshape(3, 3).T @ f6[:3]
                out[f] += w if body == b2 else -w
    return out


def simulate_gait(
    style: Style,
    robot: Robot,
    commands: Commands,
    duration: float,
    *,
    config: SimulationConfig | None = None,
    pushes: Sequence[Push] = (),
    progress: Progress | None = None,
) -> GaitSimulation:
    """Walk ``style`` on ``robot`` under ``commands`` for ``duration`` [s] in MuJoCo (module docstring).
    Raises ControlError with the time and phase when the robot falls (unless configured not to)."""
    cfg = config or SimulationConfig()
    cc = cfg.control
    if not duration > 0:
        raise ConfigError(f"duration must be positive, got {duration}")
    n_phys = cfg.timestep * cc.control_rate
    if abs(1.0 / n_phys - round(1.0 / n_phys)) > 1e-6 or round(1.0 / n_phys) < 1:
        raise ConfigError(f"the physics step {cfg.timestep} s must divide the control period {1 / cc.control_rate} s")
    substeps = round(1.0 / n_phys)
    tm = build_torque_model(robot, timestep=cfg.timestep, friction=cfg.friction, floor_solimp=WALK_FLOOR_SOLIMP)
    if not np.isfinite(tm.torque_limit).all():
        raise KinemorphError(f"robot {robot.name}: every motor needs a torque limit for the controller")
    rg = robot_gait(robot)
    m = tm.model
    d = mujoco.MjData(m)
    cmd0 = commands.at(0.0)
    q0 = _standing(style, robot, rg, cmd0)
    d.qpos[:] = q0
    mujoco.mj_forward(m, d)
    ctl = GaitController(style, robot, rg, tm, q0[7:], cc)
    ctl.start(d, cmd0)
    n_ticks = round(duration * cc.plan_rate)
    per_frame = round(cc.control_rate / cfg.fps)
    lb = LogBuilder(tuple(robot.dof_names[j] for j in rg.joints))
    frames = [d.qpos.copy()]
    contacts = [np.array([True, True])]
    fell_at: float | None = None
    fell_phase = ""
    nominal = float(rg.body.pelvis_height)
    control_count = 0
    rec = ControlRecorder(tm, d)
    t0 = time.perf_counter()
    for tick in range(n_ticks):
        t = tick / cc.plan_rate
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        pt = ctl.plan_tick(d, commands.at(t))
        failures = 0
        push = np.zeros(3)
        for k in range(ctl.sub):
            tc = t + k / cc.control_rate
            push = sum((p.force(tm.mass, pt.frame.yaw) for p in pushes if p.active(tc)), np.zeros(3))
            d.xfrc_applied[ctl.pelvis, :3] = push
            mujoco.mj_step1(m, d)
            out = ctl.control_tick(d, k)
            failures += out.status != "solved"
            d.ctrl[:] = out.torque
            mujoco.mj_step2(m, d)
            for _ in range(substeps - 1):
                mujoco.mj_step(m, d)
            rec.add(d)
            control_count += 1
            if control_count % per_frame == 0:
                frames.append(d.qpos.copy())
                contacts.append(pt.frame.contacts.copy())
        pel = d.xpos[ctl.pelvis]
        w, x, y, z = d.xquat[ctl.pelvis]
        meas = ctl.com_state(d)
        lb.add(
            time=t + 1.0 / cc.plan_rate, phase=pt.frame.phase, command=commands.at(t), command_adjusted=pt.command,
            pelvis_height_ref=pt.frame.height, pelvis_height=float(pel[2]), yaw_ref=pt.frame.yaw,
            yaw=float(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))),
            com_ref=pt.com_ref[:, 0], com=meas[:, 0], com_vel_ref=pt.com_ref[:, 1], com_vel=meas[:, 1],
            cop_ref=pt.cop, foot_pos_ref=pt.frame.foot_pos, foot_pos=d.xpos[list(ctl.feet)].copy(),
            contacts_ref=pt.frame.contacts, contact_force=_foot_forces(m, d, ctl.feet), qp_force=out.foot_force,
            torque=out.torque, upper_ref=pt.frame.joints[rg.joints], upper=d.qpos[7 + rg.joints].copy(),
            kappa=pt.feedback.kappa, step_adjust=pt.feedback.step, velocity_adjust=pt.feedback.velocity,
            time_scaling_engaged=pt.feedback.time_engaged, step_adjust_engaged=pt.feedback.step_engaged,
            velocity_adjust_engaged=pt.feedback.velocity_engaged, mpc_solved=pt.mpc_solved, wbc_failures=failures,
            push_force=push, push_estimate=ctl.external.copy(),
        )  # fmt: skip
        if not np.isfinite(d.qpos).all() or pel[2] < FALL_FRACTION * nominal:
            fell_at, fell_phase = t + 1.0 / cc.plan_rate, phase_name(pt.frame.phase)
            break
        report(progress, tick + 1, n_ticks)
    wall = time.perf_counter() - t0
    simulated = (tick + 1) / cc.plan_rate
    qpos = np.array(frames)
    motion = RobotMotion.from_qpos(
        robot.name, cfg.fps, qpos, robot.dof_names, contacts=np.array(contacts), contact_bodies=rg.feet,
        info={"engine": "gait-control", "style": style.name, "duration_s": float(duration), "simulated_s": simulated},
        controls=None if pushes else rec.controls(1.0 / cc.control_rate),
    )  # fmt: skip
    result = GaitSimulation(motion, lb.build(), fell_at is not None, fell_at, fell_phase, simulated, wall)
    if fell_at is not None and cfg.raise_on_fall:
        raise ControlError(
            f"style {style.name!r} on {robot.name}: the controller could not track the gait; the robot fell at "
            f"{fell_at:.2f} s in {fell_phase} (pelvis below {100 * FALL_FRACTION:.0f}% of its planned height)"
        )
    return result
