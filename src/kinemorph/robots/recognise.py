"""Robot recognition: the floating base, legs, arms, torso and head of any MJCF/URDF model.

Topology and geometry at the model's rest configuration decide; names are only hints:

1. Feet are the leaf bodies whose collision geometry reaches (nearly) the lowest point of the
   model; leaves whose common ancestor lies low in the leg (toe and heel links) are one foot.
   Two feet make a humanoid, four a quadruped.
2. Each leg is the chain from the legs' common ancestor (pelvis or trunk) down to its foot. The
   knee is the joint that splits the chain into two parts of most similar length (thigh and
   shank; a name saying "knee" or "calf" helps); the hip is the body before it, the foot the
   last body near the ankle.
3. Arms are the two longest chains (by link length) ending on either side above the legs; the
   torso is where they meet, the elbow splits each arm as the knee splits a leg; a chain in the
   middle, above the shoulders, is the head.
4. Sides: the robot faces +x, so left is +y; quadrupeds' front legs are those ahead along x.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

__all__ = ["ArmChain", "LegChain", "QuadLeg", "Recognition", "RecognitionError", "recognise_model"]

import mujoco
import numpy as np

from ..errors import KinemorphError
from .parts import ArmChain, LegChain, QuadLeg
from .rest_pose import RestPose, initial_pose

FOOT_BAND = 0.12  # share of the model's height above its lowest point within which leaves are feet


class RecognitionError(KinemorphError):
    """A robot model whose legs (or sides) cannot be recognised."""


@dataclass(frozen=True)
class Recognition:
    """What recognition found in a robot model.

    Attributes:
        family: "humanoid" or "quadruped".
        root: the floating-base body.
        floating_base: whether the model had its own free joint (else one was added).
        pelvis: the bodies' junction of the legs (humanoids: the hips; quadrupeds: the trunk).
        legs: humanoid legs, left then right.
        arms: humanoid arms, left then right (empty for a robot without arms).
        torso: where the arms meet ("" without arms).
        waist: the bodies from the pelvis up to the torso (exclusive).
        head: the head chain ("" parts: none).
        neck_offset: the neck point in the torso's frame [m]. Shape: (3,).
        trunk_sides: a robot without arms: the top corners of its trunk's collision geometry,
            left then right, in the torso's frame (the torso is then the pelvis), which stand in
            for its shoulders, elbows and wrists among the landmarks [m]. Shape: (2, 3).
        quad_legs: quadruped legs in the order FL, FR, RL, RR.
        rest: the rest pose (a keyframe, else a standing pose from joint limits and the floor).
        height: the model's height at rest [m].
        warnings: what the user should check.
    """

    family: str
    root: str
    floating_base: bool
    pelvis: str
    legs: tuple[LegChain, ...] = ()
    arms: tuple[ArmChain, ...] = ()
    torso: str = ""
    waist: tuple[str, ...] = ()
    head: tuple[str, ...] = ()
    neck_offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    trunk_sides: tuple[tuple[float, float, float], ...] = ()
    quad_legs: tuple[QuadLeg, ...] = ()
    rest: RestPose | None = None
    height: float = 0.0
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def feet(self) -> tuple[str, ...]:
        """Foot bodies (humanoids: left, right) or calves (quadrupeds, before foot bodies exist)."""
        if self.family == "quadruped":
            return tuple(q.foot or q.calf for q in self.quad_legs)
        return tuple(leg.foot for leg in self.legs)


class _Tree:
    """Body tree and world geometry of a model at one configuration."""

    def __init__(self, model: mujoco.MjModel, qpos: np.ndarray) -> None:
        self.m = model
        d = mujoco.MjData(model)
        d.qpos[:] = qpos
        mujoco.mj_kinematics(model, d)
        self.d = d
        self.pos = d.xpos.copy()
        self.parent = model.body_parentid.copy()
        self.children: list[list[int]] = [[] for _ in range(model.nbody)]
        for b in range(1, model.nbody):
            self.children[int(self.parent[b])].append(b)
        self.names = [model.body(b).name or f"body{b}" for b in range(model.nbody)]
        coll = (model.geom_contype != 0) | (model.geom_conaffinity != 0)
        self.geoms: list[list[int]] = [[] for _ in range(model.nbody)]
        for g in range(model.ngeom):
            if coll[g] and model.geom_type[g] != mujoco.mjtGeom.mjGEOM_PLANE:
                self.geoms[int(model.geom_bodyid[g])].append(g)
        self.low = np.array([self._lowest(b) for b in range(model.nbody)])
        self.joints = [int(model.body_jntnum[b]) for b in range(model.nbody)]

    def _lowest(self, b: int) -> float:
        from .geometry import _lowest_z

        gs = np.array(self.geoms[b], dtype=np.int64)
        if not len(gs):
            return float(self.pos[b, 2])
        z = _lowest_z(self.m, gs, self.d.geom_xpos[gs, 2][None], self.d.geom_xmat[gs, 6:9][None])
        return float(z.min())

    def front(self, geoms: list[int]) -> float:
        """The largest world x [m] reached by the geoms (the sole's front at rest)."""
        from .geometry import _lowest_z

        gs = np.array(geoms, dtype=np.int64)
        z = _lowest_z(self.m, gs, -self.d.geom_xpos[gs, 0][None], -self.d.geom_xmat[gs, 0:3][None])
        return float(-z.min())

    def path(self, top: int, b: int) -> list[int]:
        """Bodies from below ``top`` down to ``b`` (inclusive)."""
        out = []
        while b != top and b > 0:
            out.append(b)
            b = int(self.parent[b])
        return out[::-1]

    def ancestors(self, b: int) -> list[int]:
        out = [b]
        while b > 0:
            b = int(self.parent[b])
            out.append(b)
        return out

    def lca(self, bodies: list[int]) -> int:
        common = self.ancestors(bodies[0])
        for b in bodies[1:]:
            anc = set(self.ancestors(b))
            common = [a for a in common if a in anc]
        return common[0]

    def subtree(self, b: int) -> list[int]:
        out, stack = [], [b]
        while stack:
            c = stack.pop()
            out.append(c)
            stack.extend(self.children[c])
        return out

    def distal(self, b: int) -> np.ndarray:
        """The farthest collision-geom centre of a body from its origin; a body without collision
        geometry (a model loaded without its meshes): the point twice as far as its centre of mass
        (a link's mass sits about halfway along it), else its origin."""
        gs = self.geoms[b]
        if not gs:
            massless = self.m.body_mass[b] < 1e-9  # (a frame: nothing to say where it points)
            return self.pos[b].copy() if massless else self.pos[b] + 2.0 * (self.d.xipos[b] - self.pos[b])
        c = self.d.geom_xpos[gs]
        return c[int(np.argmax(np.linalg.norm(c - self.pos[b], axis=1)))].copy()

    def local(self, b: int, world: np.ndarray) -> tuple[float, float, float]:
        """A world point in body b's frame."""
        r = self.d.xmat[b].reshape(3, 3)
        v = r.T @ (world - self.pos[b])
        return (round(float(v[0]), 4), round(float(v[1]), 4), round(float(v[2]), 4))

    def chain_length(self, top: int, b: int) -> float:
        pts = [self.pos[top]] + [self.pos[c] for c in self.path(top, b)]
        return float(sum(np.linalg.norm(pts[i + 1] - pts[i]) for i in range(len(pts) - 1)))


def _split(tree: _Tree, chain: list[int], start: np.ndarray, tip: np.ndarray, hints: tuple[str, ...]) -> int:
    """Index in ``chain`` of the joint splitting start->tip into two parts of most similar length
    (thigh/shank, upper arm/forearm); a body or joint name containing a hint scores better."""
    best, best_score = -1, np.inf
    for k, b in enumerate(chain):
        if k == 0 or not tree.joints[b]:
            continue
        upper = float(np.linalg.norm(tree.pos[b] - start))
        lower = float(np.linalg.norm(tip - tree.pos[b]))
        if min(upper, lower) < 1e-3:
            continue
        score = abs(np.log(upper / lower))
        names = [tree.names[b].lower()] + [
            tree.m.joint(j).name.lower() for j in range(tree.m.njnt) if tree.m.jnt_bodyid[j] == b
        ]
        if any(h in n for h in hints for n in names):
            score -= 0.3
        if score < best_score:
            best, best_score = k, score
    return best


def _leg(tree: _Tree, pelvis: int, foot_end: int, side: str, where: str) -> LegChain:
    chain = [b for b in tree.path(pelvis, foot_end) if tree.joints[b] or b == foot_end]
    if len(chain) < 3:
        raise RecognitionError(f"{where}: the leg ending at {tree.names[foot_end]!r} has fewer than three links")
    k = _split(tree, chain, tree.pos[chain[0]], tree.pos[foot_end], ("knee", "shank", "calf", "tibia"))
    if k < 0 or k == len(chain) - 1:
        k = len(chain) // 2
    knee = chain[k]
    after = chain[k + 1 :] or [foot_end]
    shank = float(np.linalg.norm(tree.pos[after[0]] - tree.pos[knee]))
    foot = after[0]
    toe = ""
    for b in after[1:]:  # a toe lies ahead of the ankle; links beside or below it are the ankle's
        if tree.pos[b, 0] - tree.pos[after[0], 0] <= 0.25 * shank:
            foot = b
        else:
            toe = tree.names[b]
            break
    sole_geoms = [g for b in tree.subtree(foot) for g in tree.geoms[b]]
    low = min((tree.low[b] for b in tree.subtree(foot)), default=tree.pos[foot, 2])
    front = tree.pos[foot].copy()
    if sole_geoms:
        front[0] = tree.front(sole_geoms)
    front[2] = low
    return LegChain(
        side=side, bodies=tuple(tree.names[b] for b in chain), hip=tree.names[chain[max(k - 1, 0)]],
        knee=tree.names[knee], foot=tree.names[foot], toe=toe,
        sole_height=round(float(tree.pos[foot, 2] - low), 4), toe_offset=tree.local(foot, front),
    )  # fmt: skip


def _arm(tree: _Tree, torso: int, tip_leaf: int, side: str) -> ArmChain:
    full = [b for b in tree.path(torso, tip_leaf) if tree.joints[b] or b == tip_leaf]
    k = _split(tree, full, tree.pos[full[0]], tree.distal(full[-1]), ("elbow", "forearm"))
    if k < 0:
        k = max(1, len(full) // 2) if len(full) > 1 else 0
    # the hand: the first body past the elbow where the arm branches (fingers), else the last one
    end = next((j for j in range(k + 1, len(full)) if len(tree.children[full[j]]) > 1), len(full) - 1)
    chain = full[: end + 1]
    last = chain[-1]
    tip = tree.distal(last)
    wrist = tree.names[chain[-1]] if k < len(chain) - 1 else ""
    return ArmChain(
        side=side, bodies=tuple(tree.names[b] for b in chain), shoulder=tree.names[chain[max(k - 1, 0)]],
        elbow=tree.names[chain[k]], wrist=wrist, hand_offset=tree.local(last, tip),
    )  # fmt: skip


def _feet(tree: _Tree, root: int, where: str) -> tuple[list[int], float, float]:
    """Foot ends (one per leg), the model's lowest point and its height."""
    body_ids = tree.subtree(root)
    leaves = [b for b in body_ids if not tree.children[b]]
    zmin = float(tree.low[body_ids].min())
    height = float(max(tree.pos[body_ids, 2].max(), zmin) - zmin)
    if height < 1e-3:
        raise RecognitionError(f"{where}: the model is flat (no body above another); no legs to find")
    low_leaves = [b for b in leaves if min(tree.low[c] for c in tree.subtree(b)) < zmin + FOOT_BAND * height]
    if not low_leaves:
        return [], zmin, height
    top = tree.lca(low_leaves)
    limit = zmin + 0.5 * (tree.pos[top, 2] - zmin)
    groups: list[list[int]] = []
    for leaf in low_leaves:
        for g in groups:
            if tree.pos[tree.lca([g[0], leaf]), 2] < limit and tree.lca([g[0], leaf]) != top:
                g.append(leaf)
                break
        else:
            groups.append([leaf])
    return [tree.lca(g) if len(g) > 1 else g[0] for g in groups], zmin, height


def recognise_model(model: mujoco.MjModel, *, where: str, floating_base: bool = True) -> Recognition:
    """Recognise a compiled model with a free joint (see the module docstring). ``where`` names
    the file for messages; floating_base says whether the file itself had a free joint."""
    rest = initial_pose(model)
    tree = _Tree(model, rest.qpos)
    free = [j for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
    root = int(model.jnt_bodyid[free[0]]) if free else 1
    try:
        ends, _, height = _feet(tree, root, where)
    except RecognitionError:  # a model lying flat at zero (legs stretched out level)
        ends = []
    if not ends and model.njnt > 1:
        from .rest_pose import hanging, on_floor

        hung = replace(rest, qpos=on_floor(model, hanging(model, rest.qpos)), source="standing pose, limbs hung down")
        tree_h = _Tree(model, hung.qpos)
        ends, _, height = _feet(tree_h, root, where)
        if ends:
            rest, tree = hung, tree_h
    warnings: list[str] = list(rest.warnings)
    if not ends and not floating_base:
        raise RecognitionError(f"{where}: no floating base and no legs (no chain of bodies reaches down to a floor)")
    if not ends:
        raise RecognitionError(f"{where}: no legs found (no chain of bodies reaches down to a floor)")
    if len(ends) == 1:
        raise RecognitionError(f"{where}: only one leg found (ending at {tree.names[ends[0]]!r}); need two or four")
    if len(ends) not in (2, 4):
        names = ", ".join(tree.names[e] for e in ends)
        raise RecognitionError(f"{where}: found {len(ends)} legs ({names}); kinemorph knows bipeds and quadrupeds")
    pelvis = tree.lca(ends)
    if len(ends) == 2:
        from .facing import face_x

        rest, tree, ends = face_x(model, rest, tree, root, pelvis, ends, where)
        warnings = list(rest.warnings)
    ys = tree.pos[ends, 1] - tree.pos[pelvis, 1]
    sep = float(np.ptp(ys))
    if sep < 0.02:
        raise RecognitionError(
            f"{where}: left and right cannot be told apart (the feet "
            f"{', '.join(tree.names[e] for e in ends)} lie within {100 * sep:.1f} cm across; the robot must face +x)"
        )
    if not floating_base:
        warnings.append(f"the model has no free joint: a floating base was added on {tree.names[root]!r}")
    base = Recognition(
        family="humanoid", root=tree.names[root], floating_base=floating_base, pelvis=tree.names[pelvis],
        rest=rest, height=height,
    )  # fmt: skip
    if len(ends) == 4:
        from .recognise_quadruped import quadruped_legs

        legs4 = quadruped_legs(tree, pelvis, ends, where)
        return replace(base, family="quadruped", quad_legs=legs4, warnings=tuple(warnings))
    order = sorted(ends, key=lambda e: -tree.pos[e, 1])
    legs = tuple(_leg(tree, pelvis, e, s, where) for e, s in zip(order, "lr"))
    for leg in legs:
        if leg.sole_height < 1e-3:
            warnings.append(f"no collision geometry under the foot {leg.foot!r}: its sole is taken at its origin")
    upper = _upper_body(tree, replace(base, legs=legs), root, pelvis, ends, sep, warnings)
    return replace(upper, warnings=tuple(warnings))


def _upper_body(
    tree: _Tree, rec: Recognition, root: int, pelvis: int, ends: list[int], sep: float, warnings: list[str]
) -> Recognition:
    """``rec`` with the arms, torso, waist, head and neck point (warnings gets what is missing)."""
    legs = {b for e in ends for b in tree.ancestors(e)} - set(tree.ancestors(pelvis))
    leaves = [b for b in tree.subtree(root) if not tree.children[b] and b not in legs and b != pelvis]
    leaves = [b for b in leaves if not any(a in legs for a in tree.ancestors(b))]
    y0 = tree.pos[pelvis, 1]
    side_thr = 0.25 * sep
    reach = {b: tree.chain_length(pelvis if pelvis in tree.ancestors(b) else root, b) for b in leaves}
    left = [b for b in leaves if tree.distal(b)[1] - y0 > side_thr]
    right = [b for b in leaves if tree.distal(b)[1] - y0 < -side_thr]
    if not left or not right:
        warnings.append("no arms found: the mapping drives the legs and the pelvis only")
        return _armless(tree, rec, pelvis, legs)
    tips = [max(left, key=lambda b: reach[b]), max(right, key=lambda b: reach[b])]
    torso = tree.lca(tips)
    arms = tuple(_arm(tree, torso, t, s) for t, s in zip(tips, "lr"))
    between = tree.path(pelvis, torso) if pelvis in tree.ancestors(torso) else tree.path(torso, pelvis)
    waist = tuple(tree.names[b] for b in between if tree.joints[b] and b not in (torso, pelvis))
    shoulders = [tree.pos[tree.m.body(a.bodies[0]).id] for a in arms]
    sz = float(np.mean([p[2] for p in shoulders]))

    def top(b: int) -> int:  # the chain's first body below the torso (a head's neck sits mid-line)
        return tree.path(torso, b)[0] if torso in tree.ancestors(b) and b != torso else b

    central = [b for b in leaves if abs(tree.pos[top(b), 1] - y0) <= side_thr and tree.pos[b, 2] > sz]
    neck = np.array(
        [tree.pos[torso, 0], tree.pos[torso, 1], sz + 0.25 * float(np.linalg.norm(shoulders[0] - shoulders[1]))]
    )
    head: list[int] = []
    if central:
        head_leaf = max(central, key=lambda b: tree.pos[b, 2])
        head = tree.path(torso, head_leaf) if torso in tree.ancestors(head_leaf) else [head_leaf]
        neck = tree.pos[head[0]].copy()
    return replace(
        rec, arms=arms, torso=tree.names[torso], waist=waist, head=tuple(tree.names[b] for b in head),
        neck_offset=tree.local(torso, neck),
    )  # fmt: skip


def _armless(tree: _Tree, rec: Recognition, pelvis: int, legs: set[int]) -> Recognition:
    """``rec`` with the pelvis as torso, the neck at the top of the trunk's geometry (the pelvis and
    the bodies above it that are not legs; collision geoms, else any) and its top corners as
    trunk_sides."""
    trunk = [b for b in tree.subtree(pelvis) if b not in legs]
    gs = [g for b in trunk for g in tree.geoms[b]]
    if not gs:
        m = tree.m
        gs = [g for g in range(m.ngeom) if m.geom_bodyid[g] in trunk and m.geom_type[g] != mujoco.mjtGeom.mjGEOM_PLANE]
    centre = tree.pos[pelvis].copy()
    if not gs:
        return replace(rec, torso=tree.names[pelvis], trunk_sides=(tree.local(pelvis, centre),) * 2)
    from .geometry import _lowest_z

    ids = np.array(gs, dtype=np.int64)
    d = tree.d

    def reach(axis: int) -> tuple[float, float]:  # the geoms' extent along a world axis
        lo = _lowest_z(tree.m, ids, d.geom_xpos[ids, axis][None], d.geom_xmat[ids, 3 * axis : 3 * axis + 3][None])
        hi = -_lowest_z(tree.m, ids, -d.geom_xpos[ids, axis][None], -d.geom_xmat[ids, 3 * axis : 3 * axis + 3][None])
        return float(lo.min()), float(hi.max())

    (_, top), (right, left) = reach(2), reach(1)
    neck = np.array([centre[0], centre[1], top])
    sides = tuple(tree.local(pelvis, np.array([centre[0], y, top])) for y in (left, right))
    return replace(rec, torso=tree.names[pelvis], neck_offset=tree.local(pelvis, neck), trunk_sides=sides)
