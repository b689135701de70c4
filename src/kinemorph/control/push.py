"""Pushes on the pelvis during a simulated walk: "F@T:DIR" = F newtons per kilogram of robot mass
for ``duration`` (1 s) from time T [s], from the robot's front, back, left or right (a push from the
front points backwards along the pelvis heading at T)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError

DIRECTIONS = {"front": (-1.0, 0.0), "back": (1.0, 0.0), "left": (0.0, -1.0), "right": (0.0, 1.0)}
"""Force direction in the pelvis heading frame for a push from each side."""

_NUMBER = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
_SPEC = re.compile(rf"^\s*{_NUMBER}\s*@\s*{_NUMBER}\s*:\s*([a-z]+)\s*$")


@dataclass(frozen=True)
class Push:
    """One push.

    Attributes:
        force_per_kg: size [N/kg] (times the robot's mass gives the force).
        start: when it begins [s].
        direction: which side it comes from: front, back, left or right.
        duration: how long it lasts [s].
    """

    force_per_kg: float
    start: float
    direction: str
    duration: float = 1.0

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ConfigError(f"push direction {self.direction!r}; valid: {', '.join(DIRECTIONS)}")
        if not (math.isfinite(self.force_per_kg) and 0 <= self.force_per_kg <= 20):
            raise ConfigError(f"push force must be in [0, 20] N/kg, got {self.force_per_kg}")
        if not (math.isfinite(self.start) and self.start >= 0 and self.duration > 0):
            raise ConfigError(f"push time must be >= 0 s and its duration positive, got {self.start}, {self.duration}")

    def active(self, t: float) -> bool:
        return self.start <= t < self.start + self.duration

    def force(self, mass: float, yaw: float) -> np.ndarray:
        """World force [N] for a pelvis heading yaw [rad]. Shape: (3,)."""
        fx, fy = DIRECTIONS[self.direction]
        c, s = math.cos(yaw), math.sin(yaw)
        return self.force_per_kg * mass * np.array([c * fx - s * fy, s * fx + c * fy, 0.0])


def parse_push(text: str) -> Push:
    """A push from "F@T:DIR", e.g. "1.5@4:front" (1.5 N/kg at 4 s for 1 s, from the front)."""
    m = _SPEC.match(text)
    if not m:
        raise ConfigError(
            f"--push must be F@T:DIR (N/kg @ seconds : {'|'.join(DIRECTIONS)}), e.g. 1.5@4:front; got {text!r}"
        )
    try:
        return Push(float(m.group(1)), float(m.group(2)), m.group(3))
    except ConfigError as exc:
        raise ConfigError(f"--push {text!r}: {exc}") from None
