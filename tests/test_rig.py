"""Rig recognition: landmarks from names of common rigs and from the tree's shape, up axis, unit,
floor, quadrupeds, refusals, and retargeting of recognised rigs with the shipped mappings."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import robot_or_skip
from kinemorph.errors import KinemorphError
from kinemorph.motion import Motion
from kinemorph.motion.bvh import parse_bvh
from kinemorph.motion.presets import fps_from_frame_time
from kinemorph.motion.rig import RigError, motion_from_raw, parse_unit, parse_up, recognise_raw
from kinemorph.motion.rig.names import parse_name
from kinemorph.motion.rig.report import HUMANOID_LANDMARKS
from rig_cases import CONVENTIONS, EXPECTED, crab_bvh, raw_copy, stripped


def _motion(data, **kw) -> Motion:  # type: ignore[no-untyped-def]
    lr, lp = data.local_transforms()
    return motion_from_raw(data.skeleton, lr, lp, fps_from_frame_time(data.frame_time), source="synthetic.bvh", **kw)


def _rec(data, **kw):  # type: ignore[no-untyped-def]
    lr, lp = data.local_transforms()
    return recognise_raw(data.skeleton, lr, lp, source="synthetic.bvh", **kw).report


# -- names ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "side", "part"),
    [
        ("mixamorig:LeftUpLeg", "l", "upleg"),
        ("mixamorig7:RightForeArm", "r", "forearm"),
        ("CC_Base_L_Thigh", "l", "thigh"),
        ("Hand_L", "l", "hand"),
        ("lShldr", "l", "shldr"),
        ("rknee", "r", "knee"),
        ("DEF-upper_arm.R", "r", "upperarm"),
        ("Bip01 L Calf", "l", "calf"),
        ("left_ankle", "l", "ankle"),
        ("LowerBack", "", "lowerback"),
        ("thigh_l", "l", "thigh"),
    ],
)
def test_names_give_side_and_part(name: str, side: str, part: str) -> None:
    got = parse_name(name)
    assert (got.side, got.part) == (side, part)


@pytest.mark.parametrize("convention", sorted(CONVENTIONS))
def test_landmarks_are_found_by_name_in_every_convention(generated_walk: Motion, convention: str) -> None:
    names = CONVENTIONS[convention]
    rep = _rec(raw_copy(generated_walk, names=names))
    assert rep.family == "humanoid" and rep.method == "names" and rep.ok
    for mark, lafan in EXPECTED.items():
        assert rep.landmarks[mark] == names[lafan], mark
    assert list(rep.landmarks) == list(HUMANOID_LANDMARKS)


def test_landmarks_are_found_by_shape_when_names_say_nothing(generated_walk: Motion) -> None:
    names = stripped(generated_walk)
    rep = _rec(raw_copy(generated_walk, names=names, unit="inch", up="z"))
    assert rep.method == "structure" and rep.ok and rep.family == "humanoid"
    for mark, lafan in EXPECTED.items():
        assert rep.landmarks[mark] == names[lafan], mark  # sides included: left is +lateral facing forward


def test_toeless_rig_falls_back_to_the_ankle(generated_walk: Motion) -> None:
    data = raw_copy(generated_walk)
    keep = [j for j, n in enumerate(data.skeleton.names) if "Toe" not in n]
    sk = data.skeleton
    text = _drop_joints(data, keep)
    rep = _rec(parse_bvh(text))
    assert rep.ok and rep.landmarks["toe_l"] == rep.landmarks["ankle_l"] == "LeftFoot"
    assert sk.num_joints - len(keep) == 2


def _drop_joints(data, keep: list[int]) -> str:  # type: ignore[no-untyped-def]
    """BVH text of the data without the joints not in keep (leaves only)."""
    from kinemorph.motion.bvh import format_bvh
    from kinemorph.motion.skeleton import Skeleton

    sk = data.skeleton
    remap = {j: i for i, j in enumerate(keep)}
    parents = np.array([-1 if sk.parents[j] < 0 else remap[int(sk.parents[j])] for j in keep])
    new = Skeleton(tuple(sk.names[j] for j in keep), parents, sk.offsets[keep], tuple(sk.channels[j] for j in keep))
    lr, lp = data.local_transforms()
    return format_bvh(new, data.frame_time, lr[:, keep], lp[:, keep])


# -- axes, unit, floor ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("unit", "up"), [("cm", "y"), ("m", "z"), ("mm", "y"), ("inch", "-z"), ("cmu", "x"), ("ft", "y")]
)
def test_unit_and_up_axis_are_detected(generated_walk: Motion, unit: str, up: str) -> None:
    m = _motion(raw_copy(generated_walk, names=CONVENTIONS["mixamo"], unit=unit, up=up))
    assert (m.rig.unit, m.rig.up) == (unit, up)
    # the same poses as the original, up to the renaming
    np.testing.assert_allclose(m.positions[:, : m.skeleton.num_joints], generated_walk.positions[:, :22], atol=1e-5)
    assert m.stature() == pytest.approx(generated_walk.stature(), rel=1e-6)


def test_odd_unit_is_scaled_to_a_typical_stature_with_a_warning(generated_walk: Motion) -> None:
    data = raw_copy(generated_walk, names=CONVENTIONS["cmu"], unit="m")
    odd = parse_bvh(_scaled_text(data, 1 / 0.0035))  # 3.5 mm per unit: no named unit fits
    with pytest.warns(UserWarning, match="no common unit"):
        m = _motion(odd)
    assert m.rig.stature == pytest.approx(1.7, rel=1e-6)
    with pytest.raises(RigError, match="strict"):
        _motion(odd, strict=True)


def _scaled_text(data, factor: float) -> str:  # type: ignore[no-untyped-def]
    from kinemorph.motion.bvh import format_bvh
    from kinemorph.motion.skeleton import EndSite, Skeleton

    sk = data.skeleton
    new = Skeleton(sk.names, sk.parents, sk.offsets * factor, sk.channels,
                   tuple(EndSite(e.parent, e.offset * factor) for e in sk.end_sites))  # fmt: skip
    lr, lp = data.local_transforms()
    return format_bvh(new, data.frame_time, lr, lp * factor)


def test_unit_and_up_overrides_are_used(generated_walk: Motion) -> None:
    data = raw_copy(generated_walk, unit="inch", up="z")
    m = _motion(data, unit="inch", up="z")
    assert (m.rig.unit_source, m.rig.up_source) == ("given", "given")
    assert m.stature() == pytest.approx(generated_walk.stature(), rel=1e-6)
    m2 = _motion(data, unit=0.0254)
    np.testing.assert_allclose(m2.positions, m.positions, atol=1e-9)


def test_unit_override_making_the_stature_implausible_is_refused(generated_walk: Motion) -> None:
    data = raw_copy(generated_walk, unit="cm")
    with pytest.raises(RigError, match=r"synthetic.bvh: with unit m the stature is .* outside .*unit cm gives"):
        _motion(data, unit="m")


@pytest.mark.parametrize("bad", ["furlong", "-1", "0"])
def test_bad_unit_names_the_valid_ones(bad: str) -> None:
    with pytest.raises(KinemorphError, match="unit"):
        parse_unit(bad)


def test_bad_up_axis_names_the_valid_ones() -> None:
    with pytest.raises(KinemorphError, match=r"valid: x, y, z, -x, -y, -z"):
        parse_up("w")


def test_floor_far_from_zero_is_moved_to_the_feet(generated_walk: Motion) -> None:
    lifted = _scaled_text(raw_copy(generated_walk, unit="cm"), 1.0).replace("\n", "\n", 1)
    data = parse_bvh(lifted)
    lr, lp = data.local_transforms()
    lp[:, 0, 1] += 80.0  # the whole clip 80 cm up
    m = motion_from_raw(data.skeleton, lr, lp, 30.0, source="lifted.bvh")
    low = np.quantile(m.positions[:, : m.skeleton.num_joints, 2].min(axis=1), 0.1)
    assert abs(low) < 0.05 and m.rig.floor == pytest.approx(0.8, abs=0.05)


# -- refusals --------------------------------------------------------------------------------------
def test_rig_without_legs_is_reported_with_what_was_found(generated_walk: Motion) -> None:
    data = raw_copy(generated_walk)
    keep = [j for j, n in enumerate(data.skeleton.names) if not any(k in n for k in ("UpLeg", "Leg", "Foot", "Toe"))]
    m = _motion(parse_bvh(_drop_joints(data, keep)))
    assert m.family == "other"
    msg = m.rig.problem
    assert msg.startswith("synthetic.bvh: ") and "\n" not in msg
    assert "found arm" in msg and "missing left hip" in msg and "Your own skeleton" in msg and "calibrate" in msg


def test_two_pelvises_are_ambiguous(generated_walk: Motion) -> None:
    one = raw_copy(generated_walk, names={n: "a:" + n for n in generated_walk.skeleton.names})
    text = _two_characters(one)
    m = _motion(parse_bvh(text))
    assert m.family == "other" and "ambiguous rig: 2 candidate pelvises (a:Hips, b:Hips)" in m.rig.problem


def _two_characters(data) -> str:  # type: ignore[no-untyped-def]
    from kinemorph.motion.bvh import format_bvh
    from kinemorph.motion.skeleton import EndSite, Skeleton

    sk = data.skeleton
    n = sk.num_joints
    names = ("scene", *sk.names, *(x.replace("a:", "b:") for x in sk.names))
    parents = np.concatenate([[-1, 0], sk.parents[1:] + 1, [0], sk.parents[1:] + 1 + n])
    offsets = np.vstack([np.zeros(3), sk.offsets, sk.offsets + np.array([100.0, 0, 0])])
    chans = (("Xposition", "Yposition", "Zposition", "Zrotation", "Yrotation", "Xrotation"), *sk.channels, *sk.channels)
    ends = tuple(EndSite(e.parent + 1, e.offset) for e in sk.end_sites) + tuple(
        EndSite(e.parent + 1 + n, e.offset) for e in sk.end_sites
    )
    new = Skeleton(names, parents, offsets, chans, ends)
    lr, lp = data.local_transforms()
    t = lr.shape[0]
    root_r = np.tile([1.0, 0, 0, 0], (t, 1, 1))
    lr2 = np.concatenate([root_r, lr, lr], axis=1)
    lp2 = np.concatenate([np.zeros((t, 1, 3)), lp, lp + np.array([100.0, 0, 0])], axis=1)
    return format_bvh(new, data.frame_time, lr2, lp2)


def test_eight_legged_rig_is_refused_in_one_line() -> None:
    m = _motion(parse_bvh(crab_bvh(8)))
    assert m.family == "other"
    assert "8 limbs" in m.rig.problem and "\n" not in m.rig.problem


def test_unrecognised_rig_refuses_the_default_mapping_with_the_recipe() -> None:
    robot = robot_or_skip("unitree_g1")
    from kinemorph.mapping.mapping import default_mapping

    m = _motion(parse_bvh(crab_bvh(8)))
    with pytest.raises(KinemorphError, match=r"synthetic.bvh: .*Your own skeleton"):
        default_mapping(m, robot)


# -- quadrupeds ----------------------------------------------------------------------------------
def test_dog_rig_without_its_preset_is_a_quadruped_with_four_legs() -> None:
    from conftest import data_path
    from kinemorph.motion import load_motion

    m = load_motion(data_path("dog_walk.bvh"), "generic")
    assert m.family == "quadruped" and m.rig.unit == "cm" and m.rig.up == "y"
    assert [r for r, _ in m.legs] == ["b_LeftArm", "b_RightArm", "b_LeftLegUpper", "b_RightLegUpper"]
    paws = np.stack([m.body(p)[0][:, 2] for _, p in m.legs])
    assert np.median(paws) < 0.08  # paws are on the floor, not the wrists


def test_misleading_names_fall_back_to_the_shape(generated_walk: Motion) -> None:
    """A rig calling its thighs "Leg" and its knees "Knee": names give no consistent leg, the
    tree's shape does."""
    names = {"LeftUpLeg": "LeftLeg", "LeftLeg": "LeftKnee", "RightUpLeg": "RightLeg", "RightLeg": "RightKnee"}
    rep = _rec(raw_copy(generated_walk, names=names))
    assert rep.ok and rep.method == "structure"
    assert (rep.landmarks["hip_l"], rep.landmarks["knee_l"], rep.landmarks["ankle_r"]) == (
        "LeftLeg",
        "LeftKnee",
        "RightFoot",
    )


def test_recognition_agrees_with_the_lafan1_landmark_table(generated_walk: Motion) -> None:
    """The shipped mappings' LAFAN1 names are the landmarks recognition finds on LAFAN1."""
    from kinemorph.mapping.landmarks import LAFAN1_LANDMARKS

    rep = _rec(raw_copy(generated_walk))
    for joint, mark in LAFAN1_LANDMARKS.items():
        if mark in rep.landmarks and mark not in ("spine", "neck"):
            assert rep.landmarks[mark] == joint, mark


@pytest.mark.parametrize("names", ["kept", "stripped"])
def test_twist_bones_fingers_face_and_a_reference_root_change_nothing(generated_walk: Motion, names: str) -> None:
    from rig_cases import augmented

    data = augmented(raw_copy(generated_walk, unit="inch", up="z"))
    if names == "stripped":
        table = {n: f"b{k:03d}" for k, n in enumerate(np.random.default_rng(3).permutation(data.skeleton.names))}
        text_sk = data.skeleton
        from kinemorph.motion.bvh import format_bvh
        from kinemorph.motion.skeleton import Skeleton

        lr, lp = data.local_transforms()
        renamed = Skeleton(tuple(table[n] for n in text_sk.names), text_sk.parents, text_sk.offsets, text_sk.channels,
                           text_sk.end_sites)  # fmt: skip
        data = parse_bvh(format_bvh(renamed, data.frame_time, lr, lp))
    else:
        table = {n: n for n in data.skeleton.names}
    m = _motion(data)
    rep = m.rig
    assert rep.ok and rep.family == "humanoid" and (rep.unit, rep.up) == ("inch", "z")
    for mark, lafan in EXPECTED.items():
        assert rep.landmarks[mark] == table[lafan], mark
    i = [m.skeleton.index(table[n]) for n in generated_walk.skeleton.names]
    np.testing.assert_allclose(m.positions[:, i], generated_walk.positions[:, :22], atol=1e-5)


def test_a_child_sized_rig_keeps_its_unit(generated_walk: Motion) -> None:
    """1.1 m tall in centimetres: outside the adult range, inside the plausible one: still cm."""
    data = raw_copy(generated_walk, unit="cm")
    adult = _rec(data).stature
    rep = _rec(parse_bvh(_scaled_text(data, 1.1 / adult)))
    assert rep.unit == "cm" and rep.stature == pytest.approx(1.1, rel=1e-6) and not rep.warnings


@pytest.mark.parametrize(
    ("name", "side", "part"),
    [
        ("L_thigh_jnt", "l", "thigh"),
        ("thigh_l_01", "l", "thigh"),
        ("KneeLeft", "l", "knee"),
        ("Character1_LeftUpLeg", "l", "upleg"),
        ("LHip", "l", "hip"),
        ("hand_r_bind", "r", "hand"),
        ("Skeleton001_RShin", "r", "shin"),
    ],
)
def test_more_naming_habits(name: str, side: str, part: str) -> None:
    got = parse_name(name)
    assert (got.side, got.part) == (side, part)


KINECT = {
    "Hips": "SpineBase", "LeftUpLeg": "HipLeft", "LeftLeg": "KneeLeft", "LeftFoot": "AnkleLeft", "LeftToe": "FootLeft",
    "RightUpLeg": "HipRight", "RightLeg": "KneeRight", "RightFoot": "AnkleRight", "RightToe": "FootRight",
    "Spine": "SpineMid", "Spine1": "Spine1", "Spine2": "SpineShoulder", "Neck": "Neck", "Head": "Head",
    "LeftShoulder": "ClavicleLeft", "LeftArm": "ShoulderLeft", "LeftForeArm": "ElbowLeft", "LeftHand": "WristLeft",
    "RightShoulder": "ClavicleRight", "RightArm": "ShoulderRight", "RightForeArm": "ElbowRight",
    "RightHand": "WristRight",
}  # fmt: skip
OPENPOSE_LIKE = {
    **{n: n for n in ("Hips", "Spine", "Spine1", "Spine2", "Neck", "Head")},
    **{f"{side}{j}": f"{side[0]}{k}" for side in ("Left", "Right") for j, k in (
        ("UpLeg", "Hip"), ("Leg", "Knee"), ("Foot", "Ankle"), ("Toe", "BigToe"), ("Shoulder", "Clavicle"),
        ("Arm", "Shoulder"), ("ForeArm", "Elbow"), ("Hand", "Wrist"))},
}  # fmt: skip


@pytest.mark.parametrize("names", [KINECT, OPENPOSE_LIKE, {n: f"Character1_{n}" for n in CONVENTIONS["cmu"]},
                                   {n: f"{n}_jnt" for n in CONVENTIONS["cmu"]}])  # fmt: skip
def test_more_conventions_by_name(generated_walk: Motion, names: dict[str, str]) -> None:
    rep = _rec(raw_copy(generated_walk, names=names))
    assert rep.ok and rep.method == "names"
    for mark in ("hip_l", "knee_l", "ankle_r", "shoulder_l", "elbow_r", "wrist_l"):
        assert rep.landmarks[mark] == names[EXPECTED[mark]], mark


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 30),
    seed=st.integers(0, 2**31 - 1),
    frames=st.integers(1, 5),
)
def test_any_tree_loads_or_fails_with_the_packages_error(n: int, seed: int, frames: int) -> None:
    """Random trees, lengths and poses: recognition never raises anything but KinemorphError."""
    from kinemorph.motion.skeleton import EndSite, Skeleton
    from kinemorph.transforms import quat_normalize

    rng = np.random.default_rng(seed)
    parents = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, n)])
    offsets = rng.normal(size=(n, 3)) * rng.choice([0.0, 1.0, 30.0], size=(n, 1))
    chans = (("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation"),) + (
        ("Zrotation", "Xrotation", "Yrotation"),
    ) * (n - 1)
    names = tuple(rng.choice(["Hips", "LeftLeg", "RightLeg", "LeftArm", "Head", "j"]) + str(i) for i in range(n))
    sk = Skeleton(names, parents, offsets, chans, (EndSite(n - 1, np.array([0.0, 1.0, 0.0])),))
    lr = quat_normalize(rng.normal(size=(frames, n, 4)))
    lp = np.broadcast_to(offsets, (frames, n, 3)).copy()
    try:
        with np.errstate(all="ignore"):
            motion_from_raw(sk, lr, lp, 30.0, source="random.bvh")
    except KinemorphError:
        pass


@pytest.mark.parametrize("legs", range(1, 11))
def test_radial_rigs_with_any_leg_count_never_crash(legs: int) -> None:
    from kinemorph.transforms import quat_normalize

    data = parse_bvh(crab_bvh(legs))
    lr, lp = data.local_transforms()
    rng = np.random.default_rng(legs)
    lr = quat_normalize(lr + 0.3 * rng.normal(size=lr.shape))
    try:
        m = motion_from_raw(data.skeleton, lr, lp, 30.0, source="radial.bvh")
    except KinemorphError:
        return
    assert m.family in ("humanoid", "quadruped", "other")
    if legs > 4 or legs == 3:
        assert m.family == "other" and f"the rig has {legs} limbs" in m.rig.problem


@pytest.mark.parametrize(
    ("robot_name", "kind"), [("unitree_g1", "mixamo"), ("unitree_g1", "stripped"), ("booster_t1", "xsens"),
                             ("unitree_h1", "stripped")],
)  # fmt: skip
def test_renamed_rig_retargets_like_lafan1_with_the_shipped_mapping(
    generated_walk: Motion, robot_name: str, kind: str
) -> None:
    """The generated walk (LAFAN1 skeleton) in another rig's names, unit and up axis: the landmark
    path (shipped mapping renamed, calibrated on the rig) gives the robot motion the LAFAN1 path gives."""
    from kinemorph.retarget import retarget

    robot = robot_or_skip(robot_name)
    clip = generated_walk.slice(0, 90)
    names = stripped(clip) if kind == "stripped" else CONVENTIONS[kind]
    m = _motion(raw_copy(clip, names=names, unit="inch", up="-y" if kind == "stripped" else "z"))
    a, b = retarget(m, robot, engine="gmr"), retarget(clip, robot, engine="gmr")
    assert np.abs(a.dof_pos - b.dof_pos).max() < 1e-3
    assert np.abs(a.root_pos - b.root_pos).max() < 1e-4


def _table(names: dict[str, str]) -> dict[str, str]:
    return {mark: names[lafan] for mark, lafan in EXPECTED.items()}


def test_a_landmark_table_replaces_recognition(generated_walk: Motion) -> None:
    names = stripped(generated_walk)
    table = _table(names)
    m = _motion(raw_copy(generated_walk, names=names, unit="cm"), landmarks=table)
    assert m.rig.method == "given" and m.rig.ok and m.family == "humanoid"
    assert all(m.rig.landmarks[k] == v for k, v in table.items())


def test_a_bad_landmark_table_is_refused_with_the_valid_names(generated_walk: Motion) -> None:
    names = stripped(generated_walk)
    data = raw_copy(generated_walk, names=names)
    with pytest.raises(KinemorphError, match=r"landmark table\): unknown joint \(for landmark knee_l\) 'Knee'"):
        _motion(data, landmarks={**_table(names), "knee_l": "Knee"})
    with pytest.raises(KinemorphError, match="unknown landmark 'kneecap'; valid: "):
        _motion(data, landmarks={**_table(names), "kneecap": names["LeftLeg"]})
    table = _table(names)
    del table["wrist_r"]
    with pytest.raises(KinemorphError, match="the landmark table needs wrist_r"):
        _motion(data, landmarks=table)
