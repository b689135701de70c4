"""The robots kinemorph knows by name. One registry; the CLI's choices come from here."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..conventions import LEGS
from ..errors import UnknownNameError
from .gait_info import GaitRobotInfo, arms


@dataclass(frozen=True)
class RobotInfo:
    """A known robot.

    Attributes:
        name: registry key (also the mujoco-menagerie name).
        family: "humanoid" or "quadruped".
        root_body: the floating-base body.
        feet: bodies that touch the ground, left before right (quadrupeds: FL, FR, RL, RR).
        rest_key: keyframe holding a standing pose ("" when the model has none).
        mappings: default mapping file per source preset (files in kinemorph/robots/mappings/).
        legs: quadrupeds: (hip body, foot body) per leg in the order FL, FR, RL, RR.
        foot_spheres: foot bodies to create at load, foot body -> shank body carrying its sphere
            (see robots/feet.py).
        landmarks: humanoids: (body, offset in the body frame [m]) per name of
            kinemorph.conventions.LANDMARKS, in that order.
        gait: bipeds: what the stylized gaits need (pelvis body, crouch, upper-body joints).
    """

    name: str
    family: str
    root_body: str
    feet: tuple[str, ...]
    rest_key: str = ""
    mappings: dict[str, str] = field(default_factory=dict)
    legs: tuple[tuple[str, str], ...] = ()
    foot_spheres: dict[str, str] = field(default_factory=dict)
    landmarks: tuple[tuple[str, tuple[float, float, float]], ...] = ()
    gait: GaitRobotInfo | None = None


Landmark = tuple[str, tuple[float, float, float]]


def _humanoid_landmarks(
    pelvis: str, neck: Landmark, *limbs: str | Landmark, sides: tuple[str, str]
) -> tuple[Landmark, ...]:
    """Landmarks in the order of LANDMARKS from per-side name patterns ({s}: left/right, {S}: L/R,
    {Side}: Left/Right); a pattern without an offset is the body's origin."""

    def one(spec: str | Landmark, side: str) -> Landmark:
        body, offset = (spec, (0.0, 0.0, 0.0)) if isinstance(spec, str) else spec
        name = body.format(s=side, S=side[0].upper(), Side=side.capitalize())
        return name, offset

    out: list[Landmark] = [(pelvis, (0.0, 0.0, 0.0)), neck]
    for spec in limbs:  # shoulder, elbow, wrist, knee, ankle, toe; left then right
        out += [one(spec, sides[0]), one(spec, sides[1])]
    return tuple(out)


KNOWN_ROBOTS: dict[str, RobotInfo] = {
    r.name: r
    for r in (
        RobotInfo(
            name="unitree_g1",
            family="humanoid",
            root_body="pelvis",
            feet=("left_ankle_roll_link", "right_ankle_roll_link"),
            rest_key="stand",
            mappings={"lafan1": "lafan1_to_unitree_g1.json"},
            landmarks=_humanoid_landmarks(
                "pelvis",
                ("torso_link", (0.0, 0.0, 0.30)),
                "{s}_shoulder_roll_link",
                "{s}_elbow_link",
                ("{s}_wrist_roll_link", (0.0, 0.0, 0.0)),
                "{s}_knee_link",
                "{s}_ankle_roll_link",
                ("{s}_ankle_roll_link", (0.12, 0.0, -0.03)),
                sides=("left", "right"),
            ),
            gait=GaitRobotInfo(
                pelvis_body="pelvis",
                crouch=0.06,
                upper={
                    "waist_yaw": ("waist_yaw_joint", 1.0),
                    "waist_pitch": ("waist_pitch_joint", 1.0),
                    **arms("{s}_shoulder_pitch_joint", "{s}_shoulder_roll_joint", "{s}_elbow_joint"),
                },
            ),
        ),
        RobotInfo(
            name="booster_t1",
            family="humanoid",
            root_body="Trunk",
            feet=("left_foot_link", "right_foot_link"),
            rest_key="home",
            mappings={"lafan1": "lafan1_to_booster_t1.json"},
            landmarks=_humanoid_landmarks(
                "Waist",
                ("H1", (0.0, 0.0, 0.0)),
                "A{S}2",
                "A{S}3",
                ("{s}_hand_link", (0.0, 0.0, 0.0)),
                "Shank_{Side}",
                "{s}_foot_link",
                ("{s}_foot_link", (0.12, 0.0, -0.015)),
                sides=("left", "right"),
            ),
            gait=GaitRobotInfo(
                pelvis_body="Waist",  # the hips; the root body Trunk sits above the Waist joint
                crouch=0.02,  # the rest keyframe already bends the knees
                upper={
                    "waist_yaw": ("Waist", -1.0),  # turns the hips under the trunk: the trunk turns the other way
                    "head_yaw": ("AAHead_yaw", 1.0),
                    "head_pitch": ("Head_pitch", 1.0),
                    **arms("{S}_Shoulder_Pitch", "{S}_Shoulder_Roll", "{S}_Elbow_Yaw", elbow_sign=(-1.0, 1.0)),
                },
            ),
        ),
        RobotInfo(
            name="unitree_h1",
            family="humanoid",
            root_body="pelvis",
            feet=("left_ankle_link", "right_ankle_link"),
            mappings={"lafan1": "lafan1_to_unitree_h1.json"},
            landmarks=_humanoid_landmarks(
                "pelvis",
                ("torso_link", (0.0, 0.0, 0.48)),
                "{s}_shoulder_roll_link",
                "{s}_elbow_link",
                ("{s}_elbow_link", (0.28, 0.0, -0.015)),
                "{s}_knee_link",
                "{s}_ankle_link",
                ("{s}_ankle_link", (0.17, 0.0, -0.056)),
                sides=("left", "right"),
            ),
            gait=GaitRobotInfo(
                pelvis_body="pelvis",
                crouch=0.08,
                upper={
                    "waist_yaw": ("torso", 1.0),
                    **arms("{s}_shoulder_pitch", "{s}_shoulder_roll", "{s}_elbow"),
                },
            ),
        ),
        *(
            RobotInfo(
                name=name,
                family="quadruped",
                root_body=root,
                feet=tuple(f"{leg}_foot" for leg in LEGS),
                rest_key="home",
                mappings={"dog": f"dog_to_{name}.json"},
                legs=tuple((f"{leg}_thigh", f"{leg}_foot") for leg in LEGS),
                foot_spheres={f"{leg}_foot": f"{leg}_calf" for leg in LEGS},
            )
            for name, root in (("unitree_go2", "base"), ("unitree_a1", "trunk"))
        ),
    )
}


def robot_info(name: str) -> RobotInfo:
    """The registry entry of a known robot; UnknownNameError lists the known ones."""
    try:
        return KNOWN_ROBOTS[name]
    except KeyError:
        raise UnknownNameError("robot", name, KNOWN_ROBOTS) from None


def default_mapping_path(robot: str, preset: str) -> Path:
    """Path of the shipped default mapping of a known robot for a source preset."""
    info = robot_info(robot)
    if preset not in info.mappings:
        raise UnknownNameError(f"source preset with a default mapping for {robot}", preset, info.mappings)
    return Path(str(resources.files("kinemorph.robots") / "mappings" / info.mappings[preset]))
