"""Lowest points of a robot's collision geometry: the basis of ground contact and penetration."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from .robot import Robot, RobotPose

_T = mujoco.mjtGeom


def collision_geoms(robot: Robot, body: str) -> np.ndarray:
    """Collision geoms (contype or conaffinity set) attached to a body; every geom of the body when
    none collides; for a body with no geom and no joint (a foot point fixed at a bare calf tip),
    its parent's collision geoms: what it stands on. Shape: (G,) int."""
    return body_collision_geoms(robot.model, robot.body_id(body))


def body_collision_geoms(m: mujoco.MjModel, b: int) -> np.ndarray:
    """:func:`collision_geoms` of body id ``b`` in any compile of the robot's model (geom ids are
    the model's own: kinemorph.sim's torque copy numbers them differently). Shape: (G,) int."""
    ids = [g for g in range(m.ngeom) if m.geom_bodyid[g] == b and (m.geom_contype[g] or m.geom_conaffinity[g])]
    if not ids:
        ids = [g for g in range(m.ngeom) if m.geom_bodyid[g] == b]
    parent = int(m.body_parentid[b])
    if not ids and m.body_jntnum[b] == 0 and parent > 0:
        ids = [g for g in range(m.ngeom) if m.geom_bodyid[g] == parent and (m.geom_contype[g] or m.geom_conaffinity[g])]
    return np.array(ids, dtype=np.int64)


def round_geom(robot: Robot, body: str, *, capsule: bool = True) -> int | None:
    """The geom a round foot stands on: the body's only collision geom (:func:`collision_geoms`)
    when that is a sphere (or a capsule, with ``capsule``); None for a flat foot (several geoms, a
    box, a mesh...)."""
    geoms = collision_geoms(robot, body)
    kinds = (int(_T.mjGEOM_SPHERE), int(_T.mjGEOM_CAPSULE)) if capsule else (int(_T.mjGEOM_SPHERE),)
    if len(geoms) == 1 and int(robot.model.geom_type[geoms[0]]) in kinds:
        return int(geoms[0])
    return None


def _all_collision_geoms(robot: Robot) -> np.ndarray:
    m = robot.model
    keep = (m.geom_contype != 0) | (m.geom_conaffinity != 0)
    keep &= m.geom_bodyid != 0
    keep &= m.geom_type != _T.mjGEOM_PLANE
    return np.nonzero(keep)[0]


@dataclass(frozen=True)
class GroundClearance:
    """Body poses and the lowest point of collision geoms over a clip, from one kinematics pass.

    Attributes:
        pose: body poses (T, nbody, ...).
        geoms: the geoms measured. Shape: (G,).
        lowest: lowest world z of each geom per frame [m]. Shape: (T, G).
    """

    pose: RobotPose
    geoms: np.ndarray
    lowest: np.ndarray

    def of_bodies(self, robot: Robot, bodies: tuple[str, ...]) -> np.ndarray:
        """Lowest z [m] of each body's collision geoms (a body without any: its origin). (T, F)."""
        out = np.empty((self.lowest.shape[0], len(bodies)))
        column = {int(g): k for k, g in enumerate(self.geoms)}
        for f, body in enumerate(bodies):
            cols = [column[int(g)] for g in collision_geoms(robot, body) if int(g) in column]
            if cols:
                out[:, f] = self.lowest[:, cols].min(axis=1)
            else:
                out[:, f] = self.pose.positions[:, robot.body_id(body), 2]
        return out

    def overall(self) -> np.ndarray:
        """Lowest z [m] over every measured geom per frame. Shape: (T,)."""
        return self.lowest.min(axis=1) if self.lowest.shape[1] else np.full(self.lowest.shape[0], np.inf)


def ground_clearance(robot: Robot, qpos: np.ndarray, geoms: np.ndarray | None = None) -> GroundClearance:
    """Body poses and lowest geom points in one pass (geoms: default every collision geom plus the
    feet's geoms). qpos: (T, nq) or (nq,)."""
    if geoms is None:
        feet = [collision_geoms(robot, f) for f in robot.feet]
        geoms = np.unique(np.concatenate([_all_collision_geoms(robot), *feet])).astype(np.int64)
    q = np.atleast_2d(np.asarray(qpos, dtype=np.float64))
    m, d = robot.model, robot.data
    n = q.shape[0]
    positions = np.empty((n, m.nbody, 3))
    rotations = np.empty((n, m.nbody, 4))
    pos_z = np.empty((n, len(geoms)))
    zrow = np.empty((n, len(geoms), 3))  # third row of each geom's rotation: world z in the geom frame
    for t in range(n):
        d.qpos[:] = q[t]
        mujoco.mj_kinematics(m, d)
        positions[t] = d.xpos
        rotations[t] = d.xquat
        pos_z[t] = d.geom_xpos[geoms, 2]
        zrow[t] = d.geom_xmat[geoms, 6:9]
    return GroundClearance(RobotPose(positions, rotations), geoms, _lowest_z(m, geoms, pos_z, zrow))


def _lowest_z(m: mujoco.MjModel, geoms: np.ndarray, pos_z: np.ndarray, zrow: np.ndarray) -> np.ndarray:
    """Closed forms per geom type (sphere, capsule, cylinder, box, ellipsoid; meshes through their
    vertices; other types by their origin) from geom heights (T, G) and z rows (T, G, 3)."""
    types = m.geom_type[geoms]
    size = m.geom_size[geoms]
    out = pos_z.copy()
    ext = np.zeros_like(pos_z)  # how far each geom reaches below its origin
    sphere = types == _T.mjGEOM_SPHERE
    ext[:, sphere] = size[sphere, 0]
    cap = types == _T.mjGEOM_CAPSULE
    ext[:, cap] = np.abs(zrow[:, cap, 2]) * size[cap, 1] + size[cap, 0]
    cyl = types == _T.mjGEOM_CYLINDER
    c = np.abs(zrow[:, cyl, 2])
    ext[:, cyl] = c * size[cyl, 1] + size[cyl, 0] * np.sqrt(np.maximum(0.0, 1.0 - c**2))
    box = types == _T.mjGEOM_BOX
    ext[:, box] = np.sum(np.abs(zrow[:, box]) * size[box], axis=-1)
    ell = types == _T.mjGEOM_ELLIPSOID
    ext[:, ell] = np.sqrt(np.sum((zrow[:, ell] * size[ell]) ** 2, axis=-1))
    out -= ext
    for k in np.nonzero(types == _T.mjGEOM_MESH)[0]:
        mid = int(m.geom_dataid[geoms[k]])
        a, nv = int(m.mesh_vertadr[mid]), int(m.mesh_vertnum[mid])
        out[:, k] = pos_z[:, k] + (zrow[:, k] @ m.mesh_vert[a : a + nv].T).min(axis=1)
    return out


def geom_lowest_z(robot: Robot, qpos: np.ndarray, geoms: np.ndarray) -> np.ndarray:
    """Lowest world z [m] of each geom, per frame. qpos: (T, nq) or (nq,). Returns (T, G)."""
    return ground_clearance(robot, qpos, np.asarray(geoms, dtype=np.int64)).lowest


def lowest_points(robot: Robot, qpos: np.ndarray, bodies: tuple[str, ...] | None = None) -> np.ndarray:
    """Lowest world z [m] of each body's collision geometry (default: the robot's feet), per frame.

    qpos: (T, nq) or (nq,). Returns (T, F).
    """
    bodies = robot.feet if bodies is None else bodies
    geoms = np.unique(np.concatenate([np.zeros(0, np.int64), *(collision_geoms(robot, b) for b in bodies)]))
    return ground_clearance(robot, qpos, geoms.astype(np.int64)).of_bodies(robot, bodies)


def lowest_point_all(robot: Robot, qpos: np.ndarray) -> np.ndarray:
    """Lowest world z [m] over every collision geom of the robot, per frame. Shape: (T,)."""
    return geom_lowest_z(robot, qpos, _all_collision_geoms(robot)).min(axis=1)
