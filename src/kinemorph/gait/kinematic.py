"""Kinematic output: r(t) solved by the shared IK step into a RobotMotion.

One IK stage per frame (retarget/solve.py, starting from the previous frame): the pelvis body's
pose and both feet's sole frames as tasks. The pelvis position follows the path point
horizontally (r(t) prescribes only its height; the model-based controller that replaces this is
separate work). Upper-body joints take the style's curves: those no task depends on are set to
their curve values directly (exactly what a posture pull converges to, where nothing opposes
it), those between the root and the pelvis body (T1's Waist) through the tasks, by giving the
root its target from the pelvis target and the joint's value. The legs are pulled weakly
toward a crouched standing pose, which a short warm-up from the rest pose finds first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..limits import MAX_GAIT_FPS, MAX_GAIT_SECONDS
from ..progress import Progress
from ..retarget.settings import IkSettings, StageTasks
from ..retarget.solve import Solution, solve_sequence
from ..robots.robot import Robot
from ..robots.robot_motion import Keypoints, RobotMotion
from ..transforms import pose_compose, pose_inverse, quat_angle
from .commands import Commands
from .planner import plan
from .robot_table import RobotGait, chain_joints, robot_gait
from .style import Style
from .stylize import Reference, pivot_slip

WARMUP_FRAMES = 40
"""IK frames spent on the first target before the motion starts (from the rest pose, knees bent)."""

KNEE_SEED = 0.5
"""[rad] Knee bend of the warm-up's starting pose."""

KNEE_MIN_BEND = 0.1
"""[rad] Least knee bend the IK allows (inside the robot's own limits)."""


@dataclass(frozen=True)
class GaitConfig(IkSettings):
    """Settings of the kinematic gait output: the IK step's (IkSettings, with the defaults below;
    no joint speed limit), plus

    Attributes:
        fps: frames per second of the plan and of the motion [1/s].
        foot_position_weight: IK cost on the sole points' positions [1/m].
        foot_rotation_weight: IK cost on the sole frames' orientations [1/rad].
        pelvis_position_weight: IK cost on the pelvis position [1/m].
        pelvis_rotation_weight: IK cost on the pelvis orientation [1/rad].
        posture_weight: pull of the leg joints toward the crouched standing pose [1/rad].
    """

    fps: float = 50.0
    foot_position_weight: float = 100.0
    foot_rotation_weight: float = 20.0
    pelvis_position_weight: float = 20.0
    pelvis_rotation_weight: float = 20.0
    posture_weight: float = 0.05
    damping: float = 0.3
    lm_damping: float = 0.0
    tolerance: float = 1e-6
    max_extra_iterations: int = 20

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 25 <= self.fps <= MAX_GAIT_FPS:
            raise ConfigError(f"fps must be in [25, {MAX_GAIT_FPS:g}] (every swing spans two frames), got {self.fps}")
        for name in ("foot_position_weight", "pelvis_position_weight"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name} must be positive, got {getattr(self, name)}")
        for name in ("foot_rotation_weight", "pelvis_rotation_weight"):
            if not getattr(self, name) >= 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)}")


def upper_joint_values(ref: Reference, robot: Robot, rg: RobotGait) -> np.ndarray:
    """The mapped joints' values per frame, inside the joint limits [rad]. Shape: (N, J)."""
    j = rg.joints
    q = rg.base + rg.signs * ref.upper[:, rg.columns]
    return np.clip(q, robot.lower[j], robot.upper[j])


@dataclass(frozen=True)
class _Tasks:
    bodies: list[int]
    targets: np.ndarray  # (N, K, 7) body poses
    chain: list[int]


def _tasks(ref: Reference, robot: Robot, rg: RobotGait, upper: np.ndarray) -> _Tasks:
    n = ref.num_frames
    pelvis = robot.body_id(rg.pelvis_body)
    poses = [(ref.pelvis_pos, ref.pelvis_rot)]
    bodies = [pelvis]
    chain = chain_joints(robot, robot.root_body_id, pelvis)
    if pelvis != robot.root_body_id:
        # root target = pelvis target (+) (pelvis in the root frame)^-1, at the chain joints' values
        q = np.tile(robot.rest_qpos(), (n, 1))
        q[:, :7] = [0, 0, 0, 1, 0, 0, 0]
        mapped = dict(zip(rg.joints.tolist(), upper.T))
        for j in chain:
            if j in mapped:
                q[:, 7 + j] = mapped[j]
        fk = robot.fk(q)
        rel = pose_inverse(fk.positions[:, pelvis], fk.rotations[:, pelvis])
        poses.insert(0, pose_compose(ref.pelvis_pos, ref.pelvis_rot, *rel))
        bodies.insert(0, robot.root_body_id)
    for f, foot in enumerate(rg.feet):
        off = pose_inverse(rg.sole_pos[f], rg.sole_rot[f])
        poses.append(pose_compose(ref.foot_pos[:, f], ref.foot_rot[:, f], off[0], off[1]))
        bodies.append(robot.body_id(foot))
    targets = np.concatenate([np.concatenate([p, q], axis=-1)[:, None] for p, q in poses], axis=1)
    return _Tasks(bodies, targets, chain)


def _knees(robot: Robot) -> list[tuple[int, float]]:
    """(joint index, bend direction) of every joint named like a knee; it bends toward the larger
    side of its range."""
    return [
        (j, 1.0 if robot.upper[j] >= -robot.lower[j] else -1.0)
        for j, name in enumerate(robot.dof_names)
        if "knee" in name.lower()
    ]


def _bent_knees(robot: Robot, qpos: np.ndarray) -> np.ndarray:
    """qpos with the knees bent by KNEE_SEED: a straight knee is a singularity from which the IK
    step cannot tell which way to bend."""
    q = qpos.copy()
    for j, sign in _knees(robot):
        q[7 + j] = np.clip(q[7 + j] + sign * KNEE_SEED, robot.lower[j], robot.upper[j])
    return q


def _knee_limits(robot: Robot) -> tuple[np.ndarray, np.ndarray]:
    """Per-dof joint limits (nv,) for the IK with every knee kept bent by at least KNEE_MIN_BEND:
    a knee that passed through straight would be caught on the wrong side of the singularity
    (hyperextended against its limit). The robot's model is not changed."""
    lower = np.concatenate([np.full(6, -np.inf), robot.lower])
    upper = np.concatenate([np.full(6, np.inf), robot.upper])
    for j, sign in _knees(robot):
        lo, hi = robot.lower[j], robot.upper[j]
        if sign > 0:
            lower[6 + j] = min(max(lo, KNEE_MIN_BEND), hi)
        else:
            upper[6 + j] = max(min(hi, -KNEE_MIN_BEND), lo)
    return lower, upper


def _solve(
    robot: Robot,
    stage: StageTasks,
    targets: np.ndarray,
    init: np.ndarray,
    cfg: GaitConfig,
    fps: float,
    *,
    posture: tuple[np.ndarray, np.ndarray] | None = None,
    progress: Progress | None = None,
) -> Solution:
    return solve_sequence(
        robot, [stage], np.ascontiguousarray(targets), init, settings=cfg, fps=fps, posture=posture,
        joint_limits=_knee_limits(robot), progress=progress,
    )  # fmt: skip


def solve_reference(
    ref: Reference,
    robot: Robot,
    config: GaitConfig | None = None,
    *,
    measured: RobotGait | None = None,
    info: dict[str, object] | None = None,
    progress: Progress | None = None,
) -> RobotMotion:
    """Solve r(t) with the IK step (see the module docstring) into a RobotMotion, frame for frame at
    the reference's own rate. ``measured``: the robot's :func:`robot_gait` when already at hand;
    ``info`` is added to the motion's info."""
    cfg = config or GaitConfig()
    rg = measured or robot_gait(robot)
    fps = 1.0 / float(ref.time[1] - ref.time[0]) if ref.num_frames > 1 else cfg.fps
    t0 = time.perf_counter()
    upper = upper_joint_values(ref, robot, rg)
    tasks = _tasks(ref, robot, rg, upper)
    n = ref.num_frames
    feet_w = (cfg.foot_position_weight, cfg.foot_rotation_weight)
    pelvis_w = (cfg.pelvis_position_weight, cfg.pelvis_rotation_weight)
    stage = StageTasks.of(
        (b, *(feet_w if k >= len(tasks.bodies) - 2 else pelvis_w)) for k, b in enumerate(tasks.bodies)
    )

    init = _bent_knees(robot, robot.rest_qpos())
    fk = robot.fk(init)
    delta = tasks.targets[0, 0, :3] - fk.positions[0, tasks.bodies[0]]
    init[:3] += delta  # the first task body (root or pelvis) at its first target position
    warmup = np.repeat(tasks.targets[:1, None], WARMUP_FRAMES, axis=0)
    warm = _solve(robot, stage, warmup, init, cfg, fps)
    stand = warm.qpos[-1].copy()

    weights = np.zeros(robot.nv)
    legs = [j for j in range(robot.num_dofs) if j not in set(rg.joints.tolist()) | set(tasks.chain)]
    weights[6 + np.array(legs, dtype=np.int64)] = cfg.posture_weight
    sol = _solve(robot, stage, tasks.targets[:, None], stand, cfg, fps, posture=(weights, stand), progress=progress)
    qpos = sol.qpos.copy()
    direct = [k for k, j in enumerate(rg.joints.tolist()) if j not in tasks.chain]
    qpos[:, 7 + rg.joints[direct]] = upper[:, direct]
    seconds = time.perf_counter() - t0

    err = foot_errors(qpos, ref, robot, rg)
    inside = (qpos[:, 7:] >= robot.lower - 1e-9) & (qpos[:, 7:] <= robot.upper + 1e-9)
    details: dict[str, object] = {
        "engine": "gait",
        "frames": n,
        "fps": fps,
        "iterations_per_frame": float(sol.iterations.mean()),
        "qp_failures": sol.qp_failures + warm.qp_failures,
        "seconds_solve": sol.seconds_solve,
        "seconds_compile": sol.seconds_compile + warm.seconds_compile,
        "seconds_total": seconds,
        "foot_error_mean_cm": float(err["position"].mean() * 100),
        "foot_error_max_cm": float(err["position"].max() * 100),
        "foot_rotation_error_max_deg": float(np.degrees(err["rotation"].max())),
        "pelvis_error_max_cm": float(err["pelvis"].max() * 100),
        "stance_slip_mean_cm_s": float(err["slip"][ref.contacts[1:] & ref.contacts[:-1]].mean() * 100 * fps),
        "stance_slip_max_cm_s": float(err["slip"].max() * 100 * fps),
        "limit_violations": int((~inside).sum()),
        "contact_fraction": [float(x) for x in ref.contacts.mean(axis=0)],
        **(info or {}),
    }
    keypoint_bodies = (rg.pelvis_body, *rg.feet)
    k = len(tasks.bodies)
    keypoints = Keypoints(keypoint_bodies, tasks.targets[:, [k - 3, k - 2, k - 1], :3].copy())
    return RobotMotion.from_qpos(
        robot.name, fps, qpos, robot.dof_names, keypoints=keypoints, info=details,
        contacts=ref.contacts.copy(), contact_bodies=rg.feet,
    )  # fmt: skip


def sole_poses(qpos: np.ndarray, robot: Robot, rg: RobotGait) -> tuple[np.ndarray, np.ndarray]:
    """Sole points [m] (N, 2, 3) and sole frames (N, 2, 4) of a solved motion (forward kinematics)."""
    pose = robot.fk(qpos)
    pos = np.empty((len(qpos), 2, 3))
    rot = np.empty((len(qpos), 2, 4))
    for f, foot in enumerate(rg.feet):
        b = robot.body_id(foot)
        pos[:, f], rot[:, f] = pose_compose(pose.positions[:, b], pose.rotations[:, b], rg.sole_pos[f], rg.sole_rot[f])
    return pos, rot


def foot_errors(qpos: np.ndarray, ref: Reference, robot: Robot, rg: RobotGait) -> dict[str, np.ndarray]:
    """How a solved motion follows r(t): "position" distance of each sole point from its target [m]
    (N, 2), "rotation" angle of each sole frame from its target [rad] (N, 2), "pelvis" distance of
    the pelvis body from its target [m] (N,), "slip" horizontal motion of each standing foot's pivot
    per frame [m] (N - 1, 2; see Reference.stance_slip)."""
    pos, rot = sole_poses(qpos, robot, rg)
    pelvis = robot.fk(qpos).positions[:, robot.body_id(rg.pelvis_body)]
    return {
        "position": np.linalg.norm(pos - ref.foot_pos, axis=-1),
        "rotation": quat_angle(rot, ref.foot_rot),
        "pelvis": np.linalg.norm(pelvis - ref.pelvis_pos, axis=-1),
        "slip": pivot_slip(pos, rot, ref.pivots(rg.body), ref.contacts),
    }


def gait_motion(
    style: Style,
    robot: Robot,
    commands: Commands,
    duration: float,
    config: GaitConfig | None = None,
    *,
    progress: Progress | None = None,
) -> RobotMotion:
    """A stylized walk of ``duration`` [s] under a command schedule, planned for the robot and solved
    by the IK step: the RobotMotion carries the contact mask and the feet and pelvis as keypoints."""
    cfg = config or GaitConfig()
    if not (isinstance(duration, int | float) and 0 < duration <= MAX_GAIT_SECONDS):
        raise ConfigError(f"duration must be in (0, {MAX_GAIT_SECONDS:g}] s, got {duration}")
    rg = robot_gait(robot)
    t0 = time.perf_counter()
    ref = plan(style, commands, duration, rate=cfg.fps, body=rg.body)
    seconds_plan = time.perf_counter() - t0
    info = {"style": style.name, "duration_s": float(duration), "seconds_plan": seconds_plan}
    return solve_reference(ref, robot, cfg, measured=rg, info=info, progress=progress)
