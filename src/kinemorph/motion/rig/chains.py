"""Both recognition layers: limb chains from joint names, else from the tree's shape.

Each returns a :class:`Chains`: per limb its joints (legs: hip, knee, ankle, toe; arms: clavicle,
shoulder, elbow, wrist; toe and clavicle may be missing), side known or not, and what was missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .names import NamePart, central_rank, common_prefix, parse_name, sided_rank
from .tree import PosedTree

LEG = ("hip", "knee", "ankle", "toe")
ARM = ("clavicle", "shoulder", "elbow", "wrist")


@dataclass
class Chains:
    """Limb chains found in a tree.

    Attributes:
        legs, arms: per limb, part -> joint index (None when missing); two each when found.
        sided: whether legs[0]/arms[0] are known to be the left ones (names say so).
        head: head joint, or None.
        method: "names", "structure" or "given" (a landmark table the user wrote).
        missing: what could not be found, for messages.
        limb_count: structure only: how many paired limb chains the tree has.
        pelvis, chest: given tables only (else the common ancestors of the hips and shoulders).
    """

    legs: list[dict[str, int | None]] = field(default_factory=list)
    arms: list[dict[str, int | None]] = field(default_factory=list)
    sided: bool = False
    head: int | None = None
    method: str = "names"
    missing: list[str] = field(default_factory=list)
    limb_count: int = 0
    pelvis: int | None = None
    chest: int | None = None

    @property
    def complete(self) -> bool:
        return len(self.legs) == 2 and len(self.arms) == 2 and not self.missing


# -- names -------------------------------------------------------------------------------------------
def _nearest(tree: PosedTree, joints: list[int], parts: list[NamePart], side: str, landmark: str) -> int | None:
    for j in joints:
        if parts[j].side == side and sided_rank(parts[j], landmark) is not None:
            return j
    return None


def _best(tree: PosedTree, parts: list[NamePart], side: str, landmark: str, below: str, above: str) -> int | None:
    """The joint named as ``landmark`` on ``side`` that has a ``below`` descendant and an ``above``
    ancestor if any does, best-ranked name first, then shallowest."""
    cands = []
    for j, p in enumerate(parts):
        r = sided_rank(p, landmark) if p.side == side else None
        if r is None:
            continue
        has_below = _nearest(tree, tree.descendants(j), parts, side, below) is not None
        has_above = _nearest(tree, tree.ancestors(j), parts, side, above) is not None
        cands.append((-(has_below + has_above), r, len(tree.ancestors(j)), j))
    return min(cands)[3] if cands else None


def by_names(tree: PosedTree) -> Chains:
    names = tree.skeleton.names
    prefix = common_prefix(names)
    parts = [parse_name(n, prefix) for n in names]
    out = Chains(sided=True, method="names")
    for side, word in (("l", "left"), ("r", "right")):
        knee = _best(tree, parts, side, "knee", "ankle", "hip")
        leg: dict[str, int | None] = dict.fromkeys(LEG)
        if knee is not None:
            leg["knee"] = knee
            leg["hip"] = _nearest(tree, tree.ancestors(knee), parts, side, "hip")
            ankle = _nearest(tree, tree.descendants(knee), parts, side, "ankle")
            leg["ankle"] = ankle
            if ankle is not None:
                below = tree.descendants(ankle)
                toe = _nearest(tree, below, parts, side, "toe")
                if parts[ankle].part == "ankle":  # SMPL-style: "foot" is the ball of the foot
                    toe = next((c for c in below if parts[c].side == side and parts[c].part == "foot"), toe)
                leg["toe"] = toe
        elbow = _best(tree, parts, side, "elbow", "wrist", "shoulder")
        arm: dict[str, int | None] = dict.fromkeys(ARM)
        if elbow is not None:
            arm["elbow"] = elbow
            arm["wrist"] = _nearest(tree, tree.descendants(elbow), parts, side, "wrist")
            sh = _nearest(tree, tree.ancestors(elbow), parts, side, "shoulder")
            arm["shoulder"] = sh
            if sh is not None:
                arm["clavicle"] = _nearest(tree, tree.ancestors(sh), parts, side, "clavicle")
        for _limb_kind, chain, need in (
            ("leg", leg, ("hip", "knee", "ankle")),
            ("arm", arm, ("shoulder", "elbow", "wrist")),
        ):
            for k in need:
                if chain[k] is None:
                    out.missing.append(f"{word} {k}")
            if all(chain[k] is not None for k in need) and not _proportioned(tree, *(chain[k] for k in need)):
                out.missing.append(f"{word} {need[1]} between {need[0]} and {need[2]} (names found, geometry not)")
        out.legs.append(leg)
        out.arms.append(arm)
    cands = [(central_rank(p, "head"), len(tree.ancestors(j)), j) for j, p in enumerate(parts)]
    heads = sorted(c for c in cands if c[0] is not None)
    out.head = heads[0][2] if heads else None
    return out


def _proportioned(tree: PosedTree, a: int | None, b: int | None, c: int | None) -> bool:
    """Whether b splits the limb a-b-c into two real segments (each over a quarter of the limb):
    a name that points at a twist bone or at the wrong joint fails this."""
    assert a is not None and b is not None and c is not None
    p = tree.positions
    u = float(np.median(np.linalg.norm(p[:, b] - p[:, a], axis=-1)))
    v = float(np.median(np.linalg.norm(p[:, c] - p[:, b], axis=-1)))
    return min(u, v) > 0.25 * (u + v)


def from_table(tree: PosedTree, table: dict[str, str], *, where: str) -> Chains:
    """Chains from a landmark table the user wrote ({"hip_l": "MyThighL", ...}); every name of
    kinemorph.motion.rig.HUMANOID_LANDMARKS may appear, hip, knee, ankle, shoulder, elbow and wrist
    of both sides must. UnknownNameError/ConfigError name the table and the valid choices."""
    from ...errors import ConfigError, UnknownNameError
    from .report import HUMANOID_LANDMARKS

    names = tree.skeleton.names
    bad = sorted(set(table) - set(HUMANOID_LANDMARKS))
    if bad:
        raise UnknownNameError("landmark", bad[0], HUMANOID_LANDMARKS, where=where)
    for mark, joint in table.items():
        if joint not in names:
            raise UnknownNameError(f"joint (for landmark {mark})", joint, names, where=where)
    need = [f"{k}_{s}" for s in "lr" for k in ("hip", "knee", "ankle", "shoulder", "elbow", "wrist")]
    missing = [k for k in need if k not in table]
    if missing:
        raise ConfigError(f"{where}: the landmark table needs {', '.join(missing)}")
    idx = {k: names.index(v) for k, v in table.items()}
    out = Chains(sided=True, method="given", head=idx.get("head"), pelvis=idx.get("pelvis"), chest=idx.get("chest"))
    for s in "lr":
        out.legs.append({k: idx.get(f"{k}_{s}") for k in LEG})
        out.arms.append({k: idx.get(f"{k}_{s}") for k in ARM})
    return out


# -- structure ---------------------------------------------------------------------------------------
def _chain(tree: PosedTree, start: int, reach: np.ndarray) -> list[int]:
    """From start down, following the child with the longest reach."""
    out = [start]
    while True:
        kids = tree.skeleton.children(out[-1])
        if not kids:
            return out
        out.append(max(kids, key=lambda c: reach[c] + tree.lengths[c]))


def _bends(tree: PosedTree, a: int, b: int, c: int) -> bool:
    """Whether the angle at b between a->b and b->c exceeds 3 deg on some sample frame."""
    u = tree.positions[:, b] - tree.positions[:, a]
    v = tree.positions[:, c] - tree.positions[:, b]
    cos = np.sum(u * v, axis=-1) / (np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1) + 1e-12)
    return bool(np.any(cos < np.cos(np.radians(3.0))))


def _key_joints(tree: PosedTree, base: int, chain: list[int], size: float) -> list[int]:
    """Joints of a limb chain where it can bend: zero-length and never-bending joints dropped."""
    pts = [base] + [j for j in chain if tree.lengths[j] > 0.01 * size]
    i = 1
    while i < len(pts) - 1:
        if not _bends(tree, pts[i - 1], pts[i], pts[i + 1]):
            pts.pop(i)
        else:
            i += 1
    return pts


def _limb(tree: PosedTree, base: int, chain: list[int], size: float, kind: str) -> dict[str, int | None]:
    """Limb parts: the two longest consecutive segments are thigh and shank (upper arm and forearm)."""
    pts = _key_joints(tree, base, chain, size)
    names = LEG if kind == "leg" else ARM
    out: dict[str, int | None] = dict.fromkeys(names)
    if len(pts) < 3:
        return out
    seg = [float(np.median(np.linalg.norm(tree.positions[:, pts[i + 1]] - tree.positions[:, pts[i]], axis=-1)))
           for i in range(len(pts) - 1)]  # fmt: skip
    sums = np.array([seg[k] + seg[k + 1] for k in range(len(seg) - 1)])
    # the most distal pair within 15% of the longest: a clavicle as long as the forearm (CMU) must
    # not pass for the upper arm
    i = int(np.nonzero(sums >= 0.85 * sums.max())[0][-1])
    top, mid, end = pts[i], pts[i + 1], pts[i + 2]
    after = pts[i + 3] if i + 3 < len(pts) else None
    before = pts[i - 1] if i >= 1 and pts[i - 1] != base else None
    if kind == "leg":
        out.update(hip=top, knee=mid, ankle=end, toe=after)
    else:
        out.update(clavicle=before, shoulder=top, elbow=mid, wrist=end)
    return out


@dataclass(frozen=True)
class _Pair:
    base: int  # the joint both branches leave from
    branches: tuple[int, int]
    reach: float


def _pairs(tree: PosedTree, reach: np.ndarray, size: float) -> tuple[list[_Pair], int]:
    """Mirror pairs of long terminal branches (limbs), and how many such limb branches there are."""
    sk = tree.skeleton
    pairs: list[_Pair] = []
    count = 0
    n_sub = np.ones(sk.num_joints, dtype=int)  # joints in each subtree
    for j in range(sk.num_joints - 1, 0, -1):
        n_sub[sk.parents[j]] += n_sub[j]
    for j in range(sk.num_joints):
        kids = sk.children(j)
        if len(kids) < 2:
            continue
        r = {c: reach[c] + tree.lengths[c] for c in kids}
        long = [c for c in kids if r[c] > 0.2 * size]
        # mirror candidates: similar reach and a similar number of joints (a spine carrying the arms
        # can reach as far as a leg, but it holds many more joints)
        cands = []
        for i, a in enumerate(long):
            for b in long[i + 1 :]:
                dr = abs(r[a] - r[b]) / max(r[a], r[b])
                dn = abs(int(n_sub[a]) - int(n_sub[b]))
                if dr < 0.12 and dn <= max(2, 0.2 * max(n_sub[a], n_sub[b])):
                    cands.append((dr + 0.05 * dn, a, b))
        used: set[int] = set()
        for _, a, b in sorted(cands):
            if a not in used and b not in used:
                used |= {a, b}
                pairs.append(_Pair(j, (a, b), 0.5 * (r[a] + r[b])))
        count += len(used)
    return pairs, count


def _unpaired_limbs(tree: PosedTree, reach: np.ndarray, limbs: list[_Pair]) -> int:
    """Branches left out of the limb pairs that are copies of a limb (same reach and joint count
    within the pairing tolerances): the fifth leg of a five-legged rig."""
    sk = tree.skeleton
    n_sub = np.ones(sk.num_joints, dtype=int)
    for j in range(sk.num_joints - 1, 0, -1):
        n_sub[sk.parents[j]] += n_sub[j]
    paired = {b for p in limbs for b in p.branches}
    ref = [(reach[b] + tree.lengths[b], int(n_sub[b])) for b in paired]
    extra = 0
    for p in {p.base for p in limbs}:
        for c in sk.children(p):
            if c in paired:
                continue
            r, n = reach[c] + tree.lengths[c], int(n_sub[c])
            if any(abs(r - r0) / max(r, r0) < 0.12 and abs(n - n0) <= max(2, 0.2 * max(n, n0)) for r0, n0 in ref):
                extra += 1
    return extra


def by_structure(tree: PosedTree) -> Chains:
    """Two leg and two arm chains from the tree's topology and rest geometry (names not used).

    Limbs are mirror pairs of long branches leaving one joint; of the two pairs with the longest
    reach that do not contain each other, the legs are the pair whose ends lie farther from the
    head (the longest other branch at the arms' base)."""
    reach = tree.reach()
    size = float(reach[0]) + 1e-9
    # the tree's size: the longest path between two leaves passes through some joint
    sk = tree.skeleton
    for j in range(sk.num_joints):
        rr = sorted((reach[c] + tree.lengths[c] for c in sk.children(j)), reverse=True)
        if len(rr) >= 2:
            size = max(size, rr[0] + rr[1])
    pairs, _ = _pairs(tree, reach, size)
    out = Chains(method="structure")
    # limbs proper: pairs whose branches contain no other pair
    inner = {p.base for p in pairs}
    limbs = [p for p in pairs if not any(q in tree.descendants(b) or q == b for b in p.branches for q in inner)]
    big = max((p.reach for p in limbs), default=0.0)
    limbs = [p for p in limbs if p.reach > 0.45 * big]
    out.limb_count = 2 * len(limbs) + _unpaired_limbs(tree, reach, limbs)
    if len(limbs) != 2 or out.limb_count != 4:
        out.missing.append(f"two leg and two arm chains (found {out.limb_count} limb chains)")
        return out
    best = None
    for legs, arms in ((limbs[0], limbs[1]), (limbs[1], limbs[0])):
        others = [c for c in sk.children(arms.base) if c not in arms.branches and legs.base not in tree.descendants(c)]
        head_chain = _chain(tree, max(others, key=lambda c: reach[c]), reach) if others else []
        head = _head_of(tree, head_chain) if head_chain else None
        if head is None:
            score = -np.inf
        else:
            hp = tree.positions[:, head]
            d_leg = np.median(
                np.linalg.norm(tree.positions[:, _chain(tree, legs.branches[0], reach)[-1]] - hp, axis=-1)
            )
            d_arm = np.median(
                np.linalg.norm(tree.positions[:, _chain(tree, arms.branches[0], reach)[-1]] - hp, axis=-1)
            )
            score = float(d_leg - d_arm)
        if best is None or score > best[0]:
            best = (score, legs, arms, head)
    assert best is not None
    _, legs, arms, head = best
    out.head = head
    for b in legs.branches:
        out.legs.append(_limb(tree, legs.base, _chain(tree, b, reach), size, "leg"))
    for b in arms.branches:
        out.arms.append(_limb(tree, arms.base, _chain(tree, b, reach), size, "arm"))
    for limb, need in ((out.legs, ("hip", "knee", "ankle")), (out.arms, ("shoulder", "elbow", "wrist"))):
        for chain in limb:
            out.missing += [k for k in need if chain[k] is None]
    return out


def _head_of(tree: PosedTree, chain: list[int]) -> int:
    """The head on a neck chain: the first joint that fans out (face bones), else the chain's end."""
    for j in chain:
        if len(tree.skeleton.children(j)) >= 3:
            return j
    return chain[-1]
