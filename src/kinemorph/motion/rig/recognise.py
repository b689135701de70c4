"""Rig recognition: canonical landmarks, family, up axis, unit and floor of a skeleton.

1. Limb chains from names (names.py, chains.by_names); when they do not give two legs and two
   arms, from the tree's shape (chains.by_structure).
2. Up axis: the legs point down (hips above ankles on the sample frames), snapped to an axis.
3. Family: a trunk far from vertical with the arms' ends on the floor is a quadruped.
4. Sides (shape only): forward is where the toes (else the bent knees; quadrupeds: the front
   legs) point; left = up x forward.
5. Unit: the named unit giving a plausible stature (head top to the floor the feet return to),
   else a scale making it 1.7 m (with a warning). Floor: the plane the feet return to.
"""

from __future__ import annotations

import numpy as np

from .axes import (
    ANIMAL_UNITS,
    HUMAN_STATURE,
    PLAUSIBLE_STATURE,
    QUADRUPED_HIP_HEIGHT,
    STATURE_RATIOS,
    axis_name,
    floor_height,
    parse_unit,
    parse_up,
    pick_unit,
    snap_axis,
    to_z_up,
)
from .build import Recognition, finish
from .chains import Chains, by_names, by_structure, from_table
from .names import central_rank, common_prefix, parse_name
from .report import README_SECTION, RigReport
from .rigs import rig_family
from .tree import PosedTree

TYPICAL_STATURE = 1.7  # [m] used when no named unit fits
QUADRUPED_BODY_RATIO = (0.3, 4.0)
"""Plausible ratios of a quadruped's hips-to-shoulders length to its hip height."""


def _fail(source: str, found: str, missing: list[str], why: str, up: str = "y") -> RigReport:
    recipe = (
        'name the landmarks\' joints in a JSON table {"pelvis": ..., "hip_l": ...} and pass --landmarks TABLE, '
        "or fit a mapping over your joints with `kinemorph calibrate FILE --robot R --mapping MINE.json "
        f"-o FITTED.json` and retarget with --mapping FITTED.json; see the {README_SECTION}"
    )
    lacking = f"; missing {', '.join(missing)}" if missing else ""
    problem = f"{source}: {why}; found {found or 'nothing'}{lacking}; {recipe}"
    return RigReport(source=source, family="other", rig="", method="names", up=up, missing=tuple(missing),
                     problem=problem)  # fmt: skip


def _found_text(tree: PosedTree, ch: Chains) -> str:
    names = tree.skeleton.names
    parts = []
    for kind, limbs in (("leg", ch.legs), ("arm", ch.arms)):
        for limb in limbs:
            got = [names[j] for j in limb.values() if j is not None]
            if got:
                parts.append(f"{kind} {'>'.join(got)}")
    if ch.head is not None:
        parts.append(f"head {names[ch.head]}")
    return "; ".join(parts)


def _pelvis_candidates(tree: PosedTree) -> list[int]:
    prefix = common_prefix(tree.skeleton.names)
    out = []
    for j, n in enumerate(tree.skeleton.names):
        r = central_rank(parse_name(n, prefix), "pelvis")
        if r is not None and r < 3:  # hips, pelvis, hip
            out.append(j)
    return out


def recognise(
    tree: PosedTree,
    *,
    source: str,
    unit: str | float | None = None,
    up: str | None = None,
    landmarks: dict[str, str] | None = None,
) -> Recognition:
    """Recognise a rig from its tree and sample poses (file units and axes); see the module docstring.
    ``landmarks``: a table {landmark: joint} the user wrote, used instead of names and shape."""
    names = tree.skeleton.names
    ch = by_names(tree) if landmarks is None else from_table(tree, landmarks, where=f"{source} (landmark table)")
    if not ch.complete:
        st = by_structure(tree)
        if st.limb_count > 4 or st.limb_count == 3:
            legs = st.limb_count
            return _report(_fail(source, f"{legs} limb chains of one length", [],
                                 f"the rig has {legs} limbs; kinemorph retargets two-legged "
                                 "(humanoid) and four-legged rigs only"), tree)  # fmt: skip
        if not st.complete:
            missing = ch.missing if ch.missing and len(ch.missing) <= len(st.missing) + 6 else st.missing
            return _report(
                _fail(
                    source,
                    _found_text(tree, ch),
                    missing,
                    "no two legs and two arms recognised by joint names or by the tree's shape",
                ),
                tree,
            )
        if ch.head is not None and st.head is None:
            st.head = ch.head
        ch = st
    cands = _pelvis_candidates(tree)
    roots = [a for a in cands if not any(tree.is_ancestor(b, a) for b in cands if b != a)]
    if len(roots) > 1 and ch.method == "names":
        return _report(_fail(source, ", ".join(names[j] for j in roots), [],
                             f"ambiguous rig: {len(roots)} candidate pelvises "
                             f"({', '.join(names[j] for j in roots)}) in separate branches"), tree)  # fmt: skip
    pos = tree.positions
    legs_j = [[c["hip"], c["ankle"]] for c in ch.legs]
    # 2. up: hips above ankles
    if up is None:
        v = sum(pos[:, h] - pos[:, a] for h, a in legs_j)
        up_vec = snap_axis(np.mean(v / (np.linalg.norm(v, axis=-1, keepdims=True) + 1e-12), axis=0))
        up_source = "detected"
    else:
        up_vec, up_source = parse_up(up), "given"
    rot = to_z_up(up_vec)
    P = pos @ rot.T
    tips = tree.tips @ rot.T
    z = P[..., 2]
    # 3. family
    pelvis = ch.pelvis if ch.pelvis is not None else tree.lca([ch.legs[0]["hip"], ch.legs[1]["hip"]])  # type: ignore[list-item]
    chest = ch.chest if ch.chest is not None else tree.lca([ch.arms[0]["shoulder"], ch.arms[1]["shoulder"]])  # type: ignore[list-item]
    trunk = P[:, chest] - P[:, pelvis]
    trunk_up = np.median(trunk[:, 2] / (np.linalg.norm(trunk, axis=-1) + 1e-12))
    feet = [_distal(tree, c["ankle"]) for c in ch.legs]  # type: ignore[arg-type]
    hands = [_distal(tree, c["wrist"]) for c in ch.arms]  # type: ignore[arg-type]
    low_feet = np.min([_lowest(P, tips, f, tree) for f in feet], axis=0)  # (K,)
    floor_raw = floor_height(low_feet)
    hip_h = np.median(np.mean([z[:, c["hip"]] for c in ch.legs], axis=0)) - floor_raw
    hand_h = np.median(np.min([_lowest(P, tips, f, tree) for f in hands], axis=0)) - floor_raw
    quadruped = trunk_up < 0.55 and hand_h < 0.35 * hip_h
    family = "quadruped" if quadruped else "humanoid"
    # 4. sides
    if not ch.sided:
        cues = _forward_cues(tree, P, tips, ch, quadruped, pelvis, chest)
        for limbs, key in ((ch.legs, "hip"), (ch.arms, "shoulder")):
            lateral = P[:, limbs[0][key]] - P[:, limbs[1][key]]
            lateral[:, 2] = 0.0
            if _left_sign(lateral, cues) < 0:
                limbs.reverse()
    # 5. unit and floor
    head = ch.head if ch.head is not None else chest
    if quadruped:
        height_raw = float(hip_h)
        plausible, typical, order = QUADRUPED_HIP_HEIGHT, 0.6, ANIMAL_UNITS
    else:
        height_raw = _stature(z, floor_raw, ch, head)
        plausible, typical, order = HUMAN_STATURE, TYPICAL_STATURE, None
    warnings: list[str] = []
    problem = ""
    what = "hip height" if quadruped else "stature"
    if unit is None:
        picked = pick_unit(height_raw, plausible, typical, order=order)
        if picked is None and not quadruped:  # a child or a very tall person: the wider range
            picked = pick_unit(height_raw, PLAUSIBLE_STATURE, typical)
        if picked is None:
            scale = typical / max(height_raw, 1e-9)
            unit_name = f"{scale:.6g} m"
            warnings.append(f"{source}: no common unit gives a plausible {what} ({height_raw:.4g} file units "
                            f"from head to feet); scaled to {typical} m: pass --unit if that is wrong")  # fmt: skip
        else:
            unit_name, scale = picked
        unit_source = "detected"
    else:
        unit_name, scale = parse_unit(unit)
        unit_source = "given"
    height = height_raw * scale
    lo, hi = PLAUSIBLE_STATURE if not quadruped else QUADRUPED_HIP_HEIGHT
    if not lo <= height <= hi:
        msg = f"{source}: with unit {unit_name} the {what} is {height:.2f} m, outside the plausible {lo}-{hi} m"
        if unit_source == "given":
            alt = pick_unit(height_raw, plausible, typical, order=order)
            hint = f" (unit {alt[0]} gives {height_raw * alt[1]:.2f} m)" if alt else ""
            problem = msg + hint
        else:
            warnings.append(msg)
    if quadruped:  # body length (hips to shoulders) against leg height: an animal's proportions
        body = float(np.median(np.linalg.norm(trunk, axis=-1)))
        ratio = body / max(height_raw, 1e-9)
        if not QUADRUPED_BODY_RATIO[0] <= ratio <= QUADRUPED_BODY_RATIO[1]:
            warnings.append(
                f"{source}: body length {body * scale:.2f} m against hip height {height:.2f} m is no animal's "
                f"proportion ({QUADRUPED_BODY_RATIO[0]}-{QUADRUPED_BODY_RATIO[1]}): check the up axis (--up)"
            )
    report = RigReport(
        source=source,
        family=family,
        rig={"names": rig_family(names), "structure": "structure"}.get(ch.method, "given"),
        method=ch.method,
        up=axis_name(up_vec),
        up_source=up_source,
        unit=unit_name,
        scale=scale,
        unit_source=unit_source,
        stature=height,
        floor=floor_raw * scale,
        problem=problem,
        warnings=tuple(warnings),
    )
    return finish(report, tree, ch, rot, scale, pelvis, chest, head, feet, hands, P, tips)


def _report(report: RigReport, tree: PosedTree) -> Recognition:
    """A failed recognition: axes and unit by the old rule (y up; centimetres when large)."""
    extent = float(np.ptp(tree.positions[0], axis=0).max())
    scale = 0.01 if extent > 30.0 else 1.0
    from dataclasses import replace

    report = replace(report, unit="cm" if scale == 0.01 else "m", scale=scale, up="y", unit_source="detected")
    return Recognition(report=report, rotation=to_z_up(np.array([0.0, 1.0, 0.0])), scale=scale, floor=0.0)


def _distal(tree: PosedTree, j: int) -> list[int]:
    """A joint and its descendants (the hand or foot and what hangs below it), as joint indices."""
    return [j, *tree.descendants(j)]


def _lowest(P: np.ndarray, tips: np.ndarray, joints: list[int], tree: PosedTree) -> np.ndarray:
    """Per frame, the lowest height among joints and End Sites of those joints. Shape: (K,)."""
    z = P[:, joints, 2].min(axis=1)
    t = tree.tips_of(joints)
    return np.minimum(z, tips[:, t, 2].min(axis=1)) if t else z


def _stature(z: np.ndarray, floor: float, ch: Chains, head: int) -> float:
    """Stature [file units] on standing frames: the median of the statures that shoulder, hip and
    head heights give through STATURE_RATIOS (robust to rigs whose head joint or head End Site sit
    high or low), each height the 75th percentile over frames (crouches count less)."""

    def height(joints: list[int]) -> float:
        return float(np.quantile(np.mean(z[:, joints], axis=1) - floor, 0.75))

    est = [
        height([c["shoulder"] for c in ch.arms]) / STATURE_RATIOS["shoulder"],  # type: ignore[misc]
        height([c["hip"] for c in ch.legs]) / STATURE_RATIOS["hip"],  # type: ignore[misc]
        height([head]) / STATURE_RATIOS["head"],
    ]
    return float(np.median(est))


def _forward_cues(
    tree: PosedTree, P: np.ndarray, tips: np.ndarray, ch: Chains, quadruped: bool, pelvis: int, chest: int
) -> list[np.ndarray]:
    """Per sample frame, horizontal forward directions (K, 3) from each cue the rig offers, not
    normalised (frames where a cue is clear weigh more; a clip may turn): quadrupeds the trunk;
    people the toes, a toe-less foot's End Site, and the bent knees."""
    if quadruped:
        cues = [P[:, chest] - P[:, pelvis]]
    else:
        cues = []
        if all(c["toe"] is not None for c in ch.legs):
            cues.append(sum(P[:, c["toe"]] - P[:, c["ankle"]] for c in ch.legs))
        site = [tree.tips_of([c["ankle"]]) for c in ch.legs]  # type: ignore[list-item]
        if all(len(s) == 1 for s in site):
            cues.append(sum(tips[:, s[0]] - P[:, c["ankle"]] for s, c in zip(site, ch.legs)))
        cues.append(sum(P[:, c["knee"]] - 0.5 * (P[:, c["hip"]] + P[:, c["ankle"]]) for c in ch.legs))
    out = []
    for v in cues:
        v = np.asarray(v, dtype=float).copy()
        v[:, 2] = 0.0
        out.append(v)
    return out


def _left_sign(lateral: np.ndarray, cues: list[np.ndarray]) -> float:
    """+1 when ``lateral`` (K, 3) points to the body's left, -1 when to its right, by the most
    decisive forward cue (the one most perpendicular to the lateral line: feet turned sideways
    or straight knees decide nothing)."""
    best = 0.0
    for v in cues:
        left = np.cross([0.0, 0.0, 1.0], v)
        s = float(
            np.sum(lateral * left) / (np.sum(np.linalg.norm(lateral, axis=-1) * np.linalg.norm(left, axis=-1)) + 1e-12)
        )
        if abs(s) > abs(best):
            best = s
    return 1.0 if best >= 0 else -1.0
