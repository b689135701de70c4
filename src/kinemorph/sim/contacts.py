"""Candidate floor-contact points of a robot's collision geometry, and the friction-pyramid QP.

For each primitive collision geom the lowest point is the candidate (a box gives its 8 corners,
so that a flat sole gets a support polygon; a mesh gives up to four extreme points of its lowest
vertices). A candidate is a contact point in a frame when it is
within ``height_tol`` of the floor (z = 0); when the motion carries a contact mask, only geoms of
planted bodies count, with the looser ``mask_height_tol`` (a planted foot of a retargeted motion
may hover a little), on the frame or on the one before or after it (a landing paw is still above
the floor on the frame whose central-difference acceleration holds part of its impact).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ..optim.qp import solve_qp

_SPHERE = int(mujoco.mjtGeom.mjGEOM_SPHERE)
_CAPSULE = int(mujoco.mjtGeom.mjGEOM_CAPSULE)
_BOX = int(mujoco.mjtGeom.mjGEOM_BOX)
_CYLINDER = int(mujoco.mjtGeom.mjGEOM_CYLINDER)
_ELLIPSOID = int(mujoco.mjtGeom.mjGEOM_ELLIPSOID)
_MESH = int(mujoco.mjtGeom.mjGEOM_MESH)
_SOLE_BAND = 0.005  # mesh vertices this close to the mesh's lowest one form its sole [m]
_CORNERS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=np.float64)


@dataclass(frozen=True)
class ContactPoints:
    """Candidate contact points. points: world positions [m], Shape (P, 3); geoms: the geom of
    each point, Shape (P,)."""

    points: np.ndarray
    geoms: np.ndarray


def lowest_points(model: mujoco.MjModel, data: mujoco.MjData, geoms: np.ndarray) -> ContactPoints:
    """World points of each geom closest to the floor after kinematics."""
    pts: list[np.ndarray] = []
    owner: list[int] = []
    down = np.array([0.0, 0.0, -1.0])
    for g in geoms:
        c = data.geom_xpos[g]
        R = data.geom_xmat[g].reshape(3, 3)
        s = model.geom_size[g]
        t = int(model.geom_type[g])
        if t == _SPHERE:
            p = [c + s[0] * down]
        elif t == _CAPSULE:
            a = R[:, 2] * s[1]
            end = c - a if a[2] > 0 else c + a
            p = [end + s[0] * down]
        elif t == _ELLIPSOID:
            m = R @ np.diag(s * s) @ R.T
            ext = np.sqrt(max(m[2, 2], 1e-18))
            p = [c - m[:, 2] / ext]
        elif t == _CYLINDER:
            a = R[:, 2]
            end = c - a * s[1] if a[2] > 0 else c + a * s[1]
            radial = down - down.dot(a) * a
            n = np.linalg.norm(radial)
            p = [end + (radial / n * s[0] if n > 1e-9 else 0.0)]
        elif t == _BOX:
            p = list(c + (_CORNERS * s) @ R.T)
        elif t == _MESH:
            p = _mesh_sole(model, g, c, R)
        else:
            continue
        pts.extend(p)
        owner.extend([int(g)] * len(p))
    if not pts:
        return ContactPoints(np.zeros((0, 3)), np.zeros(0, dtype=np.int64))
    return ContactPoints(np.asarray(pts), np.asarray(owner, dtype=np.int64))


def _mesh_sole(model: mujoco.MjModel, g: int, c: np.ndarray, R: np.ndarray) -> list[np.ndarray]:
    """Up to four extreme points (along world x and y) of a mesh's lowest vertices: a sole."""
    mid = int(model.geom_dataid[g])
    start, num = int(model.mesh_vertadr[mid]), int(model.mesh_vertnum[mid])
    world = c + model.mesh_vert[start : start + num].astype(np.float64) @ R.T
    low = world[world[:, 2] <= world[:, 2].min() + _SOLE_BAND]
    picks = {int(np.argmin(low[:, 0])), int(np.argmax(low[:, 0])), int(np.argmin(low[:, 1])), int(np.argmax(low[:, 1]))}
    return [low[i] for i in sorted(picks)]


@dataclass(frozen=True)
class ContactSolution:
    """Contact forces of one frame.

    Attributes:
        forces: world-frame force at each contact point [N]. Shape: (P, 3).
        residual: generalized force the contacts leave unexplained. Shape: (nv,).
        solved: whether the QP solver reported success.
    """

    forces: np.ndarray
    residual: np.ndarray
    solved: bool


def pyramid_rows(num_points: int, mu: float) -> np.ndarray:
    """Rows G with G f <= 0 for the friction pyramid |f_x|, |f_y| <= mu f_z per point.
    Shape: (4 P, 3 P)."""
    block = np.array([[1.0, 0.0, -mu], [-1.0, 0.0, -mu], [0.0, 1.0, -mu], [0.0, -1.0, -mu]])
    return np.kron(np.eye(num_points), block)


def solve_contact_forces(
    qfrc: np.ndarray, jac: np.ndarray, weights: np.ndarray, *, mu: float, regularization: float = 1e-8
) -> ContactSolution:
    """Contact forces f inside the friction pyramid that best explain the generalized force.

    minimise ||W (qfrc - J' f)||^2 + reg ||f||^2  s.t.  f_z >= 0, |f_x|, |f_y| <= mu f_z.

    Args:
        qfrc: generalized force the motion needs (mj_inverse). Shape: (nv,).
        jac: stacked world-frame point Jacobians. Shape: (3 P, nv).
        weights: W, per generalized coordinate (nv,) or a full matrix (nv, nv).
    """
    p3 = jac.shape[0]
    if p3 == 0:
        return ContactSolution(np.zeros((0, 3)), qfrc.copy(), True)
    W = np.diag(weights) if weights.ndim == 1 else weights
    a = W @ jac.T
    b = W @ qfrc
    H = a.T @ a + regularization * np.eye(p3)
    g = -a.T @ b
    n = p3 // 3
    lower = np.tile([-np.inf, -np.inf, 0.0], n)
    res = solve_qp(H, g, A=pyramid_rows(n, mu), upper=np.zeros(4 * n), x_lower=lower)
    f = res.x if res.solved else np.zeros(p3)
    return ContactSolution(f.reshape(n, 3), qfrc - jac.T @ f, res.solved)
