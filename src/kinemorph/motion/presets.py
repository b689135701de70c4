"""Presets: how a source's axes, units and extra bodies become the library's convention.

A preset turns raw BVH content (file axes and units) into a :class:`Motion` in world Z-up
metres. ``lafan1`` is Ubisoft LAFAN1 (Y-up, centimetres, plus the virtual LeftFootMod and
RightFootMod bodies: foot position with toe orientation, as GMR defines them); ``dog`` is the
Labrador mocap of "Lifelike Agility and Play" (Y-up, centimetres); ``generic`` takes the
up axis and unit as options.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError, UnknownNameError
from ..transforms import mat_to_quat, quat_mul
from .bvh import BvhData
from .motion import Motion
from .skeleton import Skeleton

UNITS = {"m": 1.0, "cm": 0.01, "mm": 0.001, "inch": 0.0254}

# Rotation taking a Y-up frame to the Z-up world: x -> x, y -> z, z -> -y.
_Y_UP_TO_Z_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


@dataclass(frozen=True)
class Preset:
    """How to read one family of sources.

    Attributes:
        name: registry key.
        up: the source's up axis, "y" or "z".
        unit: the source's length unit, a key of UNITS, or "auto" (centimetres when the first
            frame spans more than 30 units, metres otherwise).
        family: the kind of body ("humanoid", "quadruped", "other").
        virtual: extra bodies, name -> (joint for the position, joint for the orientation).
        signature: joints whose presence identifies the source when the preset is "auto".
        legs: quadrupeds: (leg root joint, paw joint) per leg, FL, FR, RL, RR.
        landmarks: humanoids: the body per name of kinemorph.conventions.LANDMARKS, in that order.
    """

    name: str
    up: str = "y"
    unit: str = "auto"
    family: str = "other"
    virtual: dict[str, tuple[str, str]] = field(default_factory=dict)
    signature: tuple[str, ...] = ()
    legs: tuple[tuple[str, str], ...] = ()
    landmarks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.up not in ("y", "z"):
            raise ConfigError(f"preset {self.name}: up axis must be 'y' or 'z', got {self.up!r}")
        if self.unit != "auto" and self.unit not in UNITS:
            raise ConfigError(
                f"preset {self.name}: unit must be 'auto' or one of {', '.join(UNITS)}, got {self.unit!r}"
            )


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            name="lafan1",
            up="y",
            unit="cm",
            family="humanoid",
            virtual={"LeftFootMod": ("LeftFoot", "LeftToe"), "RightFootMod": ("RightFoot", "RightToe")},
            signature=("Hips", "LeftUpLeg", "LeftFoot", "LeftToe", "RightFoot", "RightToe", "Spine2", "LeftForeArm"),
            landmarks=(
                "Hips",
                "Neck",
                "LeftArm",
                "RightArm",
                "LeftForeArm",
                "RightForeArm",
                "LeftHand",
                "RightHand",
                "LeftLeg",
                "RightLeg",
                "LeftFoot",
                "RightFoot",
                "LeftToe",
                "RightToe",
            ),
        ),
        Preset(
            name="dog",
            up="y",
            unit="cm",
            family="quadruped",
            signature=("Bip01", "b_Hips", "b_LeftHand", "b_RightHand", "b_LeftToe", "b_RightToe"),
            # Front paws are the finger joints (on the ground when planted), not the wrists
            # (b_LeftHand, b_RightHand: 4-10 cm up); the legs' roots are shoulders and hips.
            legs=(
                ("b_LeftArm", "b__LeftFinger"),
                ("b_RightArm", "b_RightFinger"),
                ("b_LeftLegUpper", "b_LeftToe"),
                ("b_RightLegUpper", "b_RightToe"),
            ),
        ),
        Preset(name="generic"),
    )
}


def fps_from_frame_time(frame_time: float) -> float:
    """Frames per second of a BVH Frame Time [s]. Files print the time with few digits
    (0.033333 for 30 fps), so a rate within 0.01% of a whole number is taken as that number."""
    fps = 1.0 / frame_time
    whole = round(fps)
    return float(whole) if whole > 0 and abs(fps - whole) <= 1e-4 * fps else fps


def detect_preset(skeleton: Skeleton) -> str:
    """The first preset whose signature joints all exist in the skeleton, else "generic"."""
    names = set(skeleton.names)
    for p in PRESETS.values():
        if p.signature and names.issuperset(p.signature):
            return p.name
    return "generic"


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise UnknownNameError("preset", name, [*PRESETS, "auto"]) from None


def _unit_scale(unit: str, data: BvhData, local_rot: np.ndarray, local_pos: np.ndarray) -> float:
    if unit != "auto":
        return UNITS[unit]
    from .motion import forward_kinematics

    gpos, _ = forward_kinematics(data.skeleton, local_rot[:1], local_pos[:1])
    extent = float(np.ptp(gpos[0], axis=0).max())
    return UNITS["cm"] if extent > 30.0 else UNITS["m"]


def change_frame(
    skeleton: Skeleton, local_rot: np.ndarray, local_pos: np.ndarray, *, rotation: np.ndarray, scale: float
) -> tuple[Skeleton, np.ndarray, np.ndarray]:
    """The same animation expressed in another world frame and unit: lengths times ``scale``, the
    world turned by ``rotation`` (3x3). Only the root changes its rotation; every joint's local
    rotation stays, since each lives in its parent's frame. Returns new arrays."""
    local_rot = local_rot.copy()
    local_pos = local_pos * scale
    offsets = skeleton.offsets * scale
    local_pos[:, 0] = local_pos[:, 0] @ rotation.T
    offsets[0] = rotation @ offsets[0]
    local_rot[:, 0] = quat_mul(mat_to_quat(rotation), local_rot[:, 0])
    new = Skeleton(
        names=skeleton.names,
        parents=skeleton.parents,
        offsets=offsets,
        channels=skeleton.channels,
        end_sites=tuple(type(e)(parent=e.parent, offset=e.offset * scale) for e in skeleton.end_sites),
    )
    return new, local_rot, local_pos


def apply_preset(data: BvhData, preset: Preset | str = "auto", *, source: str = "<memory>") -> Motion:
    """Turn raw BVH content into a Motion in world Z-up metres."""
    if isinstance(preset, str):
        preset = get_preset(detect_preset(data.skeleton) if preset == "auto" else preset)
    sk = data.skeleton
    for body, (pj, rj) in preset.virtual.items():
        for j in (pj, rj):
            if j not in sk.names:
                raise UnknownNameError("joint", j, sk.names, where=f"{source} (preset {preset.name}, body {body})")
    local_rot, local_pos = data.local_transforms()
    scale = _unit_scale(preset.unit, data, local_rot, local_pos)
    rotation = _Y_UP_TO_Z_UP if preset.up == "y" else np.eye(3)
    skeleton, local_rot, local_pos = change_frame(sk, local_rot, local_pos, rotation=rotation, scale=scale)
    return Motion.from_local(
        skeleton,
        fps_from_frame_time(data.frame_time),
        local_rot,
        local_pos,
        virtual=preset.virtual or None,
        family=preset.family,
        source=source,
        preset=preset.name,
        legs=preset.legs,
        landmarks=preset.landmarks,
    )
