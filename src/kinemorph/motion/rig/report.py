"""RigReport: what recognition found in a skeleton, printable and JSON-able."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HUMANOID_LANDMARKS = (
    "pelvis", "spine", "chest", "neck", "head",
    "hip_l", "hip_r", "knee_l", "knee_r", "ankle_l", "ankle_r", "toe_l", "toe_r",
    "clavicle_l", "clavicle_r", "shoulder_l", "shoulder_r", "elbow_l", "elbow_r", "wrist_l", "wrist_r",
)  # fmt: skip
"""Canonical humanoid landmarks, each a joint of the source rig (fingers are not landmarks).
Toe-less rigs give toe = ankle; clavicle is optional (= shoulder when the rig has none)."""

REQUIRED = tuple(n for n in HUMANOID_LANDMARKS if not n.startswith(("toe", "clavicle")))

README_SECTION = 'README section "Your own skeleton"'


@dataclass(frozen=True)
class RigReport:
    """Recognition result of one source.

    Attributes:
        source: the file (for messages).
        family: "humanoid", "quadruped" or "other" (not recognised).
        rig: the rig convention the names matched ("mixamo", "cmu", ...), "structure" when the
            names were unknown and the tree's shape was used, "" when nothing was recognised.
        method: "names", "structure" or "preset".
        landmarks: canonical landmark -> joint name (humanoids), in HUMANOID_LANDMARKS order.
        legs: quadrupeds: (leg root, paw body) for FL, FR, RL, RR.
        up: the file's up axis ("x", "y", "z", "-x", "-y", "-z").
        up_source: "detected", "given" or "preset".
        unit: the unit name ("m", "cm", "mm", "inch", "ft", "cmu" (1/0.45 inch), or "x<metres>").
        scale: metres per file unit.
        unit_source: "detected", "given" or "preset".
        stature: humanoids: head-to-feet height on standing frames [m]; quadrupeds: hip height [m].
        floor: height of the floor in the converted motion before grounding [m] (subtracted).
        missing: landmarks or parts that were not found.
        problem: why the rig cannot be retargeted without a mapping ("" when it can).
        warnings: things the user should look at (e.g. implausible stature).
    """

    source: str
    family: str
    rig: str
    method: str
    landmarks: dict[str, str] = field(default_factory=dict)
    legs: tuple[tuple[str, str], ...] = ()
    up: str = "y"
    up_source: str = "detected"
    unit: str = "cm"
    scale: float = 0.01
    unit_source: str = "detected"
    stature: float = 0.0
    floor: float = 0.0
    missing: tuple[str, ...] = ()
    problem: str = ""
    warnings: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problem

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "family": self.family,
            "rig": self.rig,
            "method": self.method,
            "landmarks": dict(self.landmarks),
            "legs": [list(x) for x in self.legs],
            "up": self.up,
            "up_source": self.up_source,
            "unit": self.unit,
            "metres_per_unit": self.scale,
            "unit_source": self.unit_source,
            "stature_m" if self.family != "quadruped" else "hip_height_m": round(self.stature, 4),
            "floor_m": round(self.floor, 4),
            "missing": list(self.missing),
            "problem": self.problem,
            "warnings": list(self.warnings),
        }

    def to_text(self) -> str:
        """A table for people: family, rig, axes and units, then one line per landmark."""
        what = "stature" if self.family != "quadruped" else "hip height"
        size = f", {what} {self.stature:.2f} m" if self.stature > 0 else ""
        lines = [
            f"rig: {self.rig or 'not recognised'} ({self.method}), family {self.family}",
            f"up axis {self.up} ({self.up_source}), unit {self.unit} = {self.scale:.6g} m ({self.unit_source}){size}",
        ]
        if self.landmarks:
            width = max(len(k) for k in self.landmarks)
            lines += [f"  {k:<{width}}  {v}" for k, v in self.landmarks.items()]
        for leg, (root, paw) in zip(("FL", "FR", "RL", "RR"), self.legs):
            lines.append(f"  leg {leg}  {root} -> {paw}")
        if self.missing:
            lines.append("missing: " + ", ".join(self.missing))
        lines += [f"warning: {w}" for w in self.warnings]
        if self.problem:
            lines.append(f"problem: {self.problem}")
        return "\n".join(lines)
