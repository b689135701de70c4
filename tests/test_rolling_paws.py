"""retarget/quadruped/rolling.py: stance targets moved along the paw's turns roll the paw."""

from __future__ import annotations

import numpy as np
import pytest

from kinemorph.retarget.quadruped.rolling import rolled_feet
from kinemorph.robots.geometry import round_geom
from test_quality_round_feet import T, _go2, _moved, _paw, _times


def test_a_paw_turning_on_the_spot_gets_targets_that_roll() -> None:
    """Go2 pitched about its front-left paw's centre (the paw turns on the spot): the rolled target
    of that paw advances by radius x angle, the centre of a sphere rolling without slipping."""
    robot, q0 = _go2()
    _, radius = _paw(robot, q0)
    pitch = 0.4 * np.sin(0.5 * np.pi * _times())
    motion = _moved(robot, q0, pitch, np.zeros((T, 3)))
    feet = tuple(f for _, f in robot.legs)
    assert all(round_geom(robot, f, capsule=False) is not None for f in feet)
    ids = [robot.body_id(f) for f in feet]
    planned = robot.fk(motion.qpos).positions[:, ids]  # (T, 4, 3): the centres, still for FL
    contacts = np.zeros((T, 4), dtype=bool)
    contacts[:, 0] = True
    out = rolled_feet(robot, motion.qpos, planned, contacts, feet)
    advance = out[:, 0, 0] - planned[:, 0, 0]
    np.testing.assert_allclose(advance, radius * (pitch - pitch[0]), atol=2e-5)
    np.testing.assert_allclose(out[:, 0, 1:], planned[:, 0, 1:], atol=1e-9)  # no sideways roll, z kept
    np.testing.assert_array_equal(out[:, 1:], planned[:, 1:])  # the swinging feet: never planted
    assert np.abs(advance).max() == pytest.approx(radius * 0.4, rel=0.01)  # the largest pitch, 0.4 rad
