"""Engine ``graph``: proximity-weighted graph similarity ("Morphology-agnostic humanoid retargeting
via perception-motivated graph similarity", Frontiers in Neurorobotics 2026).

Per frame, the robot's joint angles and root height minimise the graph distance D_w between the
source's and the robot's landmark graphs (quality/relations.py: 91 pair edges and 14 ground
edges, each normalised by its rest length, weighted by softmax(-c d_src)), plus a small pull
toward the rest pose and toward the previous frame. The root's orientation comes from the source
(through the mapping's root offset); its horizontal position is the source pelvis's, scaled by
lambda, the ratio of the rest poses' inter-ankle distances. The first frame is found by
differential evolution (seeded), the others by L-BFGS-B warm-started from the previous frame,
inside bounds that also keep every joint within max_joint_step of it (no jumps); objective and
gradient (through the landmarks' point Jacobians) are compiled with numba around MuJoCo's
kinematics.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np
from scipy.optimize import differential_evolution, minimize
from threadpoolctl import threadpool_limits

from ..errors import ConfigError, KinemorphError
from ..filters import low_pass
from ..mapping.mapping import Mapping, default_mapping
from ..motion.motion import Motion
from ..progress import Progress, report
from ..quality.relations import (
    PAIRS,
    GraphNormaliser,
    neutral_frame,
    proximity_weights,
    robot_normaliser,
    source_landmarks,
    source_normaliser,
)
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from ..transforms import quat_mul
from . import ik
from .graph_objective import graph_objective

__all__ = ["GraphConfig", "graph_objective", "solve_graph"]


@dataclass(frozen=True)
class GraphConfig:
    """Settings of the graph engine.

    Attributes:
        proximity: c of the proximity weights softmax(-c d_src).
        rest_weight: pull of the joints toward the rest keyframe (cost per rad^2).
        smooth_weight: pull toward the previous frame's joints (cost per rad^2).
        floor_weight: cost per m^2 of landmarks below the floor.
        contact_weight: while a source foot stays planted, cost per m^2 of the robot's ankle and toe
            landmarks moving horizontally from where the stance began (0: no contact handling).
        max_joint_step: largest change of a joint between frames [rad] (bounds of each solve).
        max_iterations: L-BFGS-B iterations per frame.
        first_frame_generations: differential-evolution generations for the first frame (0: start
            the first frame's local search from the rest pose).
        seed: seed of the differential evolution.
        smoothing_hz: zero-phase low-pass of the joint trajectories afterwards [Hz]; 0 = none.
        normalisation: "stature" divides every edge by the rest pelvis height (the robot's graph
            is the source's scaled as a whole: kept distance rankings, the SRP metric, measured best
            here); "edge" divides each pair edge by its own rest length (the paper's graph).
        robot_rest: the robot rest pose that normalises its graph: "matched" (the source's rest
            frame retargeted by gmr: both rests in one posture) or "keyframe" (the robot's standing
            keyframe, as the paper does with a source T-pose).
    """

    proximity: float = 2.0
    rest_weight: float = 1e-3
    smooth_weight: float = 1e-3
    floor_weight: float = 100.0
    contact_weight: float = 1.0
    max_joint_step: float = 0.24
    max_iterations: int = 60
    first_frame_generations: int = 40
    seed: int = 0
    smoothing_hz: float = 0.0
    robot_rest: str = "matched"
    normalisation: str = "stature"

    def __post_init__(self) -> None:
        for name in ("proximity", "rest_weight", "smooth_weight", "floor_weight", "contact_weight", "smoothing_hz"):
            if not getattr(self, name) >= 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.normalisation not in ("stature", "edge"):
            raise ConfigError(f"normalisation must be 'stature' or 'edge', got {self.normalisation!r}")
        if self.robot_rest not in ("matched", "keyframe"):
            raise ConfigError(f"robot_rest must be 'matched' or 'keyframe', got {self.robot_rest!r}")
        if not self.max_joint_step > 0:
            raise ConfigError(f"max_joint_step must be positive, got {self.max_joint_step}")
        if self.max_iterations < 1 or self.first_frame_generations < 0:
            raise ConfigError("max_iterations must be >= 1 and first_frame_generations >= 0")


def _planted_feet(landmarks: np.ndarray, fps: float) -> np.ndarray:
    """Source feet planted per frame (T, 2): the toe landmark low and slow (motion/contacts.py)."""
    from ..motion.contacts import detect_contacts

    return np.stack([detect_contacts(landmarks[:, toe], fps) for toe in (12, 13)], axis=1)


def matched_rest(motion: Motion, robot: Robot, mapping: Mapping) -> np.ndarray:
    """The robot's landmarks in the source's rest posture: the source's most neutral standing
    frame retargeted by the gmr engine (so both rests normalising the graph are one posture).
    Shape: (14, 3)."""
    from .gmr import GmrConfig, solve_gmr

    frame = neutral_frame(source_landmarks(motion))
    # a few frames so that the solver converges on the rest frame (each starts from the last)
    clip = motion.slice(frame, frame + 1)
    clip = type(clip).from_local(
        clip.skeleton, clip.fps, np.repeat(clip.local_rotations, 8, axis=0), np.repeat(clip.local_positions, 8, axis=0),
        virtual={n: v for n, v in _virtuals(motion).items()} or None, family=clip.family, source=clip.source,
        preset=clip.preset, legs=clip.legs, landmarks=clip.landmarks,
    )  # fmt: skip
    result = solve_gmr(clip, robot, mapping, GmrConfig())
    return robot.landmark_positions(robot.fk(result.qpos[-1]))[0]


def _virtuals(motion: Motion) -> dict[str, tuple[Any, ...]]:
    """The motion's virtual bodies (its own, e.g. a recognised rig's landmarks; else its preset's)."""
    if motion.virtual:
        return dict(motion.virtual)
    from ..motion.presets import PRESETS

    preset = PRESETS.get(motion.preset)
    return dict(preset.virtual) if preset else {}


def _root_orientation(motion: Motion, robot: Robot, mapping: Mapping) -> np.ndarray:
    """The robot root's orientation per frame: the mapped source body's, with its rotation offset."""
    for stage in reversed(mapping.stages):
        for t in stage:
            if t.robot_body == robot.root_body and t.rotation_weight > 0:
                return quat_mul(motion.body(t.source_body)[1], t.rotation_offset)
    raise KinemorphError(f"the mapping gives no orientation for the robot's root body {robot.root_body!r}")


def solve_graph(
    motion: Motion,
    robot: Robot,
    mapping: Mapping | None,
    config: GraphConfig | None = None,
    *,
    progress: Progress | None = None,
) -> RobotMotion:
    """Retarget by per-frame graph-distance minimisation (see the module docstring). The mapping
    (None: the robot's shipped one) gives the root's orientation offset only."""
    # L-BFGS-B's BLAS calls on 30-vectors are 20-80x slower with a multithreaded BLAS (measured
    # here: 50 us per iteration with one thread, 1-4 ms with several): keep it to one thread.
    with threadpool_limits(limits=1, user_api="blas"):
        return _solve_graph(motion, robot, mapping, config or GraphConfig(), progress)


def _solve_graph(
    motion: Motion, robot: Robot, mapping: Mapping | None, cfg: GraphConfig, progress: Progress | None
) -> RobotMotion:
    if mapping is None:
        mapping = default_mapping(motion, robot)
    if robot.nv - 6 != robot.num_dofs:
        raise KinemorphError(f"robot {robot.name}: the graph engine needs one dof per joint")
    t0 = time.perf_counter()
    src = source_landmarks(motion)
    per_edge = cfg.normalisation == "edge"
    src_norm = source_normaliser(motion, per_edge=per_edge)
    if cfg.robot_rest == "matched":
        rob_norm = GraphNormaliser.from_rest(matched_rest(motion, robot, mapping), per_edge=per_edge)
    else:
        rob_norm = robot_normaliser(robot, per_edge=per_edge)
    src_edges = src_norm.edges(src)  # (T, 105, 3)
    weights = proximity_weights(src_edges, cfg.proximity)
    rest = robot.rest_qpos()
    rest_lm = robot.landmark_positions(robot.fk(rest))[0]
    src_rest_lm = src[neutral_frame(src)]
    ankles = (10, 11)
    robot_feet = float(np.linalg.norm(rest_lm[ankles[0], :2] - rest_lm[ankles[1], :2]))
    source_feet = float(np.linalg.norm(src_rest_lm[ankles[0], :2] - src_rest_lm[ankles[1], :2]))
    lam = robot_feet / max(source_feet, 1e-3)
    roots = np.concatenate([lam * src[:, 0, :2], _root_orientation(motion, robot, mapping)], axis=1)  # (T, 6)

    data = mujoco.MjData(robot.model)  # the engine's own: the robot is not changed
    model = ik.build_ik_model(robot.model, data)
    lm_bodies = np.array([robot.body_id(b) for b, _ in robot.landmarks], dtype=np.int64)
    lm_offsets = np.array([o for _, o in robot.landmarks], dtype=float)
    chains, nchain = ik.task_chains(model, lm_bodies)
    x_of_dof = np.full(robot.nv, -1, dtype=np.int64)
    x_of_dof[2] = 0
    x_of_dof[6:] = np.arange(1, robot.num_dofs + 1)
    lower = np.concatenate([[0.2], np.where(np.isfinite(robot.lower), robot.lower, -np.pi)])
    upper = np.concatenate([[2.5], np.where(np.isfinite(robot.upper), robot.upper, np.pi)])
    grad = np.zeros(robot.num_dofs + 1)
    n = motion.num_frames
    out = np.zeros((n, robot.nq))

    anchors = np.zeros((14, 3))
    anchor_w = np.zeros(14)
    no_anchor = np.zeros(14)

    def fun(x: np.ndarray, f: int, q_prev: np.ndarray, smooth: float, aw: np.ndarray) -> tuple[float, np.ndarray]:
        val = graph_objective(
            model, x, roots[f], lm_bodies, lm_offsets, chains, nchain, x_of_dof, src_edges[f], weights[f],
            rob_norm.pair_lengths, rob_norm.height, PAIRS, rest, q_prev, cfg.rest_weight, smooth,
            cfg.floor_weight, anchors, aw, grad,
        )  # fmt: skip
        return val, grad.copy()

    x = np.concatenate([[rest[2]], rest[7:]])
    t_compile = time.perf_counter()
    fun(x, 0, rest, 0.0, no_anchor)  # compile or load the kernel
    t_loop = time.perf_counter()
    evals = 0
    if cfg.first_frame_generations > 0:  # first frame: a global search; the local polish follows
        de = differential_evolution(
            lambda z: fun(z, 0, rest, 0.0, no_anchor)[0], list(zip(lower, upper)), seed=cfg.seed,
            maxiter=cfg.first_frame_generations, popsize=8, tol=1e-8, polish=False, init="latinhypercube", x0=x,
            updating="immediate",
        )  # fmt: skip
        evals += de.nfev
        x = de.x
    planted = _planted_feet(src, motion.fps)  # (T, 2): left, right
    feet_landmarks = ((10, 12), (11, 13))  # ankle and toe of each side
    for f in range(n):
        q_prev = out[f - 1] if f else rest
        anchor_w[:] = 0.0
        for side, lms in enumerate(feet_landmarks):
            if f and planted[f, side] and planted[f - 1, side]:
                anchor_w[list(lms)] = cfg.contact_weight  # anchors were set when the stance began
        lo, hi = lower, upper
        if f:
            step = np.concatenate([[0.05], np.full(robot.num_dofs, cfg.max_joint_step)])
            lo = np.maximum(lower, x - step)
            hi = np.minimum(upper, x + step)
        res = minimize(
            fun, np.clip(x, lo, hi), args=(f, q_prev, cfg.smooth_weight if f else 0.0, anchor_w), jac=True,
            method="L-BFGS-B",
            bounds=list(zip(lo, hi)), options={"maxiter": cfg.max_iterations},
        )  # fmt: skip
        evals += res.nfev
        x = res.x
        out[f, :2] = roots[f, :2]
        out[f, 2] = x[0]
        out[f, 3:7] = roots[f, 2:]
        out[f, 7:] = x[1:]
        for side, lms in enumerate(feet_landmarks):
            if planted[f, side] and not (f and planted[f - 1, side]):  # a stance begins: hold here
                pts = robot.landmark_positions(robot.fk(out[f]))[0]
                anchors[list(lms)] = pts[list(lms)]
        if (f + 1) % 50 == 0 or f + 1 == n:
            report(progress, f + 1, n)
    t_done = time.perf_counter()
    if cfg.smoothing_hz > 0:
        out[:, 7:] = np.clip(low_pass(out[:, 7:], motion.fps, cfg.smoothing_hz), robot.lower, robot.upper)
        out[:, 2] = low_pass(out[:, 2], motion.fps, cfg.smoothing_hz)
    info = {
        "engine": "graph",
        "frames": n,
        "evaluations_per_frame": evals / n,
        "iterations_per_frame": evals / n,
        "seconds_compile": t_loop - t_compile,
        "seconds_prepare": t_compile - t0,
        "seconds_solve": t_done - t_loop,
        "frames_per_s": n / max(t_done - t_loop, 1e-12),
        "lambda": lam,
    }
    return RobotMotion.from_qpos(robot.name, motion.fps, out, robot.dof_names, info=info)
