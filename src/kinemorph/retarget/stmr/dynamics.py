"""The temporal stage's dynamics: the robot as PD servos with clamped torques, on a floor, in MuJoCo.

Built on kinemorph.sim's torque-controlled copy (the same floor, friction and motors), whose
motors become position servos: tau = clip(kp (u - q) - kd v, -limit, limit), u the control (a
joint target within the joint's range), the limit the motor's torque limit. The gains default to
those of a Unitree-size servo under a learned policy (kp = 40 N m / rad, kd = 1 N m s / rad):
the replay's stiffer gains, made for a 1 kHz tracking loop, saturate the motors at 90 Hz and leave
the optimiser little authority (measured: 80-90% of steps saturated against 0% on a trot). A robot
that stands with more gravity stiffness m g h (mass, gravity, standing hip height) than
``SERVO_MGH`` gets them scaled by its m g h over that (``servo_gains``): Go2's 40 N m and A1's 33
keep them, Unitree A2 (40 kg, 164 N m) gets 3.6 times (with Go2's gains its dog_idle rollout fell,
24 cm off the motion; with these it stands, 8 cm off). The
damping term is integrated implicitly (``implicitfast``), so one physics step is the control step
(``control_dt``, 5-20 ms) and one ``mjd_transitionFD`` call gives the step's Jacobians.

The rollouts themselves step finer physics: ``substeps`` steps of ``physics`` (the same model at
timestep control_dt / substeps) per control step, which the iLQR is given (optim.ilqr's ``physics``).
kinemorph.sim replays the output's controls at 1 kHz; rolled out in one 5.6 ms step per control
step, the same PD targets and gains drove the replay away from the rollout (A1 dog_walk at alpha 1:
replay base error 14-21 cm against the output, every one of 15 outer candidates fell in the
replay while every rollout stood); at 5 or 6 substeps (1.1 or 0.93 ms) 1.2 cm.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import mujoco
import numpy as np

from ...robots.geometry import lowest_points
from ...robots.robot import Robot
from ...sim.feedback import foot_of_geoms
from ...sim.gains import Gains, pd_gains
from ...sim.model import TorqueModel, build_torque_model, set_floor
from ...sim.servo import make_servos


@dataclass(frozen=True)
class ServoModel:
    """A robot as torque-limited PD servos.

    Attributes:
        model: the compiled model (timestep = control step).
        torque_model: the sim copy it was made from.
        kp: stiffness per actuator [N m / rad]. Shape: (nu,).
        kd: damping per actuator [N m s / rad]. Shape: (nu,).
        qpos_index: qpos address of each actuator's joint. Shape: (nu,).
        torque_limit: |torque| bound per actuator [N m]. Shape: (nu,).
        physics: the model a control step is simulated with (timestep = control step / substeps).
        substeps: physics steps per control step.
    """

    model: mujoco.MjModel
    torque_model: TorqueModel
    kp: np.ndarray
    kd: np.ndarray
    qpos_index: np.ndarray
    torque_limit: np.ndarray
    physics: mujoco.MjModel
    substeps: int = 1

    @property
    def dt(self) -> float:
        return float(self.model.opt.timestep)

    def step(self, d: mujoco.MjData) -> None:
        """One control step of ``d`` (its ctrl held): ``substeps`` steps of the physics."""
        for _ in range(self.substeps):
            mujoco.mj_step(self.physics, d)

    def torques(self, qpos: np.ndarray, qvel: np.ndarray, controls: np.ndarray) -> np.ndarray:
        """Motor torques (K, nu) [N m] of controls (K, nu) at states qpos (K, nq), qvel (K, nv)."""
        dof = self.torque_model.act_dof
        tau = self.kp * (controls - qpos[:, self.qpos_index]) - self.kd * qvel[:, dof]
        return np.clip(tau, -self.torque_limit, self.torque_limit)


SERVO_KP, SERVO_KD = 40.0, 1.0
"""[N m / rad], [N m s / rad] The servos' default gains for a robot of Go2's or A1's size."""
SERVO_MGH = 45.0
"""[N m] Gravity stiffness m g h up to which the default gains hold as they are (Go2 40, A1 33)."""


def servo_gains(tm: TorqueModel, robot: Robot, kp: float | None, kd: float | None) -> tuple[float, float]:
    """kp, kd as given, or for None the defaults scaled by max(1, m g h / SERVO_MGH) (module docstring)."""
    if kp is not None and kd is not None:
        return kp, kd
    q = robot.rest_qpos()
    pos = robot.fk(q).positions[0]
    floor = float(lowest_points(robot, q, tuple(f for _, f in robot.legs)).min()) if robot.legs else 0.0
    hips = [pos[robot.body_id(h), 2] for h, _ in robot.legs] or [pos[1, 2]]
    g = float(np.linalg.norm(tm.model.opt.gravity))
    k = max(1.0, tm.mass * g * (float(np.mean(hips)) - floor) / SERVO_MGH)
    return (SERVO_KP * k if kp is None else kp), (SERVO_KD * k if kd is None else kd)


def servo_model(
    robot: Robot,
    *,
    dt: float,
    friction: float = 0.8,
    kp: float | None = 0.0,
    kd: float | None = 0.0,
    gains: Gains | None = None,
    floor_margin: float = 0.0,
    floor_solimp: tuple[float, float] | None = None,
    floor_timeconst: float | None = None,
    floor_friction_timeconst: float | None = None,
    physics_dt: float = 0.0,
) -> ServoModel:
    """``robot`` as PD servos stepped every ``dt`` [s] (see the module docstring). kp [N m / rad] and
    kd [N m s / rad] > 0 set every servo's gains; 0 takes the replay's gains (sim.gains); None the
    default for the robot's size (servo_gains).
    floor_margin [m]: the floor's contact layer starts this far above z = 0; floor_solimp: its
    impedance (d0, d_width) when given (MuJoCo's solimp), else MuJoCo's default; floor_timeconst [s]:
    its contacts' time constant (kinemorph.sim.build_torque_model; None: MuJoCo's 0.02), raised to
    two physics steps on each model (the Jacobians' step of dt is softer than the rollouts');
    floor_friction_timeconst [s]: the time constant of its contacts' friction rows alone (None: as
    the contacts'), raised the same way.
    physics_dt [s] > 0: the rollouts step the physics at about this step (round(dt / physics_dt)
    substeps); 0: dt."""
    tm = build_torque_model(
        robot, timestep=min(dt, 0.005), friction=friction, floor_friction_timeconst=floor_friction_timeconst
    )
    jg = pd_gains(tm, robot.rest_qpos(), gains or Gains())
    kp, kd = servo_gains(tm, robot, kp, kd)
    if kp > 0:
        jg = replace(jg, kp=np.full(tm.model.nu, kp))
    if kd > 0:
        jg = replace(jg, kd=np.full(tm.model.nu, kd))
    m = tm.model  # the sim copy is ours: build_torque_model compiles a new one each call
    m.opt.timestep = dt
    fl = tm.floor_geom
    timeconst = float(m.geom_solref[fl, 0]) if floor_timeconst is None else floor_timeconst
    ftc = floor_friction_timeconst

    def floor(model: mujoco.MjModel, step: float) -> None:  # the floor's time constants at least two steps
        stable = None if ftc is None else max(ftc, 2 * step)
        set_floor(model, fl, margin=floor_margin, solimp=floor_solimp, timeconst=max(timeconst, 2 * step),
                  friction_timeconst=stable)  # fmt: skip

    floor(m, dt)
    qidx = make_servos(m, jg.kp, jg.kd, tm.torque_limit)
    n = max(1, round(dt / physics_dt)) if physics_dt > 0 else 1
    fine = m
    if n > 1:
        fine = copy.deepcopy(m)
        fine.opt.timestep = dt / n
        floor(fine, dt / n)
    return ServoModel(m, tm, jg.kp, jg.kd, qidx, tm.torque_limit, fine, n)


def touching_bodies(
    sm: ServoModel,
    qpos: np.ndarray,
    feet: tuple[str, ...],
    qvel: np.ndarray | None = None,
    controls: np.ndarray | None = None,
) -> tuple[tuple[str, ...], np.ndarray]:
    """Which bodies touch the floor (an active MuJoCo contact of one of their collision geoms) in
    each state qpos (K, nq) of a rollout: the feet (a foot's geoms as
    kinemorph.sim.feedback.foot_of_geoms has them: a bare foot point's parent's), then every other
    body that touched in any state, in the model's order (a calf or a thigh a rollout put on the
    floor: a crouching rollout's calves, a leg that brushed it in a gallop). Taken from the states
    themselves: replaying the controls open-loop from the first state does not give them back
    (MuJoCo's solver warm start differs from the rollout's, and a galloping Go2 amplified that to 14
    cm after 6 s and 1.7 m after 8 s on dog_walk, where the contact mask then marked feet on the
    floor as in flight). With the velocities qvel (K, nv) and the controls (K - 1, nu), each control
    step is also stepped again from its own state through its physics substeps, and a body that
    touches at any of them counts for that step: a paw or a leg that brushes the floor for a few
    milliseconds between two states (the stiff friction rows make such a brush push the robot:
    Go2 dog_walk, friction rows 3 ms, one 30 fps frame of a gallop's flight carried 30 rad/s^2 of
    unexplained angular acceleration). Returns (body names, mask (K, len(names)) bool)."""
    m = sm.model
    d = mujoco.MjData(m)
    fl = sm.torque_model.floor_geom
    foot_of = foot_of_geoms(m, feet)
    out = np.zeros((qpos.shape[0], len(feet) + m.nbody), dtype=bool)  # feet, then bodies by id

    def mark(k: int, data: mujoco.MjData) -> None:
        for c in data.contact[: data.ncon]:
            if c.exclude == 0 and fl in (c.geom1, c.geom2) and c.dist <= c.includemargin:
                g = c.geom2 if c.geom1 == fl else c.geom1
                foot = int(foot_of[g])
                out[k, foot if foot >= 0 else len(feet) + int(m.geom_bodyid[g])] = True

    for k in range(qpos.shape[0]):
        d.qpos[:] = qpos[k]
        mujoco.mj_fwdPosition(m, d)
        mark(k, d)
    if qvel is not None and controls is not None and sm.substeps > 1:
        fine = mujoco.MjData(sm.physics)
        for k in range(min(len(controls), qpos.shape[0] - 1)):
            fine.qpos[:], fine.qvel[:], fine.ctrl[:] = qpos[k], qvel[k], controls[k]
            for _ in range(sm.substeps):  # mj_step leaves the contacts of its substep's start
                mujoco.mj_step(sm.physics, fine)
                mark(k, fine)
    others = [b for b in range(m.nbody) if out[:, len(feet) + b].any()]
    names = tuple(feet) + tuple(m.body(b).name for b in others)
    return names, out[:, list(range(len(feet))) + [len(feet) + b for b in others]]
