"""The joint tree with sample poses: what both recognition layers read.

Positions are in the file's own axes and units, on a few frames spread over the clip (enough to
see where the feet return to and how joints bend, cheap on long clips).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...transforms import quat_rotate
from ..motion import forward_kinematics
from ..skeleton import Skeleton

SAMPLE_FRAMES = 48


@dataclass(frozen=True)
class PosedTree:
    """A skeleton and its global joint positions on sample frames, in file axes and units.

    Attributes:
        skeleton: the joint tree.
        positions: joint positions. Shape: (K, J, 3).
        rotations: joint orientations, wxyz. Shape: (K, J, 4).
        local_rotations: joint rotations in the parent frame, wxyz. Shape: (K, J, 4).
        lengths: per joint, the median length of its offset from the parent. Shape: (J,).
        tips: per End Site, its position. Shape: (K, E, 3).
    """

    skeleton: Skeleton
    positions: np.ndarray
    rotations: np.ndarray
    local_rotations: np.ndarray
    lengths: np.ndarray
    tips: np.ndarray

    @classmethod
    def sample(
        cls,
        skeleton: Skeleton,
        local_rot: np.ndarray,
        local_pos: np.ndarray,
        gpos: np.ndarray | None = None,
        grot: np.ndarray | None = None,
    ) -> PosedTree:
        """Sample frames of raw transforms (T, J, 4) and (T, J, 3); ``gpos``/``grot``: their
        global poses when already computed (forward kinematics is then not run again)."""
        t = local_rot.shape[0]
        idx = np.unique(np.linspace(0, t - 1, min(t, SAMPLE_FRAMES)).round().astype(int))
        lr, lp = local_rot[idx], local_pos[idx]
        if gpos is None or grot is None:
            gpos, grot = forward_kinematics(skeleton, lr, lp)
        else:
            gpos, grot = gpos[idx], grot[idx]
        lengths = np.median(np.linalg.norm(lp, axis=-1), axis=0)
        lengths[0] = 0.0
        if skeleton.end_sites:
            par = np.array([e.parent for e in skeleton.end_sites])
            off = np.array([e.offset for e in skeleton.end_sites])
            tips = gpos[:, par] + quat_rotate(grot[:, par], np.broadcast_to(off, (len(idx), *off.shape)))
        else:
            tips = np.zeros((len(idx), 0, 3))
        return cls(skeleton, gpos, grot, lr, lengths, tips)

    # -- tree queries ----------------------------------------------------------------------------
    @property
    def parents(self) -> np.ndarray:
        return self.skeleton.parents

    def ancestors(self, j: int) -> list[int]:
        """Ancestors of j, nearest first."""
        out = []
        p = int(self.parents[j])
        while p >= 0:
            out.append(p)
            p = int(self.parents[p])
        return out

    def is_ancestor(self, a: int, j: int) -> bool:
        return a in self.ancestors(j)

    def descendants(self, j: int) -> list[int]:
        """Descendants of j in breadth-first order (nearest first)."""
        out, queue = [], self.skeleton.children(j)
        while queue:
            c = queue.pop(0)
            out.append(c)
            queue.extend(self.skeleton.children(c))
        return out

    def lca(self, joints: list[int]) -> int:
        """Lowest common ancestor (a joint counts as its own ancestor)."""
        common = None
        for j in joints:
            chain = [j, *self.ancestors(j)]
            common = chain if common is None else [a for a in chain if a in common]
        assert common
        return common[0]

    def path(self, a: int, b: int) -> list[int]:
        """Joints from ancestor a down to b, both included."""
        out = [b]
        while out[-1] != a:
            out.append(int(self.parents[out[-1]]))
        return out[::-1]

    def reach(self) -> np.ndarray:
        """Per joint, the longest path length from it down to a leaf or End Site. Shape: (J,)."""
        sk = self.skeleton
        r = np.zeros(sk.num_joints)
        tip_len = np.zeros(sk.num_joints)
        for site in sk.end_sites:
            tip_len[site.parent] = max(tip_len[site.parent], float(np.linalg.norm(site.offset)))
        for j in range(sk.num_joints - 1, -1, -1):
            r[j] = max(r[j], tip_len[j])
            p = sk.parents[j]
            if p >= 0:
                r[p] = max(r[p], r[j] + self.lengths[j])
        return r

    def tips_of(self, joints: list[int]) -> list[int]:
        """End Sites whose parent is one of the joints."""
        s = set(joints)
        return [e for e, site in enumerate(self.skeleton.end_sites) if site.parent in s]
