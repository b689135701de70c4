"""The automatic mapping of a humanoid robot kinemorph has never seen.

Robot recognition (kinemorph.robots.recognise) names the robot's pelvis, hips, knees, feet,
torso, shoulders, elbows and wrists; this module writes GMR's two-stage task tables over those
bodies and the canonical human landmarks (mapping/landmarks.py), with the weights every shipped
humanoid mapping uses, and mapping/landmarks.landmark_mapping renames it to the source rig's
joints and calibrates scales and rotation offsets on the two rest poses (mapping/calibrate.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import MappingError
from ..motion.motion import Motion
from ..robots.robot import Robot
from .mapping import BodyTask, Mapping


@dataclass(frozen=True)
class TaskWeights:
    """Position and rotation weights of one landmark's task in each stage.

    Attributes:
        stage1: (position [1/m], rotation [1/rad]) in the first stage (orientations first).
        stage2: (position, rotation) in the second stage.
    """

    stage1: tuple[float, float]
    stage2: tuple[float, float]


WEIGHTS: dict[str, TaskWeights] = {
    "pelvis": TaskWeights((0.0, 10.0), (100.0, 5.0)),
    "hip": TaskWeights((0.0, 10.0), (10.0, 5.0)),
    "knee": TaskWeights((0.0, 10.0), (10.0, 5.0)),
    "foot": TaskWeights((50.0, 10.0), (50.0, 10.0)),
    "chest": TaskWeights((0.0, 100.0), (0.0, 10.0)),
    "shoulder": TaskWeights((0.0, 100.0), (5.0, 100.0)),
    "elbow": TaskWeights((0.0, 10.0), (10.0, 5.0)),
    "wrist": TaskWeights((0.0, 10.0), (10.0, 5.0)),
}
"""Weights per landmark kind: those of the shipped G1, H1 and T1 mappings (GMR's tables)."""


ROTATION_JOINTS: dict[str, int] = {"hip": 3, "knee": 4, "foot": 6, "shoulder": 3, "elbow": 4, "wrist": 5}
"""Joints a limb needs between its base (pelvis for legs, torso for arms) and a landmark's body for
that body's orientation target to be reachable (a 3-DoF hip, then the knee; a 6-DoF leg for the
foot; a 3-DoF shoulder, then the elbow and a forearm or wrist twist). With fewer (a child-size
robot's 2-DoF shoulder) the missing rotation is not the limb's to make: the IK would turn the
whole robot to make it, so that body tracks its position only."""


def _joints_between(robot: Robot, base: str, body: str) -> int:
    """Hinge and slide joints on the bodies from below ``base`` down to ``body`` (inclusive)."""
    m = robot.model
    top, b, n = robot.body_id(base), robot.body_id(body), 0
    while b > 0 and b != top:
        n += int(m.body_jntnum[b])
        b = int(m.body_parentid[b])
    return n


def robot_parts(robot: Robot) -> list[tuple[str, str]]:
    """(canonical landmark, robot body) pairs the automatic mapping drives, from the robot's
    recognition (run on the loaded model when the robot came from the registry)."""
    from ..robots.recognised import require_recognition

    rec = require_recognition(robot)
    if rec.family != "humanoid":
        raise MappingError(
            f"robot {robot.name} is a {rec.family}: automatic landmark mappings are for humanoids "
            "(quadrupeds use the quadruped engine's natural mode)"
        )
    parts = [("pelvis", rec.pelvis)]
    for leg in rec.legs:
        parts += [(f"hip_{leg.side}", leg.hip), (f"knee_{leg.side}", leg.knee), (f"foot_{leg.side}", leg.foot)]
    if rec.torso:
        parts.append(("chest", rec.torso))
    for arm in rec.arms:
        parts += [(f"shoulder_{arm.side}", arm.shoulder), (f"elbow_{arm.side}", arm.elbow)]
        if arm.wrist:
            parts.append((f"wrist_{arm.side}", arm.wrist))
    seen: set[str] = set()
    out = []
    for mark, body in parts:  # one task per robot body (a torso that is the pelvis drives it once)
        if body not in seen:
            seen.add(body)
            out.append((mark, body))
    return out


def auto_template(robot: Robot) -> Mapping:
    """GMR's two-stage tables over canonical landmarks for a recognised humanoid robot (scales 1,
    no offsets: calibrate measures them)."""
    from ..robots.recognised import require_recognition

    parts = robot_parts(robot)
    rec = require_recognition(robot)

    def reachable(kind: str, body: str) -> bool:
        base = rec.pelvis if kind in ("hip", "knee", "foot") else rec.torso
        need = ROTATION_JOINTS.get(kind, 0)
        return not need or not base or _joints_between(robot, base, body) >= need

    def stage(k: int) -> tuple[BodyTask, ...]:
        out = []
        for mark, body in parts:
            kind = mark.rsplit("_", 1)[0] if mark[-2:] in ("_l", "_r") else mark
            w = WEIGHTS[kind]
            pw, rw = w.stage1 if k == 1 else w.stage2
            out.append(BodyTask(body, mark, pw, rw if reachable(kind, body) else 0.0))
        return tuple(out)

    root = robot.root_body
    return Mapping(
        robot_root=root, source_root="pelvis", scales={mark: 1.0 for mark, _ in parts}, stage1=stage(1),
        stage2=stage(2), robot=robot.name, where=f"automatic mapping of {robot.path}",
    )  # fmt: skip


def auto_mapping(motion: Motion, robot: Robot) -> Mapping:
    """The automatic mapping for a humanoid motion with a recognised rig onto any humanoid robot."""
    from .landmarks import landmark_mapping

    if motion.rig is None:
        raise MappingError(
            f"{motion.source}: an automatic mapping needs the source's landmarks (rig recognition), "
            f"which preset {motion.preset} does not give; pass a mapping (--mapping FILE)"
        )
    mapping = level_feet(landmark_mapping(motion, robot, auto_template(robot)), robot)
    return replace(mapping, robot=robot.name, where=f"automatic mapping of {robot.path}")


def level_feet(mapping: Mapping, robot: Robot) -> Mapping:
    """``mapping`` with the feet's rotation offsets turned so that a source foot flat on the floor
    asks for the robot's sole flat on the floor. Calibration measures offsets at the robot's zero
    pose, where a robot's feet may not be level (Berkeley Humanoid's soles are pitched 10 deg
    there: it stands flat-footed only in its crouched keyframe); the sole's up direction in the
    foot's frame is taken from the rest pose (a keyframe, else the zero pose: no change)."""
    import mujoco
    import numpy as np

    from ..transforms import axis_angle_to_quat, quat_mul

    feet = set(robot.feet)
    m = robot.model
    d = mujoco.MjData(m)
    d.qpos[:] = robot.rest_qpos()
    mujoco.mj_kinematics(m, d)
    up_rest = {f: d.xmat[robot.body_id(f)].reshape(3, 3).T @ np.array([0.0, 0.0, 1.0]) for f in feet}
    d.qpos[:] = m.qpos0
    d.qpos[3:7] = [1.0, 0.0, 0.0, 0.0]
    mujoco.mj_kinematics(m, d)
    turn = {}
    for f in feet:  # the rotation in the foot's frame taking its sole's up onto world up at zero
        a, b = up_rest[f], d.xmat[robot.body_id(f)].reshape(3, 3).T @ np.array([0.0, 0.0, 1.0])
        axis = np.cross(a, b)
        s, c = float(np.linalg.norm(axis)), float(a @ b)
        if s > 1e-6:
            turn[f] = axis_angle_to_quat(axis / s, np.array(np.arctan2(s, c)))
    if not turn:
        return mapping

    def stage(tasks: tuple[BodyTask, ...]) -> tuple[BodyTask, ...]:
        return tuple(
            replace(t, rotation_offset=quat_mul(t.rotation_offset, turn[t.robot_body]))
            if t.robot_body in turn else t
            for t in tasks
        )  # fmt: skip

    return replace(mapping, stage1=stage(mapping.stage1), stage2=stage(mapping.stage2))
