"""Relation-preserving retargeting: the SRP and graph-distance metrics, the mesh and graph engines,
parametric humanoids and the compare command."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from conftest import HAS_MENAGERIE, data_path, robot_or_skip
from kinemorph.cli import main
from kinemorph.errors import ConfigError
from kinemorph.motion import Motion, load_motion
from kinemorph.quality import evaluate
from kinemorph.quality.relations import (
    GraphNormaliser,
    evaluate_relations,
    graph_distance,
    relation_features,
    srp,
)
from kinemorph.retarget import GraphConfig, MeshConfig, ik, retarget
from kinemorph.retarget.graph import graph_objective
from kinemorph.robots.parametric import humanoid_mjcf, parametric_humanoid
from kinemorph.transforms import axis_angle_to_quat, quat_rotate

rng = np.random.default_rng(7)


def test_srp_is_spearman_of_distances_and_heights() -> None:
    a = rng.normal(size=(4, 14, 3))
    b = a + rng.normal(scale=0.2, size=a.shape)
    ours = srp(a, b)
    fa, fb = relation_features(a), relation_features(b)
    for t in range(4):
        assert ours[t] == pytest.approx(scipy.stats.spearmanr(fa[t], fb[t]).statistic, abs=1e-12)


def test_srp_ignores_scale_heading_and_horizontal_position() -> None:
    a = rng.normal(size=(3, 14, 3)) + np.array([0.0, 0.0, 2.0])
    q = axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), np.array(0.7))
    b = quat_rotate(q, a) * 1.7 + [3.0, -1.0, 0.0]
    np.testing.assert_allclose(srp(a, b), 1.0, atol=1e-12)
    assert np.all(srp(a, a[:, ::-1]) < 0.99)  # relabelled landmarks break relations


def test_graph_distance_is_zero_for_the_same_shape_and_grows_with_change() -> None:
    rest = rng.normal(size=(14, 3)) + np.array([0.0, 0.0, 1.0])
    pose = rest[None] + rng.normal(scale=0.05, size=(5, 14, 3))
    norm = GraphNormaliser.from_rest(rest)
    scaled = GraphNormaliser.from_rest(rest * 1.5)
    np.testing.assert_allclose(graph_distance(pose, pose * 1.5, norm, scaled), 0.0, atol=1e-20)
    moved = pose.copy()
    moved[:, 6] += [0.2, 0.0, 0.0]
    assert np.all(graph_distance(pose, moved, norm, norm) > 0)


@pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set (robot models)")
def test_graph_gradient_matches_finite_differences(generated_walk: Motion) -> None:
    robot = robot_or_skip("unitree_g1")
    model = ik.build_ik_model(robot.model, robot.data)
    bodies = np.array([robot.body_id(b) for b, _ in robot.landmarks])
    offsets = np.array([o for _, o in robot.landmarks])
    chains, nchain = ik.task_chains(model, bodies)
    x_of_dof = np.full(robot.nv, -1)
    x_of_dof[2] = 0
    x_of_dof[6:] = np.arange(1, robot.num_dofs + 1)
    pairs = np.array([(i, j) for i in range(14) for j in range(i + 1, 14)])
    src = rng.normal(size=(105, 3)) * 0.3
    src[91:, :2] = 0.0
    w = rng.uniform(0.1, 1.0, 105)
    root = np.array([0.1, 0.2, 0.96, 0.1, -0.2, 0.15])
    root[2:] /= np.linalg.norm(root[2:])
    rest = robot.rest_qpos()
    prev = rest + rng.normal(scale=0.1, size=rest.shape)
    anchors = rng.normal(size=(14, 3))
    aw = np.zeros(14)
    aw[[10, 12]] = 3.0
    args = (root, bodies, offsets, chains, nchain, x_of_dof, src, w, rng.uniform(0.2, 1, 91), 0.8, pairs, rest,
            prev, 1e-2, 2e-2, 100.0, anchors, aw)  # fmt: skip
    x = np.concatenate([[0.5], rest[7:] + rng.normal(scale=0.3, size=robot.num_dofs)])  # low: floor term active
    grad = np.zeros_like(x)
    graph_objective(model, x, *args, grad)
    g = grad.copy()
    eps = 1e-6
    for k in range(0, len(x), 3):
        xp, xm = x.copy(), x.copy()
        xp[k] += eps
        xm[k] -= eps
        fd = (graph_objective(model, xp, *args, grad) - graph_objective(model, xm, *args, grad)) / (2 * eps)
        assert g[k] == pytest.approx(fd, rel=1e-5, abs=1e-7), k


def test_parametric_humanoids_have_the_asked_proportions() -> None:
    robot = parametric_humanoid(0.4, 0.5, height=1.6)
    assert robot.num_dofs == 24 and robot.family == "humanoid"
    lm = robot.landmark_positions(robot.fk(robot.rest_qpos()))[0]
    assert np.linalg.norm(lm[2] - lm[6]) == pytest.approx(0.4 * 1.6)  # shoulder to wrist
    assert np.linalg.norm(lm[8] - lm[10]) * 2 == pytest.approx(0.5 * 1.6)  # knee to ankle is half the leg
    assert lm[12, 2] == pytest.approx(0.0) and lm[10, 2] == pytest.approx(0.06)
    with pytest.raises(ConfigError):
        humanoid_mjcf(0.4, 0.9)


# -- engines --------------------------------------------------------------------------------------
def test_mesh_weight_zero_is_the_gmr_engine(generated_walk: Motion) -> None:
    robot = robot_or_skip("unitree_g1")
    gmr = retarget(generated_walk, robot, engine="gmr")
    mesh = retarget(generated_walk, robot, engine="mesh", config=MeshConfig(mesh_weight=0.0))
    np.testing.assert_array_equal(mesh.qpos, gmr.qpos)


@pytest.mark.parametrize("neighbours", [0, 5])
def test_mesh_engine_keeps_relations(generated_walk: Motion, neighbours: int) -> None:
    robot = robot_or_skip("unitree_g1")
    gmr = evaluate_relations(generated_walk, retarget(generated_walk, robot, engine="gmr"), robot)
    result = retarget(generated_walk, robot, engine="mesh", config=MeshConfig(neighbours=neighbours))
    mesh = evaluate_relations(generated_walk, result, robot)
    assert mesh.srp_median >= gmr.srp_median - 1e-3
    assert evaluate(result, robot).limit_violations == 0


def test_graph_engine_on_a_parametric_humanoid(generated_walk: Motion) -> None:
    from kinemorph.mapping.mapping import load_mapping

    robot = parametric_humanoid(0.33, 0.45)
    robot_or_skip("unitree_g1")  # the G1 mapping's root offset needs the shipped mapping only
    clip = generated_walk.slice(40, 100)
    result = retarget(clip, robot, load_mapping("unitree_g1"), engine="graph",
                      config=GraphConfig(robot_rest="keyframe", first_frame_generations=5))  # fmt: skip
    assert evaluate_relations(clip, result, robot).srp_median > 0.95
    assert evaluate(result, robot).joint_jump_frames == 0


def test_bad_graph_settings_are_refused() -> None:
    for bad in (dict(proximity=-1.0), dict(max_joint_step=0.0), dict(normalisation="x"), dict(robot_rest="t")):
        with pytest.raises(ConfigError):
            GraphConfig(**bad)


# -- the targets on LAFAN1 walk and dance onto G1 ---------------------------------------------
@cache
def _lafan(clip: str, engine: str):  # type: ignore[no-untyped-def]
    robot = robot_or_skip("unitree_g1")
    motion = load_motion(data_path(f"{clip}.bvh"))
    result = retarget(motion, robot, engine=engine)
    return evaluate_relations(motion, result, robot), evaluate(result, robot)


@pytest.mark.parametrize("clip", ["walk", "dance"])
def test_graph_beats_gmr_on_relations_without_losing_the_feet(clip: str) -> None:
    gmr_rel, gmr_q = _lafan(clip, "gmr")
    rel, q = _lafan(clip, "graph")
    assert rel.srp_median > gmr_rel.srp_median
    assert rel.srp_p10 > gmr_rel.srp_p10
    assert q.foot_slip_mean_cm_s <= 1.2 * gmr_q.foot_slip_mean_cm_s
    assert q.penetration_p95_cm <= 1.2 * gmr_q.penetration_p95_cm
    assert q.joint_jump_frames == 0


@pytest.mark.parametrize("clip", ["walk", "dance"])
def test_mesh_is_not_below_gmr_on_relations(clip: str) -> None:
    gmr_rel, _ = _lafan(clip, "gmr")
    rel, _ = _lafan(clip, "mesh")
    assert rel.srp_median >= gmr_rel.srp_median
    assert rel.srp_p10 >= gmr_rel.srp_p10


@pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set (robot models)")
def test_compare_command(tmp_path: Path, generated_walk: Motion, capsys: pytest.CaptureFixture[str]) -> None:
    from kinemorph.motion import save_bvh

    src = tmp_path / "walk.bvh"
    save_bvh(generated_walk.slice(0, 60), src)
    code = main(["compare", str(src), "--robot", "unitree_g1", "--engines", "gmr,mesh,graph",
                 "--json", str(tmp_path / "c.json"), "--plot", str(tmp_path / "c.png")])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "SRP median" in out and "graph" in out
    figures = json.loads((tmp_path / "c.json").read_text())
    assert set(figures) == {"gmr", "mesh", "graph"} and 0.5 < figures["graph"]["srp_median"] <= 1.0
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["compare", str(src), "--robot", "unitree_g1", "--engines", "gmr,nope"]) == 2
