"""Replay of a motion that carries its own controls (RobotMotion.controls: STMR's output, a
simulated walk's).

A motion made by a controller in simulation comes with what produced it. Two kinds:

- "pd_targets" (STMR's iLQR): per control step k a PD target u_k for every servo and
  time-varying feedback gains K_k on the tangent state error; each servo applies
  ``tau = clip(kp (u - q) - kd v, -limit, limit)``, ``u = clip(u_k + K_k dx, joint range)``, as
  MuJoCo's position servo (servo.py, the servos STMR's rollouts run);
- "torques" (the walking controller's): per control step the motor torques u_k, with joint PD
  feedback around the recorded state, ``tau = clip(u_k + kp (q_k - q) + kd (v_k - v), -limit, limit)``.

dx = [mj_differentiatePos(q_ref, q), v - v_ref] is the error against the state the gains
were designed around at the start of the control step (``Controls.states``; without them the
motion itself, q_ref interpolated from its frames and v_ref by central differences of them),
held for the control step (zero-order hold, as the controller was designed). The physics runs
at the check's own timestep (1 kHz by default) unless the controls name the physics step and
floor they were made with (``Controls.physics_dt``, ``floor_solimp``: simulate.py then builds
that model); nothing else acts on the robot (no balance feedback, no assist, no
inverse-dynamics feedforward). Torque saturation is counted when the clamp binds.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import mujoco
import numpy as np

from ..errors import KinemorphError
from ..progress import Progress, report
from ..robots.robot_motion import Controls, RobotMotion
from .feedback import floor_contacts, foot_of_geoms
from .model import TorqueModel
from .replay import LOADED, Rollout, _captured_warnings, _warned, _warning_text
from .servo import make_servos

CONTROL_KINDS = ("pd_targets", "torques")


def _interp_qpos(qpos: np.ndarray, x: np.ndarray) -> np.ndarray:
    """qpos (T, nq) at fractional frames x (K,): linear, the free joint's quaternion by nlerp."""
    n = qpos.shape[0]
    i = np.minimum(np.floor(np.clip(x, 0, n - 1)).astype(np.int64), n - 2)
    f = (np.clip(x, 0, n - 1) - i)[:, None]
    out = qpos[i] * (1 - f) + qpos[i + 1] * f
    b = np.where((np.sum(qpos[i, 3:7] * qpos[i + 1, 3:7], axis=1) < 0)[:, None], -1.0, 1.0)
    quat = qpos[i, 3:7] * (1 - f) + b * qpos[i + 1, 3:7] * f
    out[:, 3:7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    return out


def control_reference(m: mujoco.MjModel, motion: RobotMotion, c: Controls) -> tuple[np.ndarray, np.ndarray]:
    """The motion's state at the start of every control step: qpos (K, nq), qvel (K, nv)."""
    k = c.values.shape[0]
    x = np.arange(k + 1) * c.dt * motion.fps
    q = _interp_qpos(motion.qpos, x)
    step = np.zeros((k, m.nv))
    for i in range(k):
        mujoco.mj_differentiatePos(m, step[i], c.dt, q[i], q[i + 1])
    v = np.zeros((k + 1, m.nv))
    v[1:-1] = 0.5 * (step[1:] + step[:-1])
    v[0], v[-1] = step[0], step[-1]
    return q[:k], v[:k]


def check_controls(tm: TorqueModel, motion: RobotMotion, c: Controls) -> np.ndarray:
    """Actuator index of each control (nu,); KinemorphError when the controls do not fit the model."""
    m = tm.model
    where = f"motion for {motion.robot!r}: its controls"
    if c.kind not in CONTROL_KINDS:
        raise KinemorphError(f"{where} are of kind {c.kind!r}; kinemorph.sim replays {', '.join(CONTROL_KINDS)}")
    names = [m.joint(int(m.actuator_trnid[i, 0])).name for i in range(m.nu)]
    missing = [n for n in c.names if n not in names]
    if missing or len(c.names) != m.nu:
        raise KinemorphError(f"{where} drive joints {list(c.names)}; the robot's motors drive {names}")
    nu, nv = m.nu, m.nv
    k = c.values.shape[0]
    if c.gains is None and c.kind == "pd_targets":
        raise KinemorphError(f"{where} are PD targets without feedback gains")
    if c.values.ndim != 2 or c.values.shape[1] != nu or (c.gains is not None and c.gains.shape != (k, nu, 2 * nv)):
        gains = "" if c.gains is None else f" and gains {c.gains.shape}"
        raise KinemorphError(f"{where} have shapes {c.values.shape}{gains}; expected (K, {nu}) and (K, {nu}, {2 * nv})")
    span = k * c.dt
    length = (motion.num_frames - 1) / motion.fps
    if not (c.dt > 0 and length - c.dt - 1e-9 <= span <= length + 1.0 / motion.fps + c.dt):
        raise KinemorphError(
            f"{where} span {span:.3f} s ({k} steps of {c.dt:g} s); the motion lasts {length:.3f} s "
            "(they must cover it, and end within one frame of its end)"
        )
    if c.states is not None and c.states.shape != (k + 1, m.nq + nv):
        raise KinemorphError(f"{where}' states have shape {c.states.shape}; expected ({k + 1}, {m.nq + nv})")
    if not (np.isfinite(c.values).all() and (c.gains is None or np.isfinite(c.gains).all())):
        raise KinemorphError(f"{where} hold NaN or infinite values")
    return np.array([names.index(n) for n in c.names], dtype=np.int64)


def replay_controls(
    tm: TorqueModel,
    motion: RobotMotion,
    *,
    fall_check: Callable[[int, np.ndarray], bool] | None = None,
    progress: Progress | None = None,
) -> Rollout:
    """Execute ``motion.controls`` from the motion's first state (see the module docstring)."""
    c = motion.controls
    if c is None:
        raise KinemorphError(f"motion for {motion.robot!r} carries no controls")
    order = check_controls(tm, motion, c)  # control i drives actuator order[i]
    u_all = np.zeros_like(c.values)
    u_all[:, order] = c.values
    gains = None
    if c.gains is not None:
        gains = np.zeros_like(c.gains)
        gains[:, order] = c.gains
    torques = c.kind == "torques"
    kp = np.zeros(tm.model.nu)
    kd = np.zeros(tm.model.nu)
    kp[order], kd[order] = c.kp, c.kd
    m = copy.deepcopy(tm.model)
    dt = float(m.opt.timestep)
    lim = tm.torque_limit
    if torques:
        m.dof_damping[tm.act_dof] += kd  # -kd v, integrated implicitly
        m.actuator_ctrllimited[:] = 0
        m.actuator_forcelimited[:] = 0
        m.jnt_actfrclimited[:] = 0
    else:  # MuJoCo's position servos, as the controls' maker ran them (servo.py)
        make_servos(m, kp, kd, lim)
    jnt = m.actuator_trnid[:, 0]
    lo, hi = m.actuator_ctrlrange[:, 0].copy(), m.actuator_ctrlrange[:, 1].copy()  # the servos' own range
    qadr = m.jnt_qposadr[jnt]
    vadr = tm.act_dof
    if c.states is not None:
        qref, vref = c.states[:-1, : m.nq], c.states[:-1, m.nq :]
    else:
        qref, vref = control_reference(m, motion, c)
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = (qref[0], vref[0]) if c.states is not None else (motion.qpos[0], vref[0])
    mujoco.mj_forward(m, d)
    n_frames, steps_k = motion.num_frames, c.values.shape[0]
    out_q = np.zeros((n_frames, m.nq))
    out_tau = np.zeros((n_frames, m.nu))
    out_cf = np.zeros((n_frames, 3))
    out_slip = np.zeros(n_frames)
    foot_of, loaded = foot_of_geoms(m, tm.robot.feet), LOADED * tm.weight
    out_feet = np.full((n_frames, len(tm.robot.feet)), np.nan)
    out_q[0] = d.qpos
    out_cf[0], out_slip[0], out_feet[0] = floor_contacts(m, tm.floor_geom, d, foot_of, loaded, len(tm.robot.feet))
    sat_count = np.zeros(m.nu)
    sat_any = steps = 0
    dx = np.zeros(2 * m.nv)
    diverged_at, why, stopped, frame = None, "", False, 1
    texts: list[str] = []
    t_end = steps_k * c.dt
    n_phys = round(t_end / dt)
    u = np.zeros(m.nu)
    k_cur = -1
    with _captured_warnings(texts):
        for s in range(n_phys):
            k = min(int((s * dt + 1e-9) // c.dt), steps_k - 1)
            if k != k_cur:  # a new control step: sample the state, apply the feedback law
                mujoco.mj_differentiatePos(m, dx[: m.nv], 1.0, qref[k], d.qpos)
                dx[m.nv :] = d.qvel - vref[k]
                u = u_all[k] if gains is None else u_all[k] + gains[k] @ dx
                u = u + kd * vref[k, vadr] if torques else np.clip(u, lo, hi)
                k_cur = k
            damp = kd * d.qvel[vadr]  # -kd v: the joint damping's (torques) or the servo's (PD targets)
            if torques:
                tau = u + kp * (qref[k_cur, qadr] - d.qpos[qadr])
                clipped = np.clip(tau, damp - lim, damp + lim)
                hit = clipped != tau
                d.ctrl[:] = clipped
            else:  # the servo clamps kp (u - q) - kd v at the limit itself
                hit = np.abs(kp * (u - d.qpos[qadr]) - damp) > lim
                d.ctrl[:] = u
            if hit.any():
                sat_count += hit
                sat_any += 1
            mujoco.mj_step(m, d)
            steps += 1
            if (s + 1) * dt * motion.fps + 1e-6 < frame:
                continue
            if not np.isfinite(d.qpos).all() or _warned(d):
                diverged_at, why = (s + 1) * dt, _warning_text(d, texts)
                break
            out_q[frame] = d.qpos
            out_tau[frame] = d.ctrl - kd * d.qvel[vadr] if torques else d.actuator_force
            out_cf[frame], out_slip[frame], out_feet[frame] = floor_contacts(
                m, tm.floor_geom, d, foot_of, loaded, len(tm.robot.feet)
            )
            frame += 1
            report(progress, frame, n_frames)
            if fall_check is not None and fall_check(frame - 1, d.qpos):
                stopped = True
                break
            if frame >= n_frames:
                break
    n = max(frame, 1)
    sim = RobotMotion.from_qpos(
        motion.robot, motion.fps, out_q[:n], motion.dof_names,
        info={"simulated": True, "stopped_on_fall": stopped, "controller": "own controls"},
    )  # fmt: skip
    return Rollout(
        motion=sim, torque=out_tau[:n], saturated=sat_count / max(steps, 1), saturated_steps=sat_any / max(steps, 1),
        contact_force=out_cf[:n], slip=out_slip[:n], foot_slip=out_feet[:n], assist_force=np.zeros(n),
        diverged_at=diverged_at, divergence=why, steps=steps,
    )  # fmt: skip
