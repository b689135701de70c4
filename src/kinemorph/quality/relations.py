"""Spatial relations between body parts, source against robot: SRP and the graph distance.

Both compare the 14 humanoid landmarks (kinemorph.conventions.LANDMARKS) of the source and of the
robot, frame by frame, after "Morphology-agnostic humanoid retargeting via perception-motivated
graph similarity" (Frontiers in Neurorobotics 2026):

- SRP (spatial relationship preservation): the Spearman rank correlation between the source's and
  the robot's inter-landmark distances plus landmark heights (91 + 14 numbers per frame): 1 when
  every "nearer than" relation is kept.
- Graph distance D_w: edges between every pair of landmarks and from each landmark down to the
  floor, each a vector divided by its length in a rest pose; D_w = sum_e w_e |E_src - E_robot|^2
  with proximity weights w = softmax(-c d_src) (d_src: the source edge's rest-normalised length),
  so that near pairs (a hand on a knee) count most.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import KinemorphError
from ..motion.motion import Motion
from ..robots.robot import Robot, RobotPose
from ..robots.robot_motion import RobotMotion

PAIRS = np.array([(i, j) for i in range(14) for j in range(i + 1, 14)])
"""Landmark index pairs (i < j) of the pair edges, 91 of them."""
LIMB_SEGMENTS = ((2, 4), (3, 5), (4, 6), (5, 7), (8, 10), (9, 11))
"""shoulder-elbow, elbow-wrist, knee-ankle, both sides: what hangs down in a neutral stance."""
DEFAULT_PROXIMITY = 2.0


def source_landmarks(motion: Motion) -> np.ndarray:
    """Landmark positions of a humanoid source [m]. Shape: (T, 14, 3)."""
    if len(motion.landmarks) != 14:
        raise KinemorphError(
            f"{motion.source}: relation metrics need the 14 humanoid landmarks; preset {motion.preset} defines none"
        )
    return motion.positions[:, [motion.index(n) for n in motion.landmarks]]


def robot_landmarks(robot: Robot, result: RobotMotion, pose: RobotPose | None = None) -> np.ndarray:
    """Landmark positions of a robot motion [m]. Shape: (T, 14, 3)."""
    return robot.landmark_positions(robot.fk(result.qpos) if pose is None else pose)


def neutral_frame(points: np.ndarray) -> int:
    """The most neutral standing frame of landmark trajectories (T, 14, 3): limbs hanging down."""
    score = np.zeros(points.shape[0])
    for a, b in LIMB_SEGMENTS:
        v = points[:, b] - points[:, a]
        score += np.arccos(np.clip(-v[:, 2] / (np.linalg.norm(v, axis=1) + 1e-12), -1.0, 1.0))
    return int(np.argmin(score))


def relation_features(points: np.ndarray) -> np.ndarray:
    """Pairwise landmark distances (91) then landmark heights (14), per frame. Shape: (T, 105)."""
    d = np.linalg.norm(points[:, PAIRS[:, 1]] - points[:, PAIRS[:, 0]], axis=-1)
    return np.concatenate([d, points[..., 2]], axis=1)


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks along the last axis, ties averaged. Shape as x."""
    order = np.argsort(x, axis=-1, kind="stable")
    ranks = np.empty_like(x)
    np.put_along_axis(ranks, order, np.arange(x.shape[-1], dtype=float)[None].repeat(x.shape[0], 0), axis=-1)
    # average ties (rare with real-valued distances, but exact ties exist in symmetric poses)
    sorted_x = np.take_along_axis(x, order, axis=-1)
    for t in np.nonzero((np.diff(sorted_x, axis=-1) == 0).any(axis=-1))[0]:
        _, inverse = np.unique(x[t], return_inverse=True)
        sums = np.bincount(inverse, weights=ranks[t])
        counts = np.bincount(inverse)
        ranks[t] = (sums / counts)[inverse]
    return ranks


def srp(source_points: np.ndarray, robot_points: np.ndarray) -> np.ndarray:
    """Spearman correlation per frame between source and robot relation features. Shape: (T,)."""
    a = _ranks(relation_features(source_points))
    b = _ranks(relation_features(robot_points))
    a -= a.mean(axis=1, keepdims=True)
    b -= b.mean(axis=1, keepdims=True)
    return np.sum(a * b, axis=1) / np.sqrt(np.sum(a * a, axis=1) * np.sum(b * b, axis=1))


@dataclass(frozen=True)
class GraphNormaliser:
    """Rest lengths that normalise the graph's edges.

    Attributes:
        pair_lengths: rest length of each pair edge [m]. Shape: (91,).
        height: rest pelvis height above the lowest landmark [m], the scale of the ground edges.
    """

    pair_lengths: np.ndarray
    height: float

    @classmethod
    def from_rest(cls, rest: np.ndarray, *, per_edge: bool = True) -> GraphNormaliser:
        """From landmarks in a rest pose (14, 3). per_edge: each pair edge by its own rest length
        (the paper's graph); False: every edge by the rest pelvis height (one scale for the body)."""
        height = float(max(rest[0, 2] - rest[:, 2].min(), 1e-3))
        if not per_edge:
            return cls(np.full(len(PAIRS), height), height)
        lengths = np.linalg.norm(rest[PAIRS[:, 1]] - rest[PAIRS[:, 0]], axis=-1)
        return cls(np.maximum(lengths, 1e-3), height)

    def edges(self, points: np.ndarray) -> np.ndarray:
        """Normalised edge vectors: 91 pair edges then 14 ground edges. (T, 14, 3) -> (T, 105, 3)."""
        pair = (points[:, PAIRS[:, 1]] - points[:, PAIRS[:, 0]]) / self.pair_lengths[None, :, None]
        ground = np.zeros_like(points)
        ground[..., 2] = -points[..., 2] / self.height
        return np.concatenate([pair, ground], axis=1)


def proximity_weights(source_edges: np.ndarray, c: float = DEFAULT_PROXIMITY) -> np.ndarray:
    """softmax(-c |E_src|) over the edges of each frame. (T, 105, 3) -> (T, 105)."""
    z = -c * np.linalg.norm(source_edges, axis=-1)
    z -= z.max(axis=1, keepdims=True)
    w = np.exp(z)
    return w / w.sum(axis=1, keepdims=True)


def graph_distance(
    source_points: np.ndarray,
    robot_points: np.ndarray,
    source_norm: GraphNormaliser,
    robot_norm: GraphNormaliser,
    c: float = DEFAULT_PROXIMITY,
) -> np.ndarray:
    """D_w per frame. Shape: (T,)."""
    es = source_norm.edges(source_points)
    er = robot_norm.edges(robot_points)
    return np.sum(proximity_weights(es, c) * np.sum((es - er) ** 2, axis=-1), axis=1)


@dataclass(frozen=True)
class RelationReport:
    """Relation metrics of one retargeting result.

    Attributes:
        srp_median: median over frames of SRP.
        srp_p10: 10th percentile over frames of SRP.
        graph_distance_mean: mean over frames of D_w.
        srp_per_frame: SRP per frame. Shape: (T,).
        graph_distance_per_frame: D_w per frame. Shape: (T,).
    """

    srp_median: float
    srp_p10: float
    graph_distance_mean: float
    srp_per_frame: np.ndarray
    graph_distance_per_frame: np.ndarray

    def to_dict(self) -> dict[str, float]:
        return {"srp_median": self.srp_median, "srp_p10": self.srp_p10, "graph_distance_mean": self.graph_distance_mean}


def source_normaliser(motion: Motion, *, per_edge: bool = True) -> GraphNormaliser:
    """The source's rest: its most neutral standing frame."""
    pts = source_landmarks(motion)
    return GraphNormaliser.from_rest(pts[neutral_frame(pts)], per_edge=per_edge)


def robot_normaliser(robot: Robot, *, per_edge: bool = True) -> GraphNormaliser:
    """The robot's rest: its standing keyframe."""
    return GraphNormaliser.from_rest(robot.landmark_positions(robot.fk(robot.rest_qpos()))[0], per_edge=per_edge)


def evaluate_relations(
    motion: Motion, result: RobotMotion, robot: Robot, *, proximity: float = DEFAULT_PROXIMITY
) -> RelationReport:
    """SRP and graph distance of a humanoid retargeting result against its source."""
    src = source_landmarks(motion)
    rob = robot_landmarks(robot, result)
    if src.shape[0] != rob.shape[0]:
        raise KinemorphError(f"source has {src.shape[0]} frames, the result {rob.shape[0]}")
    s = srp(src, rob)
    g = graph_distance(src, rob, source_normaliser(motion), robot_normaliser(robot), proximity)
    return RelationReport(float(np.median(s)), float(np.percentile(s, 10)), float(g.mean()), s, g)
