"""Lowest points of a robot's collision geometry: the basis of ground contact and penetration."""

from __future__ import annotations

import mujoco
import numpy as np

from .robot import Robot


def collision_geoms(robot: Robot, body: str) -> np.ndarray:
    """Collision geoms (contype or conaffinity set) attached to a body. Shape: (G,) int."""
    b = robot.body_id(body)
    m = robot.model
    ids = [g for g in range(m.ngeom) if m.geom_bodyid[g] == b and (m.geom_contype[g] or m.geom_conaffinity[g])]
    if not ids:  # fall back on every geom of the body
        ids = [g for g in range(m.ngeom) if m.geom_bodyid[g] == b]
    return np.array(ids, dtype=np.int64)


def _geom_lowest_z(model: mujoco.MjModel, data: mujoco.MjData, g: int) -> float:
    """Lowest world z [m] of one geom at the current kinematics."""
    t = int(model.geom_type[g])
    z = float(data.geom_xpos[g, 2])
    r = data.geom_xmat[g].reshape(3, 3)
    size = model.geom_size[g]
    if t == mujoco.mjtGeom.mjGEOM_SPHERE:
        return z - size[0]
    if t == mujoco.mjtGeom.mjGEOM_CAPSULE:
        return z - abs(r[2, 2]) * size[1] - size[0]
    if t == mujoco.mjtGeom.mjGEOM_CYLINDER:
        return z - abs(r[2, 2]) * size[1] - size[0] * float(np.sqrt(max(0.0, 1.0 - r[2, 2] ** 2)))
    if t == mujoco.mjtGeom.mjGEOM_BOX:
        return z - float(np.abs(r[2]) @ size)
    if t == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
        return z - float(np.sqrt(np.sum((r[2] * size) ** 2)))
    if t == mujoco.mjtGeom.mjGEOM_MESH:
        mid = int(model.geom_dataid[g])
        a, n = int(model.mesh_vertadr[mid]), int(model.mesh_vertnum[mid])
        verts = model.mesh_vert[a : a + n]
        return z + float((verts @ r[2]).min())
    return z  # planes, height fields: their origin


def lowest_points(robot: Robot, qpos: np.ndarray, bodies: tuple[str, ...] | None = None) -> np.ndarray:
    """Lowest world z [m] of each body's collision geometry (default: the robot's feet), per frame.

    qpos: (T, nq) or (nq,). Returns (T, F).
    """
    bodies = robot.feet if bodies is None else bodies
    geoms = [collision_geoms(robot, b) for b in bodies]
    q = np.atleast_2d(np.asarray(qpos, dtype=np.float64))
    out = np.empty((q.shape[0], len(bodies)))
    m, d = robot.model, robot.data
    for t in range(q.shape[0]):
        d.qpos[:] = q[t]
        mujoco.mj_kinematics(m, d)
        for f, gs in enumerate(geoms):
            out[t, f] = min(
                (_geom_lowest_z(m, d, int(g)) for g in gs), default=float(d.xpos[robot.body_id(bodies[f]), 2])
            )
    return out


def lowest_point_all(robot: Robot, qpos: np.ndarray) -> np.ndarray:
    """Lowest world z [m] over every collision geom of the robot, per frame. Shape: (T,)."""
    m, d = robot.model, robot.data
    geoms = [g for g in range(m.ngeom) if (m.geom_contype[g] or m.geom_conaffinity[g]) and m.geom_bodyid[g] != 0]
    q = np.atleast_2d(np.asarray(qpos, dtype=np.float64))
    out = np.empty(q.shape[0])
    for t in range(q.shape[0]):
        d.qpos[:] = q[t]
        mujoco.mj_kinematics(m, d)
        out[t] = min(_geom_lowest_z(m, d, g) for g in geoms)
    return out
