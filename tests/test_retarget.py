"""The gmr engine on the project's own generated walk: quality with the shipped mappings, and
the properties the method must have (determinism, translation equivariance, ground fit)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.errors import ConfigError, UnknownNameError
from kinemorph.mapping.mapping import load_mapping
from kinemorph.motion import Motion
from kinemorph.quality import evaluate
from kinemorph.retarget import GmrConfig, retarget
from kinemorph.robots.geometry import lowest_points

# Thresholds per robot for the generated walk with the shipped mapping: what a usable retarget
# reaches, with margin over what the implementation measures (README, "Results").
QUALITY_LIMITS = {
    # robot: (tracking mean [cm], foot slip [cm/s], penetration p95 [cm], trunk tilt mean [deg])
    "unitree_g1": (14.0, 15.0, 2.5, 6.0),
    "booster_t1": (12.0, 15.0, 3.0, 6.0),
    "unitree_h1": (13.0, 15.0, 3.0, 6.0),
}


@pytest.fixture(scope="module")
def results(generated_walk: Motion) -> dict:
    out = {}
    for name in QUALITY_LIMITS:
        robot = robot_or_skip(name)
        out[name] = (robot, retarget(generated_walk, robot))
    return out


@pytest.mark.parametrize("robot_name", list(QUALITY_LIMITS))
def test_shipped_mapping_gives_usable_motion(robot_name: str, results: dict) -> None:
    robot, result = results[robot_name]
    q = evaluate(result, robot)
    track, slip, pen, tilt = QUALITY_LIMITS[robot_name]
    assert q.limit_violations == 0
    assert q.tracking_error_mean_cm < track
    assert q.foot_slip_mean_cm_s < slip
    assert q.penetration_p95_cm < pen
    assert q.trunk_tilt_mean_deg < tilt
    assert q.joint_jump_frames <= 20
    assert result.info["qp_failures"] == 0
    assert 2.0 <= result.info["iterations_per_frame"] <= 22.0


def test_ground_fit_puts_planted_feet_on_the_floor(results: dict) -> None:
    robot, result = results["unitree_g1"]
    low = lowest_points(robot, result.qpos)
    # the lower foot of each frame: its median is the floor to a few millimetres
    assert abs(float(np.median(low.min(axis=1)))) < 0.01


def test_result_is_deterministic(generated_walk: Motion) -> None:
    robot = robot_or_skip("unitree_g1")
    clip = generated_walk.slice(0, 60)
    a = retarget(clip, robot)
    b = retarget(clip, robot)
    np.testing.assert_array_equal(a.qpos, b.qpos)


def test_translating_the_source_translates_the_root(generated_walk: Motion) -> None:
    """IK is translation-equivariant: moving the source by d moves the root by s_root d."""
    robot = robot_or_skip("unitree_g1")
    clip = generated_walk.slice(0, 45)
    d = np.array([2.0, -1.5, 0.0])
    lp = clip.local_positions.copy()
    lp[:, 0] += d
    moved = Motion.from_local(
        clip.skeleton,
        clip.fps,
        clip.local_rotations,
        lp,
        virtual={"LeftFootMod": ("LeftFoot", "LeftToe"), "RightFootMod": ("RightFoot", "RightToe")},
        family=clip.family,
        preset=clip.preset,
    )
    cfg = GmrConfig(ground="off")
    a = retarget(clip, robot, config=cfg)
    b = retarget(moved, robot, config=cfg)
    s_root = load_mapping("unitree_g1").scales["Hips"]
    np.testing.assert_allclose(b.root_pos - a.root_pos, np.broadcast_to(s_root * d, a.root_pos.shape), atol=1e-8)
    np.testing.assert_allclose(b.dof_pos, a.dof_pos, atol=1e-8)


def test_iteration_count_follows_gmr_stopping_rule(generated_walk: Motion) -> None:
    """One step per stage when no improvement is large enough; at most 1 + 10 per stage."""
    robot = robot_or_skip("unitree_g1")
    clip = generated_walk.slice(30, 90)
    once = retarget(clip, robot, config=GmrConfig(tolerance=1e9))
    assert once.info["iterations_per_frame"] == 2.0
    capped = retarget(clip, robot, config=GmrConfig(tolerance=0.0, max_extra_iterations=3))
    assert 2.0 < capped.info["iterations_per_frame"] <= 8.0


def test_progress_reports_every_frame_once_done(generated_walk: Motion) -> None:
    robot = robot_or_skip("unitree_g1")
    seen: list[tuple[int, int]] = []
    n = generated_walk.num_frames
    retarget(generated_walk, robot, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (n, n)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize(
    "bad",
    [
        dict(damping=-1.0),
        dict(tolerance=-1e-3),
        dict(max_extra_iterations=-1),
        dict(human_height=17.0),
        dict(ground="maybe"),
        dict(init="somewhere"),
    ],
)
def test_bad_engine_settings_are_refused(bad: dict) -> None:
    with pytest.raises(ConfigError):
        replace(GmrConfig(), **bad)


def test_unknown_engine_lists_the_engines(generated_walk: Motion) -> None:
    robot = robot_or_skip("unitree_g1")
    with pytest.raises(UnknownNameError, match="valid: auto, gmr, graph, mesh, quadruped"):
        retarget(generated_walk, robot, engine="magic")


def test_human_height_scales_the_targets(generated_walk: Motion) -> None:
    robot = robot_or_skip("unitree_g1")
    clip = generated_walk.slice(0, 30)
    mapping = load_mapping("unitree_g1")
    tall = retarget(
        clip, robot, mapping, config=GmrConfig(human_height=1.5 * mapping.human_height_assumption, ground="off")
    )
    assert tall.info["height_ratio"] == pytest.approx(1.5)
    assert tall.keypoints is not None
    plain = retarget(clip, robot, mapping, config=GmrConfig(ground="off"))
    assert plain.keypoints is not None
    np.testing.assert_allclose(tall.keypoints.positions, 1.5 * plain.keypoints.positions, rtol=1e-9, atol=1e-9)
