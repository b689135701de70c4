"""Engine ``mesh``: GMR's two stages plus an interaction-mesh term (terms.py: the generic point term it fills).

Per frame, the mesh's vertices are the scaled source keypoints (the last stage's position
targets, one per robot body) and ground points under the feet; its edges come from a Delaunay
tetrahedralisation (scipy) or from the k nearest neighbours. The robot's keypoints are driven
toward the source's Laplacian coordinates, which keeps which body parts are near which, and near
the ground. mesh_weight = 0 is the gmr engine exactly.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import mujoco
import numpy as np
from scipy.spatial import Delaunay, QhullError

from ..errors import ConfigError
from ..mapping.mapping import Mapping
from ..motion.motion import Motion
from ..progress import Progress
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from . import ik
from .gmr import GmrConfig, GmrTargets, build_targets, solve_targets
from .terms import PointTerm


@dataclass(frozen=True)
class MeshConfig(GmrConfig):
    """Settings of the mesh engine: GMR's settings, plus

    Attributes:
        mesh_weight: cost of the Laplacian-coordinate term [1/m]; 0 reproduces gmr.
        neighbours: 0 builds the mesh by Delaunay tetrahedralisation, k > 0 joins each vertex to its
            k nearest.
        ground_points: add a point on the floor under each foot to the mesh.
        remesh_every: frames between rebuilds of the mesh's topology (the Laplacian coordinates
            follow every frame).
    """

    mesh_weight: float = 20.0
    neighbours: int = 0
    ground_points: bool = True
    remesh_every: int = 10

    def __post_init__(self) -> None:
        super().__post_init__()
        if not (math.isfinite(self.mesh_weight) and self.mesh_weight >= 0):
            raise ConfigError(f"mesh_weight must be a finite number >= 0, got {self.mesh_weight}")
        if self.remesh_every < 1:
            raise ConfigError(f"remesh_every must be >= 1, got {self.remesh_every}")
        if self.neighbours < 0:
            raise ConfigError(f"neighbours must be >= 0 (0: Delaunay), got {self.neighbours}")


def _adjacency_delaunay(points: np.ndarray) -> list[set[int]]:
    try:
        tri = Delaunay(points, qhull_options="QJ")
    except QhullError:  # degenerate (e.g. all points on a plane): fall back on neighbours
        return _adjacency_knn(points, min(6, len(points) - 1))
    adj: list[set[int]] = [set() for _ in range(len(points))]
    for simplex in tri.simplices:
        for a in simplex:
            adj[a].update(int(b) for b in simplex if b != a)
    return adj


def _adjacency_knn(points: np.ndarray, k: int) -> list[set[int]]:
    d = np.linalg.norm(points[:, None] - points[None], axis=-1)
    np.fill_diagonal(d, np.inf)
    return [set(np.argsort(row)[:k].tolist()) for row in d]


def build_mesh(built: GmrTargets, robot: Robot, cfg: MeshConfig) -> PointTerm:
    """The mesh term for every frame from the last stage's position targets. The mesh's topology
    is rebuilt every ``remesh_every`` frames (motion is smooth: who neighbours whom changes slowly);
    the Laplacian coordinates are computed for every frame."""
    mapping = built.mapping
    stage = mapping.stages[-1]
    s = len(mapping.stages) - 1
    tasks = [k for k, t in enumerate(stage) if t.position_weight > 0]
    bodies = np.array([robot.body_id(stage[k].robot_body) for k in tasks], dtype=np.int64)
    keypoints = built.targets[:, s, tasks, :3]  # (T, K, 3)
    feet = [i for i, k in enumerate(tasks) if stage[k].robot_body in robot.feet] if cfg.ground_points else []
    t_count, k_count = keypoints.shape[:2]
    fixed = np.zeros((t_count, max(len(feet), 1), 3))
    fixed[:, : len(feet), :2] = keypoints[:, feet, :2]
    verts = np.concatenate([keypoints, fixed[:, : len(feet)]], axis=1)  # (T, V, 3)
    starts = list(range(0, t_count, cfg.remesh_every))
    adjs = [
        (_adjacency_knn(verts[a], cfg.neighbours) if cfg.neighbours > 0 else _adjacency_delaunay(verts[a]))[:k_count]
        for a in starts
    ]
    m = max(1, max(len(x) for adj in adjs for x in adj))
    nb = np.full((t_count, k_count, m), -1, dtype=np.int64)
    w = np.zeros((t_count, k_count, m))
    for a, adj in zip(starts, adjs):
        b = min(t_count, a + cfg.remesh_every)
        for i, x in enumerate(adj):
            idx = sorted(x)
            nb[a:b, i, : len(idx)] = idx
            w[a:b, i, : len(idx)] = 1.0 / max(len(idx), 1)
    gathered = np.take_along_axis(verts[:, :, None, :], np.maximum(nb, 0)[..., None], axis=1)  # (T, K, M, 3)
    delta = keypoints - np.sum(w[..., None] * gathered, axis=2)
    model = ik.build_ik_model(robot.model, mujoco.MjData(robot.model))
    chains, nchain = ik.task_chains(model, bodies)
    return PointTerm(
        float(cfg.mesh_weight), bodies, chains, nchain, nb, w, delta, fixed, np.zeros((k_count, 3, robot.nv))
    )


def solve_mesh(
    motion: Motion,
    robot: Robot,
    mapping: Mapping | None,
    config: MeshConfig | None = None,
    *,
    progress: Progress | None = None,
) -> RobotMotion:
    """Retarget with GMR's method plus the interaction-mesh term (see the module docstring)."""
    cfg = config or MeshConfig()
    built = build_targets(motion, robot, mapping, cfg)
    t0 = time.perf_counter()
    mesh = build_mesh(built, robot, cfg) if cfg.mesh_weight > 0 else None
    t_mesh = time.perf_counter() - t0
    result = solve_targets(motion, robot, built, cfg, engine="mesh", mesh=mesh, progress=progress)
    info = result.info
    info["seconds_mesh"] = t_mesh
    info["frames_per_s"] = result.num_frames / max(info["seconds_solve"] + t_mesh, 1e-12)  # the mesh counts
    return result
