"""STMR's soft landing band (retarget/stmr/landing.py) and the spatial stage's rolling paws."""

from __future__ import annotations

import numpy as np
import pytest

from kinemorph.retarget.stmr.landing import ease_swings, landing_band, landing_task

FPS = 30.0


def _schedule() -> np.ndarray:
    c = np.ones((30, 1), dtype=bool)
    c[10:20, 0] = False  # one swing, frames 10-19, touch-down at 20
    return c


def test_the_band_brakes_the_paw_onto_the_floor() -> None:
    c = _schedule()
    clearance = np.where(c, 0.0, 0.045)
    band = landing_band(c, clearance, FPS, speed=0.1, decel=4.0)
    tau = (20 - np.arange(10, 20)) / FPS
    cap = 0.1 * tau + 2.0 * tau**2
    np.testing.assert_allclose(band.upper[10:20, 0], cap)
    assert np.isinf(band.upper[c[:, 0], 0]).all()  # no cap in stance
    # the lower bound: half the cap before touch-down, half the mirrored profile after lift-off
    rise = 0.5 * (0.1 * (np.arange(10, 20) - 9) / FPS + 2.0 * ((np.arange(10, 20) - 9) / FPS) ** 2)
    np.testing.assert_allclose(band.lower[10:20, 0], np.minimum(0.045, np.minimum(0.5 * cap, rise)))
    assert (band.lower <= band.upper).all()
    # the last frame before touch-down is under a centimetre: the paw lands at ~(cap / frame) m/s
    assert band.upper[19, 0] * FPS < 0.2


def test_a_swing_running_off_the_clip_keeps_the_planners_clearance() -> None:
    c = np.ones((20, 1), dtype=bool)
    c[12:, 0] = False  # lifts off, never lands
    band = landing_band(c, np.where(c, 0.0, 0.045), FPS, speed=0.1, decel=4.0)
    assert np.isinf(band.upper).all()
    assert band.lower[-1, 0] == pytest.approx(0.045)


def test_the_landing_task_moves_the_legs_only() -> None:
    c = _schedule()
    band = landing_band(c, np.where(c, 0.0, 0.045), FPS, speed=0.1, decel=4.0)
    rng = np.random.default_rng(0)
    nv = 18
    jacs = rng.normal(size=(4, 3, nv))
    pos = np.zeros((4, 3))
    pos[0, 2] = 0.02 + 0.05  # 5 cm above the floor (foot height 2 cm)
    free = rng.normal(size=nv) * 0.01
    rows, rhs = landing_task(band, 19, np.array([0]), free, np.full(4, 0.02), pos, jacs)
    assert rows.shape == (1, nv) and np.all(rows[:, :6] == 0.0)
    rise = float(jacs[0, 2] @ free)
    want = min(0.05 + rise, band.upper[19, 0]) - 0.05  # clipped under the cap
    assert rhs[0] == pytest.approx(want - float(jacs[0, 2, :6] @ free[:6]))


def test_eased_swings_leave_and_land_without_horizontal_speed_on_the_same_path() -> None:
    c = _schedule()
    points = np.zeros((30, 1, 2, 3))
    # the paw moves at constant speed
    x = np.concatenate([np.zeros(10), np.linspace(0.0, 0.2, 11)[1:], np.full(10, 0.2)])
    points[:, 0, :, 0] = x[:, None]
    points[:, 0, :, 2] = np.where(c[:, 0], 0.0, 0.05)[:, None]
    for hold in (0.0, 0.2):
        eased = ease_swings(points, c, hold=hold)
        ex = eased[:, 0, 0, 0]
        np.testing.assert_allclose(eased[:, 0, :, 2], points[:, 0, :, 2])  # heights untouched
        np.testing.assert_allclose(ex[c[:, 0]], x[c[:, 0]])  # stances untouched
        step = np.diff(ex)
        assert (step >= -1e-12).all() and ex[20] == pytest.approx(0.2)  # same path, same landing point
        assert step[9] < 0.35 * step[14] and step[19] < 0.35 * step[14]  # slow at lift-off and touch-down
    assert np.diff(ease_swings(points, c, hold=0.2)[:, 0, 0, 0])[10] == pytest.approx(0.0)  # stands still first


def test_swings_off_the_clip_are_not_eased() -> None:
    c = np.ones((20, 1), dtype=bool)
    c[12:, 0] = False
    points = np.random.default_rng(1).normal(size=(20, 1, 1, 3))
    np.testing.assert_array_equal(ease_swings(points, c, hold=0.0), points)
