"""Quadruped retargeting: the planner's pieces, the engine on a synthetic trot (no data needed),
and the issue's thresholds on the shared Labrador clips (natural against plain)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from conftest import data_path, robot_or_skip
from kinemorph.errors import ConfigError, KinemorphError
from kinemorph.io import load as load_result
from kinemorph.io import save
from kinemorph.motion import Motion, keypoint_motion, load_motion
from kinemorph.motion.contacts import contact_intervals, detect_contacts_hysteresis
from kinemorph.quality import evaluate
from kinemorph.retarget import QuadrupedConfig, retarget
from kinemorph.retarget.quadruped.planner import clamp_reach, lock_feet, swing_clearance, trapezoid_progress
from kinemorph.retarget.quadruped.trunk import trunk_from_roots

LEG_NAMES = (("fl_root", "fl_paw"), ("fr_root", "fr_paw"), ("rl_root", "rl_paw"), ("rr_root", "rr_paw"))


def synthetic_trot(
    *, seconds: float = 4.0, fps: float = 30.0, speed: float = 0.8, lift_paw: int | None = None
) -> Motion:
    """A dog-sized trot as keypoints: roots on a rectangle moving along x, diagonal pairs of paws
    alternating 0.25 s stances (paws still on the floor) and 0.25 s swings (arcs 8 cm high)."""
    t = np.arange(round(seconds * fps)) / fps
    body = np.array([[0.25, 0.1, 0.5], [0.25, -0.1, 0.5], [-0.25, 0.1, 0.5], [-0.25, -0.1, 0.5]])
    roots = body[None] + np.stack([speed * t, 0 * t, 0.01 * np.sin(2 * np.pi * 2 * t)], axis=1)[:, None]
    period, stride = 0.5, speed * 0.5
    paws = np.empty_like(roots)
    for leg in range(4):
        phase = ((t / period) + (0.5 if leg in (1, 2) else 0.0)) % 1.0  # FL+RR together, FR+RL together
        cycle = np.floor((t / period) + (0.5 if leg in (1, 2) else 0.0))
        stance_x = body[leg, 0] + stride * cycle  # one footprint per cycle
        swing = phase >= 0.5
        s = np.clip((phase - 0.5) / 0.5, 0, 1)
        x = np.where(swing, stance_x + stride * (3 * s**2 - 2 * s**3), stance_x)
        z = np.where(swing, 0.08 * np.sin(np.pi * s), 0.0) + 0.02
        paws[:, leg] = np.stack([x, np.full_like(x, body[leg, 1]), z], axis=1)
        if leg == lift_paw:
            paws[:, leg, 2] += 0.2
    names = [n for pair in LEG_NAMES for n in pair]
    pos = np.stack(
        [roots[:, 0], paws[:, 0], roots[:, 1], paws[:, 1], roots[:, 2], paws[:, 2], roots[:, 3], paws[:, 3]], 1
    )
    return keypoint_motion(pos, names, fps, family="quadruped", legs=LEG_NAMES, source="synthetic trot")


# -- planner pieces ---------------------------------------------------------------------------
def test_trunk_heading_pitch_and_levelling() -> None:
    t = np.linspace(0, 1, 31)
    roots = np.array([[0.3, 0.1, 0.6], [0.3, -0.1, 0.6], [-0.3, 0.1, 0.5], [-0.3, -0.1, 0.5]])[None].repeat(31, 0)
    roots = roots @ np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # heading +y
    roots[:, :, 0] += t[:, None]
    raw, smooth = trunk_from_roots(roots, 30.0, level_pitch=False)
    np.testing.assert_allclose(raw.yaw, np.pi / 2, atol=1e-12)
    assert np.all(raw.pitch < 0)  # shoulders higher: nose up
    np.testing.assert_allclose(np.tan(-raw.pitch), 0.1 / 0.6, rtol=1e-9)
    levelled, _ = trunk_from_roots(roots, 30.0)
    assert abs(levelled.pitch.mean()) < 1e-12
    np.testing.assert_allclose(smooth.origin[:, 0], roots.mean(axis=1)[:, 0], atol=0.02)
    rot = raw.matrices()
    np.testing.assert_allclose(rot @ rot.transpose(0, 2, 1), np.eye(3)[None].repeat(31, 0), atol=1e-12)


def test_trapezoid_progress_has_a_low_peak_speed() -> None:
    x = np.linspace(0, 1, 100001)
    p = trapezoid_progress(x, 0.25)
    assert p[0] == 0 and abs(p[-1] - 1) < 1e-12 and np.all(np.diff(p) >= 0)
    speed = np.gradient(p, x)
    assert speed.max() == pytest.approx(1 / 0.75, rel=1e-3)
    assert speed[0] < 1e-3 and speed[-1] < 1e-3


def test_lock_feet_holds_stances_and_moves_between_holds() -> None:
    n = 40
    raw = np.zeros((n, 4, 3))
    raw[:, :, 0] = np.linspace(0, 0.4, n)[:, None]  # drifting source
    raw[:, :, 2] = 0.05
    contacts = np.zeros((n, 4), dtype=bool)
    contacts[0:10] = contacts[16:30] = True
    out = lock_feet(raw, contacts, np.full(4, 0.02), max_swing=12)
    for a, b in contact_intervals(contacts[:, 0]):
        assert np.ptp(out[a:b, 0], axis=0).max() == 0.0  # planted: not moving at all
        assert np.all(out[a:b, 0, 2] == 0.02)
    swing = out[10:16, 0, 0]
    assert swing[0] == out[9, 0, 0] and swing[-1] == out[16, 0, 0]  # lift in place, land in place
    assert np.all(np.diff(swing) >= 0)


def test_swing_clearance_lifts_every_swing_frame() -> None:
    contacts = np.ones((30, 4), dtype=bool)
    contacts[10:20, 0] = False
    prof = swing_clearance(contacts, 0.045, 0.05, 0.2)
    assert np.all(prof[10:20, 0] >= 0.045) and prof[15, 0] == pytest.approx(0.05)
    assert np.all(prof[contacts] == 0)


def test_clamp_reach_keeps_feet_within_the_leg() -> None:
    hips = np.zeros((1, 4, 3))
    feet = np.array([[[0.5, 0.0, -0.2], [0.1, 0.0, -0.2], [0.0, 0.6, -0.3], [0.0, 0.0, -0.3]]])
    out = clamp_reach(feet, hips, np.full(4, 0.4))
    assert np.all(np.linalg.norm(out - hips, axis=-1) <= 0.4 + 1e-12)
    np.testing.assert_array_equal(out[0, 1], feet[0, 1])
    np.testing.assert_array_equal(out[..., 2], feet[..., 2])


def test_hysteresis_keeps_contact_through_small_bumps() -> None:
    z = np.array([0, 0, 0, 0.04, 0, 0, 0.2, 0.2, 0.2, 0, 0, 0], dtype=float)
    pos = np.stack([np.zeros_like(z), np.zeros_like(z), z], axis=1)
    c = detect_contacts_hysteresis(pos, 1.0, floor=0.0, enter_speed=10.0, exit_speed=10.0)
    assert c.tolist() == [True] * 6 + [False] * 3 + [True] * 3


# -- the engine on a synthetic trot --------------------------------------------------------------
@cache
def _trot_result(robot_name: str, mode: str = "natural"):  # type: ignore[no-untyped-def]
    robot = robot_or_skip(robot_name)
    return robot, retarget(synthetic_trot(), robot, config=QuadrupedConfig(mode=mode))


@pytest.mark.parametrize("robot_name", ["unitree_go2", "unitree_a1"])
def test_natural_trot_plants_feet_without_slip(robot_name: str) -> None:
    robot, result = _trot_result(robot_name)
    q = evaluate(result, robot)
    assert q.foot_slip_mean_cm_s <= 2.0
    assert q.penetration_p95_cm <= 0.1
    assert q.joint_jump_frames == 0
    assert q.limit_violations == 0
    assert 0.2 <= result.root_pos[:, 2].min() and result.root_pos[:, 2].max() <= 0.4
    assert result.contacts is not None and result.contacts.mean() > 0.3
    assert "warning" not in result.info


def test_contact_mask_survives_export(tmp_path) -> None:  # type: ignore[no-untyped-def]
    _, result = _trot_result("unitree_go2")
    for suffix in (".npz", ".json"):
        back = load_result(save(result, tmp_path / f"trot{suffix}"))
        assert back.contact_bodies == ("FL_foot", "FR_foot", "RL_foot", "RR_foot")
        np.testing.assert_array_equal(back.contacts, result.contacts)


def test_a_paw_held_up_is_reported_not_fatal() -> None:
    robot = robot_or_skip("unitree_go2")
    result = retarget(synthetic_trot(lift_paw=0), robot)
    assert "no contacts found for FL_foot" in result.info["warning"]
    assert result.contacts is not None and not result.contacts[:, 0].any() and result.contacts[:, 1].any()


@pytest.mark.parametrize("frames", [1, 2, 5])
def test_clips_shorter_than_the_filter_work(frames: int) -> None:
    robot = robot_or_skip("unitree_a1")
    result = retarget(synthetic_trot().slice(0, frames), robot)
    assert result.num_frames == frames and np.isfinite(result.qpos).all()


def test_family_mismatch_is_refused(generated_walk: Motion) -> None:
    go2 = robot_or_skip("unitree_go2")
    g1 = robot_or_skip("unitree_g1")
    with pytest.raises(KinemorphError, match=r"humanoid motion.*unitree_go2 is a quadruped"):
        retarget(generated_walk, go2)
    with pytest.raises(KinemorphError, match=r"quadruped motion.*unitree_g1 is a humanoid"):
        retarget(synthetic_trot(), g1, engine="quadruped")


def test_bad_settings_are_refused() -> None:
    for bad in (dict(mode="fast"), dict(clearance_ramp=0.9), dict(contact_exit_height=0.01), dict(swing_lift=0.2)):
        with pytest.raises(ConfigError):
            QuadrupedConfig(**bad)


# -- the Labrador clips: natural against plain (the targets) ---------------------------------
@cache
def _dog(clip: str, robot_name: str, mode: str):  # type: ignore[no-untyped-def]
    robot = robot_or_skip(robot_name)
    motion = load_motion(data_path(f"{clip}.bvh"))
    result = retarget(motion, robot, config=QuadrupedConfig(mode=mode))
    return robot, result, evaluate(result, robot)


@pytest.mark.parametrize("robot_name", ["unitree_go2", "unitree_a1"])
@pytest.mark.parametrize("clip", ["dog_walk", "dog_idle"])
def test_natural_mode_meets_the_targets(clip: str, robot_name: str) -> None:
    robot, result, q = _dog(clip, robot_name, "natural")
    _, _, plain = _dog(clip, robot_name, "plain")
    assert q.foot_slip_mean_cm_s <= 2.0
    assert q.penetration_p95_cm <= 0.1
    assert q.joint_jump_frames == 0
    assert q.roll_rate_deg_s <= plain.roll_rate_deg_s / 2
    assert q.pitch_rate_deg_s <= plain.pitch_rate_deg_s / 2
    assert 0.2 <= result.root_pos[:, 2].min() and result.root_pos[:, 2].max() <= 0.4
    # swinging feet follow their planned targets
    pose = robot.fk(result.qpos)
    feet = np.stack([pose.positions[:, robot.body_id(f)] for _, f in robot.legs], axis=1)
    err = np.linalg.norm(feet - result.keypoints.positions[:, 1:], axis=2)
    assert err[~result.contacts].mean() <= 0.03
    # and plain mode is what it is: worse on every one of these
    assert plain.foot_slip_mean_cm_s > q.foot_slip_mean_cm_s


def test_paw_floors_follow_paws_that_end_above_their_soles() -> None:
    """An elephant-like rig whose front legs end at the wrist (22 cm above the floor its hind toes
    stand on, legs 1.3 m high) gets its front floors there; a paw held up the whole clip does not:
    5 cm above its partner's at most, and both front paws held 30 cm up on 0.5 m legs are capped at
    30% of the leg's height."""
    from kinemorph.retarget.quadruped.planner import paw_floors

    t = np.linspace(0, 1, 40)
    wobble = 0.002 * np.sin(2 * np.pi * t)

    def clip(heights: list[float], root: float) -> tuple[np.ndarray, np.ndarray]:
        paws = np.zeros((t.size, 4, 3))
        paws[..., 2] = np.array(heights)[None] + wobble[:, None]
        roots = paws.copy()
        roots[..., 2] = root
        return paws, roots

    floors = paw_floors(*clip([0.22, 0.225, 0.0, 0.0], 1.3))
    assert np.allclose(floors, [0.22, 0.225, 0.0, 0.0], atol=0.003)
    floors = paw_floors(*clip([0.15, 0.0, 0.0, 0.0], 0.5))  # one paw held up
    assert floors[0] == pytest.approx(0.05, abs=0.003)
    floors = paw_floors(*clip([0.3, 0.3, 0.0, 0.0], 0.5))  # both front paws held up
    assert np.allclose(floors[:2], 0.3 * 0.5, atol=0.003)
    paws, _ = clip([0.22, 0.22, 0.0, 0.0], 1.3)
    assert np.allclose(paw_floors(paws)[:2], 0.05, atol=0.003)  # without the legs' size: 5 cm
