"""Mappings over canonical landmarks, so that any recognised rig uses the shipped robot mappings.

The shipped humanoid mappings are written for LAFAN1's joint names; LAFAN1_LANDMARKS says which
canonical landmark (kinemorph.motion.rig.HUMANOID_LANDMARKS, plus ``foot_l``/``foot_r``: the
ankle's position with the toe's orientation, GMR's FootMod) each name is. For another rig the
template is renamed to that rig's joints (its recognised landmark table) and calibrated on its
own standing frame (mapping/calibrate.py): scales and rotation offsets depend on each rig's
proportions and joint frames, so they are measured, not copied.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..errors import MappingError
from ..motion.motion import Motion
from ..motion.rig import foot_body, require_rig
from ..robots.robot import Robot
from .mapping import BodyTask, Mapping

if TYPE_CHECKING:
    from .calibrate import Calibration

LAFAN1_LANDMARKS: dict[str, str] = {
    "Hips": "pelvis",
    "Spine2": "chest",
    **{
        f"{side}{joint}": f"{mark}_{side[0].lower()}"
        for side in ("Left", "Right")
        for joint, mark in (
            ("UpLeg", "hip"),
            ("Leg", "knee"),
            ("FootMod", "foot"),
            ("Foot", "ankle"),
            ("Toe", "toe"),
            ("Arm", "shoulder"),
            ("ForeArm", "elbow"),
            ("Hand", "wrist"),
            ("Shoulder", "clavicle"),
        )
    },
    "Neck": "neck",
    "Head": "head",
    "Spine": "spine",
}
"""LAFAN1 joint (or virtual body) -> canonical landmark; what rig recognition finds on LAFAN1."""


def rename_sources(mapping: Mapping, table: dict[str, str], *, where: str = "mapping") -> Mapping:
    """The mapping with its source bodies renamed by ``table`` (every source body must be in it)."""
    missing = [b for b in mapping.source_bodies() if b not in table]
    if missing:
        raise MappingError(f"{where}: no landmark for source bodies {', '.join(missing)}")

    def stage(tasks: tuple[BodyTask, ...]) -> tuple[BodyTask, ...]:
        return tuple(replace(t, source_body=table[t.source_body]) for t in tasks)

    scales: dict[str, float] = {}
    for k, v in mapping.scales.items():
        if k in table:
            scales.setdefault(table[k], v)
    return replace(
        mapping,
        source_root=table[mapping.source_root],
        scales=scales,
        stage1=stage(mapping.stage1),
        stage2=stage(mapping.stage2),
        source_preset=None,
    )


def over_rig(template: Mapping, motion: Motion) -> Mapping:
    """``template`` renamed to the motion's joints when it names canonical landmarks (and the motion
    has no bodies of those names); unchanged otherwise."""
    from ..motion.rig.report import HUMANOID_LANDMARKS

    names = set(HUMANOID_LANDMARKS) | {"foot_l", "foot_r"}
    bodies = template.source_bodies()
    if motion.rig is None or not all(b in names and b not in motion.body_names for b in bodies):
        return template
    return rename_sources(template, rig_table(motion), where="landmark mapping")


def landmark_template(robot: Robot) -> Mapping:
    """The robot's shipped LAFAN1 mapping over canonical landmark names."""
    from .mapping import load_mapping

    shipped = load_mapping(robot.name, "lafan1")
    return rename_sources(shipped, LAFAN1_LANDMARKS, where=f"shipped mapping of {robot.name}")


def rig_table(motion: Motion) -> dict[str, str]:
    """Canonical landmark -> body of the motion (its recognised joints; foot_l/foot_r are the
    virtual foot bodies when the rig has toes, else the ankles)."""
    rep = require_rig(motion)
    if rep.family != "humanoid":
        raise MappingError(
            f"{motion.source} is a {rep.family} rig; landmark mappings are for humanoids "
            "(quadrupeds use the quadruped engine's natural mode)"
        )
    table = dict(rep.landmarks)
    for side in "lr":
        body = foot_body(side)
        ankle_toe = (table[f"ankle_{side}"], table.get(f"toe_{side}"))
        if body not in motion.body_names:  # a preset's own virtual foot (LAFAN1's LeftFootMod)
            body = next((v for v, d in motion.virtual.items() if tuple(d[:2]) == ankle_toe), body)
        table[f"foot_{side}"] = body if body in motion.body_names else table[f"ankle_{side}"]
    return table


BIND_SNAP_DEG = 1.0
"""[deg] offsets measured on a bind pose are exact; only rounding noise is snapped."""


def _angle(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.degrees(np.arccos(np.clip(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-12), -1, 1))))


def bind_pose(motion: Motion) -> Motion | None:
    """The rig's bind pose (every joint rotation zero, bone lengths as in the clip) as a one-frame
    motion, stood upright, when it is a T- or A-pose: legs straight down, trunk up, arms out and
    straight. Its joint frames are the rig's own axis-aligned ones, so calibrating on it gives
    exact rotation offsets (a clip's standing frame carries the actor's arm twist). None when the
    bind pose is no such pose (rigs whose joint axes follow the bones)."""
    from ..motion.motion import forward_kinematics
    from ..motion.rig.axes import snap_axis, to_z_up
    from ..transforms import mat_to_quat

    rep = require_rig(motion)
    sk = motion.skeleton
    lr = np.zeros((1, sk.num_joints, 4))
    lr[..., 0] = 1.0
    lp = np.median(motion.local_positions, axis=0)[None]
    lp[0, 0] = 0.0
    g, _ = forward_kinematics(sk, lr, lp)
    p = {k: g[0, sk.index(v)] for k, v in rep.landmarks.items()}
    down = sum(p[f"ankle_{s}"] - p[f"hip_{s}"] for s in "lr")
    up = -down / (np.linalg.norm(down) + 1e-12)
    for s in "lr":
        if max(_angle(p[f"knee_{s}"] - p[f"hip_{s}"], -up), _angle(p[f"ankle_{s}"] - p[f"knee_{s}"], -up)) > 25:
            return None
        if not 60 <= _angle(p[f"elbow_{s}"] - p[f"shoulder_{s}"], up) <= 150:
            return None
        if _angle(p[f"elbow_{s}"] - p[f"shoulder_{s}"], p[f"wrist_{s}"] - p[f"elbow_{s}"]) > 20:
            return None
    if _angle(p["chest"] - p["pelvis"], up) > 25:
        return None
    lr[0, 0] = mat_to_quat(to_z_up(snap_axis(up)))
    return Motion.from_local(
        sk, motion.fps, lr, lp, virtual=motion.virtual or None, family=motion.family, source=motion.source,
        preset=motion.preset, landmarks=motion.landmarks, rig=motion.rig,
    )  # fmt: skip


def landmark_mapping(motion: Motion, robot: Robot, template: Mapping | None = None) -> Mapping:
    """A mapping for a recognised humanoid rig: ``template`` (over canonical landmarks; default the
    robot's shipped one) renamed to the rig's joints, then calibrated on the rig's bind pose when
    that is a T- or A-pose (bind_pose), else on the clip's most neutral standing frame."""
    return landmark_calibration(motion, robot, template)[0]


def landmark_calibration(
    motion: Motion, robot: Robot, template: Mapping | None = None, *, frame: int | None = None
) -> tuple[Mapping, Calibration]:
    """landmark_mapping with what calibrate measured; ``frame`` forces that clip frame as the rest
    pose (no bind pose). The stature stored is the clip's (Motion.stature), as on the frame path."""
    from .calibrate import calibrate

    tpl = template if template is not None else landmark_template(robot)
    table = rig_table(motion)
    unknown = [b for b in tpl.source_bodies() if b not in table]
    if unknown:
        raise MappingError(
            f"landmark mapping names {', '.join(unknown)}, which are no landmarks; valid: {', '.join(table)}"
        )
    renamed = rename_sources(tpl, table)
    bind = bind_pose(motion) if frame is None else None
    if bind is None:
        return calibrate(renamed, motion, robot, frame=frame)
    # exact joint frames: nothing to snap away (a bone may leave its joint's axes at an angle)
    mapping, cal = calibrate(renamed, bind, robot, snap_deg=BIND_SNAP_DEG)
    stature = motion.stature()
    return replace(mapping, human_height_assumption=round(stature, 4)), replace(cal, stature=stature)


def calibrate_default(motion: Motion, robot: Robot, *, frame: int | None = None) -> tuple[Mapping, Calibration]:
    """The robot's default mapping for this motion, calibrated on it: the shipped mapping of the
    motion's preset (LAFAN1, dog), else the landmark path (landmark_calibration)."""
    from ..robots.registry import KNOWN_ROBOTS, robot_info
    from .calibrate import calibrate
    from .mapping import default_mapping

    known = robot.name in KNOWN_ROBOTS
    if not known or motion.preset in robot_info(robot.name).mappings or motion.rig is None:
        return calibrate(default_mapping(motion, robot), motion, robot, frame=frame)
    return landmark_calibration(motion, robot, frame=frame)
