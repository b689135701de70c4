"""The parts robot recognition names: humanoid legs and arms, quadruped legs (robots/recognise.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LegChain:
    """One humanoid leg.

    Attributes:
        side: "l" or "r".
        bodies: the chain from below the pelvis to the foot, in order.
        hip: the body carrying the thigh (the last hip joint's body).
        knee: the knee's body.
        foot: the body carrying the sole (ankle), where foot targets act.
        toe: a toe body past the foot ("" when none).
        sole_height: the sole's depth below the foot body's origin at rest [m].
        toe_offset: the sole's front point in the foot body's frame [m]. Shape: (3,).
    """

    side: str
    bodies: tuple[str, ...]
    hip: str
    knee: str
    foot: str
    toe: str
    sole_height: float
    toe_offset: tuple[float, float, float]


@dataclass(frozen=True)
class ArmChain:
    """One arm.

    Attributes:
        side: "l" or "r".
        bodies: the chain from below the torso to the hand, in order.
        shoulder: the body before the elbow (the upper arm).
        elbow: the elbow's body.
        wrist: the wrist or hand body ("" when the forearm is the last body).
        hand_offset: the hand's point in the last body's frame [m]. Shape: (3,).
    """

    side: str
    bodies: tuple[str, ...]
    shoulder: str
    elbow: str
    wrist: str
    hand_offset: tuple[float, float, float]


@dataclass(frozen=True)
class QuadLeg:
    """One quadruped leg.

    Attributes:
        name: FL, FR, RL or RR (kinemorph.conventions.LEGS).
        hip: the first body of the leg (abduction).
        thigh: the body before the knee.
        calf: the knee's body (shank).
        foot: an existing foot body at the end of the calf ("" when the foot is a point on the calf).
        foot_sphere: the foot is a sphere geom on the calf (a foot body is made for it at load).
        foot_point: the foot point in the calf's frame [m] (sphere centre or the calf's tip). Shape: (3,).
    """

    name: str
    hip: str
    thigh: str
    calf: str
    foot: str
    foot_sphere: bool
    foot_point: tuple[float, float, float]
