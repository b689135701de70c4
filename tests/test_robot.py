"""Robot loading (registry names, MJCF and URDF paths), kinematics and the lowest points of geometry."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import needs_menagerie
from kinemorph.errors import KinemorphError, RobotLoadError, UnknownNameError
from kinemorph.robots import KNOWN_ROBOTS, Robot, load_robot, robot_info
from kinemorph.robots.geometry import collision_geoms, lowest_point_all, lowest_points
from kinemorph.transforms import quat_conj, quat_log, quat_mul, quat_normalize

DOF_COUNTS = {"unitree_g1": 29, "booster_t1": 23, "unitree_h1": 19, "unitree_go2": 12, "unitree_a1": 12}

_CACHE: dict[str, Robot] = {}


def robot(name: str) -> Robot:
    """Each model is compiled once per session (the tests only read it or set qpos)."""
    if name not in _CACHE:
        _CACHE[name] = load_robot(name)
    return _CACHE[name]


def random_qpos(r: Robot, rng: np.random.Generator) -> np.ndarray:
    """Random root pose and joint values inside the limits (within [-1, 1] where unlimited)."""
    lo = np.where(np.isfinite(r.lower), r.lower, -1.0)
    hi = np.where(np.isfinite(r.upper), r.upper, 1.0)
    return r.qpos(rng.uniform(-1, 1, 3), quat_normalize(rng.normal(size=4)), rng.uniform(lo, hi))


TINY_URDF = """<?xml version="1.0"?>
<robot name="tiny">
  <link name="base">
    <inertial><origin xyz="0 0 0"/><mass value="1.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><box size="0.2 0.1 0.1"/></geometry></collision>
  </link>
  <link name="thigh">
    <inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
    <collision><origin xyz="0 0 -0.1"/><geometry><cylinder radius="0.02" length="0.2"/></geometry></collision>
  </link>
  <link name="foot">
    <inertial><origin xyz="0 0 0"/><mass value="0.1"/>
      <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0001"/></inertial>
    <collision><geometry><sphere radius="0.03"/></geometry></collision>
  </link>
  <joint name="hip" type="revolute">
    <parent link="base"/><child link="thigh"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="10"/>
  </joint>
  <joint name="knee" type="revolute">
    <parent link="thigh"/><child link="foot"/><origin xyz="0 0 -0.2"/><axis xyz="0 1 0"/>
    <limit lower="-2.0" upper="0.1" effort="10" velocity="10"/>
  </joint>
</robot>
"""


# -- registry ---------------------------------------------------------------------------------
def test_registry_lists_the_known_robots() -> None:
    assert set(KNOWN_ROBOTS) == set(DOF_COUNTS)
    for name, info in KNOWN_ROBOTS.items():
        assert info.name == name
        assert info.family in ("humanoid", "quadruped")
        assert len(info.feet) == (2 if info.family == "humanoid" else 4)


def test_unknown_robot_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownNameError) as info:
        load_robot("unitree_g2")
    message = str(info.value)
    assert "unknown robot 'unitree_g2'" in message
    for name in KNOWN_ROBOTS:
        assert name in message
    assert isinstance(info.value, KeyError) and isinstance(info.value, KinemorphError)


def test_robot_info_of_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownNameError, match="unitree_g1"):
        robot_info("atlas")


def test_missing_model_path_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(RobotLoadError, match="no such robot model file"):
        load_robot(tmp_path / "missing.xml")


def test_malformed_model_file_is_a_load_error(tmp_path: Path) -> None:
    p = tmp_path / "broken.xml"
    p.write_text("<mujoco><worldbody><body></mujoco>")
    with pytest.raises(RobotLoadError, match="cannot parse"):
        load_robot(p)


# -- known robots -----------------------------------------------------------------------------
@needs_menagerie
@pytest.mark.parametrize("name", sorted(DOF_COUNTS))
def test_known_robot_loads_with_its_dof_count(name: str) -> None:
    r = robot(name)
    assert r.num_dofs == DOF_COUNTS[name]
    assert r.nq == 7 + r.num_dofs
    assert r.nv == 6 + r.num_dofs
    info = KNOWN_ROBOTS[name]
    assert r.root_body == info.root_body
    assert r.feet == info.feet
    assert r.family == info.family
    assert r.lower.shape == r.upper.shape == (r.num_dofs,)
    assert np.all(r.lower < r.upper)


@needs_menagerie
@pytest.mark.parametrize("name", sorted(DOF_COUNTS))
def test_rest_pose_is_inside_the_limits(name: str) -> None:
    r = robot(name)
    q = r.rest_qpos()
    assert q.shape == (r.nq,)
    dof = q[7:]
    assert np.all(dof >= r.lower - 1e-9) and np.all(dof <= r.upper + 1e-9)
    np.testing.assert_allclose(r.clip_to_limits(dof), dof, atol=1e-9)


@needs_menagerie
def test_unknown_body_lists_the_bodies() -> None:
    with pytest.raises(UnknownNameError, match="left_ankle_roll_link") as info:
        robot("unitree_g1").body_id("left_hand")
    assert "world" not in info.value.valid


@needs_menagerie
def test_fk_has_a_frame_axis_and_checks_qpos_length() -> None:
    r = robot("unitree_go2")
    pose = r.fk(r.rest_qpos())
    assert pose.positions.shape == (1, r.model.nbody, 3)
    assert pose.rotations.shape == (1, r.model.nbody, 4)
    pose = r.fk(np.stack([r.rest_qpos()] * 3))
    assert pose.positions.shape == (3, r.model.nbody, 3)
    with pytest.raises(KinemorphError, match="expected 19"):
        r.fk(np.zeros(18))


@needs_menagerie
def test_fk_places_the_root_body_at_the_root_coordinates() -> None:
    r = robot("unitree_g1")
    q = random_qpos(r, np.random.default_rng(3))
    pose = r.fk(q)
    b = r.body_id(r.root_body)
    np.testing.assert_allclose(pose.positions[0, b], q[:3], atol=1e-12)
    np.testing.assert_allclose(pose.rotations[0, b], q[3:7], atol=1e-12)


@needs_menagerie
@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("unitree_g1", "left_ankle_roll_link"),
        ("unitree_g1", "right_wrist_yaw_link"),
        ("unitree_g1", "torso_link"),
        ("unitree_g1", "pelvis"),
        ("booster_t1", "right_foot_link"),
        ("unitree_go2", "RL_calf"),
    ],
)
@settings(max_examples=5)
@given(seed=st.integers(0, 2**32 - 1))
def test_jacobian_matches_finite_differences(name: str, body: str, seed: int) -> None:
    """Columns of the world-aligned Jacobian are the body origin's velocity along each tangent direction."""
    r = robot(name)
    q = random_qpos(r, np.random.default_rng(seed))
    jac = r.jacobian(q, body)
    assert jac.shape == (6, r.nv)
    b = r.body_id(body)
    h = 1e-6
    fd = np.zeros((6, r.nv))
    for i in range(r.nv):
        e = np.zeros(r.nv)
        e[i] = 1.0
        plus = r.fk(r.integrate(q, e, h))
        minus = r.fk(r.integrate(q, e, -h))
        fd[:3, i] = (plus.positions[0, b] - minus.positions[0, b]) / (2 * h)
        dq = quat_mul(plus.rotations[0, b], quat_conj(minus.rotations[0, b]))  # world-frame increment
        fd[3:, i] = quat_log(dq) / (2 * h)
    np.testing.assert_allclose(jac, fd, atol=1e-6)


@needs_menagerie
def test_integrate_moves_along_a_joint_coordinate() -> None:
    r = robot("unitree_go2")
    q = r.rest_qpos()
    v = np.zeros(r.nv)
    v[6 + 2] = 0.5
    out = r.integrate(q, v, 0.2)
    np.testing.assert_allclose(out[7 + 2], q[7 + 2] + 0.1, atol=1e-12)
    np.testing.assert_allclose(np.delete(out, 7 + 2), np.delete(q, 7 + 2), atol=1e-15)


# -- models by path ---------------------------------------------------------------------------
@needs_menagerie
def test_mjcf_by_path_guesses_feet_and_family() -> None:
    path = Path(robot("unitree_go2").path)
    r = load_robot(path)
    assert r.name == path.stem
    assert r.num_dofs == 12
    assert r.family == "quadruped"
    # recognition (robots/recognise.py): foot bodies at the calves' foot spheres, legs FL FR RL RR
    assert r.feet == ("FL_foot", "FR_foot", "RL_foot", "RR_foot")
    assert r.legs == robot("unitree_go2").legs


def test_urdf_by_path_gets_a_free_joint(tmp_path: Path) -> None:
    p = tmp_path / "tiny.urdf"
    p.write_text(TINY_URDF)
    r = load_robot(p)
    m = r.model
    assert int(m.jnt_type[0]) == int(mujoco.mjtJoint.mjJNT_FREE)
    assert int(m.jnt_qposadr[0]) == 0
    assert r.dof_names == ("hip", "knee")
    assert r.nq == 9 and r.nv == 8
    assert r.root_body == "base"
    assert r.feet == ("foot",)
    np.testing.assert_allclose(r.lower, [-1.5, -2.0])
    np.testing.assert_allclose(r.upper, [1.5, 0.1])
    # The free joint lets the base move: the foot follows a root translation exactly.
    q = r.rest_qpos()
    q2 = q.copy()
    q2[:3] += [0.1, -0.2, 0.3]
    foot = r.body_id("foot")
    np.testing.assert_allclose(r.fk(q2).positions[0, foot] - r.fk(q).positions[0, foot], [0.1, -0.2, 0.3], atol=1e-12)


def test_mjcf_without_free_joint_gets_one(tmp_path: Path) -> None:
    p = tmp_path / "arm.xml"
    p.write_text(
        """<mujoco><worldbody><body name="base"><geom size="0.1"/>
        <body name="link" pos="0 0 -0.2"><joint name="j" axis="0 1 0" range="-1 1"/><geom size="0.05"/></body>
        </body></worldbody></mujoco>"""
    )
    r = load_robot(p)
    assert int(r.model.jnt_type[0]) == int(mujoco.mjtJoint.mjJNT_FREE)
    assert r.dof_names == ("j",)


def test_ball_joints_are_rejected(tmp_path: Path) -> None:
    p = tmp_path / "ball.xml"
    p.write_text(
        """<mujoco><worldbody><body name="base"><freejoint/><geom size="0.1"/>
        <body name="link" pos="0 0 -0.2"><joint name="b" type="ball"/><geom size="0.05"/></body>
        </body></worldbody></mujoco>"""
    )
    with pytest.raises(RobotLoadError, match="hinge and slide"):
        load_robot(p)


# -- lowest points of geometry ----------------------------------------------------------------
@needs_menagerie
def test_g1_standing_keyframe_puts_the_feet_on_the_ground() -> None:
    r = robot("unitree_g1")
    low = lowest_points(r, r.rest_qpos())
    assert low.shape == (1, 2)
    np.testing.assert_allclose(low, 0.0, atol=0.01)
    assert lowest_point_all(r, r.rest_qpos())[0] == pytest.approx(low.min(), abs=1e-12)


@needs_menagerie
@pytest.mark.parametrize("name", ["unitree_g1", "unitree_go2"])
def test_lowering_the_root_lowers_the_lowest_points_by_as_much(name: str) -> None:
    r = robot(name)
    q = r.rest_qpos()
    lowered = q.copy()
    lowered[2] -= 0.05
    out = lowest_points(r, np.stack([q, lowered]))
    assert out.shape == (2, len(r.feet))
    np.testing.assert_allclose(out[1], out[0] - 0.05, atol=1e-12)
    np.testing.assert_allclose(lowest_point_all(r, lowered), lowest_point_all(r, q) - 0.05, atol=1e-12)


@needs_menagerie
def test_collision_geoms_are_the_feet_contact_geoms() -> None:
    r = robot("unitree_g1")
    for foot in r.feet:
        ids = collision_geoms(r, foot)
        assert len(ids) > 0
        m = r.model
        assert all(m.geom_bodyid[g] == r.body_id(foot) for g in ids)
        assert all(m.geom_contype[g] or m.geom_conaffinity[g] for g in ids)


def _shape_body(name: str, x: float, geom: str) -> str:
    """A shape on a vertical slide and three hinges (any height and orientation) under the free base."""
    hinges = "".join(f'<joint name="{name}_r{a}" axis="{v}"/>' for a, v in zip("xyz", ("1 0 0", "0 1 0", "0 0 1")))
    return f'<body name="{name}" pos="{x} 0 0"><joint name="{name}_z" type="slide" axis="0 0 1"/>{hinges}{geom}</body>'


SHAPES = {
    "sphere": '<geom type="sphere" size="0.1"/>',
    "capsule": '<geom type="capsule" size="0.05 0.2"/>',
    "cylinder": '<geom type="cylinder" size="0.08 0.15"/>',
    "box": '<geom type="box" size="0.1 0.2 0.3"/>',
    "ellipsoid": '<geom type="ellipsoid" size="0.1 0.2 0.3"/>',
    "mesh": '<geom type="mesh" mesh="wedge"/>',
}
SHAPES_XML = f"""<mujoco>
  <asset><mesh name="wedge" vertex="0 0 0  0.3 0 0  0 0.2 0  0 0 0.1  0.1 0.1 0.25"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="base"><freejoint/><geom type="sphere" size="0.01" pos="0 0 10"/>
      {"".join(_shape_body(n, i, g) for i, (n, g) in enumerate(SHAPES.items()))}
    </body>
  </worldbody>
</mujoco>"""


@pytest.fixture(scope="module")
def shapes_robot(tmp_path_factory: pytest.TempPathFactory) -> Robot:
    p = tmp_path_factory.mktemp("shapes") / "shapes.xml"
    p.write_text(SHAPES_XML)
    return load_robot(p, meshes=True)


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32 - 1))
def test_lowest_points_of_every_geom_type_match_mujoco_distance_to_the_floor(shapes_robot: Robot, seed: int) -> None:
    """For each rotated shape, the lowest z equals MuJoCo's signed distance from the z = 0 plane."""
    r = shapes_robot
    m, d = r.model, r.data
    rng = np.random.default_rng(seed)
    q = r.rest_qpos()
    for name in SHAPES:
        q[int(m.joint(f"{name}_z").qposadr[0])] = rng.uniform(0.5, 1.5)
        for a in "xyz":
            q[int(m.joint(f"{name}_r{a}").qposadr[0])] = rng.uniform(-np.pi, np.pi)
    low = lowest_points(r, q, tuple(SHAPES))[0]
    d.qpos[:] = q
    mujoco.mj_kinematics(m, d)
    floor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    for f, name in enumerate(SHAPES):
        g = int(collision_geoms(r, name)[0])
        dist = mujoco.mj_geomDistance(m, d, floor, g, 10.0, None)
        assert low[f] == pytest.approx(dist, abs=1e-6), name
