"""Forward replay: a motion tracked in MuJoCo by joint torques, from its first frame.

Every actuated joint gets tau = tau_ff + kp (q_ref - q) + kd (v_ref - v), clipped to the motor's
limit, where tau_ff is the inverse-dynamics torque of the motion (inverse.py), interpolated to the
physics rate. The damping part -kd v is integrated implicitly by MuJoCo (it goes into the copy's
joint damping; both Euler and implicitfast treat damping implicitly), so stiff gains on light
joints stay stable at 1 kHz; the clip keeps ctrl - kd v within the limit.

Gains come from the model (gains.py). The floating base is not actuated. Two things act on it:

- balance feedback (on by default, ``balance_hz``): a PD law on the base pose error gives a
  desired base wrench Q = M_bb a_des (M_bb the base block of the mass matrix); the change df of
  the contact forces that produces it (regularised least squares on the base rows of the
  Jacobians of the contacts MuJoCo reports; feedback.py; updated at ``balance_rate_hz``) is made
  by the joints with dtau = -J_joints' df. This acts only through
  joint torques and real contacts (the virtual-model idea behind whole-body balance
  controllers), so it is part of the verdict's controller. It recovers a standing robot from a
  push; it does not make the controller a walking controller (README, Limitations).
- the base assist (off for the verdict): an external PD wrench on the root body towards the
  reference, whose size is reported when it is on.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import mujoco
import numpy as np

from ..progress import Progress, report
from ..robots.robot_motion import RobotMotion
from .feedback import balance_torques, base_assist, floor_contacts, foot_of_geoms
from .gains import Gains, pd_gains
from .inverse import Dynamics
from .model import TorqueModel

LOADED = 1e-3
"""A contact touches the floor (counts in the slip of a foot) when it carries a normal force over
this share of the robot's weight (as the verdict's slip counts a frame)."""


@dataclass(frozen=True)
class Rollout:
    """What the simulation did, sampled at the motion's frames.

    Attributes:
        motion: simulated trajectory (frames up to the end, the fall or the divergence).
        torque: applied motor torque per actuator, at the frames [N m]. Shape: (T', nu).
        saturated: fraction of physics steps each actuator spent at its limit. Shape: (nu,).
        saturated_steps: fraction of physics steps with any actuator at its limit.
        contact_force: total floor force on the robot per frame (world) [N]. Shape: (T', 3).
        slip: mean tangential speed of the points touching the floor per frame [m/s] (0: none). Shape: (T',).
        foot_slip: each foot's (robot.feet) mean tangential contact-point speed per frame over its
            contacts that carry load [m/s], NaN where it carries none. Shape: (T', F).
        assist_force: |base assist force| per frame [N]. Shape: (T',).
        diverged_at: time of divergence [s] (NaN state or a MuJoCo warning), None when none.
        divergence: what went wrong ("" when nothing).
        steps: physics steps taken.
    """

    motion: RobotMotion
    torque: np.ndarray
    saturated: np.ndarray
    saturated_steps: float
    contact_force: np.ndarray
    slip: np.ndarray
    foot_slip: np.ndarray
    assist_force: np.ndarray
    diverged_at: float | None
    divergence: str
    steps: int


def _resample(motion: RobotMotion, dyn: Dynamics, dt: float) -> tuple[np.ndarray, ...]:
    """Reference qpos (K, nq), qvel (K, nv) and feedforward (K, nu) at the physics rate."""
    t_end = (motion.num_frames - 1) / motion.fps
    k = round(t_end / dt) + 1
    x = np.arange(k) * dt * motion.fps
    i = np.minimum(np.floor(x).astype(np.int64), motion.num_frames - 2)
    f = (x - i)[:, None]
    q = motion.qpos
    ref = q[i] * (1 - f) + q[i + 1] * f
    quat = ref[:, 3:7]
    flip = np.sum(q[i, 3:7] * q[i + 1, 3:7], axis=1) < 0  # nlerp along the short arc
    quat[flip] = q[i[flip], 3:7] * (1 - f[flip]) - q[i[flip] + 1, 3:7] * f[flip]
    ref[:, 3:7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    vel = dyn.qvel[i] * (1 - f) + dyn.qvel[i + 1] * f
    ff = dyn.joint_torque[i] * (1 - f) + dyn.joint_torque[i + 1] * f
    return ref, vel, ff


def replay(
    tm: TorqueModel,
    motion: RobotMotion,
    dyn: Dynamics,
    *,
    gains: Gains | None = None,
    assist: float = 0.0,
    fall_check: Callable[[int, np.ndarray], bool] | None = None,
    progress: Progress | None = None,
) -> Rollout:
    """Track ``motion`` from its first frame (see the module docstring).

    Args:
        dyn: the motion's inverse dynamics (feedforward torques and reference velocities).
        assist: base-assist stiffness as a bandwidth [Hz] (0: off).
        fall_check: callable(frame, qpos) -> bool that stops the replay when it returns True.
    """
    dt = float(tm.model.opt.timestep)
    ref, vref, ff = _resample(motion, dyn, dt)
    gains = gains or Gains()
    pd = pd_gains(tm, ref[0], gains)
    kp, kd = pd.kp, pd.kd
    w_b = 2 * np.pi * gains.balance_hz
    balance_every = max(1, round(1.0 / (gains.balance_rate_hz * dt)))
    dtau = np.zeros(tm.model.nu)
    m = copy.deepcopy(tm.model)
    m.dof_damping[tm.act_dof] += kd  # -kd v, integrated implicitly
    m.actuator_ctrllimited[:] = 0  # ctrl carries +kd v; the limit is applied to ctrl - kd v below
    m.actuator_forcelimited[:] = 0
    m.jnt_actfrclimited[:] = 0
    lim = tm.torque_limit
    qadr = tm.act_dof + 1  # hinge/slide joints after the free joint: qpos index = dof index + 1
    vadr = tm.act_dof
    d = mujoco.MjData(m)
    d.qpos[:] = ref[0]
    d.qvel[:] = vref[0]
    mujoco.mj_forward(m, d)
    steps_per_frame = 1.0 / (motion.fps * dt)
    n_frames = motion.num_frames
    out_q = np.zeros((n_frames, m.nq))
    out_tau = np.zeros((n_frames, m.nu))
    out_cf = np.zeros((n_frames, 3))
    out_slip = np.zeros(n_frames)
    foot_of, loaded = foot_of_geoms(m, tm.robot.feet), LOADED * tm.weight
    out_feet = np.full((n_frames, len(tm.robot.feet)), np.nan)
    out_assist = np.zeros(n_frames)
    sat_count = np.zeros(m.nu)
    sat_any = 0
    root = tm.robot.root_body_id
    w_a = 2 * np.pi * assist
    diverged_at, why = None, ""
    frame, k, steps = 0, 0, 0
    stopped = False
    target = ff + kd * vref[:, vadr]  # the reference part of the control law, per physics step
    qref = np.ascontiguousarray(ref[:, qadr])
    qpos, qvel, ctrl = d.qpos, d.qvel, d.ctrl
    tau = np.zeros(m.nu)
    texts: list[str] = []
    with _captured_warnings(texts):
        while frame < n_frames:
            target_k = round(frame * steps_per_frame)
            while k < target_k:
                if w_b > 0 and k % balance_every == 0:
                    dtau = balance_torques(m, d, ref[k], vref[k], w_b, tm.floor_geom, vadr)
                damp = kd * qvel[vadr]
                np.add(target[k], dtau, out=tau)
                tau += kp * (qref[k] - qpos[qadr])
                clipped = np.clip(tau, damp - lim, damp + lim)
                hit = clipped != tau
                if hit.any():
                    sat_count += hit
                    sat_any += 1
                ctrl[:] = clipped
                if w_a > 0:
                    out_assist[frame] = base_assist(m, d, ref[k], vref[k], w_a, tm.mass, root)
                mujoco.mj_step(m, d)
                k += 1
                steps += 1
            if not np.isfinite(qpos).all() or _warned(d):  # checked once per frame
                diverged_at, why = k * dt, _warning_text(d, texts)
                break
            out_q[frame] = qpos
            out_tau[frame] = ctrl - kd * qvel[vadr]
            out_cf[frame], out_slip[frame], out_feet[frame] = floor_contacts(
                m, tm.floor_geom, d, foot_of, loaded, len(tm.robot.feet)
            )
            frame += 1
            report(progress, frame, n_frames)
            if fall_check is not None and fall_check(frame - 1, qpos):
                stopped = True
                break
    n = max(frame, 1)
    if frame == 0:
        out_q[0] = ref[0]
    sim = RobotMotion.from_qpos(
        motion.robot, motion.fps, out_q[:n], motion.dof_names, info={"simulated": True, "stopped_on_fall": stopped}
    )
    return Rollout(
        motion=sim,
        torque=out_tau[:n],
        saturated=sat_count / max(steps, 1),
        saturated_steps=sat_any / max(steps, 1),
        contact_force=out_cf[:n],
        slip=out_slip[:n],
        foot_slip=out_feet[:n],
        assist_force=out_assist[:n],
        diverged_at=diverged_at,
        divergence=why,
        steps=steps,
    )


def _warned(d: mujoco.MjData) -> bool:
    return any(int(d.warning[i].number) > 0 for i in _BAD_WARNINGS)


_BAD_WARNINGS = (
    int(mujoco.mjtWarning.mjWARN_BADQPOS),
    int(mujoco.mjtWarning.mjWARN_BADQVEL),
    int(mujoco.mjtWarning.mjWARN_BADQACC),
    int(mujoco.mjtWarning.mjWARN_BADCTRL),
    int(mujoco.mjtWarning.mjWARN_CONTACTFULL),
    int(mujoco.mjtWarning.mjWARN_CNSTRFULL),
    int(mujoco.mjtWarning.mjWARN_INERTIA),
)


@contextmanager
def _captured_warnings(into: list[str]) -> Iterator[None]:
    """Collect MuJoCo's warning texts instead of printing them (they go into the report)."""
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda msg: into.append(str(msg).strip()))
    try:
        yield
    finally:
        mujoco.set_mju_user_warning(previous)


def _warning_text(d: mujoco.MjData, texts: list[str]) -> str:
    names = [mujoco.mjtWarning(i).name for i in _BAD_WARNINGS if int(d.warning[i].number) > 0]
    what = "MuJoCo warning " + ", ".join(names) if names else "NaN in the simulated state"
    return f"{what}: {texts[0]}" if texts else what
