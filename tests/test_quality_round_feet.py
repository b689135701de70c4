"""quality.foot_slip on round feet: the slip of a sphere paw is its contact point's material speed.

Go2 moved as a rigid body (joints at rest) so that its front-left paw sphere rolls, slides or
turns in place on the floor; the expected slip follows from the construction: a ball rolling
without slipping has a contact point at rest (its centre moves at radius x turn rate), a ball
sliding without turning slips at its speed, a ball turning in place slips at radius x turn rate.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.quality import foot_slip
from kinemorph.quality.foot_slip import round_geom
from kinemorph.robots.geometry import lowest_points
from kinemorph.robots.robot_motion import RobotMotion
from kinemorph.transforms import axis_angle_to_quat, quat_mul

FPS = 30.0
T = 60


def _go2():  # type: ignore[no-untyped-def]
    robot = robot_or_skip("unitree_go2")
    q = robot.rest_qpos()
    q[2] -= float(lowest_points(robot, q).min())  # the lowest paw touches z = 0
    return robot, q


def _paw(robot, q):  # type: ignore[no-untyped-def]
    """Front-left paw sphere: its centre (3,) and radius [m] at pose q."""
    g = round_geom(robot, "FL_foot")
    assert g is not None
    d = mujoco.MjData(robot.model)
    d.qpos[:] = q
    mujoco.mj_kinematics(robot.model, d)
    return d.geom_xpos[g].copy(), float(robot.model.geom_size[g, 0])


def _moved(robot, q0, pitch: np.ndarray, shift: np.ndarray) -> RobotMotion:  # type: ignore[no-untyped-def]
    """The rest pose turned by ``pitch`` (T,) [rad] about the world y axis through the paw's centre,
    the centre then moved by ``shift`` (T, 3) [m]."""
    centre, _ = _paw(robot, q0)
    qs = np.repeat(q0[None], len(pitch), axis=0)
    for t, a in enumerate(pitch):
        turn = axis_angle_to_quat(np.array([0.0, 1.0, 0.0]), a)
        r = np.empty(9)
        mujoco.mju_quat2Mat(r, turn)
        qs[t, 3:7] = quat_mul(turn, q0[3:7])
        qs[t, :3] = centre + shift[t] + r.reshape(3, 3) @ (q0[:3] - centre)
    return RobotMotion.from_qpos(robot.name, FPS, qs, robot.dof_names)


def _times() -> np.ndarray:
    return np.arange(T) / FPS


def test_a_rolling_paw_does_not_slip() -> None:
    robot, q0 = _go2()
    _, radius = _paw(robot, q0)
    pitch = 0.3 * np.sin(np.pi * _times())  # rolls forward and back, up to 0.94 rad/s
    shift = np.zeros((T, 3))
    shift[:, 0] = radius * pitch  # rolling without slipping: the centre advances r * angle
    slip = foot_slip(_moved(robot, q0, pitch, shift), robot)
    assert slip.round_feet.all()  # Go2's paws are single spheres
    assert slip.planted[:, 0].all()
    assert slip.per_foot_cm_s[0] == pytest.approx(0.0, abs=0.01)
    centre_speed = np.abs(np.gradient(shift[:, 0]) * FPS).mean() * 100  # what the centre's speed would read
    assert centre_speed > 1.0


def test_a_sliding_paw_slips_at_its_speed() -> None:
    robot, q0 = _go2()
    shift = np.zeros((T, 3))
    shift[:, 0] = 0.3 * _times()  # 0.3 m/s along x, no turn
    slip = foot_slip(_moved(robot, q0, np.zeros(T), shift), robot)
    assert slip.planted.all()
    np.testing.assert_allclose(slip.per_foot_cm_s, 30.0, atol=1e-6)
    np.testing.assert_allclose(slip.speed_cm_s, 30.0, atol=1e-6)


def test_a_paw_turning_in_place_slips_at_radius_times_turn_rate() -> None:
    robot, q0 = _go2()
    _, radius = _paw(robot, q0)
    rate = 0.5  # [rad/s] constant: the centre stands still, the contact point slides r * rate
    slip = foot_slip(_moved(robot, q0, rate * _times(), np.zeros((T, 3))), robot)
    assert slip.planted[:, 0].all()
    want = 100.0 * radius * 2.0 * np.sin(rate / FPS) / (2.0 / FPS)  # central difference of the arc
    assert slip.per_foot_cm_s[0] == pytest.approx(want, rel=1e-3)
    assert want == pytest.approx(100.0 * radius * rate, rel=1e-3)


def test_flat_feet_keep_the_origin_speed() -> None:
    g1 = robot_or_skip("unitree_g1")  # four sole spheres per foot: a flat foot
    assert round_geom(g1, g1.feet[0]) is None
    q = g1.rest_qpos()
    q[2] -= float(lowest_points(g1, q).min())
    qs = np.repeat(q[None], T, axis=0)
    turn = 0.2 * _times()  # yaw about the root: the origins of the feet move on circles
    for t, a in enumerate(turn):
        qs[t, 3:7] = quat_mul(axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), a), q[3:7])
    motion = RobotMotion.from_qpos(g1.name, FPS, qs, g1.dof_names)
    slip = foot_slip(motion, g1)
    origin = g1.fk(motion.qpos).positions[:, [g1.body_id(f) for f in g1.feet]]
    for f in range(2):
        want = np.linalg.norm(np.gradient(origin[:, f, :2], axis=0) * FPS, axis=1)
        np.testing.assert_allclose(slip.speed_cm_s[:, f], 100.0 * want, atol=1e-9)
