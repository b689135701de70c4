"""Solving a clip with the IK step: every frame, each stage stepped until its error stops
falling (GMR's rule), starting from the previous frame's solution. Shared by the engines.

The loop over frames is compiled (numba) and runs a chunk of frames at a time so that progress
can be reported between chunks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import mujoco
import numpy as np
from numba import njit

from ..progress import Progress, report
from ..robots.robot import Robot
from . import ik
from .settings import IkSettings, StageTasks
from .terms import PointTerm, accumulate_points, no_term


@njit(cache=True)
def ik_step(
    model: ik.IkModel,
    tasks: ik.TaskSet,
    s: int,
    damping: float,
    posture: ik.Posture,
    term: PointTerm,
    f: int,
    sc: ik.Scratch,
    scale: np.ndarray,
    max_step: float,
) -> int:
    """One weighted damped differential-IK step for stage s at frame f: the frame tasks (from
    sc.logs, as task_errors left them at this configuration, with this frame's cost factors
    ``scale`` (K,)), the posture pull and the extra point term (terms.py), then the box QP."""
    ik.begin_normal_equations(sc, model.nv)
    mu = ik.accumulate_tasks(model, tasks, s, sc, scale)
    ik.accumulate_posture(model, posture, sc)
    accumulate_points(model, term, f, sc)
    ik.finish_normal_equations(sc, model.nv, damping + mu)
    return ik.solve_and_integrate(model, sc, max_step)


@njit(cache=True)
def solve_frames(
    model: ik.IkModel,
    tasks: ik.TaskSet,
    targets: np.ndarray,
    task_scale: np.ndarray,
    posture: ik.Posture,
    term: PointTerm,
    damping: float,
    tolerance: float,
    max_extra: int,
    max_step: float,
    start: int,
    stop: int,
    out_qpos: np.ndarray,
    out_iters: np.ndarray,
    out_err: np.ndarray,
    sc: ik.Scratch,
) -> int:
    """Solve frames [start, stop). targets: (T, S, K, 7); task_scale: (T, S, K) factors on each
    task's cost per frame. Returns the number of QP failures.
    max_step: largest change of any joint from one frame to the next [rad] (inf: none); the first
    frame is free."""
    failures = 0
    nstage = tasks.ntask.shape[0]
    for f in range(start, stop):
        iters = 0
        for i in range(model.nq):
            sc.q_prev[i] = model.qpos[i]
        step = max_step if f > 0 else np.inf
        for s in range(nstage):
            if tasks.ntask[s] == 0:
                continue
            tgt = targets[f, s]
            curr = ik.task_errors(model, tasks, s, tgt, sc.logs)
            for i in range(sc.state.shape[0]):
                sc.state[i] = 0
            if ik_step(model, tasks, s, damping, posture, term, f, sc, task_scale[f, s], step) < 0:
                failures += 1
            iters += 1
            nxt = ik.task_errors(model, tasks, s, tgt, sc.logs)
            extra = 0
            while curr - nxt > tolerance and extra < max_extra:
                curr = nxt
                if ik_step(model, tasks, s, damping, posture, term, f, sc, task_scale[f, s], step) < 0:
                    failures += 1
                iters += 1
                nxt = ik.task_errors(model, tasks, s, tgt, sc.logs)
                extra += 1
            out_err[f, s] = nxt
        out_iters[f] = iters
        for i in range(model.nq):
            out_qpos[f, i] = model.qpos[i]
    return failures


@dataclass(frozen=True)
class Solution:
    """What solve_sequence returns: qpos (T, nq), iterations per frame (T,), final error per frame
    and stage (T, S), and bookkeeping for RobotMotion.info."""

    qpos: np.ndarray
    iterations: np.ndarray
    errors: np.ndarray
    qp_failures: int
    seconds_compile: float
    seconds_solve: float


def solve_sequence(
    robot: Robot,
    stages: Sequence[StageTasks],
    targets: np.ndarray,
    init_qpos: np.ndarray,
    *,
    settings: IkSettings,
    fps: float,
    posture: tuple[np.ndarray, np.ndarray] | None = None,
    task_scale: np.ndarray | None = None,
    term: PointTerm | None = None,
    joint_limits: tuple[np.ndarray, np.ndarray] | None = None,
    progress: Progress | None = None,
    chunk: int = 200,
) -> Solution:
    """Solve every frame of ``targets`` (T, S, K, 7) for the stages, from ``init_qpos`` (nq,).

    settings: damping, LM damping, stopping rule and joint speed limit (at ``fps``) of the step.
    posture: (weight (nv,), target qpos (nq,)) for a pull toward a configuration, or None.
    task_scale: (T, S, K) factors on each task's cost per frame (e.g. planted feet held harder);
    None: ones.
    term: an extra point-combination objective (terms.py), or None.
    joint_limits: (lower, upper) per dof (nv,) replacing the model's joint ranges in the step's
    limit constraint (e.g. a knee kept bent), or None.

    The robot is not changed: the solve runs on its own MjData.
    """
    data = mujoco.MjData(robot.model)
    model = ik.build_ik_model(robot.model, data)
    if joint_limits is not None:
        lower, upper = (np.asarray(a, dtype=np.float64) for a in joint_limits)
        model = model._replace(lim_lower=lower, lim_upper=upper)
    task_set = ik.build_task_set(model, list(stages), settings.lm_damping)
    pull = ik.no_posture(model) if posture is None else ik.Posture(*(np.asarray(a, float) for a in posture))
    data.qpos[:] = init_qpos
    ik.kinematics(model.model_addr, model.data_addr)
    n = targets.shape[0]
    out_qpos = np.zeros((n, robot.nq))
    out_iters = np.zeros(n, dtype=np.int64)
    out_err = np.zeros((n, len(stages)))
    scratch = ik.make_scratch(robot.nv, targets.shape[2], robot.nq)
    scale = np.ones(targets.shape[:3]) if task_scale is None else np.ascontiguousarray(task_scale, dtype=float)
    extra = no_term(robot.nv) if term is None else term
    args = (settings.damping, settings.tolerance, settings.max_extra_iterations, settings.max_joint_step(fps))
    t0 = time.perf_counter()
    # An empty range compiles the kernel on first use (or loads it from numba's cache).
    solve_frames(model, task_set, targets, scale, pull, extra, *args, 0, 0, out_qpos, out_iters, out_err, scratch)
    t1 = time.perf_counter()
    failures = 0
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        failures += solve_frames(
            model, task_set, targets, scale, pull, extra, *args, a, b, out_qpos, out_iters, out_err, scratch
        )
        report(progress, b, n)
    t2 = time.perf_counter()
    return Solution(out_qpos, out_iters, out_err, failures, t1 - t0, t2 - t1)
