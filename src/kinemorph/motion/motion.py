"""Motion: a skeleton animated over time, in world Z-up metres."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import KinemorphError, UnknownNameError
from ..transforms import quat_mul, quat_rotate
from .skeleton import Skeleton

if TYPE_CHECKING:
    from .rig.report import RigReport

FAMILIES = ("humanoid", "quadruped", "other")


def forward_kinematics(
    skeleton: Skeleton, local_rot: np.ndarray, local_pos: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Global joint positions (T, J, 3) and rotations (T, J, 4) from local transforms.

    Vectorised over frames: one pass over the joints, each a few array operations on (T, ...).
    local_rot: (T, J, 4) wxyz; local_pos: (T, J, 3), the translation of each joint in its parent's frame.
    """
    t, j = local_rot.shape[:2]
    gpos = np.empty((t, j, 3))
    grot = np.empty((t, j, 4))
    gpos[:, 0] = local_pos[:, 0]
    grot[:, 0] = local_rot[:, 0]
    for i in range(1, j):
        p = skeleton.parents[i]
        gpos[:, i] = gpos[:, p] + quat_rotate(grot[:, p], local_pos[:, i])
        grot[:, i] = quat_mul(grot[:, p], local_rot[:, i])
    return gpos, grot


@dataclass(frozen=True)
class Motion:
    """A motion clip in the library's convention: world Z-up, metres, seconds, wxyz quaternions.

    Attributes:
        skeleton: joint tree, offsets in metres in the Z-up convention.
        fps: frames per second [1/s].
        local_rotations: joint rotations in the parent's frame. Shape: (T, J, 4).
        local_positions: joint translations in the parent's frame [m]. Shape: (T, J, 3).
        body_names: names of the bodies: the skeleton's joints, then any virtual bodies of the preset.
        positions: global body positions [m]. Shape: (T, B, 3).
        rotations: global body orientations. Shape: (T, B, 4).
        family: "humanoid", "quadruped" or "other": which robots the clip suits.
        source: where it came from (a path, or a description), for messages.
        preset: the preset that produced it.
        legs: quadrupeds: (leg root, paw) body per leg in the order FL, FR, RL, RR (empty otherwise).
        landmarks: humanoids: the body per name of kinemorph.conventions.LANDMARKS (empty otherwise).
        virtual: the extra bodies after the joints: name -> (joint giving the position, joint giving
            the orientation) or (..., offset in the position joint's frame [m]).
        rig: what rig recognition found (landmarks, unit, up axis), None when not run.
    """

    skeleton: Skeleton
    fps: float
    local_rotations: np.ndarray
    local_positions: np.ndarray
    body_names: tuple[str, ...]
    positions: np.ndarray
    rotations: np.ndarray
    family: str = "other"
    source: str = "<memory>"
    preset: str = "generic"
    meta: dict[str, float] = field(default_factory=dict)
    legs: tuple[tuple[str, str], ...] = ()
    landmarks: tuple[str, ...] = ()
    virtual: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    rig: RigReport | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        t = self.local_rotations.shape[0]
        j = self.skeleton.num_joints
        b = len(self.body_names)
        if t == 0:
            raise KinemorphError(f"{self.source}: the motion has no frames")
        if not np.isfinite(self.fps) or self.fps <= 0:
            raise KinemorphError(f"{self.source}: fps must be positive, got {self.fps}")
        expect = {
            "local_rotations": (t, j, 4),
            "local_positions": (t, j, 3),
            "positions": (t, b, 3),
            "rotations": (t, b, 4),
        }
        for name, shape in expect.items():
            got = getattr(self, name).shape
            if got != shape:
                raise KinemorphError(f"{self.source}: {name} has shape {got}, expected {shape}")
        if self.family not in FAMILIES:
            raise KinemorphError(f"family must be one of {', '.join(FAMILIES)}, got {self.family!r}")
        if not (np.isfinite(self.positions).all() and np.isfinite(self.rotations).all()):
            raise KinemorphError(f"{self.source}: the motion has non-finite poses")
        if self.legs and len(self.legs) != 4:
            raise KinemorphError(f"{self.source}: legs must name 4 (root, paw) pairs (FL, FR, RL, RR)")
        for root, paw in self.legs:
            self.index(root)
            self.index(paw)
        for name in self.landmarks:
            self.index(name)

    @classmethod
    def from_local(
        cls,
        skeleton: Skeleton,
        fps: float,
        local_rotations: np.ndarray,
        local_positions: np.ndarray,
        *,
        virtual: dict[str, tuple[Any, ...]] | None = None,
        family: str = "other",
        source: str = "<memory>",
        preset: str = "generic",
        legs: tuple[tuple[str, str], ...] = (),
        landmarks: tuple[str, ...] = (),
        rig: RigReport | None = None,
    ) -> Motion:
        """Build a motion by forward kinematics.

        virtual: extra bodies, name -> (joint giving the position, joint giving the orientation),
        e.g. LAFAN1's LeftFootMod = (LeftFoot, LeftToe), optionally with a third item, an offset
        (3,) [m] in the position joint's frame (e.g. an End Site used as a paw).
        """
        gpos, grot = forward_kinematics(skeleton, local_rotations, local_positions)
        return cls.from_global(
            skeleton, fps, local_rotations, local_positions, gpos, grot, virtual=virtual, family=family,
            source=source, preset=preset, legs=legs, landmarks=landmarks, rig=rig,
        )  # fmt: skip

    @classmethod
    def from_global(
        cls,
        skeleton: Skeleton,
        fps: float,
        local_rotations: np.ndarray,
        local_positions: np.ndarray,
        gpos: np.ndarray,
        grot: np.ndarray,
        *,
        virtual: dict[str, tuple[Any, ...]] | None = None,
        family: str = "other",
        source: str = "<memory>",
        preset: str = "generic",
        legs: tuple[tuple[str, str], ...] = (),
        landmarks: tuple[str, ...] = (),
        rig: RigReport | None = None,
    ) -> Motion:
        """A motion from local transforms and the global joint poses they give (T, J, 3) and
        (T, J, 4) (forward_kinematics' output, when the caller has it already); see from_local."""
        names = list(skeleton.names)
        if virtual:
            extra_p = []
            for spec in virtual.values():
                p = gpos[:, skeleton.index(spec[0])]
                if len(spec) > 2 and np.any(spec[2]):
                    p = p + quat_rotate(grot[:, skeleton.index(spec[0])], np.asarray(spec[2], float))
                extra_p.append(p)
            extra_r = [grot[:, skeleton.index(spec[1])] for spec in virtual.values()]
            gpos = np.concatenate([gpos, np.stack(extra_p, axis=1)], axis=1)
            grot = np.concatenate([grot, np.stack(extra_r, axis=1)], axis=1)
            names += list(virtual)
        return cls(
            skeleton=skeleton,
            fps=float(fps),
            local_rotations=local_rotations,
            local_positions=local_positions,
            body_names=tuple(names),
            positions=gpos,
            rotations=grot,
            family=family,
            source=source,
            preset=preset,
            legs=legs,
            landmarks=landmarks,
            virtual=dict(virtual or {}),
            rig=rig,
        )

    @property
    def num_frames(self) -> int:
        return int(self.positions.shape[0])

    @property
    def duration(self) -> float:
        """Length [s] from the first to past the last frame."""
        return self.num_frames / self.fps

    def index(self, name: str) -> int:
        """Index of a body by name; raises UnknownNameError listing the bodies."""
        try:
            return self.body_names.index(name)
        except ValueError:
            raise UnknownNameError("body", name, self.body_names, where=self.source) from None

    def body(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Global position (T, 3) [m] and orientation (T, 4) of a body."""
        i = self.index(name)
        return self.positions[:, i], self.rotations[:, i]

    def stature(self) -> float:
        """Stature estimate [m]: over frames, the median height of the joint that is highest on
        median (the head, for people) above the lowest joint. Arms raised in some frames do not
        change it; used as the source's height for scaling."""
        z = self.positions[:, : self.skeleton.num_joints, 2]
        top = int(np.argmax(np.median(z, axis=0)))
        return float(np.median(z[:, top] - z.min(axis=1)))

    def slice(self, start: int = 0, stop: int | None = None) -> Motion:
        """Frames [start, stop) as a new motion."""
        sl = np.s_[start:stop]
        return replace(
            self,
            local_rotations=self.local_rotations[sl],
            local_positions=self.local_positions[sl],
            positions=self.positions[sl],
            rotations=self.rotations[sl],
        )
