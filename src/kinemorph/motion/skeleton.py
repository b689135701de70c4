"""Skeleton: the joint tree of a motion source."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import KinemorphError, UnknownNameError

ROTATION_CHANNELS = ("Xrotation", "Yrotation", "Zrotation")
POSITION_CHANNELS = ("Xposition", "Yposition", "Zposition")
VALID_CHANNELS = ROTATION_CHANNELS + POSITION_CHANNELS


@dataclass(frozen=True)
class EndSite:
    """A BVH End Site: a leaf point with an offset from its parent joint."""

    parent: int
    offset: np.ndarray  # Shape: (3,) [m]


@dataclass(frozen=True)
class Skeleton:
    """A joint tree in topological order (every parent comes before its children).

    Attributes:
        names: joint names. Shape: (J,).
        parents: parent index of each joint, -1 for the root. Shape: (J,).
        offsets: rest offset of each joint in its parent's frame [m]. Shape: (J, 3).
        channels: per joint, the channel names in file order (e.g. ("Zrotation", "Yrotation", "Xrotation")).
        end_sites: End Sites (kept so that a written file has them again).
    """

    names: tuple[str, ...]
    parents: np.ndarray
    offsets: np.ndarray
    channels: tuple[tuple[str, ...], ...]
    end_sites: tuple[EndSite, ...] = field(default=())

    def __post_init__(self) -> None:
        n = len(self.names)
        if n == 0:
            raise KinemorphError("a skeleton needs at least one joint")
        if self.parents.shape != (n,) or self.offsets.shape != (n, 3) or len(self.channels) != n:
            raise KinemorphError(
                f"skeleton arrays disagree: {n} names, parents {self.parents.shape}, "
                f"offsets {self.offsets.shape}, {len(self.channels)} channel lists"
            )
        if self.parents[0] != -1 or np.any(self.parents[1:] >= np.arange(1, n)) or np.any(self.parents[1:] < 0):
            raise KinemorphError("skeleton joints must be in topological order with a single root at index 0")
        if len(set(self.names)) != n:
            dup = sorted({x for x in self.names if self.names.count(x) > 1})
            raise KinemorphError(f"duplicate joint names in skeleton: {', '.join(dup)}")

    @property
    def num_joints(self) -> int:
        return len(self.names)

    @property
    def num_channels(self) -> int:
        return sum(len(c) for c in self.channels)

    def index(self, name: str) -> int:
        """Index of a joint by name; raises UnknownNameError listing the joints."""
        try:
            return self.names.index(name)
        except ValueError:
            raise UnknownNameError("joint", name, self.names) from None

    def children(self, j: int) -> list[int]:
        return [int(i) for i in np.nonzero(self.parents == j)[0]]

    def rotation_order(self, j: int) -> str:
        """Axis order of a joint's rotation channels, e.g. "zyx" ("" when it has none)."""
        return "".join(c[0].lower() for c in self.channels[j] if c in ROTATION_CHANNELS)

    def has_position(self, j: int) -> bool:
        return any(c in POSITION_CHANNELS for c in self.channels[j])
