"""Settings and task tables of the shared differential-IK step, declared and validated once.

Every engine that runs the step (gmr, mesh, quadruped, the gait's kinematic output) has a config
that *is an* :class:`IkSettings` (it inherits these fields, with its own defaults), so the CLI's
options, the app's forms and the validation are the same for all of them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError


@dataclass(frozen=True)
class IkSettings:
    """Settings of the differential-IK step.

    Attributes:
        damping: Levenberg-Marquardt damping added to the step's Hessian diagonal: a pull toward
            the previous frame.
        lm_damping: per-task damping, times the task's squared weighted error.
        tolerance: a stage repeats while its error falls by more than this.
        max_extra_iterations: repeats per stage after the first step.
        max_joint_speed: no joint moves faster than this from frame to frame [rad/s]; inf: no limit.
        posture_weight: pull of the joints toward the robot's rest pose [1/rad]; 0: none.
    """

    damping: float = 0.5
    lm_damping: float = 1.0
    tolerance: float = 1e-3
    max_extra_iterations: int = 10
    max_joint_speed: float = math.inf
    posture_weight: float = 0.0

    def __post_init__(self) -> None:
        for name in ("damping", "lm_damping", "tolerance", "posture_weight"):
            v: Any = getattr(self, name)
            if isinstance(v, bool) or not (isinstance(v, numbers.Real) and math.isfinite(v) and v >= 0):  # type: ignore[operator]
                raise ConfigError(f"{name} must be a finite number >= 0, got {v}")
        n: Any = self.max_extra_iterations
        if isinstance(n, bool) or not (isinstance(n, numbers.Integral) and 0 <= n <= 1000):  # type: ignore[operator]
            raise ConfigError(
                f"max_extra_iterations must be a whole number in [0, 1000], got {self.max_extra_iterations}"
            )
        if not self.max_joint_speed > 0:
            raise ConfigError(f"max_joint_speed must be positive (inf: no limit), got {self.max_joint_speed}")

    def max_joint_step(self, fps: float) -> float:
        """The largest change of a joint between two frames at ``fps`` [rad]."""
        return self.max_joint_speed / fps


@dataclass(frozen=True)
class StageTasks:
    """The frame tasks of one IK stage.

    Attributes:
        bodies: MuJoCo body index of each task. Shape: (K,).
        position_weights: cost on each task's position error [1/m]. Shape: (K,).
        rotation_weights: cost on each task's orientation error [1/rad]. Shape: (K,).
    """

    bodies: np.ndarray
    position_weights: np.ndarray
    rotation_weights: np.ndarray

    def __post_init__(self) -> None:
        k = self.bodies.shape[0]
        if self.position_weights.shape != (k,) or self.rotation_weights.shape != (k,):
            raise ConfigError("StageTasks: bodies, position_weights and rotation_weights need one entry per task")
        if (self.position_weights < 0).any() or (self.rotation_weights < 0).any():
            raise ConfigError("StageTasks: task weights must be >= 0")

    @classmethod
    def of(cls, tasks: Iterable[tuple[int, float, float]]) -> StageTasks:
        """From (body index, position weight, rotation weight) per task."""
        rows = list(tasks)
        return cls(
            np.array([int(b) for b, _, _ in rows], dtype=np.int64),
            np.array([float(p) for _, p, _ in rows]),
            np.array([float(r) for _, _, r in rows]),
        )

    def __len__(self) -> int:
        return int(self.bodies.shape[0])
