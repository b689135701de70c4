"""Name layer of rig recognition: joint names of common rigs reduced to (side, part).

A joint name is normalised before it is looked up: namespaces (``mixamorig:``, ``Character1|``),
rig prefixes (``CC_Base_``, ``Bip01_``, ``DEF-``, ``b_``...) and a prefix shared by every joint are
dropped; the rest is split into words (camel case, ``_ . - space``); a side word (``Left``, ``L``,
``l``, ``Right``, ``R``, ``r``) at either end, or a single ``l``/``r`` glued to a known part
(``lShldr``, ``rknee``), gives the side; the remaining words, lower-cased and joined, are the part.

The alias lists cover LAFAN1/Ubisoft, CMU (ASF and the cgspeed BVH), Mixamo, Bandai Namco,
Xsens MVN, Axis Neuron, Vicon Blade, MotionBuilder/HumanIK, iClone/Character Creator, DAZ
(Genesis and the MocapNET variant), Rokoko, Blender/Rigify, OptiTrack Motive, 3ds Max Biped,
Unreal, Kinect and SMPL. Parts that mean different joints in different rigs ("shoulder" is the
clavicle in Mixamo and the upper arm in DAZ, "foot" is the ankle in most rigs and the ball of
the foot in SMPL) are resolved by the chain logic of recognise.py, not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PREFIXES = (
    "cc_base_", "rl_", "bip01_", "bip01 ", "bip001_", "bip001 ", "bip01", "def-", "def_", "org-", "mch-",
    "mixamorig_", "mixamorig", "character1_", "character_", "skeleton_", "jnt_", "joint_", "j_", "sk_",
    "b_", "bn_", "bone_", "rig_", "ik_",
)  # fmt: skip

# Sided parts, in order of preference within each landmark.
SIDED: dict[str, tuple[str, ...]] = {
    "hip": ("upleg", "upperleg", "thigh", "femur", "thighbend", "uleg", "legupper", "hip"),
    "knee": ("leg", "lowerleg", "calf", "shin", "knee", "tibia", "lowleg", "loleg", "leglower", "shank", "lleg"),
    "ankle": ("foot", "ankle"),
    "toe": ("toebase", "toe", "toes", "ball", "toe0", "forefoot"),
    "clavicle": ("shoulder", "clavicle", "collar", "clav", "scapula"),
    "shoulder": ("arm", "upperarm", "uparm", "shldr", "shldrbend", "humerus", "uarm", "armupper", "shoulder"),
    "elbow": ("forearm", "lowerarm", "elbow", "radius", "forearmbend", "lowarm", "farm", "armlower", "loarm"),
    "wrist": ("hand", "wrist"),
}
# Unsided parts.
CENTRAL: dict[str, tuple[str, ...]] = {
    "pelvis": ("hips", "pelvis", "hip", "root"),
    "head": ("head", "skull"),
    "neck": ("neck", "lowerneck", "neck1", "neck01", "necktwist01", "necklower", "neckbase"),
}
_KNOWN = {p for parts in SIDED.values() for p in parts} | {"hand", "foot", "toe"}
_ALL_PARTS = _KNOWN | {p for parts in CENTRAL.values() for p in parts} | {"spine", "chest"}
_NOISE = {"jnt", "joint", "bone", "bn", "bind", "skin", "drv", "def", "deform", "jj"}
"""Words rigs add to every joint name ("L_thigh_jnt", "hand_l_bind")."""
_SIDES = {"left", "l", "lft", "right", "r", "rt", "rgt"}


@dataclass(frozen=True)
class NamePart:
    """What a joint name says: side ("l", "r" or "") and the part word (lower case, joined)."""

    side: str
    part: str


def common_prefix(names: tuple[str, ...]) -> str:
    """A prefix every joint shares, ending at a separator (e.g. ``Skeleton1_``), or ""."""
    if len(names) < 4:
        return ""
    first = min(names)
    last = max(names)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    cut = max(first.rfind(c, 0, n) for c in "_:|. -")
    return first[: cut + 1] if cut >= 0 else ""


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [w.lower() for w in re.split(r"[\s_.\-]+", spaced) if w]


def strip_name(name: str, prefix: str = "") -> str:
    """The name without namespace, shared prefix and rig prefixes."""
    s = name[len(prefix) :] if prefix and name.startswith(prefix) else name
    s = re.split(r"[:|]", s)[-1]
    changed = True
    while changed:
        changed = False
        low = s.lower()
        for p in _PREFIXES:
            if low.startswith(p) and len(s) > len(p):
                s = s[len(p) :]
                changed = True
                break
    return s


def parse_name(name: str, prefix: str = "") -> NamePart:
    """Side and part of a joint name (see the module docstring)."""
    words = [w for w in _words(strip_name(name, prefix)) if w not in _NOISE]
    while len(words) > 1 and words[-1].isdigit() and any(w in _SIDES for w in words):
        words = words[:-1]  # "thigh_l_01"
    if not words:
        return NamePart("", "")
    side = ""
    for idx in (0, -1, *range(1, len(words) - 1)):  # ends first, then inside ("Skel_R_Shin")
        w = words[idx] if words else ""
        if w in ("left", "l", "lft"):
            side = "l"
        elif w in ("right", "r", "rt", "rgt"):
            side = "r"
        if side:
            words = words[:idx] + words[idx + 1 :] if idx >= 0 else words[:-1]
            break
    # words before a known part are a prefix of this joint only ("Skeleton001_RShin")
    for k in range(len(words)):
        if "".join(words[k:]) in _ALL_PARTS or (not side and "".join(words[k:])[1:] in _KNOWN):
            words = words[k:]
            break
    part = "".join(words)
    if not side and len(part) > 2 and part[0] in "lr":
        rest = part[1:]
        if rest in _KNOWN or rest.rstrip("0123456789") in _KNOWN:
            side, part = part[0], rest
    return NamePart(side, part)


def sided_rank(part: NamePart, landmark: str) -> int | None:
    """Preference rank (0 best) of a sided name for a landmark, None when it is no alias.
    A trailing number is accepted ("Toe0", "UpperArm1") at a lower preference."""
    if not part.side:
        return None
    aliases = SIDED[landmark]
    if part.part in aliases:
        return aliases.index(part.part)
    bare = part.part.rstrip("0123456789")
    if bare != part.part and bare in aliases and part.part[len(bare) :] in ("0", "1", "01"):
        return len(aliases) + aliases.index(bare)
    return None


def central_rank(part: NamePart, landmark: str) -> int | None:
    """Preference rank of an unsided name for a central landmark (pelvis, neck, head)."""
    if part.side:
        return None
    aliases = CENTRAL[landmark]
    return aliases.index(part.part) if part.part in aliases else None
