"""Engine ``quadruped``: animal motion onto quadruped robots, "natural" (planned) or "plain".

natural: planner.py plans base and feet for the whole clip, then the shared IK step tracks them
(base pose, four feet) with a gentle pull toward the rest keyframe, frame after frame.
plain: root + four feet keypoint IK with the robot's shipped mapping, i.e. the gmr engine.
Both return the source's contact mask with the motion.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ...errors import KinemorphError
from ...mapping.mapping import Mapping
from ...motion.motion import Motion
from ...progress import Progress
from ...robots.geometry import round_geom
from ...robots.robot import Robot
from ...robots.robot_motion import Keypoints, RobotMotion
from ..gmr import GmrConfig, solve_gmr
from ..settings import StageTasks
from ..solve import solve_sequence
from .config import QuadrupedConfig
from .planner import plan, source_contacts
from .rolling import rolled_feet


def _check(motion: Motion, robot: Robot) -> None:
    if len(motion.legs) != 4:
        raise KinemorphError(
            f"{motion.source}: the quadruped engine needs the source's four legs (root, paw); preset "
            f"{motion.preset} defines none (use the dog preset, or a keypoint .npz with 'legs')"
        )
    if len(robot.legs) != 4 and robot.recognition_error:
        raise KinemorphError(robot.recognition_error)
    if len(robot.legs) != 4:
        raise KinemorphError(f"robot {robot.name} has no four legs defined (known quadrupeds: unitree_go2, unitree_a1)")


def _contacts_info(contacts: np.ndarray, robot: Robot) -> dict[str, object]:
    found = [bool(contacts[:, leg].any()) for leg in range(contacts.shape[1])]
    info: dict[str, object] = {"contact_fraction": [float(x) for x in contacts.mean(axis=0)]}
    if not all(found):
        missing = [f for (_, f), ok in zip(robot.legs, found) if not ok]
        info["warning"] = f"no contacts found for {', '.join(missing)}: those feet are never locked"
    return info


def solve_quadruped(
    motion: Motion,
    robot: Robot,
    mapping: Mapping | None = None,
    config: QuadrupedConfig | None = None,
    *,
    progress: Progress | None = None,
) -> RobotMotion:
    """Retarget an animal clip onto a quadruped (see the module docstring). ``mapping`` is used by
    the plain mode only (None: the robot's shipped mapping for the source's preset)."""
    cfg = config or QuadrupedConfig()
    _check(motion, robot)
    feet = tuple(f for _, f in robot.legs)
    if cfg.mode == "plain":
        gmr = GmrConfig(damping=cfg.damping, tolerance=cfg.tolerance, max_extra_iterations=cfg.max_extra_iterations)
        result = solve_gmr(motion, robot, mapping, gmr, progress=progress)
        paws = np.stack([motion.body(p)[0] for _, p in motion.legs], axis=1)
        roots = np.stack([motion.body(r)[0] for r, _ in motion.legs], axis=1)
        contacts, _ = source_contacts(paws, motion.fps, cfg, roots)
        info = {**result.info, "engine": "quadruped", "mode": "plain", **_contacts_info(contacts, robot)}
        return replace(result, info=info, contacts=contacts, contact_bodies=feet)

    t0 = time.perf_counter()
    p = plan(motion, robot, cfg)
    t_plan = time.perf_counter() - t0
    n = motion.num_frames
    targets = np.zeros((n, 1, 5, 7))
    targets[:, 0, 0, :3] = p.base_pos
    targets[:, 0, 0, 3:] = p.base_quat
    targets[:, 0, 1:, :3] = p.feet
    targets[:, 0, 1:, 3] = 1.0
    stage = StageTasks.of(
        [(robot.root_body_id, cfg.base_position_weight, cfg.base_rotation_weight)]
        + [(robot.body_id(f), cfg.foot_weight, 0.0) for f in feet]
    )
    scale = np.ones((n, 1, 5))
    scale[:, 0, 1:] = np.where(p.contacts, cfg.stance_weight, 1.0)
    rest = robot.rest_qpos()
    weights = np.zeros(robot.nv)
    weights[6:] = cfg.posture_weight
    init = rest.copy()
    init[:3] = p.base_pos[0]
    init[3:7] = p.base_quat[0]
    sol = solve_sequence(
        robot, [stage], targets, init, settings=cfg, fps=motion.fps, posture=(weights, rest), task_scale=scale,
        progress=progress,
    )  # fmt: skip
    feet_targets = p.feet
    if cfg.roll_paws and any(round_geom(robot, f, capsule=False) is not None for f in feet):  # rolling.py
        feet_targets = rolled_feet(robot, sol.qpos, p.feet, p.contacts, feet)
        targets[:, 0, 1:, :3] = feet_targets
        sol = solve_sequence(
            robot, [stage], targets, init, settings=cfg, fps=motion.fps, posture=(weights, rest), task_scale=scale
        )
    info = {
        "engine": "quadruped",
        "mode": "natural",
        "frames": n,
        "iterations_per_frame": float(sol.iterations.mean()),
        "qp_failures": sol.qp_failures,
        "seconds_plan": t_plan,
        "seconds_solve": sol.seconds_solve,
        "seconds_compile": sol.seconds_compile,
        "frames_per_s": n / max(t_plan + sol.seconds_solve, 1e-12),
        "leg_scale": [float(x) for x in p.leg_scale],
        **_contacts_info(p.contacts, robot),
    }
    keypoints = Keypoints((robot.root_body, *feet), np.concatenate([p.base_pos[:, None], feet_targets], axis=1))
    return RobotMotion.from_qpos(
        robot.name, motion.fps, sol.qpos, robot.dof_names, keypoints=keypoints, info=info,
        contacts=p.contacts, contact_bodies=feet,
    )  # fmt: skip
