"""BVH reading and writing: parsing, forward kinematics, round trips, and every malformed input."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import data_path, needs_data
from kinemorph.errors import KinemorphError, MotionFileError
from kinemorph.motion import (
    Motion,
    Preset,
    apply_preset,
    forward_kinematics,
    load_motion,
    parse_bvh,
    read_bvh,
    save_bvh,
)
from kinemorph.transforms import euler_to_quat, quat_to_mat

# Channels in odd orders, position channels interleaved with rotations on a non-root joint,
# a joint without channels, End Sites, and a frame time that is not 1/30.
SEED = """\
HIERARCHY
ROOT Hips
{
\tOFFSET 1.0 2.0 3.0
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
\tJOINT Spine
\t{
\t\tOFFSET 0.0 10.0 0.0
\t\tCHANNELS 3 Yrotation Xrotation Zrotation
\t\tJOINT Head
\t\t{
\t\t\tOFFSET 0.0 5.0 0.0
\t\t\tCHANNELS 6 Zrotation Xposition Yrotation Yposition Xrotation Zposition
\t\t\tEnd Site
\t\t\t{
\t\t\t\tOFFSET 0.0 3.0 0.0
\t\t\t}
\t\t}
\t}
\tJOINT Tail
\t{
\t\tOFFSET 0.0 -2.0 -1.0
\t\tCHANNELS 0
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0.0 0.0 -4.0
\t\t}
\t}
\tJOINT Leg
\t{
\t\tOFFSET 2.0 0.0 0.0
\t\tCHANNELS 3 Xrotation Zrotation Yrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0.0 -4.0 0.0
\t\t}
\t}
}
MOTION
Frames: 3
Frame Time: 0.0125
0 90 0 0 0 0 0 0 0 0 0.5 0 6 0 0.25 0 0 0
10 90 -5 90 0 0 0 90 0 0 1 90 2 0 3 0 0 45
1 2 3 10 20 30 40 50 60 70 7 80 8 90 9 11 12 13
"""

SEED_LINES = SEED.splitlines()
NUM_CHANNELS = 18
HIPS, SPINE, HEAD, TAIL, LEG = range(5)


def line_of(text: str, needle: str) -> int:
    """1-based number of the first line containing needle."""
    for n, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in text")


DATA_LINE = line_of(SEED, "Frame Time") + 1  # the first frame's line


def replace_line(number: int, new: str, text: str = SEED) -> str:
    lines = text.splitlines()
    lines[number - 1] = new
    return "\n".join(lines) + "\n"


def rot(axis: str, deg: float) -> np.ndarray:
    return quat_to_mat(euler_to_quat(np.radians([deg]), axis))


def seed_motion(preset: Preset) -> Motion:
    return apply_preset(parse_bvh(SEED), preset)


Y_UP_CM = Preset(name="y_cm", up="y", unit="cm")
Z_UP_M = Preset(name="z_m", up="z", unit="m")


# -- parsing ----------------------------------------------------------------------------------
def test_parse_reads_joint_tree() -> None:
    sk = parse_bvh(SEED).skeleton
    assert sk.names == ("Hips", "Spine", "Head", "Tail", "Leg")
    np.testing.assert_array_equal(sk.parents, [-1, HIPS, SPINE, HIPS, HIPS])
    np.testing.assert_array_equal(sk.offsets, [[1, 2, 3], [0, 10, 0], [0, 5, 0], [0, -2, -1], [2, 0, 0]])
    assert sk.channels[SPINE] == ("Yrotation", "Xrotation", "Zrotation")
    assert sk.channels[TAIL] == ()
    assert sk.num_channels == NUM_CHANNELS
    assert [sk.rotation_order(j) for j in range(5)] == ["zxy", "yxz", "zyx", "", "xzy"]
    assert [sk.has_position(j) for j in range(5)] == [True, False, True, False, False]


def test_parse_reads_end_sites() -> None:
    ends = parse_bvh(SEED).skeleton.end_sites
    assert [e.parent for e in ends] == [HEAD, TAIL, LEG]
    np.testing.assert_array_equal([e.offset for e in ends], [[0, 3, 0], [0, 0, -4], [0, -4, 0]])


def test_parse_reads_frames_and_values() -> None:
    data = parse_bvh(SEED)
    assert data.num_frames == 3
    assert data.values.shape == (3, NUM_CHANNELS)
    np.testing.assert_array_equal(data.values[2, :6], [1, 2, 3, 10, 20, 30])


def test_frame_time_is_read_from_the_file() -> None:
    assert parse_bvh(SEED).frame_time == 0.0125
    assert seed_motion(Z_UP_M).fps == pytest.approx(80.0)


def test_parse_accepts_windows_line_endings_and_trailing_blank_lines() -> None:
    data = parse_bvh(SEED.replace("\n", "\r\n") + "\r\n\r\n")
    np.testing.assert_array_equal(data.values, parse_bvh(SEED).values)


def test_local_rotations_apply_channels_in_file_order() -> None:
    rot_q, _ = parse_bvh(SEED).local_transforms()
    m = quat_to_mat(rot_q[2])
    np.testing.assert_allclose(m[HIPS], rot("z", 10) @ rot("x", 20) @ rot("y", 30), atol=1e-12)
    np.testing.assert_allclose(m[SPINE], rot("y", 40) @ rot("x", 50) @ rot("z", 60), atol=1e-12)
    np.testing.assert_allclose(m[HEAD], rot("z", 70) @ rot("y", 80) @ rot("x", 90), atol=1e-12)
    np.testing.assert_allclose(m[TAIL], np.eye(3), atol=0)
    np.testing.assert_allclose(m[LEG], rot("x", 11) @ rot("z", 12) @ rot("y", 13), atol=1e-12)


def test_position_channels_replace_the_offset_on_any_joint() -> None:
    _, pos = parse_bvh(SEED).local_transforms()
    np.testing.assert_array_equal(pos[2, HIPS], [1, 2, 3])
    np.testing.assert_array_equal(pos[2, HEAD], [7, 8, 9])  # interleaved Xposition / Yposition / Zposition
    np.testing.assert_array_equal(pos[0, HEAD], [0.5, 6, 0.25])
    np.testing.assert_array_equal(pos[:, SPINE], np.tile([0, 10, 0], (3, 1)))  # no position channels: offset


def test_forward_kinematics_matches_hand_computed_positions() -> None:
    data = parse_bvh(SEED)
    gpos, grot = forward_kinematics(data.skeleton, *data.local_transforms())
    # Frame 0: no rotation; the root and Head translations come from their position channels.
    np.testing.assert_allclose(
        gpos[0], [[0, 90, 0], [0, 100, 0], [0.5, 106, 0.25], [0, 88, -1], [2, 90, 0]], atol=1e-12
    )
    # Frame 1: root turned 90 deg about z (x -> y, y -> -x), Spine 90 deg about x (y -> z, z -> -y).
    # Spine = (10,90,-5) + Rz (0,10,0) = (0,90,-5); Head = Spine + Rz Rx (1,2,3) = Spine + Rz (1,-3,2) = (3,91,-3);
    # Tail = Hips + Rz (0,-2,-1) = (12,90,-6); Leg = Hips + Rz (2,0,0) = (10,92,-5).
    np.testing.assert_allclose(
        gpos[1], [[10, 90, -5], [0, 90, -5], [3, 91, -3], [12, 90, -6], [10, 92, -5]], atol=1e-12
    )
    m = quat_to_mat(grot[1])
    np.testing.assert_allclose(m[HEAD], rot("z", 90) @ rot("x", 90) @ rot("y", 90), atol=1e-12)
    np.testing.assert_allclose(m[LEG], rot("z", 90) @ rot("y", 45), atol=1e-12)
    np.testing.assert_allclose(m[TAIL], rot("z", 90), atol=1e-12)


def test_y_up_preset_maps_axes_and_units() -> None:
    """Y-up centimetres to Z-up metres: (x, y, z) -> (x, -z, y) / 100."""
    data = parse_bvh(SEED)
    raw, _ = forward_kinematics(data.skeleton, *data.local_transforms())
    motion = seed_motion(Y_UP_CM)
    expect = np.stack([raw[..., 0], -raw[..., 2], raw[..., 1]], axis=-1) * 0.01
    np.testing.assert_allclose(motion.positions, expect, atol=1e-12)
    assert motion.body_names == data.skeleton.names


def test_auto_unit_reads_a_metre_skeleton_as_metres() -> None:
    small = SEED.replace("Frames: 3", "Frames: 1").split("\n")
    text = "\n".join([*small[: DATA_LINE - 1], "0 0.9 0 0 0 0 0 0 0 0 0.01 0 0.06 0 0.0 0 0 0"]) + "\n"
    text = text.replace("OFFSET 0.0 10.0 0.0", "OFFSET 0.0 0.1 0.0")
    motion = apply_preset(parse_bvh(text), Preset(name="auto_unit", up="z", unit="auto"))
    np.testing.assert_allclose(motion.positions[0, SPINE], [0, 1.0, 0], atol=1e-12)


# -- round trips ------------------------------------------------------------------------------
def assert_same_motion(a: Motion, b: Motion, *, atol: float) -> None:
    assert b.body_names == a.body_names
    assert b.skeleton.channels == a.skeleton.channels
    np.testing.assert_array_equal(b.skeleton.parents, a.skeleton.parents)
    np.testing.assert_allclose(b.skeleton.offsets, a.skeleton.offsets, atol=atol)
    for ea, eb in zip(a.skeleton.end_sites, b.skeleton.end_sites, strict=True):
        assert ea.parent == eb.parent
        np.testing.assert_allclose(eb.offset, ea.offset, atol=atol)
    assert b.fps == pytest.approx(a.fps, rel=1e-7)
    np.testing.assert_allclose(b.positions, a.positions, atol=atol)
    np.testing.assert_allclose(b.local_positions, a.local_positions, atol=atol)
    np.testing.assert_allclose(quat_to_mat(b.rotations), quat_to_mat(a.rotations), atol=1e-6)


@pytest.mark.parametrize(("up", "unit", "preset"), [("y", "cm", Y_UP_CM), ("z", "m", Z_UP_M)])
def test_save_bvh_then_load_motion_round_trips(tmp_path: Path, up: str, unit: str, preset: Preset) -> None:
    src = tmp_path / "seed.bvh"
    src.write_text(SEED)
    motion = load_motion(src, Y_UP_CM)
    out = save_bvh(motion, tmp_path / "out.bvh", up=up, unit=unit)
    back = load_motion(out, preset)
    assert_same_motion(motion, back, atol=1e-5)


def test_save_bvh_default_is_a_lafan1_style_file(tmp_path: Path) -> None:
    motion = seed_motion(Z_UP_M)
    out = save_bvh(motion, tmp_path / "out.bvh")
    raw = read_bvh(out)
    assert raw.skeleton.channels == motion.skeleton.channels
    assert raw.frame_time == pytest.approx(0.0125)
    # Z-up metres written as Y-up centimetres: the root's translation (x, y, z) m -> (100x, 100z, -100y).
    p = motion.local_positions[:, HIPS]
    np.testing.assert_allclose(raw.values[:, :3], np.stack([p[:, 0], p[:, 2], -p[:, 1]], axis=-1) * 100, atol=1e-5)


def test_save_bvh_refuses_to_overwrite(tmp_path: Path) -> None:
    motion = seed_motion(Z_UP_M)
    out = save_bvh(motion, tmp_path / "out.bvh")
    with pytest.raises(KinemorphError, match="exists"):
        save_bvh(motion, out)
    save_bvh(motion, out, force=True)


@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    up_unit=st.sampled_from(
        [("y", "cm", Y_UP_CM), ("z", "m", Z_UP_M), ("y", "mm", Preset(name="mm", up="y", unit="mm"))]
    ),
    lock=st.booleans(),
)
def test_random_poses_round_trip(seed: int, up_unit: tuple[str, str, Preset], lock: bool) -> None:
    """Random joint rotations (optionally at gimbal lock of every joint's channel order) survive writing."""
    rng = np.random.default_rng(seed)
    base = parse_bvh(SEED)
    values = rng.uniform(-180, 180, size=(4, NUM_CHANNELS))
    rot_cols = [c for c, name in enumerate(np.concatenate(base.skeleton.channels)) if name.endswith("rotation")]
    pos_cols = [c for c in range(NUM_CHANNELS) if c not in rot_cols]
    values[:, pos_cols] = rng.uniform(-50, 50, size=(4, len(pos_cols)))
    if lock:  # the middle rotation channel of every joint at +-90 deg
        col = 0
        for chans in base.skeleton.channels:
            mids = [col + i for i, c in enumerate(chans) if c.endswith("rotation")]
            if mids:
                values[:, mids[1]] = rng.choice([-90.0, 90.0], size=4)
            col += len(chans)
    data = type(base)(skeleton=base.skeleton, frame_time=1 / 30, values=values)
    motion = apply_preset(data, Y_UP_CM)
    up, unit, preset = up_unit
    with tempfile.TemporaryDirectory() as tmp:
        back = load_motion(save_bvh(motion, Path(tmp) / "m.bvh", up=up, unit=unit), preset)
    assert_same_motion(motion, back, atol=2e-5)


# -- malformed input --------------------------------------------------------------------------
def assert_error_at(text: str, line: int, match: str) -> MotionFileError:
    with pytest.raises(MotionFileError, match=match) as info:
        parse_bvh(text, "clip.bvh")
    assert info.value.line == line
    assert f"clip.bvh:{line}:" in str(info.value)
    return info.value


@pytest.mark.parametrize(
    "cut_after", ["JOINT Head", "OFFSET 0.0 5.0 0.0", "End Site", "CHANNELS 0", "MOTION", "Frames"]
)
def test_truncated_header_names_the_last_line(cut_after: str) -> None:
    n = line_of(SEED, cut_after)
    text = "\n".join(SEED_LINES[:n]) + "\n"
    assert_error_at(text, n, "file ends early")


def test_empty_file_is_an_error() -> None:
    with pytest.raises(MotionFileError, match="file ends early: expected HIERARCHY"):
        parse_bvh("", "clip.bvh")


@pytest.mark.parametrize("kept", [0, 1, 2])
def test_missing_data_lines_are_reported(kept: int) -> None:
    text = "\n".join(SEED_LINES[: DATA_LINE - 1 + kept]) + "\n"
    assert_error_at(text, DATA_LINE - 1 + kept, f"header says 3 frames, found {kept} data lines")


def test_extra_data_lines_are_reported() -> None:
    text = SEED + SEED_LINES[-1] + "\n" + SEED_LINES[-1] + "\n"
    assert_error_at(text, DATA_LINE + 3, "more data lines than the 3 frames")


def test_blank_line_inside_the_data_is_an_error() -> None:
    lines = list(SEED_LINES)
    lines.insert(DATA_LINE, "")
    assert_error_at("\n".join(lines) + "\n", DATA_LINE + 1, "blank line inside the frame data")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("CHANNELS 3 Yrotation Xrotation Zrotation", "CHANNELS 4 Yrotation Xrotation Zrotation"),
        ("CHANNELS 3 Yrotation Xrotation Zrotation", "CHANNELS 2 Yrotation Xrotation Zrotation"),
        ("CHANNELS 0", "CHANNELS 1"),
    ],
)
def test_wrong_channels_count(old: str, new: str) -> None:
    n = line_of(SEED, old)
    assert_error_at(replace_line(n, "\t" + new), n, "CHANNELS says")


def test_non_integer_channels_count() -> None:
    n = line_of(SEED, "CHANNELS 0")
    assert_error_at(replace_line(n, "CHANNELS x"), n, "not an integer")


def test_too_many_channels() -> None:
    n = line_of(SEED, "CHANNELS 3 Xrotation")
    bad = "CHANNELS 7 Xrotation Zrotation Yrotation Xposition Yposition Zposition Xrotation"
    assert_error_at(replace_line(n, bad), n, "at most 6")


def test_repeated_channel() -> None:
    n = line_of(SEED, "CHANNELS 3 Xrotation")
    assert_error_at(replace_line(n, "CHANNELS 3 Xrotation Zrotation Xrotation"), n, "repeated channel")


def test_unknown_channel_lists_valid_ones() -> None:
    n = line_of(SEED, "CHANNELS 3 Yrotation")
    err = assert_error_at(replace_line(n, "CHANNELS 3 Yrotation Wrotation Zrotation"), n, "unknown channel 'Wrotation'")
    assert "Xrotation" in str(err) and "Zposition" in str(err)


@pytest.mark.parametrize("frame", [0, 1, 2])
@pytest.mark.parametrize("token", ["abc", "1.2.3", "--1", "0x10"])
def test_non_numeric_value_names_its_line(frame: int, token: str) -> None:
    values = SEED_LINES[DATA_LINE - 1 + frame].split()
    values[5] = token
    assert_error_at(
        replace_line(DATA_LINE + frame, " ".join(values)), DATA_LINE + frame, "channel 6: .* is not a number"
    )


@pytest.mark.parametrize("frame", [0, 2])
@pytest.mark.parametrize("token", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999"])
def test_non_finite_value_names_its_line(frame: int, token: str) -> None:
    values = SEED_LINES[DATA_LINE - 1 + frame].split()
    values[17] = token
    assert_error_at(replace_line(DATA_LINE + frame, " ".join(values)), DATA_LINE + frame, "not finite")


@pytest.mark.parametrize("count", [NUM_CHANNELS - 1, NUM_CHANNELS + 1])
def test_wrong_number_of_values_names_its_line(count: int) -> None:
    line = " ".join(["0"] * count)
    assert_error_at(
        replace_line(DATA_LINE + 1, line), DATA_LINE + 1, f"expected {NUM_CHANNELS} channel values, found {count}"
    )


@pytest.mark.parametrize("token", ["nan", "inf", "abc"])
def test_bad_offset_names_its_line(token: str) -> None:
    n = line_of(SEED, "OFFSET 0.0 10.0 0.0")
    assert_error_at(replace_line(n, f"OFFSET 0.0 {token} 0.0"), n, "OFFSET")


def test_offset_with_two_numbers() -> None:
    n = line_of(SEED, "OFFSET 0.0 10.0 0.0")
    assert_error_at(replace_line(n, "OFFSET 0.0 10.0"), n, "OFFSET needs 3 numbers")


@pytest.mark.parametrize("count", ["0", "-2"])
def test_zero_or_negative_frame_count(count: str) -> None:
    n = line_of(SEED, "Frames:")
    text = "\n".join([*SEED_LINES[: n - 1], f"Frames: {count}", SEED_LINES[n]]) + "\n"
    assert_error_at(text, n, "at least one is needed")


def test_non_integer_frame_count() -> None:
    n = line_of(SEED, "Frames:")
    assert_error_at(replace_line(n, "Frames: 3.5"), n, "not an integer")


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ("0", "must be positive"),
        ("-0.01", "must be positive"),
        ("nan", "not finite"),
        ("inf", "not finite"),
        ("fast", "not a number"),
    ],
)
def test_bad_frame_time(value: str, match: str) -> None:
    n = line_of(SEED, "Frame Time:")
    assert_error_at(replace_line(n, f"Frame Time: {value}"), n, match)


def test_missing_frame_time_line() -> None:
    n = line_of(SEED, "Frame Time:")
    assert_error_at(replace_line(n, "Frame: 0.0125"), n, "expected 'Frame Time")


def test_missing_closing_brace() -> None:
    lines = list(SEED_LINES)
    last_brace = line_of(SEED, "MOTION") - 1
    assert lines[last_brace - 1] == "}"
    del lines[last_brace - 1]
    assert_error_at("\n".join(lines) + "\n", last_brace, "unexpected 'MOTION' in HIERARCHY")


def test_extra_closing_brace() -> None:
    lines = list(SEED_LINES)
    n = line_of(SEED, "MOTION")
    lines.insert(n - 1, "}")
    assert_error_at("\n".join(lines) + "\n", n, "expected MOTION, found '}'")


def test_missing_opening_brace() -> None:
    n = line_of(SEED, "JOINT Tail") + 1
    lines = list(SEED_LINES)
    del lines[n - 1]
    assert_error_at("\n".join(lines) + "\n", n, "expected '{' after JOINT Tail")


def test_joint_inside_an_end_site() -> None:
    n = line_of(SEED, "OFFSET 0.0 0.0 -4.0") + 1
    lines = list(SEED_LINES)
    lines[n - 1 : n - 1] = ["JOINT Bad", "{"]
    assert_error_at("\n".join(lines) + "\n", n, "JOINT inside an End Site")


def test_end_site_inside_an_end_site() -> None:
    n = line_of(SEED, "OFFSET 0.0 0.0 -4.0") + 1
    lines = list(SEED_LINES)
    lines[n - 1 : n - 1] = ["End Site", "{", "OFFSET 0 0 0", "}"]
    assert_error_at("\n".join(lines) + "\n", n, "End Site outside a joint")


def test_second_root() -> None:
    n = line_of(SEED, "JOINT Leg")
    assert_error_at(replace_line(n, "ROOT Leg"), n, "only one ROOT")


def test_duplicate_joint_name() -> None:
    n = line_of(SEED, "JOINT Leg")
    assert_error_at(replace_line(n, "JOINT Spine"), n, "appears twice")


def test_missing_hierarchy_keyword() -> None:
    assert_error_at(SEED.replace("HIERARCHY", "HIERARCHIES", 1), 1, "expected HIERARCHY")


def test_read_bvh_reports_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(MotionFileError, match="no such file"):
        read_bvh(tmp_path / "missing.bvh")


def test_read_bvh_reports_a_binary_file(tmp_path: Path) -> None:
    p = tmp_path / "binary.bvh"
    p.write_bytes(b"HIERARCHY\n\xff\xfe\x00")
    with pytest.raises(MotionFileError, match="not a text file"):
        read_bvh(p)


def test_load_motion_rejects_unknown_formats(tmp_path: Path) -> None:
    p = tmp_path / "clip.fbx"
    p.write_text(SEED)
    with pytest.raises(MotionFileError, match=r"supported: \.bvh"):
        load_motion(p)


def test_error_message_names_the_file(tmp_path: Path) -> None:
    p = tmp_path / "clip.bvh"
    p.write_text(SEED.replace("Frame Time: 0.0125", "Frame Time: 0"))
    with pytest.raises(MotionFileError) as info:
        read_bvh(p)
    assert info.value.path == str(p)
    assert str(info.value).startswith(f"{p}:{line_of(SEED, 'Frame Time')}: ")


# -- fuzzing ----------------------------------------------------------------------------------
GARBAGE = [
    "{",
    "}",
    "ROOT",
    "JOINT",
    "End",
    "Site",
    "End Site",
    "OFFSET",
    "CHANNELS",
    "CHANNELS 99",
    "MOTION",
    "HIERARCHY",
    "Frames:",
    "Frame Time:",
    "Xrotation",
    "Zposition",
    "nan",
    "inf",
    "-inf",
    "1e999",
    "-1",
    "0",
    "1_0",
    "0x1f",
    "\u0663",
    "abc",
    "\n",
    "\n\n",
    "\t",
    " ",
    "\r",
    "\x00",
    "é",
    "-",
    ".",
    "9" * 30,
]


@st.composite
def mutated_bvh(draw: st.DrawFn) -> str:
    """The seed text after a few random deletions, insertions, swaps, digit changes and a truncation."""
    text = SEED
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "swap", "digit", "truncate", "duplicate"]))
        if not text:
            break
        if kind == "delete":
            a = draw(st.integers(0, len(text) - 1))
            b = draw(st.integers(a, min(len(text), a + 40)))
            text = text[:a] + text[b:]
        elif kind == "insert":
            a = draw(st.integers(0, len(text)))
            tok = draw(st.sampled_from(GARBAGE) | st.text(max_size=6))
            text = text[:a] + tok + text[a:]
        elif kind in ("swap", "duplicate"):
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if kind == "swap":
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines.insert(j, lines[i])
            text = "\n".join(lines)
        elif kind == "digit":
            digits = [k for k, ch in enumerate(text) if ch.isdigit()]
            if digits:
                k = draw(st.sampled_from(digits))
                text = text[:k] + draw(st.sampled_from("0123456789-.e")) + text[k + 1 :]
        else:
            text = text[: draw(st.integers(0, len(text)))]
    return text


@settings(max_examples=300)
@given(mutated_bvh())
def test_mutated_bvh_parses_or_raises_kinemorph_error(text: str) -> None:
    try:
        data = parse_bvh(text)
    except KinemorphError:
        return
    # What parses must also convert (or fail with the package's own error).
    assert data.values.shape == (data.num_frames, data.skeleton.num_channels)
    assert np.isfinite(data.values).all() and np.isfinite(data.skeleton.offsets).all()
    try:
        with np.errstate(all="ignore"):
            apply_preset(data, "generic")
    except KinemorphError:
        pass


def test_seed_is_valid() -> None:
    """The fuzz test is only meaningful if the unmutated seed parses."""
    apply_preset(parse_bvh(SEED), "generic")


# -- shared LAFAN1 clip (optional) ------------------------------------------------------------
@needs_data
def test_lafan1_walk_loads_with_virtual_foot_bodies() -> None:
    motion = load_motion(data_path("walk.bvh"), "lafan1")
    assert motion.preset == "lafan1"
    assert motion.family == "humanoid"
    assert motion.num_frames == 1800
    assert motion.fps == pytest.approx(30.0, rel=1e-4)
    assert len(motion.body_names) == 24
    assert motion.skeleton.num_joints == 22
    assert motion.positions.shape == (1800, 24, 3)
    assert motion.rotations.shape == (1800, 24, 4)
    assert motion.local_rotations.shape == (1800, 22, 4)
    for side in ("Left", "Right"):
        pos, quat = motion.body(f"{side}FootMod")
        np.testing.assert_array_equal(pos, motion.body(f"{side}Foot")[0])
        np.testing.assert_array_equal(quat, motion.body(f"{side}Toe")[1])
    hips_z = np.median(motion.body("Hips")[0][:, 2])
    assert 0.7 < hips_z < 1.1, "Y-up centimetres should become Z-up metres"


@needs_data
def test_lafan1_preset_is_detected_automatically() -> None:
    assert load_motion(data_path("walk.bvh")).preset == "lafan1"
