"""The recognition's result: the landmark table, virtual bodies (feet, End Site paws) and legs
from the chains found."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .chains import Chains
from .report import RigReport
from .tree import PosedTree


@dataclass(frozen=True)
class Recognition:
    """A report plus what converting the motion needs.

    Attributes:
        report: what was recognised.
        rotation: file axes to the Z-up world (3x3).
        scale: metres per file unit.
        floor: the floor's height in the converted motion [m] (to subtract).
        virtual: extra bodies, name -> (position joint, orientation joint, offset in the position
            joint's frame [m]); humanoid feet (ankle position, toe orientation) and End Site paws.
        landmarks: humanoids: the body per kinemorph.conventions.LANDMARKS name.
        legs: quadrupeds: (root, paw body) per leg FL, FR, RL, RR.
    """

    report: RigReport
    rotation: np.ndarray
    scale: float
    floor: float
    virtual: dict[str, tuple[str, str, tuple[float, float, float]]] = field(default_factory=dict)
    landmarks: tuple[str, ...] = ()
    legs: tuple[tuple[str, str], ...] = ()


def foot_body(side: str) -> str:
    """Name of the virtual foot body of a recognised humanoid (ankle position, toe orientation)."""
    return f"landmark:foot_{side}"


def finish(
    report: RigReport,
    tree: PosedTree,
    ch: Chains,
    rot: np.ndarray,
    scale: float,
    pelvis: int,
    chest: int,
    head: int,
    feet: list[list[int]],
    hands: list[list[int]],
    P: np.ndarray,
    tips: np.ndarray,
) -> Recognition:
    """The Recognition of a report and its chains: landmark names in HUMANOID_LANDMARKS order,
    humanoid foot bodies (ankle position, toe orientation), quadruped legs FL, FR, RL, RR."""
    names = tree.skeleton.names
    lm: dict[str, str] = {}
    base = tree.lca([pelvis, chest])
    spine_path = tree.path(base, chest)
    spine = next((j for j in spine_path[1:] if tree.lengths[j] > 0), chest)
    neck_path = tree.path(chest, head) if tree.is_ancestor(chest, head) else [chest, head]
    neck = next((j for j in neck_path[1:-1] if tree.lengths[j] > 0), head if len(neck_path) > 1 else chest)
    lm.update(pelvis=names[pelvis], spine=names[spine], chest=names[chest], neck=names[neck], head=names[head])
    virtual: dict[str, tuple[str, str, tuple[float, float, float]]] = {}
    for side, leg, arm in zip("lr", ch.legs, ch.arms):
        lm[f"hip_{side}"] = names[leg["hip"]]  # type: ignore[index]
        lm[f"knee_{side}"] = names[leg["knee"]]  # type: ignore[index]
        lm[f"ankle_{side}"] = names[leg["ankle"]]  # type: ignore[index]
        lm[f"toe_{side}"] = names[leg["toe"] if leg["toe"] is not None else leg["ankle"]]  # type: ignore[index]
        sh = arm["shoulder"]
        lm[f"clavicle_{side}"] = names[arm["clavicle"] if arm["clavicle"] is not None else sh]  # type: ignore[index]
        lm[f"shoulder_{side}"] = names[sh]  # type: ignore[index]
        lm[f"elbow_{side}"] = names[arm["elbow"]]  # type: ignore[index]
        lm[f"wrist_{side}"] = names[arm["wrist"]]  # type: ignore[index]
    order = [k for k in (
        "pelvis", "spine", "chest", "neck", "head", "hip_l", "hip_r", "knee_l", "knee_r", "ankle_l", "ankle_r",
        "toe_l", "toe_r", "clavicle_l", "clavicle_r", "shoulder_l", "shoulder_r", "elbow_l", "elbow_r",
        "wrist_l", "wrist_r")]  # fmt: skip
    lm = {k: lm[k] for k in order}
    if report.family == "humanoid":
        for side in "lr":
            if lm[f"toe_{side}"] != lm[f"ankle_{side}"]:
                virtual[foot_body(side)] = (lm[f"ankle_{side}"], lm[f"toe_{side}"], (0.0, 0.0, 0.0))
        landmarks = tuple(lm[k] for k in (
            "pelvis", "neck", "shoulder_l", "shoulder_r", "elbow_l", "elbow_r", "wrist_l", "wrist_r",
            "knee_l", "knee_r", "ankle_l", "ankle_r", "toe_l", "toe_r"))  # fmt: skip
        return Recognition(replace(report, landmarks=lm), rot, scale, report.floor, virtual, landmarks)
    legs = []
    for leg_id, (root, group) in zip(
        ("FL", "FR", "RL", "RR"),
        ((lm["shoulder_l"], hands[0]), (lm["shoulder_r"], hands[1]), (lm["hip_l"], feet[0]), (lm["hip_r"], feet[1])),
    ):
        paw = _paw(tree, P, tips, group, scale, leg_id, virtual)
        legs.append((root, paw))
    return Recognition(
        replace(report, landmarks=lm, legs=tuple(legs)), rot, scale, report.floor, virtual, (), tuple(legs)
    )


def _paw(
    tree: PosedTree,
    P: np.ndarray,
    tips: np.ndarray,
    group: list[int],
    scale: float,
    leg: str,
    virtual: dict[str, tuple[str, str, tuple[float, float, float]]],
) -> str:
    """The paw body of a leg: its lowest joint on median, or an End Site below it (a virtual body)."""
    names = tree.skeleton.names
    zj = np.median(P[:, group, 2], axis=0)
    best = group[int(np.argmin(zj))]
    t = tree.tips_of(group)
    if t:
        zt = np.median(tips[:, t, 2], axis=0)
        k = int(np.argmin(zt))
        if zt[k] < zj.min() - 1e-9:
            site = tree.skeleton.end_sites[t[k]]
            name = f"landmark:paw_{leg}"
            off = site.offset * scale
            virtual[name] = (names[site.parent], names[site.parent], (float(off[0]), float(off[1]), float(off[2])))
            return name
    return names[best]
