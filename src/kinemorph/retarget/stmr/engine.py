"""Engine ``stmr``: spatio-temporal motion retargeting for quadrupeds (Yoon et al., T-RO 2025).

1. Reference (reference.py): trunk frame from the quadruped planner, 16 unit-vector keypoints,
   unconstrained IK for every frame.
2. Spatial stage, SMR (spatial.py): one convex QP per frame under the contact schedule's foot
   constraints; ballistic base in flights. ``stages="spatial"`` stops here (a kinematic motion).
3. Temporal stage, TMR (warp.py, inner.py, temporal.py): segments at contact changes, alpha per
   segment by CMA-ES, iLQR over the robot's MuJoCo dynamics as PD servos with clamped torques.
   The output is the chosen rollout at the source's fps (its duration changes with alpha), with
   its controls and feedback gains, the alpha per segment and the warped contact mask.

When the temporal stage cannot keep the robot upright and on the motion within the alpha bounds,
the best result is returned with a warning that says so, and the replay verdict of
kinemorph.sim is in ``info["sim_verdict"]`` either way.
"""

from __future__ import annotations

import time
from dataclasses import asdict, replace

import numpy as np
from scipy.ndimage import maximum_filter1d

from ...errors import KinemorphError
from ...mapping.mapping import Mapping
from ...motion.motion import Motion
from ...progress import Progress, report
from ...robots.robot import Robot
from ...robots.robot_motion import Controls, Keypoints, RobotMotion
from ...sim.model import MAX_STEP as MAX_SIM_STEP
from ...sim.model import floor_friction_timeconst
from ...sim.simulate import SimConfig
from ..quadruped.planner import swing_clearance
from .config import StmrConfig
from .contacts_file import read_contacts
from .dynamics import servo_model, touching_bodies
from .landing import landing_band
from .reference import build_reference
from .spatial import spatial_stage
from .temporal import ReplayScore, TemporalResult, temporal_stage
from .warp import check_bounds, contact_changes, interpolate_qpos, segment_bounds

CLEARANCE_RAMP = 0.3
FLOOR_SOLIMP = SimConfig().floor_solimp  # the floor of kinemorph.sim's verdict
TRACKED_M = 0.05


def _check(motion: Motion, robot: Robot) -> None:
    if len(motion.legs) != 4:
        raise KinemorphError(
            f"{motion.source}: the stmr engine needs the source's four legs (root, paw); preset "
            f"{motion.preset} defines none (STMR retargets quadruped clips: use the dog preset, or a "
            "keypoint .npz with 'legs')"
        )
    if len(robot.legs) != 4:
        raise KinemorphError(
            robot.recognition_error or f"robot {robot.name} has no four legs (STMR needs a quadruped robot)"
        )


def _segments(contacts: np.ndarray, cfg: StmrConfig) -> np.ndarray:
    if cfg.segments:
        return segment_bounds(contacts, cfg.segments)
    changes = contact_changes(contacts)
    changes = changes[(changes > 0) & (changes < len(contacts) - 1)]
    return segment_bounds(contacts, min(cfg.max_segments, len(changes) + 1))


def _verdict(motion: RobotMotion, robot: Robot) -> dict[str, object]:
    from ...sim import simulate

    rep = simulate(motion, robot)
    keys = (
        "feasible", "fell", "time_to_fall_s", "base_position_rms_m", "torque_saturation_fraction",
        "id_torque_over_limit_fraction", "residual_force_mean_fraction", "contact_slip_cm_s", "planted_foot_slip_cm_s",
        "reasons", "controller", "max_penetration_m",
    )  # fmt: skip
    return {k: v for k, v in asdict(rep).items() if k in keys}


def _output(robot: Robot, motion: Motion, tr: TemporalResult, feet: tuple[str, ...]) -> RobotMotion:
    fps, sm = motion.fps, tr.servo
    dt = tr.warp.dt
    duration = tr.warp.steps * dt
    frames = np.arange(int(np.floor(duration * fps + 1e-9)) + 1) / fps
    steps = frames / dt
    q = interpolate_qpos(sm.model, tr.inner.qpos, steps)
    # the feet and any other body the rollout put on the floor (a crouching rollout's calves): kinemorph.sim's
    # inverse dynamics lets only the motion's contact bodies push, and the calves a Go2 dog_idle
    # rollout rested on were nearly all its residual (10% of the weight on average -> 0.2%)
    bodies, touching = touching_bodies(sm, tr.inner.qpos, feet, tr.inner.qvel, tr.inner.controls)
    # a body that touched within one frame of it: the central-difference acceleration of frame t
    # (kinemorph.sim's inverse dynamics of the output) spans frames t - 1 to t + 1, so every foot
    # that pushed in that span explains part of it (half a frame left 0.24 rad/s of angular
    # residual on a 2x trot; one frame 0.05)
    reach = max(0, round(1.0 / (fps * dt)))
    near = maximum_filter1d(touching, size=2 * reach + 1, axis=0, mode="nearest")
    contacts = near[np.clip(np.rint(steps).astype(np.int64), 0, near.shape[0] - 1)]
    m = sm.model
    names = tuple(m.joint(int(m.actuator_trnid[i, 0])).name for i in range(m.nu))
    states = np.hstack([tr.inner.qpos, tr.inner.qvel])
    # the physics the rollout ran (its step and floor): replayed there, the controls give its states back
    # (a step over kinemorph.sim's 5 ms bound, StmrConfig.physics_dt 0: the check's own step)
    fl, step = sm.torque_model.floor_geom, float(sm.physics.opt.timestep)
    solimp = (float(sm.physics.geom_solimp[fl, 0]), float(sm.physics.geom_solimp[fl, 1]))
    controls = Controls(
        "pd_targets", dt, tr.inner.controls, tr.inner.gains, names, sm.kp, sm.kd, states,
        physics_dt=step if step <= MAX_SIM_STEP else None, floor_solimp=solimp,
        floor_timeconst=float(sm.physics.geom_solref[fl, 0]),
        floor_friction_timeconst=floor_friction_timeconst(sm.physics, fl),
    )  # fmt: skip
    return RobotMotion.from_qpos(
        robot.name, fps, q, robot.dof_names, contacts=contacts, contact_bodies=bodies, controls=controls
    )


def solve_stmr(
    motion: Motion,
    robot: Robot,
    mapping: Mapping | None = None,
    config: StmrConfig | None = None,
    *,
    progress: Progress | None = None,
) -> RobotMotion:
    """Retarget a quadruped clip with STMR (see the module docstring). ``mapping`` is not used."""
    cfg = config or StmrConfig()
    check_bounds(cfg.alpha_min, cfg.alpha_max)
    _check(motion, robot)
    t0 = time.perf_counter()
    ref = build_reference(motion, robot, cfg)
    contacts = read_contacts(cfg.contacts, motion.num_frames) if cfg.contacts else ref.contacts
    feet = tuple(c[3] for c in ref.chains.bodies)
    bounds = _segments(contacts, cfg) if cfg.stages == "both" else np.array([0, motion.num_frames - 1])
    t1 = time.perf_counter()
    lift = swing_clearance(contacts, cfg.swing_lift, cfg.swing_clearance, CLEARANCE_RAMP)
    landing = None
    if cfg.landing_decel > 0 and cfg.stages == "both":  # soft touch-downs and lift-offs for the dynamics (landing.py)
        landing = landing_band(contacts, lift, motion.fps, speed=cfg.landing_speed, decel=cfg.landing_decel)
    sp = spatial_stage(
        robot, ref.qpos, contacts, feet, ref.foot_height, fps=motion.fps, gain=cfg.smr_gain,
        iterations=cfg.smr_iterations, ballistic_history=cfg.ballistic_history,
        max_joint_step=cfg.max_joint_step(motion.fps), clearance=lift, contact_point=cfg.smr_contact_point,
        landing=landing,
    )  # fmt: skip
    t2 = time.perf_counter()
    info: dict[str, object] = {
        "engine": "stmr", "stages": cfg.stages, "frames": motion.num_frames,
        "seconds_reference": t1 - t0, "seconds_spatial": t2 - t1,
        "spatial": {"flight_frames": sp.flight_frames, "soft_frames": sp.soft_frames, "qp_failures": sp.qp_failures},
        "contact_fraction": [float(x) for x in contacts.mean(axis=0)],
        "contacts_from": cfg.contacts or "source detection",
    }  # fmt: skip
    warnings: list[str] = []
    tracked = -1  # the index of the warning that the rollout left its motion, if any
    keypoints = Keypoints(
        tuple(b for leg in ref.chains.bodies for b in leg), ref.keypoints.reshape(len(ref.qpos), 16, 3)
    )
    if cfg.stages == "spatial":
        result = RobotMotion.from_qpos(
            robot.name,
            motion.fps,
            sp.qpos,
            robot.dof_names,
            keypoints=keypoints,
            contacts=contacts,
            contact_bodies=feet,
        )
        seconds = t2 - t0
    else:
        dt = 1.0 / (motion.fps * max(1, round(1.0 / (motion.fps * cfg.control_dt))))

        def model(friction: float | None):  # type: ignore[no-untyped-def]
            return servo_model(
                robot, dt=dt, kp=cfg.servo_kp, kd=cfg.servo_kd, floor_margin=cfg.floor_margin,
                floor_solimp=FLOOR_SOLIMP, floor_timeconst=cfg.floor_timeconst, floor_friction_timeconst=friction,
                physics_dt=cfg.physics_dt,
            )  # fmt: skip

        sm = model(cfg.floor_friction_timeconst)
        own = floor_friction_timeconst(sm.physics, sm.torque_model.floor_geom) or float(
            sm.physics.geom_solref[sm.torque_model.floor_geom, 0]
        )
        stiffer = cfg.friction_pass is not None and cfg.outer_verdict and cfg.friction_pass < own
        alternates = (model(cfg.friction_pass),) if stiffer else ()
        done = [0]
        total = max(1, cfg.outer_evaluations) + (1 if cfg.final_iterations else 0) + len(alternates)

        def on_step(step) -> None:  # type: ignore[no-untyped-def]
            done[0] += 1
            report(progress, min(done[0], total - 1), total)  # the last tick comes at the end

        def judge(candidate: TemporalResult) -> ReplayScore:
            from ...sim import simulate

            out = _output(robot, motion, candidate, feet)
            rep = simulate(out, robot)
            length = max((out.num_frames - 1) / out.fps, 1e-9)
            rest = max(0.0, 1.0 - float(rep.time_to_fall_s or 0.0) / length) if rep.fell else 0.0
            return ReplayScore(
                rep.fell, rep.base_position_rms_m, rep.contact_slip_cm_s, rep.torque_saturation_fraction,
                rep.feasible, rest, tuple(rep.reasons),
            )  # fmt: skip

        tr = temporal_stage(
            sm, sp.qpos, contacts, bounds, fps=motion.fps, feet=feet, cfg=cfg, on_step=on_step,
            judge=judge if cfg.outer_verdict else None, alternates=alternates,
        )  # fmt: skip
        report(progress, total, total)
        t3 = time.perf_counter()
        result = _output(robot, motion, tr, feet)
        seconds = t3 - t0
        info.update(
            alpha=[float(a) for a in tr.alpha], segment_bounds=[int(b) for b in bounds],
            seconds_temporal=t3 - t2, control_dt=sm.dt, duration_s=tr.warp.steps * sm.dt,
            source_duration_s=(motion.num_frames - 1) / motion.fps, upright=tr.upright,
            initial_qvel=[float(x) for x in tr.inner.qvel[0]],
            tracking_base_rms_m=tr.base_rms_m, tracking_joint_rms_rad=tr.joint_rms_rad,
            outer=[asdict(h) for h in tr.history],
        )  # fmt: skip
        if alternates:
            info["friction_pass"] = {"timeconst": cfg.friction_pass, "kept": tr.servo is alternates[0]}
        mask = result.contacts if result.contacts is not None else np.zeros((0, len(result.contact_bodies)), bool)
        legs = {b: int(n) for b, n in zip(result.contact_bodies[len(feet) :], mask[:, len(feet) :].sum(0))}
        info["floor_bodies"] = legs
        if legs:
            warnings.append(
                f"the rollout puts {', '.join(f'{b} ({n} frames)' for b, n in legs.items())} on the floor; "
                "they are in the output's contact mask beside the feet"
            )
        if not tr.upright or tr.base_rms_m > TRACKED_M:
            tracked = len(warnings)
            warnings.append(
                f"STMR could not keep {robot.name} upright and within {100 * TRACKED_M:.0f} cm of {motion.source} "
                f"for alpha in [{cfg.alpha_min:g}, {cfg.alpha_max:g}]: the best rollout ({tr.warp.steps} steps) "
                + ("fell" if not tr.upright else "stayed upright")
                + f" and left the motion by {100 * tr.base_rms_m:.1f} cm rms; this is the best result found"
            )
    info["seconds_solve"] = seconds
    info["frames_per_s"] = motion.num_frames / max(seconds, 1e-12)
    result = replace(result, info=info)
    if cfg.verdict:
        verdict = _verdict(result, robot)
        info["sim_verdict"] = verdict
        if tracked >= 0:
            why = "; ".join(str(r) for r in verdict["reasons"]) or "none"  # type: ignore[attr-defined]
            feasible = "feasible" if verdict["feasible"] else "infeasible"
            warnings[tracked] += f"; its replay verdict (kinemorph.sim): {feasible} ({why})"
    if warnings:
        info["warnings"] = warnings
    return replace(result, info=info)
