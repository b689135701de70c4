"""Engine ``gmr``: GMR's two-stage differential IK (General Motion Retargeting, Ze et al. 2025).

Per frame, starting from the previous frame's solution: stage 1 then stage 2, each a weighted
damped differential-IK step (ik.py) repeated while the stage's summed task error improves by more
than ``tolerance``, at most ``max_extra_iterations`` more times. The clip is solved by solve.py's
compiled loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..mapping.mapping import Mapping, default_mapping
from ..motion.motion import Motion
from ..progress import Progress
from ..robots.robot import Robot
from ..robots.robot_motion import Keypoints, RobotMotion
from .ground import apply_ground_shift, ground_shift
from .settings import IkSettings, StageTasks
from .solve import solve_sequence
from .targets import scaled_positions, stage_targets
from .terms import PointTerm

INIT_CHOICES = ("target", "qpos0", "rest")


@dataclass(frozen=True)
class GmrConfig(IkSettings):
    """Settings of the gmr engine: the IK step's (IkSettings; GMR's values: damping 0.5, LM
    damping 1, tolerance 1e-3, 10 extra iterations, no joint speed limit, no posture pull), plus

    Attributes:
        human_height: source stature [m]; every scale is multiplied by human_height /
            mapping.human_height_assumption. None keeps the mapping's scales (ratio 1).
            GMR's BVH pipeline uses 1.75.
        ground: "auto" shifts the root so the robot's planted feet rest on the floor (kinemorph);
            "off" leaves heights as the targets give them (GMR).
        init: first frame's start: "target" (root on its target, joints at rest; kinemorph),
            "rest" (the robot's standing keyframe), "qpos0" (the model's qpos0; GMR).
    """

    human_height: float | None = None
    ground: str = "auto"
    init: str = "target"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.human_height is not None and not (0.3 < self.human_height < 3.0):
            raise ConfigError(f"human_height must be in metres between 0.3 and 3, got {self.human_height}")
        if self.ground not in ("auto", "off"):
            raise ConfigError(f"ground must be 'auto' or 'off', got {self.ground!r}")
        if self.init not in INIT_CHOICES:
            raise ConfigError(f"init must be one of {', '.join(INIT_CHOICES)}, got {self.init!r}")

    @classmethod
    def gmr_compatible(cls) -> GmrConfig:
        """Exactly GMR's BVH pipeline: human height 1.75 m, no ground fit, start from qpos0."""
        return cls(human_height=1.75, ground="off", init="qpos0")


def _initial_qpos(
    robot: Robot, mapping: Mapping, targets: np.ndarray, stage_index: int, task_index: int, init: str
) -> np.ndarray:
    if init == "qpos0":
        return robot.model.qpos0.copy()
    q = robot.rest_qpos()
    if init == "target" and task_index >= 0:
        q[:3] = targets[0, stage_index, task_index, :3]
        q[3:7] = targets[0, stage_index, task_index, 3:]
    return q


@dataclass(frozen=True)
class GmrTargets:
    """Pose targets of every stage and frame, as GMR builds them.

    Attributes:
        mapping: the mapping they come from.
        targets: [x y z qw qx qy qz] per frame, stage and task. Shape: (T, S, K, 7).
        height_ratio: the factor applied to every scale.
        seconds: time spent building them [s].
    """

    mapping: Mapping
    targets: np.ndarray
    height_ratio: float
    seconds: float


def build_targets(motion: Motion, robot: Robot, mapping: Mapping | None, cfg: GmrConfig) -> GmrTargets:
    """Every target at once, from a mapping checked against the motion and robot (None: the
    robot's shipped one, as :func:`kinemorph.retarget.retarget` resolves it)."""
    t0 = time.perf_counter()
    if mapping is None:
        mapping = default_mapping(motion, robot)
    ratio = 1.0 if cfg.human_height is None else cfg.human_height / mapping.human_height_assumption
    stages = mapping.stages
    scaled = scaled_positions(motion, mapping, height_ratio=ratio)
    kmax = max(len(s) for s in stages)
    targets = np.zeros((motion.num_frames, len(stages), kmax, 7))
    targets[..., 3] = 1.0
    for i, st in enumerate(stages):
        targets[:, i, : len(st)] = stage_targets(motion, mapping, st, height_ratio=ratio, scaled=scaled)
    return GmrTargets(mapping, targets, ratio, time.perf_counter() - t0)


def solve_targets(
    motion: Motion,
    robot: Robot,
    built: GmrTargets,
    cfg: GmrConfig,
    *,
    engine: str = "gmr",
    mesh: PointTerm | None = None,
    progress: Progress | None = None,
    chunk: int = 200,
) -> RobotMotion:
    """GMR's two stages over prepared targets (and an optional interaction-mesh term), then the
    ground fit. Shared by the gmr and mesh engines."""
    mapping, targets = built.mapping, built.targets
    stages = mapping.stages
    root_task = next(
        ((i, k) for i, st in enumerate(stages) for k, t in enumerate(st) if t.robot_body == mapping.robot_root), (0, -1)
    )
    posture = None
    if cfg.posture_weight > 0:
        weights = np.zeros(robot.nv)
        weights[6:] = cfg.posture_weight
        posture = (weights, robot.rest_qpos())
    sol = solve_sequence(
        robot,
        [StageTasks.of((robot.body_id(t.robot_body), t.position_weight, t.rotation_weight) for t in s) for s in stages],
        targets,
        _initial_qpos(robot, mapping, targets, root_task[0], root_task[1], cfg.init),
        settings=cfg,
        fps=motion.fps,
        posture=posture,
        term=mesh,
        progress=progress,
        chunk=chunk,
    )
    n = motion.num_frames

    # Keypoints for tracking metrics: the position target of every task with a position weight.
    kp_bodies: list[str] = []
    kp_pos: list[np.ndarray] = []
    for i, st in enumerate(stages):
        for k, t in enumerate(st):
            if t.position_weight > 0 and t.robot_body not in kp_bodies:
                kp_bodies.append(t.robot_body)
                kp_pos.append(targets[:, i, k, :3])
    keypoints = Keypoints(tuple(kp_bodies), np.stack(kp_pos, axis=1)) if kp_bodies else None
    info = {
        "engine": engine,
        "frames": n,
        "iterations_per_frame": float(sol.iterations.mean()),
        "qp_failures": sol.qp_failures,
        "seconds_targets": built.seconds,
        "seconds_solve": sol.seconds_solve,
        "seconds_compile": sol.seconds_compile,
        "frames_per_s": n / max(sol.seconds_solve, 1e-12),
        "height_ratio": built.height_ratio,
        "stage_error_final_mean": [float(x) for x in sol.errors.mean(axis=0)],
    }
    result = RobotMotion.from_qpos(robot.name, motion.fps, sol.qpos, robot.dof_names, keypoints=keypoints, info=info)
    if cfg.ground == "auto":
        result = apply_ground_shift(result, ground_shift(motion, robot, mapping, result))
    return result


def solve_gmr(
    motion: Motion,
    robot: Robot,
    mapping: Mapping | None,
    config: GmrConfig | None = None,
    *,
    progress: Progress | None = None,
    chunk: int = 200,
) -> RobotMotion:
    """Retarget a motion with GMR's method (mapping None: the robot's shipped one). See the module docstring."""
    cfg = config or GmrConfig()
    return solve_targets(motion, robot, build_targets(motion, robot, mapping, cfg), cfg, progress=progress, chunk=chunk)
