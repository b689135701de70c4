"""Procedural walk: a LAFAN1-compatible skeleton, and the mathematics of its gait (planted feet,
floor contact, speed, symmetry, rigid bones, rest pose), the BVH round trip, option checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kinemorph.errors import ConfigError, UnknownNameError
from kinemorph.motion import Motion, detect_preset, load_motion, save_bvh
from kinemorph.motion.procedural import (
    CLIPS,
    procedural_clip,
    procedural_skeleton,
    procedural_stand,
    procedural_walk,
)
from kinemorph.transforms import quat_log, quat_rotate

# LAFAN1's joint tree (names and parents, in file order): facts of the format, not motion data.
LAFAN1_TREE = {
    "Hips": None,
    "LeftUpLeg": "Hips",
    "LeftLeg": "LeftUpLeg",
    "LeftFoot": "LeftLeg",
    "LeftToe": "LeftFoot",
    "RightUpLeg": "Hips",
    "RightLeg": "RightUpLeg",
    "RightFoot": "RightLeg",
    "RightToe": "RightFoot",
    "Spine": "Hips",
    "Spine1": "Spine",
    "Spine2": "Spine1",
    "Neck": "Spine2",
    "Head": "Neck",
    "LeftShoulder": "Spine2",
    "LeftArm": "LeftShoulder",
    "LeftForeArm": "LeftArm",
    "LeftHand": "LeftForeArm",
    "RightShoulder": "Spine2",
    "RightArm": "RightShoulder",
    "RightForeArm": "RightArm",
    "RightHand": "RightForeArm",
}
FEET = ("LeftToe", "RightToe", "LeftFoot", "RightFoot")


@pytest.fixture(scope="module")
def walk() -> Motion:
    return procedural_walk(duration=10.0)


def _axis(m: Motion, body: str, axis: int) -> np.ndarray:
    """World direction (T, 3) of a body's local axis."""
    return quat_rotate(m.body(body)[1], np.eye(3)[axis])


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True."""
    edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    return list(zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]))


def _down(m: Motion, toe: str, margin: float = 0.003) -> np.ndarray:
    z = m.body(toe)[0][:, 2]
    return z < z.min() + margin


def _steady(m: Motion) -> np.ndarray:
    t = np.arange(m.num_frames) / m.fps
    return (t >= m.meta["steady_start"]) & (t <= m.meta["steady_end"])


def test_skeleton_has_lafan1_names_tree_and_channels() -> None:
    sk = procedural_skeleton()
    assert sk.names == tuple(LAFAN1_TREE)
    assert [None if p < 0 else sk.names[p] for p in sk.parents] == list(LAFAN1_TREE.values())
    assert sk.channels[0] == ("Xposition", "Yposition", "Zposition", "Zrotation", "Yrotation", "Xrotation")
    assert all(c == ("Zrotation", "Yrotation", "Xrotation") for c in sk.channels[1:])
    assert sorted(sk.names[e.parent] for e in sk.end_sites) == sorted(
        ["LeftToe", "RightToe", "Head", "LeftHand", "RightHand"]
    )
    assert detect_preset(sk) == "lafan1"


def test_bones_lie_along_local_x_like_lafan1() -> None:
    sk = procedural_skeleton()
    off_axis = {"Hips", "LeftUpLeg", "RightUpLeg", "Spine", "LeftShoulder", "RightShoulder"}  # as in LAFAN1
    chained = [j for j, name in enumerate(sk.names) if name not in off_axis]
    assert len(chained) == 16
    off = sk.offsets[chained]
    assert np.all(off[:, 0] > 0.0) and np.all(off[:, 1:] == 0.0)
    # a 1.75 m adult: hip to ankle and shoulder to wrist [cm]
    assert 82.0 < sk.offsets[sk.index("LeftLeg")][0] + sk.offsets[sk.index("LeftFoot")][0] < 88.0
    assert 55.0 < sk.offsets[sk.index("LeftForeArm")][0] + sk.offsets[sk.index("LeftHand")][0] < 60.0


def test_stature_is_that_of_an_adult(walk: Motion) -> None:
    first = walk.positions[0]
    head_top = first[walk.index("Head"), 2] + procedural_skeleton().end_sites[2].offset[0] / 100.0
    assert 1.70 < head_top < 1.80
    assert 0.90 < first[0, 2] < 0.96


def test_same_seed_same_clip_other_seed_other_clip() -> None:
    a, b = procedural_walk(seed=3), procedural_walk(seed=3)
    np.testing.assert_array_equal(a.positions, b.positions)
    np.testing.assert_array_equal(a.local_rotations, b.local_rotations)
    c = procedural_walk(seed=4)
    assert np.abs(c.positions - a.positions).max() > 0.01


def test_stance_feet_do_not_slip(walk: Motion) -> None:
    for toe, body in (
        ("LeftToe", "LeftToe"),
        ("RightToe", "RightToe"),
        ("LeftToe", "LeftFootMod"),
        ("RightToe", "RightFootMod"),
    ):
        p = walk.body(body)[0]
        down = _down(walk, toe) & (p[:, 2] < p[:, 2].min() + 0.003)
        both = down[1:] & down[:-1]
        assert both.sum() > 0.4 * walk.num_frames
        speed = np.linalg.norm(np.diff(p[:, :2], axis=0), axis=1)[both] * walk.fps
        assert speed.mean() < 0.05, f"{body}: mean slip {speed.mean():.4f} m/s"
        for a, b in _runs(down):  # drift over each whole contact
            drift = np.linalg.norm(p[a:b, :2] - p[a, :2], axis=1).max()
            assert drift < 0.005, f"{body}: drifts {drift:.4f} m in frames {a}-{b}"


def test_lowest_foot_point_stays_on_the_floor(walk: Motion) -> None:
    z = np.stack([walk.body(n)[0][:, 2] for n in FEET], axis=1)
    lowest = z.min(axis=1)
    assert lowest.min() > 0.0 and lowest.max() < 0.03  # the ball joint of a planted foot, every frame
    assert np.ptp(lowest) < 0.002


def test_swing_foot_clears_the_floor_by_about_ten_centimetres(walk: Motion) -> None:
    steady = _steady(walk)
    for toe, ankle in (("LeftToe", "LeftFoot"), ("RightToe", "RightFoot")):
        z = walk.body(ankle)[0][:, 2]
        flat = z.min()
        rises = [z[a:b].max() - flat for a, b in _runs(~_down(walk, toe)) if steady[a:b].all()]
        assert len(rises) >= 2
        assert all(0.08 <= r <= 0.12 for r in rises), rises


@pytest.mark.parametrize(("speed", "turn_rate"), [(0.6, 0.0), (1.2, 0.0), (1.6, 0.0), (1.2, 0.4)])
def test_root_speed_matches_the_request(speed: float, turn_rate: float) -> None:
    m = procedural_walk(duration=10.0, speed=speed, turn_rate=turn_rate)
    steady = _steady(m)
    v = np.linalg.norm(np.diff(m.positions[:, 0, :2], axis=0), axis=1) * m.fps
    measured = v[steady[1:] & steady[:-1]].mean()
    assert abs(measured - speed) < 0.1 * speed, f"{measured:.3f} m/s for {speed} m/s"


def _footprints(m: Motion) -> list[tuple[int, str, np.ndarray]]:
    """(first frame, side, toe position) of every contact, in the order the contacts end."""
    out = []
    for side in ("Left", "Right"):
        p = m.body(f"{side}Toe")[0]
        out += [(b, a, side, p[a]) for a, b in _runs(_down(m, f"{side}Toe"))]
    return [x[1:] for x in sorted(out, key=lambda x: (x[0], x[1]))]


def test_left_and_right_steps_are_symmetric_and_as_long_as_speed_over_cadence(walk: Motion) -> None:
    steady = _steady(walk)
    prints = _footprints(walk)
    steps: dict[str, list[float]] = {"Left": [], "Right": []}
    for (a0, s0, p0), (a1, s1, p1) in itertools.pairwise(prints):
        assert s0 != s1  # feet alternate
        if steady[a0] and steady[a1]:
            steps[s1].append(p1[0] - p0[0])  # straight walk along +x
    left, right = np.mean(steps["Left"]), np.mean(steps["Right"])
    assert len(steps["Left"]) >= 2 and len(steps["Right"]) >= 2
    assert abs(left - right) < 0.1 * max(left, right)
    expect = walk.meta["speed"] / walk.meta["cadence"]
    assert abs(0.5 * (left + right) - expect) < 0.1 * expect
    assert 1.8 <= walk.meta["cadence"] <= 2.0


def test_cadence_is_the_reported_one(walk: Motion) -> None:
    t = np.array([a for a, _, _ in _footprints(walk)]) / walk.fps
    inside = t[(t > walk.meta["steady_start"]) & (t < walk.meta["steady_end"])]
    assert abs(1.0 / np.mean(np.diff(inside)) - walk.meta["cadence"]) < 0.05


def test_arms_swing_against_the_legs_with_bent_elbows(walk: Motion) -> None:
    steady = _steady(walk)
    hips = walk.positions[:, 0]
    hand = walk.body("LeftHand")[0][:, 0] - hips[:, 0]
    legs = walk.body("RightFoot")[0][:, 0] - walk.body("LeftFoot")[0][:, 0]
    assert np.corrcoef(hand[steady], legs[steady])[0, 1] > 0.8
    for side in ("Left", "Right"):
        rot = walk.local_rotations[:, walk.skeleton.index(f"{side}ForeArm")]
        elbow = np.degrees(np.linalg.norm(quat_log(rot), axis=1))
        assert elbow[steady].min() > 10.0 and elbow[steady].max() < 60.0


def test_bone_lengths_are_constant(walk: Motion) -> None:
    sk = walk.skeleton
    child = np.arange(1, sk.num_joints)
    lengths = np.linalg.norm(walk.positions[:, child] - walk.positions[:, sk.parents[child]], axis=-1)
    np.testing.assert_allclose(
        lengths, np.broadcast_to(np.linalg.norm(sk.offsets[child], axis=-1), lengths.shape), atol=1e-9
    )


def test_save_bvh_and_load_motion_reproduce_the_clip(walk: Motion, tmp_path) -> None:
    path = save_bvh(walk, tmp_path / "walk.bvh")
    back = load_motion(path)
    assert back.preset == "lafan1" and back.body_names == walk.body_names
    assert back.fps == pytest.approx(walk.fps)
    assert np.abs(back.positions - walk.positions).max() < 1e-4
    again = load_motion(save_bvh(back, tmp_path / "again.bvh"))
    assert np.abs(again.positions - walk.positions).max() < 1e-4


@pytest.mark.parametrize("end", ["start", "end"])
def test_rest_frames_stand_with_vertical_legs_and_arms_down(walk: Motion, end: str) -> None:
    n = int(0.9 * walk.fps)
    sl = slice(0, n) if end == "start" else slice(walk.num_frames - n, None)
    rest = walk.slice(sl.start, sl.stop)
    assert np.ptp(rest.positions, axis=0).max() < 0.02  # nearly still (breathing and gaze only)
    down = np.array([0.0, 0.0, -1.0])
    for side in ("Left", "Right"):
        for bone in ("UpLeg", "Leg"):
            assert (_axis(rest, f"{side}{bone}", 0) @ down).min() > np.cos(np.radians(10.0))
        for bone in ("Arm", "ForeArm"):
            assert (_axis(rest, f"{side}{bone}", 0) @ down).min() > np.cos(np.radians(15.0))
        assert np.abs(_axis(rest, f"{side}Toe", 0)[:, 2]).max() < 1e-6  # foot flat
    gap = rest.body("LeftFoot")[0][:, :2] - rest.body("RightFoot")[0][:, :2]
    assert np.all(np.linalg.norm(gap, axis=1) < 0.25)  # feet together under the hips


def test_body_frames_follow_lafan1_conventions(walk: Motion) -> None:
    first = walk.slice(0, 1)
    fwd, left, up = np.eye(3)  # the clip starts facing +x
    checks = {  # body: (local x, local y) in the world for an upright subject facing +x
        "Hips": (up, fwd),
        "Spine2": (up, fwd),
        "Head": (up, fwd),
        "LeftUpLeg": (-up, fwd),
        "RightLeg": (-up, fwd),
        "LeftToe": (fwd, up),
        "RightFootMod": (fwd, up),
        "LeftShoulder": (left, -fwd),
        "RightShoulder": (-left, -fwd),
        "LeftArm": (-up, -fwd),
        "RightArm": (-up, -fwd),
    }
    for body, (x, y) in checks.items():
        assert _axis(first, body, 0)[0] @ x > 0.98, body
        assert _axis(first, body, 1)[0] @ y > 0.98, body
    for joint in ("LeftLeg", "RightLeg", "LeftForeArm", "RightForeArm"):  # hinges bend about -z
        rv = quat_log(walk.local_rotations[:, walk.skeleton.index(joint)])
        assert np.abs(rv[:, :2]).max() < 1e-6 and rv[:, 2].max() < 0.0 and rv[:, 2].min() < np.radians(-25.0)


def test_turning_walk_turns_by_turn_rate_over_the_walk() -> None:
    m = procedural_walk(duration=10.0, turn_rate=0.3)
    heading = _axis(m, "Hips", 1)
    turned = np.arctan2(heading[-1, 1], heading[-1, 0]) - np.arctan2(heading[0, 1], heading[0, 0])
    # path heading = curvature * distance; distance from the root path, smoothed over a stride
    step = max(round(m.fps * 2.0 / m.meta["cadence"]), 1)
    distance = np.linalg.norm(np.diff(m.positions[::step, 0, :2], axis=0), axis=1).sum()
    assert turned == pytest.approx(0.3 / m.meta["speed"] * distance, rel=0.05)


def test_stand_keeps_feet_and_root_still() -> None:
    m = procedural_clip("stand", duration=3.0, seed=2)
    assert set(CLIPS) >= {"walk", "stand"}
    for name in ("Hips", "LeftFoot", "RightFoot", "LeftToe", "RightToe"):
        assert np.ptp(m.body(name)[0], axis=0).max() < 1e-5
    np.testing.assert_array_equal(m.positions, procedural_stand(duration=3.0, seed=2).positions)


@pytest.mark.parametrize(
    "options",
    [
        {"speed": 0.0},
        {"speed": 3.0},
        {"speed": float("nan")},
        {"speed": "fast"},
        {"duration": -1.0},
        {"duration": 3.0},
        {"fps": 0},
        {"fps": float("inf")},
        {"turn_rate": 2.0},
        {"speed": 0.3, "turn_rate": 0.9},
        {"seed": -1},
        {"seed": 1.5},
        {"seed": True},
    ],
)
def test_bad_walk_options_raise_config_error(options: dict) -> None:
    with pytest.raises(ConfigError):
        procedural_walk(**options)


def test_registry_checks_kind_and_options() -> None:
    with pytest.raises(UnknownNameError, match="stand, walk"):
        procedural_clip("run")
    with pytest.raises(ConfigError, match="no option speed"):
        procedural_clip("stand", speed=1.0)
    with pytest.raises(TypeError):
        procedural_walk(8.0)  # type: ignore[misc]
    assert procedural_clip("walk", duration=6.0).num_frames == 180
