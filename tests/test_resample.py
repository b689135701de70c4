"""Frame-rate change of motions: slerp of joint rotations, linear translations."""

from __future__ import annotations

import numpy as np
import pytest

from kinemorph.errors import KinemorphError
from kinemorph.motion import Motion
from kinemorph.motion.resample import resample, resample_times, slerp
from kinemorph.transforms import axis_angle_to_quat, quat_angle


def test_slerp_is_uniform_in_angle() -> None:
    z = np.array([0.0, 0.0, 1.0])
    q0, q1 = axis_angle_to_quat(z, 0.0), axis_angle_to_quat(z, 1.2)
    for t in (0.0, 0.25, 0.5, 1.0):
        q = slerp(q0, q1, np.array(t))
        assert float(quat_angle(q, q0)) == pytest.approx(1.2 * t, abs=1e-12)


def test_slerp_takes_the_short_way_across_the_sign_flip() -> None:
    z = np.array([0.0, 0.0, 1.0])
    q0, q1 = axis_angle_to_quat(z, 0.1), -axis_angle_to_quat(z, 0.3)
    assert float(quat_angle(slerp(q0, q1, np.array(0.5)), axis_angle_to_quat(z, 0.2))) < 1e-12


def test_times_cover_the_same_duration() -> None:
    x = resample_times(121, 120.0, 30.0)
    np.testing.assert_allclose(x, np.arange(31) * 4.0)


def test_downsampling_by_a_whole_factor_keeps_every_nth_frame(generated_walk: Motion) -> None:
    m = resample(generated_walk, 10.0)
    assert m.fps == 10.0 and m.num_frames == (generated_walk.num_frames - 1) // 3 + 1
    np.testing.assert_allclose(m.positions, generated_walk.positions[::3], atol=1e-9)
    assert m.body_names == generated_walk.body_names and m.virtual == generated_walk.virtual


def test_upsampled_then_downsampled_clip_returns(generated_walk: Motion) -> None:
    up = resample(generated_walk, 120.0)
    back = resample(up, 30.0)
    np.testing.assert_allclose(back.positions, generated_walk.positions, atol=1e-9)
    # in between, joints move smoothly: positions lie between their neighbours' within a few mm
    mid = up.positions[2::4][: generated_walk.num_frames - 1]
    avg = 0.5 * (generated_walk.positions[:-1] + generated_walk.positions[1:])
    assert np.abs(mid - avg).max() < 0.01


def test_bad_rate_is_refused(generated_walk: Motion) -> None:
    with pytest.raises(KinemorphError, match="fps must be a positive number"):
        resample(generated_walk, 0.0)


def test_load_motion_resamples(tmp_path, generated_walk: Motion) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.motion import load_motion, save_bvh

    path = save_bvh(generated_walk, tmp_path / "w.bvh")
    m = load_motion(path, fps=15)
    assert m.fps == 15 and m.num_frames == 120
