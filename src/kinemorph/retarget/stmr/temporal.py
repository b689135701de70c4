"""The temporal stage of STMR (TMR; Yoon et al., T-RO 2025, Sec. VI): the outer loop over alpha.

For each candidate alpha (one scale per segment, within [alpha_min, alpha_max]) the spatial
stage's trajectory is warped (warp.py) and tracked through the dynamics (inner.py), warm-started
from the best solution so far (its controls re-timed by source time). The outer objective is

    J(alpha) = base_rms / 5 cm + joint_rms / 0.2 rad + 10 (fallen) + duration_weight mean |log alpha|
               + [replay] 10 (fell) + base_rms / 5 cm + slip / 2 cm/s + saturation over 20% / 5%

(the first line: the rollout against its own warped targets, how far the robot had to leave the
motion; the second: the verdict's criteria, when a ``judge`` is given, from kinemorph.sim's
replay of the output with its own controls at the check's physics rate), minimised
by CMA-ES (``cma``) on log(alpha) for S >= 2 and by a bounded scalar search for S = 1; the
source's timing (alpha = 1, clipped into the bounds) is always evaluated first. The chosen alpha
is solved once more with ``final_iterations`` iLQR iterations per window, warm-started from its
own solution; that polish is kept only when it lowers the objective.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ...optim.ilqr import StateResidual
from ...transforms import quat_rotate
from .clearance_cost import BodyClearanceResidual, body_geoms
from .config import StmrConfig
from .dynamics import ServoModel
from .floor_cost import FloorSlipResidual, PlantedSlipResidual, Residuals, foot_sphere
from .inner import InnerResult, InnerWeights, feedforward_controls, foot_hessians, solve_inner
from .speed_cost import JointSpeedResidual
from .torque_cost import TorqueResidual
from .warp import Warp, interpolate_qpos, velocities, warp_contacts

FALL_PENALTY = 10.0
TRACK_SCALE_M = 0.05
JOINT_SCALE_RAD = 0.2
SLIP_SCALE_CM_S = 2.0
SATURATION_LIMIT = 0.2
SATURATION_SCALE = 0.05


@dataclass(frozen=True)
class ReplayScore:
    """The verdict's criteria for one candidate (kinemorph.sim's replay of its output).

    Attributes:
        fell: the replay fell or diverged.
        base_rms_m: replay base position error against the output [m].
        slip_cm_s: mean tangential speed of the points touching the floor [cm/s].
        saturation: share of physics steps with a motor at its limit.
        feasible: the whole verdict passed.
        unsimulated: share of the motion's duration after the fall (0 when it did not fall): an
            earlier fall costs more, so the search is led toward the later ones.
        reasons: why the verdict found it infeasible, as kinemorph.sim words them (kept in
            ``info["outer"]``).
    """

    fell: bool
    base_rms_m: float
    slip_cm_s: float
    saturation: float
    feasible: bool
    unsimulated: float = 0.0
    reasons: tuple[str, ...] = ()

    def penalty(self) -> float:
        return (
            FALL_PENALTY * (self.fell + self.unsimulated) + self.base_rms_m / TRACK_SCALE_M
            + self.slip_cm_s / SLIP_SCALE_CM_S + max(0.0, self.saturation - SATURATION_LIMIT) / SATURATION_SCALE
        )  # fmt: skip


@dataclass(frozen=True)
class OuterStep:
    """One outer evaluation (given to the progress callback and kept in the result)."""

    evaluation: int
    alpha: tuple[float, ...]
    objective: float
    base_rms_m: float
    upright: bool
    seconds: float
    replay: ReplayScore | None = None


@dataclass(frozen=True)
class TemporalResult:
    """The temporal stage's output.

    Attributes:
        alpha: chosen scale per segment. Shape: (S,).
        warp: the chosen time warp.
        inner: the dynamics' rollout, controls and gains at the chosen alpha.
        contacts: warped contact schedule per control step. Shape: (K + 1, 4) bool.
        upright: the rollout never tipped over or sank (tilt <= 45 deg, base >= 60% of the target height).
        base_rms_m: rollout base position against the warped targets [m].
        joint_rms_rad: rollout joints against the warped targets [rad].
        history: every outer evaluation, in order.
        servo: the model its rollout ran on (its floor goes with the output's controls).
    """

    alpha: np.ndarray
    warp: Warp
    inner: InnerResult
    contacts: np.ndarray
    upright: bool
    base_rms_m: float
    joint_rms_rad: float
    history: tuple[OuterStep, ...]
    servo: ServoModel


def _upright(q: np.ndarray, qref: np.ndarray) -> bool:
    up = quat_rotate(q[:, 3:7], np.array([0.0, 0.0, 1.0]))
    up_ref = quat_rotate(qref[:, 3:7], np.array([0.0, 0.0, 1.0]))
    tilt = np.degrees(np.arccos(np.clip(np.sum(up * up_ref, axis=1), -1.0, 1.0)))
    return bool((tilt <= 45.0).all() and (q[:, 2] >= 0.6 * qref[:, 2]).all())


class _Problem:
    def __init__(self, sm: ServoModel, q_smr: np.ndarray, contacts: np.ndarray, bounds: np.ndarray,
                 fps: float, feet: tuple[str, ...], cfg: StmrConfig,
                 judge: Callable[[TemporalResult], ReplayScore] | None = None) -> None:  # fmt: skip
        self.sm, self.q, self.c, self.bounds, self.fps, self.feet, self.cfg = (
            sm,
            q_smr,
            contacts,
            bounds,
            fps,
            feet,
            cfg,
        )
        self.w = InnerWeights(
            cfg.base_track_weight, cfg.base_rot_weight, cfg.joint_track_weight, cfg.velocity_weight, cfg.effort_weight,
            cfg.foot_track_weight, cfg.foot_velocity_weight, cfg.foot_landing_weight, cfg.foot_swing_weight,
        )  # fmt: skip
        self.judge = judge
        self.torque = (
            TorqueResidual(sm, weight=cfg.torque_weight, margin=cfg.torque_margin) if cfg.torque_weight > 0 else None
        )
        self.spheres = all(foot_sphere(sm.model, f) is not None for f in feet)
        self.segment_error = np.zeros(len(bounds) - 1)
        self.best: tuple[tuple[bool, bool, float], TemporalResult] | None = None  # ((fell, infeasible, J), result)
        self.history: list[OuterStep] = []

    def residual(self, contacts: np.ndarray) -> Residuals | None:
        """The costs evaluated on the rollout (floor_cost.py) for the warped schedule, or None."""
        cfg, m = self.cfg, self.sm.model
        parts: list[StateResidual] = []
        if cfg.joint_speed_weight > 0 and np.isfinite(cfg.max_joint_speed):
            dofs = self.sm.torque_model.act_dof
            parts.append(JointSpeedResidual(m.nv, dofs, weight=cfg.joint_speed_weight, limit=cfg.max_joint_speed))
        if self.spheres and cfg.floor_slip_weight > 0:
            parts.append(FloorSlipResidual(m, self.feet, weight=cfg.floor_slip_weight, band=cfg.floor_slip_band))
        if self.spheres and cfg.contact_point_weight > 0:
            parts.append(PlantedSlipResidual(m, self.feet, contacts, weight=cfg.contact_point_weight))
        if cfg.clearance_weight > 0:
            tm = self.sm.torque_model
            geoms = body_geoms(m, tm.collision_geoms, self.feet, tm.robot.rest_qpos(), cfg.body_clearance)
            parts.append(BodyClearanceResidual(m, geoms, weight=cfg.clearance_weight, clearance=cfg.body_clearance))
        return Residuals(parts) if parts else None

    def targets(self, alpha: np.ndarray) -> tuple[Warp, np.ndarray, np.ndarray, np.ndarray]:
        warp = Warp.of(alpha, self.bounds, self.fps, self.sm.dt)
        qref = interpolate_qpos(self.sm.model, self.q, warp.frames(self.fps))
        return warp, qref, velocities(self.sm.model, qref, warp.dt), warp_contacts(self.c, warp.frames(self.fps))

    def initial_controls(self, warp: Warp, nominal: np.ndarray) -> np.ndarray:
        if self.best is None:
            return nominal
        prev = self.best[1]
        t_prev = prev.warp.source_time[:-1]
        t_new = warp.source_time[:-1]
        u = prev.inner.controls
        return np.stack([np.interp(t_new, t_prev, u[:, i]) for i in range(u.shape[1])], axis=1)

    def solve(self, alpha: np.ndarray, iterations: int) -> tuple[float, TemporalResult]:
        start = time.perf_counter()
        warp, qref, vref, contacts = self.targets(alpha)
        nominal = feedforward_controls(self.sm, qref, contacts, self.feet)
        init = self.initial_controls(warp, nominal)
        inner = solve_inner(
            self.sm,
            qref,
            vref,
            self.w,
            init_controls=init,
            nominal_controls=nominal,
            iterations=iterations,
            window_s=self.cfg.window_s,
            commit_s=self.cfg.commit_s,
            state_hessian=foot_hessians(self.sm, qref, contacts, self.feet, self.w),
            residual=self.residual(contacts),
            control_residual=self.torque,
            jacobians=self.cfg.jacobians,
            threads=self.cfg.threads,
        )
        up = _upright(inner.qpos, qref)
        err = np.linalg.norm(inner.qpos[:, :3] - qref[:, :3], axis=1)
        seg = warp.segment_of_step(self.fps)
        self.segment_error = np.array([float(err[seg == i].max(initial=0.0)) for i in range(len(alpha))])
        joints = float(np.sqrt(np.mean((inner.qpos[:, 7:] - qref[:, 7:]) ** 2)))
        j = inner.base_rms_m / TRACK_SCALE_M + joints / JOINT_SCALE_RAD + (0.0 if up else FALL_PENALTY)
        j += self.cfg.duration_weight * float(np.mean(np.abs(np.log(alpha))))
        res = TemporalResult(np.asarray(alpha, float), warp, inner, contacts, up, inner.base_rms_m, joints, (), self.sm)
        score = None if self.judge is None else self.judge(res)
        if score is not None:
            j += score.penalty()
        self.history.append(
            OuterStep(len(self.history) + 1, tuple(float(a) for a in alpha), j, inner.base_rms_m, up,
                      time.perf_counter() - start, score)
        )  # fmt: skip
        # a candidate that stands beats any that falls, whatever the objectives (a fixed fall
        # penalty can be outweighed by the other terms): the replay's fall when judged, else the
        # rollout's; then one the whole verdict finds feasible beats any it does not; among equals
        # the objective decides
        key = (score.fell, not score.feasible, j) if score is not None else (not up, True, j)
        if self.best is None or key < self.best[0]:
            self.best = (key, res)
        return j, res


def speed_floor(q: np.ndarray, bounds: np.ndarray, fps: float, max_speed: float, lo: float, hi: float) -> np.ndarray:
    """Least alpha per segment of ``bounds`` (S + 1 frames) at which no joint of q (T, nq; the
    spatial stage's joints, already capped at ``max_speed`` [rad/s]) moves faster than max_speed:
    speeding up a segment whose joints already run at the cap (alpha < 1) asks more of the motors
    than the clip's own cap allows, and the rollout's joints then jump from frame to frame at the
    source's fps. Within [lo, hi] (hi wins: the bounds may not allow it). Shape: (S,)."""
    out = np.full(len(bounds) - 1, lo)
    if not np.isfinite(max_speed) or q.shape[0] < 2:
        return out
    speed = np.abs(np.diff(q[:, 7:], axis=0)).max(axis=1) * fps  # (T - 1,) [rad/s]
    for i in range(len(bounds) - 1):
        seg = speed[bounds[i] : max(bounds[i] + 1, bounds[i + 1])]
        out[i] = max(lo, float(seg.max(initial=0.0)) / max_speed)
    return np.minimum(out, hi)


def slowed_guess(segment_error: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """log alpha per segment from the source timing's rollout: a segment where the base left its
    targets by e (peak) is slowed by 1 + e / 5 cm from the first such segment on (the later ones
    only inherit the departure, but slowing them costs little), within [lo, hi]."""
    bad = segment_error > 0.5 * TRACK_SCALE_M
    out = np.zeros(len(segment_error))
    if bad.any():
        first = int(np.argmax(bad))
        out[first:] = np.log1p(segment_error[first:] / TRACK_SCALE_M)
    return np.clip(out, lo, hi)


def temporal_stage(
    sm: ServoModel,
    q_smr: np.ndarray,
    contacts: np.ndarray,
    bounds: np.ndarray,
    *,
    fps: float,
    feet: tuple[str, ...],
    cfg: StmrConfig,
    on_step: Callable[[OuterStep], None] | None = None,
    judge: Callable[[TemporalResult], ReplayScore] | None = None,
    alternates: tuple[ServoModel, ...] = (),
) -> TemporalResult:
    """Choose alpha per segment of ``bounds`` (S + 1 frames) and solve the dynamics (module docstring).
    q_smr: the spatial stage's trajectory (T, nq); contacts (T, 4) bool at the source's fps.
    judge: scores a candidate by the verdict's criteria (added to the objective), or None.
    alternates: other models (another floor) on which the chosen alpha is solved once more after
    the polish, warm-started from the best so far; a solution is kept when it ranks better by the
    same key as the outer loop's (needs ``judge``)."""
    prob = _Problem(sm, q_smr, contacts, bounds, fps, feet, cfg, judge)
    s = len(bounds) - 1
    hi = math.log(cfg.alpha_max)
    cap = cfg.max_joint_speed if cfg.alpha_speed_floor else math.inf
    lo = np.log(speed_floor(q_smr, bounds, fps, cap, cfg.alpha_min, cfg.alpha_max))  # (S,)
    x0 = np.clip(0.0, lo, hi)

    def objective(x: np.ndarray) -> float:
        j, _ = prob.solve(np.exp(np.clip(np.asarray(x, dtype=float), lo, hi)), cfg.inner_iterations)
        if on_step is not None:
            on_step(prob.history[-1])
        return j

    objective(x0)
    budget = cfg.outer_evaluations - 1
    start = x0
    free = bool((hi > lo).any())
    if budget > 0 and free:  # slow down the segments where the robot left the motion
        guess = slowed_guess(prob.segment_error, lo, hi)
        if np.abs(guess - start).max() > 1e-6:
            if objective(guess) < prob.history[0].objective:
                start = guess
            budget -= 1
    if budget > 0 and free:
        if s == 1:
            from scipy.optimize import minimize_scalar

            minimize_scalar(
                lambda x: objective(np.array([x])), bounds=(float(lo[0]), hi), method="bounded",
                options={"maxiter": budget, "xatol": 0.02},
            )  # fmt: skip
        else:
            import cma

            opts = {
                "bounds": [list(lo), list(np.maximum(hi, lo + 1e-9))], "popsize": cfg.outer_population,
                "maxfevals": budget, "seed": cfg.seed + 1,
                "verbose": -9, "tolx": 1e-3,
            }  # fmt: skip
            es = cma.CMAEvolutionStrategy(start, cfg.outer_sigma, opts)
            while not es.stop() and len(prob.history) < cfg.outer_evaluations:
                asked = es.ask()
                xs = asked[: cfg.outer_evaluations - len(prob.history)]  # the budget holds
                values = [objective(x) for x in xs]
                if len(xs) < len(asked):  # the budget's last generation, cut short: not told
                    break
                es.tell(xs, values)
    assert prob.best is not None
    best = prob.best[1]
    if cfg.final_iterations > 0:  # polish the chosen alpha, warm-started from its own solution
        prob.solve(best.alpha, cfg.final_iterations)  # kept only when it is better (prob.best)
        if on_step is not None:
            on_step(prob.history[-1])
        best = prob.best[1]
    for other in alternates if judge is not None else ():
        alt = _Problem(other, q_smr, contacts, bounds, fps, feet, cfg, judge)
        alt.best = prob.best  # warm start from the chosen solution, and the bar to beat
        alt.history = prob.history  # one numbering, one record
        alt.solve(best.alpha, max(cfg.final_iterations, cfg.inner_iterations))
        if on_step is not None:
            on_step(prob.history[-1])
        prob.best = alt.best
    best = prob.best[1]
    return replace(best, history=tuple(prob.history))
