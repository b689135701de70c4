"""The gait facts of a biped (kinemorph.gait reads them from the robot's registry entry).

Styles name upper-body joints robot-independently (kinemorph.gait.style.UPPER_BODY_JOINTS); a
robot's ``upper`` table maps them onto its joints with a sign, so that, e.g., a positive
shoulder_pitch swings the arm forward on every robot.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class GaitRobotInfo:
    """Gait settings of a known biped.

    Attributes:
        pelvis_body: the body whose pose r(t)'s pelvis prescribes.
        crouch: how much lower than at the rest pose the pelvis walks [m] (bent knees keep the
            legs away from their straight-knee singularity and give the swing room).
        upper: style joint name -> (robot joint, sign): robot joint = rest value + sign * curve.
    """

    pelvis_body: str
    crouch: float
    upper: dict[str, tuple[str, float]] = field(default_factory=dict)


def arms(
    pitch: str, roll: str, elbow: str, elbow_sign: tuple[float, float] = (-1.0, -1.0)
) -> dict[str, tuple[str, float]]:
    """Shoulder pitch, shoulder roll and elbow of both arms from name patterns ({s}: side word)."""
    out: dict[str, tuple[str, float]] = {}
    for k, (side, cap) in enumerate((("left", "Left"), ("right", "Right"))):
        s = "lr"[k]
        out[f"shoulder_pitch_{s}"] = (pitch.format(s=side, S=cap), -1.0)
        out[f"shoulder_roll_{s}"] = (roll.format(s=side, S=cap), 1.0 if s == "l" else -1.0)
        out[f"elbow_{s}"] = (elbow.format(s=side, S=cap), elbow_sign[k])
    return out
