"""The four legs of a quadruped model: hip, thigh, calf and foot point of each, named FL, FR, RL, RR
(front/rear by position along the trunk's x axis, left/right by side)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import mujoco
import numpy as np

from ..conventions import LEGS

if TYPE_CHECKING:
    from .recognise import QuadLeg, _Tree


def quadruped_legs(tree: _Tree, trunk: int, ends: list[int], where: str) -> tuple[QuadLeg, ...]:
    """The legs in the order FL, FR, RL, RR from their foot ends (leaf bodies)."""
    from .recognise import RecognitionError

    starts = [tree.path(trunk, e)[0] for e in ends]
    x = tree.pos[starts, 0] - tree.pos[trunk, 0]
    y = tree.pos[ends, 1] - tree.pos[trunk, 1]
    order = np.argsort(-x)
    front, rear = sorted(order[:2], key=lambda i: -y[i]), sorted(order[2:], key=lambda i: -y[i])
    if float(np.min(x[order[:2]]) - np.max(x[order[2:]])) < 0.02:
        raise RecognitionError(
            f"{where}: front and rear legs cannot be told apart "
            "(their hips lie within 2 cm along x; the robot must face +x)"
        )
    for pair in (front, rear):
        if y[pair[0]] - y[pair[1]] < 0.02:
            names = ", ".join(tree.names[ends[i]] for i in pair)
            raise RecognitionError(f"{where}: left and right legs cannot be told apart ({names})")
    return tuple(_one(tree, trunk, ends[i], name, where) for i, name in zip([*front, *rear], LEGS))


def _one(tree: _Tree, trunk: int, end: int, name: str, where: str) -> QuadLeg:
    from .recognise import QuadLeg, RecognitionError, _split

    chain = [b for b in tree.path(trunk, end) if tree.joints[b] or b == end]
    if len(chain) < 2:
        raise RecognitionError(f"{where}: leg {name} (ending at {tree.names[end]!r}) has fewer than two links")
    point_body, sphere, world = _foot_point(tree, chain)
    k = _split(tree, chain, tree.pos[chain[0]], world, ("calf", "knee", "shank", "lower"))
    if k < 0:
        k = len(chain) - 1
    calf = chain[k]
    foot = "" if point_body == calf else tree.names[point_body]
    return QuadLeg(
        name=name, hip=tree.names[chain[0]], thigh=tree.names[chain[max(k - 1, 0)]], calf=tree.names[calf],
        foot=foot, foot_sphere=sphere and point_body == calf, foot_point=tree.local(calf, world),
    )  # fmt: skip


def _foot_point(tree: _Tree, chain: list[int]) -> tuple[int, bool, np.ndarray]:
    """(body, whether it is a sphere geom, world point) of the foot: a sphere geom at the chain's end (the
    lowest one), else the centre of the calf capsule's lower end when that is the calf's lowest point,
    else the lowest point of the last body's collision geometry, else twice its centre of mass."""
    last = chain[-1]
    m = tree.m
    spheres = [g for b in tree.subtree(last) for g in tree.geoms[b] if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE]
    if spheres:
        g = min(spheres, key=lambda g: float(tree.d.geom_xpos[g, 2] - m.geom_size[g, 0]))
        body = int(m.geom_bodyid[g])
        return body, True, tree.d.geom_xpos[g].copy()
    gs = tree.geoms[last]
    caps = [g for g in gs if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_CAPSULE]
    if caps:  # a calf capsule's rounded end: the centre of that end (it rolls on it like a sphere)
        ends = []
        for g in caps:
            axis = tree.d.geom_xmat[g].reshape(3, 3)[:, 2] * m.geom_size[g, 1]
            ends += [(tree.d.geom_xpos[g] + sgn * axis, float(m.geom_size[g, 0])) for sgn in (-1.0, 1.0)]
        centre, r = min(ends, key=lambda e: float(e[0][2] - e[1]))
        if abs(centre[2] - r - tree.low[last]) < 1e-6:  # that end is the calf's lowest point
            return last, False, centre.copy()
    if gs:
        p = tree.distal(last)
        p[2] = tree.low[last]
        return last, False, p
    return last, False, tree.distal(last)  # no shape (a mesh file absent): twice its centre of mass
