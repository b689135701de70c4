"""Late touch-downs (kinemorph.control.touchdown): a foot the plan has put down but that is still in
the air is treated as swinging until it reaches the floor."""

from __future__ import annotations

import mujoco
import numpy as np

from conftest import robot_or_skip
from kinemorph.control.support import contact_points
from kinemorph.control.touchdown import TouchdownWatch
from kinemorph.gait.robot_table import robot_gait


def _standing(robot):  # type: ignore[no-untyped-def]
    rg = robot_gait(robot)
    m = robot.model
    d = mujoco.MjData(m)
    if m.nkey:
        d.qpos[:] = m.key_qpos[0]
    mujoco.mj_kinematics(m, d)
    feet = (robot.body_id(rg.feet[0]), robot.body_id(rg.feet[1]))
    points = contact_points(rg, 0.005)
    # put the lower foot's sole on the floor
    low = min(float((d.xpos[b, 2] + points[f] @ d.xmat[b].reshape(3, 3)[2]).min()) for f, b in enumerate(feet))
    d.qpos[2] -= low
    mujoco.mj_kinematics(m, d)
    return m, d, feet, points


def test_a_foot_in_the_air_waits_until_it_touches_the_floor() -> None:
    robot = robot_or_skip("unitree_g1")
    m, d, feet, points = _standing(robot)
    watch = TouchdownWatch(points, feet)
    assert watch.touching(d).all()
    # the plan lifts the left foot, then puts it down while the whole robot is 3 cm up
    assert not watch.update(d, np.array([False, True])).any()
    d.qpos[2] += 0.03
    mujoco.mj_kinematics(m, d)
    assert not watch.touching(d).any()
    assert watch.update(d, np.array([True, True])).tolist() == [True, False]  # late: left still in the air
    d.qpos[2] -= 0.03
    mujoco.mj_kinematics(m, d)
    assert not watch.update(d, np.array([True, True])).any()  # landed
    d.qpos[2] += 0.03  # a foot that has landed stays down for the plan (lifting is the plan's call)
    mujoco.mj_kinematics(m, d)
    assert not watch.update(d, np.array([True, True])).any()
