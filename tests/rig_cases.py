"""Synthetic rigs for the recognition tests: the project's generated LAFAN1-skeleton walk written
in other rigs' naming conventions, with names stripped, in other units and with other up axes."""

from __future__ import annotations

import numpy as np

from kinemorph.motion import Motion
from kinemorph.motion.bvh import BvhData, format_bvh, parse_bvh
from kinemorph.motion.presets import change_frame
from kinemorph.motion.rig.axes import NAMED_UNITS, parse_up, to_z_up
from kinemorph.motion.skeleton import Skeleton

LAFAN = (
    "Hips", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToe", "RightUpLeg", "RightLeg", "RightFoot", "RightToe",
    "Spine", "Spine1", "Spine2", "Neck", "Head", "LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand",
    "RightShoulder", "RightArm", "RightForeArm", "RightHand",
)  # fmt: skip


def _sided(pattern: dict[str, str], left: str, right: str) -> dict[str, str]:
    out = {}
    for k, v in pattern.items():
        if k.startswith("*"):
            out["Left" + k[1:]] = v.format(S=left, s=left.lower())
            out["Right" + k[1:]] = v.format(S=right, s=right.lower())
        else:
            out[k] = v
    return out


CONVENTIONS: dict[str, dict[str, str]] = {
    "mixamo": {n: "mixamorig:" + n.replace("Toe", "ToeBase") for n in LAFAN},
    "cmu": {**{n: n for n in LAFAN}, "LeftToe": "LeftToeBase", "RightToe": "RightToeBase", "Spine": "LowerBack",
            "Spine1": "Spine", "Spine2": "Spine1", "Neck": "Neck1"},
    "bandai": _sided({"Hips": "Hips", "*UpLeg": "UpperLeg_{S}", "*Leg": "LowerLeg_{S}", "*Foot": "Foot_{S}",
                      "*Toe": "Toes_{S}", "Spine": "Spine", "Spine1": "Spine1", "Spine2": "Chest", "Neck": "Neck",
                      "Head": "Head", "*Shoulder": "Shoulder_{S}", "*Arm": "UpperArm_{S}", "*ForeArm": "LowerArm_{S}",
                      "*Hand": "Hand_{S}"}, "L", "R"),
    "daz": _sided({"Hips": "hip", "*UpLeg": "{s}Thigh", "*Leg": "{s}Shin", "*Foot": "{s}Foot", "*Toe": "{s}Toe",
                   "Spine": "abdomen", "Spine1": "abdomen2", "Spine2": "chest", "Neck": "neck", "Head": "head",
                   "*Shoulder": "{s}Collar", "*Arm": "{s}Shldr", "*ForeArm": "{s}ForeArm", "*Hand": "{s}Hand"},
                  "L", "R"),
    "iclone": _sided({"Hips": "CC_Base_Hip", "*UpLeg": "CC_Base_{S}_Thigh", "*Leg": "CC_Base_{S}_Calf",
                      "*Foot": "CC_Base_{S}_Foot", "*Toe": "CC_Base_{S}_ToeBase", "Spine": "CC_Base_Waist",
                      "Spine1": "CC_Base_Spine01", "Spine2": "CC_Base_Spine02", "Neck": "CC_Base_NeckTwist01",
                      "Head": "CC_Base_Head", "*Shoulder": "CC_Base_{S}_Clavicle", "*Arm": "CC_Base_{S}_Upperarm",
                      "*ForeArm": "CC_Base_{S}_Forearm", "*Hand": "CC_Base_{S}_Hand"}, "L", "R"),
    "xsens": _sided({"Hips": "Pelvis", "*UpLeg": "{S}UpperLeg", "*Leg": "{S}LowerLeg", "*Foot": "{S}Foot",
                     "*Toe": "{S}Toe", "Spine": "L5", "Spine1": "L3", "Spine2": "T8", "Neck": "Neck", "Head": "Head",
                     "*Shoulder": "{S}Shoulder", "*Arm": "{S}UpperArm", "*ForeArm": "{S}ForeArm",
                     "*Hand": "{S}Hand"}, "Left", "Right"),
    "rigify": _sided({"Hips": "DEF-pelvis", "*UpLeg": "DEF-thigh.{S}", "*Leg": "DEF-shin.{S}",
                      "*Foot": "DEF-foot.{S}", "*Toe": "DEF-toe.{S}", "Spine": "DEF-spine", "Spine1": "DEF-spine.001",
                      "Spine2": "DEF-spine.002", "Neck": "DEF-neck", "Head": "DEF-head",
                      "*Shoulder": "DEF-shoulder.{S}", "*Arm": "DEF-upper_arm.{S}", "*ForeArm": "DEF-forearm.{S}",
                      "*Hand": "DEF-hand.{S}"}, "L", "R"),
    "smpl": _sided({"Hips": "pelvis", "*UpLeg": "{s}_hip", "*Leg": "{s}_knee", "*Foot": "{s}_ankle",
                    "*Toe": "{s}_foot", "Spine": "spine1", "Spine1": "spine2", "Spine2": "spine3", "Neck": "neck",
                    "Head": "head", "*Shoulder": "{s}_collar", "*Arm": "{s}_shoulder", "*ForeArm": "{s}_elbow",
                    "*Hand": "{s}_wrist"}, "left", "right"),
    "optitrack": _sided({"Hips": "Skeleton1_Hip", "*UpLeg": "Skeleton1_{S}Thigh", "*Leg": "Skeleton1_{S}Shin",
                         "*Foot": "Skeleton1_{S}Foot", "*Toe": "Skeleton1_{S}Toe", "Spine": "Skeleton1_Ab",
                         "Spine1": "Skeleton1_Ab2", "Spine2": "Skeleton1_Chest", "Neck": "Skeleton1_Neck",
                         "Head": "Skeleton1_Head", "*Shoulder": "Skeleton1_{S}Shoulder", "*Arm": "Skeleton1_{S}UArm",
                         "*ForeArm": "Skeleton1_{S}FArm", "*Hand": "Skeleton1_{S}Hand"}, "L", "R"),
    "biped": _sided({"Hips": "Bip01_Pelvis", "*UpLeg": "Bip01_{S}_Thigh", "*Leg": "Bip01_{S}_Calf",
                     "*Foot": "Bip01_{S}_Foot", "*Toe": "Bip01_{S}_Toe0", "Spine": "Bip01_Spine",
                     "Spine1": "Bip01_Spine1", "Spine2": "Bip01_Spine2", "Neck": "Bip01_Neck", "Head": "Bip01_Head",
                     "*Shoulder": "Bip01_{S}_Clavicle", "*Arm": "Bip01_{S}_UpperArm", "*ForeArm": "Bip01_{S}_Forearm",
                     "*Hand": "Bip01_{S}_Hand"}, "L", "R"),
    "unreal": _sided({"Hips": "pelvis", "*UpLeg": "thigh_{s}", "*Leg": "calf_{s}", "*Foot": "foot_{s}",
                      "*Toe": "ball_{s}", "Spine": "spine_01", "Spine1": "spine_02", "Spine2": "spine_03",
                      "Neck": "neck_01", "Head": "head", "*Shoulder": "clavicle_{s}", "*Arm": "upperarm_{s}",
                      "*ForeArm": "lowerarm_{s}", "*Hand": "hand_{s}"}, "L", "R"),
    "rokoko": _sided({"Hips": "Hips", "*UpLeg": "{S}Thigh", "*Leg": "{S}Shin", "*Foot": "{S}Foot",
                      "*Toe": "{S}Toe", "Spine": "Spine1", "Spine1": "Spine2", "Spine2": "Spine3", "Neck": "Neck",
                      "Head": "Head", "*Shoulder": "{S}Shoulder", "*Arm": "{S}Arm", "*ForeArm": "{S}ForeArm",
                      "*Hand": "{S}Hand"}, "Left", "Right"),
}  # fmt: skip
"""Per convention: LAFAN1 joint -> that rig's name for the same joint."""

EXPECTED = {
    "pelvis": "Hips", "chest": "Spine2", "head": "Head",
    **{f"{m}_{s[0].lower()}": f"{s}{j}" for s in ("Left", "Right") for m, j in (
        ("hip", "UpLeg"), ("knee", "Leg"), ("ankle", "Foot"), ("toe", "Toe"), ("clavicle", "Shoulder"),
        ("shoulder", "Arm"), ("elbow", "ForeArm"), ("wrist", "Hand"))},
}  # fmt: skip
"""The LAFAN1 joint each landmark must be found at (spine and neck are rig-dependent)."""


def raw_copy(motion: Motion, *, names: dict[str, str] | None = None, unit: str = "cm", up: str = "y") -> BvhData:
    """The motion as a BVH file's content would hold it: joints renamed, lengths in ``unit``
    (a NAMED_UNITS key), ``up`` the file's up axis. Written to text and parsed back, as a file."""
    rot = to_z_up(parse_up(up))
    sk, lr, lp = change_frame(
        motion.skeleton, motion.local_rotations, motion.local_positions, rotation=rot.T, scale=1.0 / NAMED_UNITS[unit]
    )
    if names:
        sk = Skeleton(sk.names if not names else tuple(names.get(n, n) for n in sk.names), sk.parents, sk.offsets,
                      sk.channels, sk.end_sites)  # fmt: skip
    return parse_bvh(format_bvh(sk, 1.0 / motion.fps, lr, lp))


def stripped(motion: Motion) -> dict[str, str]:
    """Names that say nothing: j00, j01, ... in a shuffled order of numbers."""
    rng = np.random.default_rng(7)
    nums = rng.permutation(len(motion.skeleton.names))
    return {n: f"j{k:02d}" for n, k in zip(motion.skeleton.names, nums)}


def crab_bvh(legs: int = 8) -> str:
    """A body with ``legs`` identical legs around it (centimetres, Y-up), two frames."""
    lines = ["HIERARCHY", "ROOT body", "{", "  OFFSET 0 20 0", "  CHANNELS 6 Xposition Yposition Zposition "
             "Zrotation Xrotation Yrotation"]  # fmt: skip
    for k in range(legs):
        a = 2 * np.pi * (k + 0.5) / legs
        x, z = 8 * np.cos(a), 8 * np.sin(a)
        rot = "CHANNELS 3 Zrotation Xrotation Yrotation"
        lines += [f"  JOINT coxa{k}", "  {", f"    OFFSET {x:.3f} 0 {z:.3f}", f"    {rot}",
                  f"    JOINT femur{k}", "    {", f"      OFFSET {2 * x:.3f} 5 {2 * z:.3f}", f"      {rot}",
                  f"      JOINT tibia{k}", "      {", f"        OFFSET {x:.3f} -25 {z:.3f}", f"        {rot}",
                  "        End Site", "        {", "          OFFSET 0 -2 0", "        }",
                  "      }", "    }", "  }"]  # fmt: skip
    lines += ["}", "MOTION", "Frames: 2", "Frame Time: 0.033333"]
    n = 6 + 9 * legs
    lines += [" ".join(["0"] * n)] * 2
    return "\n".join(lines) + "\n"


def augmented(data: BvhData, *, twist: bool = True, fingers: bool = True, reference: bool = True) -> BvhData:
    """The rig with what real rigs add: a twist joint halfway along each upper arm, forearm, thigh
    and shank (it never bends), five 3-joint fingers on each hand, a face of four bones and a
    motionless ``Reference`` root on the floor above the hips. The poses stay the same."""
    from kinemorph.motion.skeleton import EndSite

    sk = data.skeleton
    lr, lp = data.local_transforms()
    t = lr.shape[0]
    ident = np.tile([1.0, 0.0, 0.0, 0.0], (t, 1))
    names: list[str] = []
    parents: list[int] = []
    chans: list[tuple[str, ...]] = []
    rots: list[np.ndarray] = []
    poss: list[np.ndarray] = []
    ends: list[EndSite] = []
    rot3 = ("Zrotation", "Xrotation", "Yrotation")

    def add(name: str, parent: int, rot: np.ndarray, pos: np.ndarray, ch: tuple[str, ...]) -> int:
        names.append(name)
        parents.append(parent)
        chans.append(ch)
        rots.append(rot)
        poss.append(np.broadcast_to(pos, (t, 3)).copy())
        return len(names) - 1

    new_index: dict[int, int] = {}
    root_parent = -1
    if reference:
        root_parent = add("Reference", -1, ident, np.zeros(3), ("Xposition", "Yposition", "Zposition", *rot3))
    limb = ("UpLeg", "Leg", "Arm", "ForeArm")
    for j in range(sk.num_joints):
        p = new_index[int(sk.parents[j])] if sk.parents[j] >= 0 else root_parent
        name = sk.names[j]
        parent_name = sk.names[int(sk.parents[j])] if sk.parents[j] >= 0 else ""
        if twist and parent_name.endswith(limb) and not parent_name.endswith("Shoulder"):
            half = lp[:, j] * 0.5
            p = add(parent_name + "Twist", p, ident, half, rot3)
            new_index[j] = add(name, p, lr[:, j], half, sk.channels[j])
        else:
            new_index[j] = add(name, p, lr[:, j], lp[:, j], sk.channels[j])
        if fingers and name.endswith("Hand"):
            side = 1.0 if name.startswith("Left") else -1.0
            bone = np.linalg.norm(lp[0, j]) * 0.12
            for k, f in enumerate(("Thumb", "Index", "Middle", "Ring", "Pinky")):
                q = new_index[j]
                for seg in (1, 2, 3):
                    off = (
                        np.array([0.0, -bone, (k - 2) * bone * 0.4]) if seg == 1 else np.array([0.0, -bone * 0.6, 0.0])
                    )
                    q = add(f"{name}{f}{seg}", q, ident, off * np.array([side, 1, 1]), rot3)
                ends.append(EndSite(q, np.array([0.0, -bone * 0.4, 0.0])))
        if name == "Head":
            for f, off in (("Jaw", (0, -3, 4)), ("LeftEye", (3, 4, 8)), ("RightEye", (-3, 4, 8)), ("Nose", (0, 2, 10))):
                size = 0.02 * np.linalg.norm(lp[0, j])
                ends.append(EndSite(add(f, new_index[j], ident, np.array(off, float) * size, rot3), np.zeros(3)))
    for e in sk.end_sites:
        ends.append(EndSite(new_index[e.parent], e.offset))
    new = Skeleton(tuple(names), np.array(parents), np.array([p[0] for p in poss]), tuple(chans), tuple(ends))
    return parse_bvh(format_bvh(new, data.frame_time, np.stack(rots, axis=1), np.stack(poss, axis=1)))
