"""Which rig convention a skeleton's names follow (for reports; recognition does not depend on it)."""

from __future__ import annotations

# (family, test on the set of lower-cased names); the first that holds wins.
_RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("mixamo", ("mixamorig",), "any"),
    ("iclone", ("cc_base_",), "any"),
    ("smpl", ("left_hip", "left_knee", "left_ankle", "spine1"), "all"),
    ("rigify", ("def-",), "any"),
    ("3dsmax-biped", ("bip01", "bip001"), "any"),
    ("cmu", ("lhipjoint", "lowerback"), "all"),
    ("cmu-asf", ("lfemur", "ltibia", "lhumerus"), "all"),
    ("xsens", ("l5", "t8", "rightupperleg"), "all"),
    ("bandai", ("upperleg_l", "lowerarm_l", "chest"), "all"),
    ("daz", ("lshldr", "lthigh"), "some"),
    ("daz", ("lshldrbend", "lthighbend"), "some"),
    ("daz-mocapnet", ("lcollar", "lbuttock", "abdomen"), "all"),
    ("unreal", ("thigh_l", "calf_l", "upperarm_l"), "all"),
    ("optitrack", ("lthigh", "lshin", "luarm"), "all"),
    ("rokoko", ("leftthigh", "leftshin"), "all"),
    ("lafan1", ("lefttoe", "spine2", "leftupleg"), "all"),
    ("axis-neuron", ("spine3", "leftupleg", "lefthand"), "all"),
    ("humanik-vicon", ("leftupleg", "lefttoebase"), "all"),
    ("humanik-vicon", ("leftupleg", "leftforearm"), "all"),
)


def _stripped(name: str) -> str:
    return name.split(":")[-1].split("|")[-1].lower()


def rig_family(names: tuple[str, ...]) -> str:
    """The rig convention the joint names follow ("mixamo", "cmu", "daz", ...), or "named" when the
    names were recognised but follow none of the listed conventions."""
    low = {n.lower() for n in names}
    bare = {_stripped(n) for n in names}
    for family, keys, how in _RULES:
        if how == "any":
            if any(any(n.startswith(k) or f":{k}" in n for n in low) for k in keys) or any(
                k in n for n in low for k in keys if k.endswith(("_", "-"))
            ):
                return family
        elif how == "all":
            if all(k in bare for k in keys):
                return family
        elif any(k in bare for k in keys):
            return family
    return "named"
