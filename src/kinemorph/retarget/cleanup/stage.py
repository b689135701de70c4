"""The clean-up stage: one convex QP per frame over joint velocities after any engine.

After the spatial stage of STMR ("Spatio-Temporal Motion Retargeting for Quadruped Robots",
T-RO 2025: the IK solution's velocities as targets, foot constraints from the contact
schedule), generalised to humanoids: planted heel and toe points (and knees, hands, hips, back
when the source puts them down) held at their anchors on the floor, no proxy of any link below
the floor, link pairs kept apart, joint limits and a joint speed limit; in flight phases the
pelvis height follows a ballistic parabola. The QP of each frame is in ``kernels.py``; it is
solved through :func:`kinemorph.optim.qp.solve_qp`.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace

import mujoco
import numpy as np

from ...motion.contacts import contact_intervals
from ...motion.motion import Motion
from ...optim.qp import solve_qp
from ...progress import Progress, report
from ...quality.proxies import body_frames, link_proxies
from ...robots.robot import Robot
from ...robots.robot_motion import RobotMotion
from ..ik import DOF_BODY_ROTATION, DOF_WORLD_TRANSLATION, build_ik_model, task_chains
from .config import CleanupConfig
from .kernels import Arrays, advance, build_frame, moved_since, velocities
from .rolling import rolled_anchors
from .schedule import ContactPoints, humanoid_contacts, mask_contacts, rest_up, sole_ends

GRAVITY = 9.81
"""[m/s^2]"""
MAX_ROWS = 256
"""Most inequality rows per frame (floor and self-collision); the rest are dropped."""


@dataclass(frozen=True)
class CleanupReport:
    """What the clean-up did and what it could not satisfy.

    Attributes:
        contact_points: planted point intervals in the schedule.
        planted_fraction: share of frames with at least one planted point.
        flight_frames: frames whose pelvis height was made ballistic.
        self_pairs: link proxy pairs kept apart (0: self-collision off or no geometry).
        contact_residual_max_mm: largest distance of a planted point from its anchor at the start
            of a frame (a touch-down from above counts until it lands) [mm].
        floor_violation_max_mm: deepest proxy below the floor at any frame start [mm].
        self_violation_max_mm: deepest proxy overlap at any frame start [mm].
        relaxed_frames: QP solves that failed (conflicting constraints) and were solved again
            asking only that nothing below the floor or inside another link gets deeper.
        passes_per_frame: QP passes per frame (a frame whose step misses its constraints by more
            than contact_tolerance is solved again from where the step left it).
        projected_frames: frames whose best pass still left geometry inside the floor or inside
            another link, then moved out by steps without tracking.
        backoff_steps: steps shortened because their linearised rows missed (links crossing
            within one frame): the step is halved until nothing goes deeper than where it began.
        seconds: time of the stage [s].
        frames_per_s: frames per second of the stage.
        warnings: what was skipped and why.
    """

    contact_points: int
    planted_fraction: float
    flight_frames: int
    self_pairs: int
    contact_residual_max_mm: float
    floor_violation_max_mm: float
    self_violation_max_mm: float
    relaxed_frames: int
    passes_per_frame: float
    projected_frames: int
    backoff_steps: int
    seconds: float
    frames_per_s: float
    warnings: tuple[str, ...] = field(default=())


def _ballistic(qpos: np.ndarray, planted: np.ndarray, fps: float, max_frames: int) -> tuple[np.ndarray, int]:
    """Root height over each flight replaced by the parabola under gravity through its two ends.

    A flight is a contact-free run with planted frames on both sides, at most max_frames long,
    over which the engine's root height itself falls like a thrown body (its least-squares
    parabola accelerates downward at 0.5-1.5 g); a run whose root does not (a contact the source
    detection missed, a slide) is left as the engine gave it."""
    out = qpos.copy()
    n = 0
    for a, b in contact_intervals(~planted):
        if a == 0 or b >= len(planted) or b - a > max_frames or b - a < 2:
            continue
        t = (np.arange(a - 1, b + 1) - (a - 1)) / fps
        z = qpos[a - 1 : b + 1, 2]
        acc = 2.0 * np.polyfit(t, z, 2)[0]
        if not -1.5 * GRAVITY <= acc <= -0.5 * GRAVITY:
            continue
        z0, z1, span = z[0], z[-1], t[-1]
        v0 = (z1 - z0) / span + 0.5 * GRAVITY * span
        out[a:b, 2] = z0 + v0 * t[1:-1] - 0.5 * GRAVITY * t[1:-1] ** 2
        n += b - a
    return out, n


def _proxy_links(  # type: ignore[no-untyped-def]
    robot: Robot, prox, points: ContactPoints, cfg: CleanupConfig, fps: float
) -> tuple[np.ndarray, np.ndarray]:
    """Proxy of each contact point (-1: none) and, for the feet's contact proxies, the sideways step
    per frame allowed per metre of height (0 for other proxies)."""
    cproxy = np.full(points.count, -1, dtype=np.int64)
    pclear = np.zeros(prox.count)
    for c in range(points.count):
        sel = np.nonzero(prox.body == points.body[c])[0]
        for i in sel:
            if np.allclose(prox.p0[i], points.local[c]) or np.allclose(prox.p1[i], points.local[c]):
                cproxy[c] = i
                break
    # every sole point of the robot's feet (not only those the schedule plants): a foot point that
    # is never planted must not skim the floor either
    if points.count:
        mark = 1.0 / (fps * cfg.lift_time) if cfg.lift_time > 0 else -1.0
        for f in robot.feet:
            b = robot.body_id(f)
            sel = np.nonzero((prox.body == b) & prox.floor)[0]
            if sel.size:
                pclear[sel[sole_ends(prox, sel, rest_up(robot, b))]] = mark
    return cproxy, pclear


def _engine_points(robot: Robot, prox, q_src: np.ndarray, pclear: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """World position [m] of each foot contact proxy's first end in the engine's motion. (T, P, 3)."""
    out = np.zeros((q_src.shape[0], prox.count, 3))
    feet = np.nonzero(pclear)[0]
    if feet.size:
        xpos, xmat = body_frames(robot, q_src)
        b = prox.body[feet]
        rot = xmat[:, b].reshape(q_src.shape[0], feet.size, 3, 3)
        out[:, feet] = xpos[:, b] + np.einsum("tgij,gj->tgi", rot, prox.p0[feet])
    return out


def _lift_heights(
    points: ContactPoints, cproxy: np.ndarray, pclear: np.ndarray, T: int, P: int, height: float, ramp: int
) -> np.ndarray:
    """Per frame and proxy, the height [m] a free foot contact proxy is lifted to: ``height``,
    ramped down to 0 over ``ramp`` frames before each touch-down and up after each lift-off. (T, P)."""
    out = np.zeros((T, P))
    t = np.arange(T)
    for i in np.nonzero(pclear)[0]:
        planted = np.zeros(T, dtype=bool)
        for c in np.nonzero(cproxy == i)[0]:
            planted[points.start[c] : points.stop[c]] = True
        idx = np.nonzero(planted)[0]
        if idx.size == 0:
            out[:, i] = height
            continue
        # frames since the last planted frame and until the next one
        last = np.full(T, -(10**9))
        last[idx] = idx
        last = np.maximum.accumulate(last)
        nxt = np.full(T, 10**9)
        nxt[idx] = idx
        nxt = np.minimum.accumulate(nxt[::-1])[::-1]
        gap = np.minimum(t - last, nxt - t).astype(float)
        out[:, i] = np.where(planted, 0.0, height * np.clip(gap / max(ramp, 1), 0.0, 1.0))
    return out


def _weights(robot: Robot, ik, cfg: CleanupConfig) -> np.ndarray:  # type: ignore[no-untyped-def]
    w = np.full(ik.nv, cfg.joint_weight)
    w[ik.dof_kind == DOF_WORLD_TRANSLATION] = cfg.root_position_weight
    w[ik.dof_kind == DOF_BODY_ROTATION] = cfg.root_rotation_weight
    return w


def cleanup(
    result: RobotMotion,
    robot: Robot,
    motion: Motion | None = None,
    *,
    config: CleanupConfig | None = None,
    progress: Progress | None = None,
) -> RobotMotion:
    """The engine's ``result`` cleaned (see the module docstring); the robot is not changed.

    The contact schedule comes from the source ``motion`` for humanoids and from
    ``result.contacts`` when the engine gave one (the quadruped engine). The returned motion
    carries the schedule's per-body mask in ``contacts`` / ``contact_bodies`` and the
    :class:`CleanupReport` as a dict in ``info["cleanup"]``; its warnings join ``info["warnings"]``
    (``result.solve_info.warnings``).
    """
    cfg = config or CleanupConfig()
    start = time.perf_counter()
    warnings: list[str] = []
    T = result.num_frames
    fps = float(result.fps)
    q_src = result.qpos.astype(np.float64)
    model = robot.model
    data = mujoco.MjData(model)
    ik = build_ik_model(model, data)

    prox = link_proxies(robot)
    if prox.count == 0:
        warnings.append(f"robot {robot.name} has no collision geometry: floor and self-collision checks skipped")
    pairs = prox.pairs
    if not cfg.self_collision:
        pairs = pairs[:0]
    elif prox.count and pairs.shape[0] == 0:
        warnings.append(f"robot {robot.name}: no link pairs to keep apart (self-collision skipped)")

    from_mask = result.contacts is not None and bool(result.contact_bodies) and robot.family == "quadruped"
    if from_mask and result.contacts is not None:
        points = mask_contacts(robot, prox, result.contacts, result.contact_bodies)
    elif motion is not None:
        points = humanoid_contacts(motion, robot, prox, q_src, config=cfg)
    else:
        points = ContactPoints.empty()
    if points.count == 0:
        warnings.append("no contacts found in the source: nothing is held in place (no foot locking)")
    planted = points.planted(T)
    flight = 0
    if cfg.flight_ballistic and points.count:
        q_src, flight = _ballistic(q_src, planted, fps, round(cfg.max_flight_s * fps))

    cproxy, pclear = _proxy_links(robot, prox, points, cfg, fps)
    v_src = np.zeros((T, ik.nv))
    velocities(ik.model_addr, q_src, v_src)
    nb = model.nbody
    chains, counts = task_chains(ik, np.arange(nb))
    vmax = cfg.speed_limit / fps
    step_hi = np.full(ik.nv, np.inf)
    step_hi[ik.dof_kind != DOF_WORLD_TRANSLATION] = vmax
    step_hi[ik.dof_kind == DOF_WORLD_TRANSLATION] = cfg.max_root_speed / fps
    gain = 1.0 - float(np.exp(-1.0 / (fps * (cfg.planned_return_time if from_mask else cfg.return_time))))
    ar = Arrays(
        pbody=prox.body, pp0=prox.p0, pp1=prox.p1, prad=prox.radius,
        pbound=prox.radius + 0.5 * np.linalg.norm(prox.p1 - prox.p0, axis=1),
        pfloor=prox.floor.astype(np.bool_), pairs=np.ascontiguousarray(pairs),
        bchain=chains, bnchain=counts,
        cbody=points.body, clocal=points.local, crad=points.radius, cstart=points.start, cstop=points.stop,
        pclear=pclear, pplanted=np.zeros(prox.count, dtype=np.bool_), cproxy=cproxy,
        ftarget=_engine_points(robot, prox, q_src, pclear),
        lift=_lift_heights(points, cproxy, pclear, T, prox.count, 0.0 if from_mask else cfg.lift_height,
                           round(cfg.lift_ramp_s * fps)),
        anchor=np.zeros((points.count, 3)), cset=np.zeros(points.count, dtype=np.bool_),
        callow=np.zeros(points.count),
        wdiag=_weights(robot, ik, cfg), step_lo=-step_hi, step_hi=step_hi,
        q_lo=ik.lim_lower, q_hi=ik.lim_upper, qadr=ik.dof_qadr,
        params=np.array([cfg.anchor_weight, cfg.floor_margin, 0.0, cfg.self_margin, cfg.self_distance,
                         cfg.push_speed / fps, 0.0, 1e-6, cfg.lift_weight, cfg.lift_height,
                         cfg.lift_speed / fps, float(cfg.hard_lift), cfg.touchdown_speed / fps,
                         cfg.swing_weight, -1.0, max(1, round(cfg.liftoff_s * fps))]),
        H=np.zeros((ik.nv, ik.nv)), g=np.zeros(ik.nv), A=np.zeros((MAX_ROWS, ik.nv)),
        lo=np.zeros(MAX_ROWS), hi=np.zeros(MAX_ROWS), xl=np.zeros(ik.nv), xu=np.zeros(ik.nv),
        jt=np.zeros((3, ik.nv)), jt2=np.zeros((3, ik.nv)), ref=np.zeros(ik.nv), err=np.zeros(ik.nv),
        qtmp=np.zeros(ik.nq), viol=np.zeros(2), wend=np.zeros((prox.count, 2, 3)), stats=np.zeros((T, 3)),
    )  # fmt: skip
    held = np.nonzero(points.at_engine)[0]
    if held.size:
        # anchored where the engine's motion has them at their first planted frame (on the floor)
        xpos, xmat = body_frames(robot, q_src[points.start[held]])
        for row, c in enumerate(held):
            b = int(points.body[c])
            ar.anchor[c] = xpos[row, b] + xmat[row, b].reshape(3, 3) @ points.local[c]
            ar.anchor[c, 2] = points.radius[c]
        ar.cset[held] = True
    rolled = None
    if from_mask and held.size:  # rolling.py
        rolled = rolled_anchors(robot, q_src, points, ar.anchor, lift_frames=int(ar.params[15]))
    out = np.empty_like(q_src)
    q = q_src[0].copy()
    relaxed = 0
    passes = 0
    project = 0
    backoff = 0
    every = max(1, T // 100)
    zero = np.zeros(ik.nv)
    moved = np.zeros(ik.nv)
    goal = np.zeros(ik.nq)
    best_q = np.zeros(ik.nq)
    tol = (cfg.planned_tolerance if from_mask else cfg.contact_tolerance) / fps  # [m] per frame
    along = ik.dof_kind == DOF_WORLD_TRANSLATION
    for t in range(T):
        if rolled is not None:  # round paws roll: their anchors move with their turns
            ar.anchor[held, :2] = rolled[t, held]
        # the root's speed cap, or the engine's own speed there (a large robot runs faster than it)
        ar.step_hi[along] = np.maximum(cfg.max_root_speed / fps, np.abs(v_src[t, along]))
        ar.step_lo[along] = -ar.step_hi[along]
        prev = q_src[t - 1] if t > 0 else q_src[0]
        src, vel, k, step = prev, v_src[t], gain, zero
        q0 = q
        best = last = np.inf
        best_geo = 0.0
        for it in range(cfg.max_passes):
            m = build_frame(ik, ar, t, q, src, vel, k, step)
            geo_start = max(ar.stats[t, 1], ar.stats[t, 2])  # how deep the pass starts
            if it == 0:  # where the tracking target alone would go
                goal[:] = q  # (integrated here: advance() would measure it against the anchors)
                mujoco.mj_integratePos(model, goal, ar.ref, 1.0)
            res = solve_qp(ar.H, ar.g, A=ar.A[:m], lower=ar.lo[:m], x_lower=ar.xl,
                           x_upper=ar.xu, solver=cfg.solver)  # fmt: skip
            if not res.solved:  # conflicting rows: ask only that nothing gets worse (dq = 0 is feasible)
                relaxed += 1
                ar.params[14] = 0.0
                m = build_frame(ik, ar, t, q, src, vel, k, step)
                ar.params[14] = -1.0
                res = solve_qp(ar.H, ar.g, A=ar.A[:m], lower=ar.lo[:m], x_lower=ar.xl, x_upper=ar.xu, solver=cfg.solver)
                if not res.solved:
                    res = solve_qp(ar.H, ar.g, x_lower=ar.xl, x_upper=ar.xu, solver=cfg.solver)
            dq = res.x if res.solved else np.clip(ar.ref, ar.xl, ar.xu)
            dq = np.ascontiguousarray(dq)
            residual = advance(ik, ar, t, q, dq, out[t])
            if ar.viol[1] > tol and ar.viol[1] > geo_start:
                # the linearised rows missed (links crossing, a large step): back off along the step
                for scale in (0.5, 0.25, 0.125, 0.0):
                    residual = advance(ik, ar, t, q, dq * scale, out[t])
                    if ar.viol[1] <= max(tol, geo_start):
                        break
                backoff += 1
            score = residual if ar.viol[1] <= tol else 1.0 + ar.viol[1]  # geometry first, then anchors
            if score < best:
                best = score
                best_q[:] = out[t]
                best_geo = ar.viol[1]
            # stop when satisfied, or when a pass no longer helps (a conflict, not a linearisation error)
            stalled = residual > 0.7 * last
            last = residual
            passes += 1
            if residual <= tol or stalled or it + 1 == cfg.max_passes:
                out[t] = best_q  # the pass that violated least
                break
            # another pass from here toward the same goal, within what is left of the step limit
            moved_since(ik, q0, out[t], moved)
            q = out[t].copy()
            src, vel, k, step = goal, zero, 1.0, moved
        if best_geo > tol:  # still inside the floor or itself: steps that only remove that
            project += 1
            for _ in range(cfg.max_passes):
                q = out[t].copy()
                moved_since(ik, q0, q, moved)
                m = build_frame(ik, ar, t, q, q, zero, 0.0, moved)
                res = solve_qp(ar.H, ar.g, A=ar.A[:m], lower=ar.lo[:m], x_lower=ar.xl, x_upper=ar.xu, solver=cfg.solver)
                if not res.solved:
                    break
                advance(ik, ar, t, q, np.ascontiguousarray(res.x), out[t])
                if ar.viol[1] <= tol:
                    break
        q = out[t]
        if t % every == 0:
            report(progress, t + 1, T)
    report(progress, T, T)
    seconds = time.perf_counter() - start
    if relaxed:
        warnings.append(f"{relaxed} frames had conflicting constraints and were relaxed (floor/self-collision)")
    rep = CleanupReport(
        contact_points=points.count,
        planted_fraction=float(planted.mean()),
        flight_frames=flight,
        self_pairs=int(pairs.shape[0]),
        contact_residual_max_mm=float(ar.stats[1:, 0].max() * 1000) if T > 1 else 0.0,
        floor_violation_max_mm=float(ar.stats[1:, 1].max() * 1000) if T > 1 else 0.0,
        self_violation_max_mm=float(ar.stats[1:, 2].max() * 1000) if T > 1 else 0.0,
        relaxed_frames=relaxed,
        passes_per_frame=passes / T,
        projected_frames=project,
        backoff_steps=backoff,
        seconds=seconds,
        frames_per_s=T / seconds if seconds > 0 else float("inf"),
        warnings=tuple(warnings),
    )
    info = dict(result.info)
    info["cleanup"] = asdict(rep)
    if warnings:  # read by RobotMotion.solve_info with the engine's own
        before = info.get("warnings", ())
        info["warnings"] = [*([before] if isinstance(before, str) else before), *warnings]
    if from_mask:
        contacts, bodies = result.contacts, result.contact_bodies
    else:
        contacts, bodies = points.mask(T, robot)
    return replace(
        result,
        root_pos=out[:, :3].copy(),
        root_rot=out[:, 3:7].copy(),
        dof_pos=out[:, 7:].copy(),
        info=info,
        contacts=contacts,
        contact_bodies=bodies,
        settings=dict(result.settings) | {"cleanup": asdict(cfg)},
    )
