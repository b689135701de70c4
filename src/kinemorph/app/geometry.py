"""Geometry for drawing (plain numpy, no viser): skeleton bones as capsules, a checkerboard floor,
the pieces of a MuJoCo model's visible geoms, joints near their limits."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ..motion.motion import Motion
from ..robots.mesh_lod import cluster_vertices as cluster_vertices
from ..robots.robot import Robot
from ..transforms import quat_rotate

VISIBLE_GROUPS = (0, 1, 2)
"""Geom groups drawn (MuJoCo's default visible groups; menagerie puts visual meshes in group 2)."""


def bone_segments(motion: Motion, frame: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and end points [m] of every bone at a frame: joint to parent, End Site to its joint.
    Shapes: (N, 3) and (N, 3)."""
    sk = motion.skeleton
    pos = motion.positions[frame, : sk.num_joints]
    rot = motion.rotations[frame, : sk.num_joints]
    child = np.arange(1, sk.num_joints)
    starts = [pos[sk.parents[child]]]
    ends = [pos[child]]
    if sk.end_sites:
        parents = np.array([e.parent for e in sk.end_sites])
        offsets = np.array([e.offset for e in sk.end_sites])
        starts.append(pos[parents])
        ends.append(pos[parents] + quat_rotate(rot[parents], offsets))
    return np.concatenate(starts), np.concatenate(ends)


def quat_z_to(direction: np.ndarray) -> np.ndarray:
    """Quaternions wxyz turning +z onto each direction (N, 3) (any length; zero gives identity)."""
    d = np.asarray(direction, dtype=np.float64).reshape(-1, 3)
    n = np.linalg.norm(d, axis=-1, keepdims=True)
    u = np.divide(d, n, out=np.tile([0.0, 0.0, 1.0], (len(d), 1)), where=n > 1e-12)
    cross = np.stack([-u[:, 1], u[:, 0], np.zeros(len(u))], axis=1)  # z x u
    s = np.linalg.norm(cross, axis=1)
    angle = np.arctan2(s, u[:, 2])  # stable for directions near -z
    axis = np.divide(cross, s[:, None], out=np.tile([1.0, 0.0, 0.0], (len(u), 1)), where=s[:, None] > 1e-15)
    return np.concatenate([np.cos(angle / 2)[:, None], axis * np.sin(angle / 2)[:, None]], axis=1)


def capsule_instances(starts: np.ndarray, ends: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions (N, 3), orientations wxyz (N, 4) and per-axis scales (N, 3) that turn a unit
    cylinder (radius 1, height 1 along z, centred) into the shaft of each bone's capsule."""
    d = ends - starts
    length = np.linalg.norm(d, axis=1)
    scales = np.stack([np.full(len(d), radius), np.full(len(d), radius), np.maximum(length, 1e-4)], axis=1)
    return 0.5 * (starts + ends), quat_z_to(d), scales


def checker_quads(half_size: float, cell: float) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """A checkerboard on z = 0 of side 2 * half_size [m]: (vertices, faces) of its light and of its
    dark squares."""
    n = max(1, round(2 * half_size / cell))
    parts: list[tuple[list[np.ndarray], list[np.ndarray]]] = [([], []), ([], [])]
    for i in range(n):
        for j in range(n):
            x0, y0 = -half_size + i * cell, -half_size + j * cell
            verts, faces = parts[(i + j) % 2]
            base = 4 * len(verts)
            verts.append(np.array([[x0, y0, 0], [x0 + cell, y0, 0], [x0 + cell, y0 + cell, 0], [x0, y0 + cell, 0]]))
            faces.append(np.array([[base, base + 1, base + 2], [base, base + 2, base + 3]]))
    out = tuple((np.concatenate(v).astype(np.float32), np.concatenate(f).astype(np.uint32)) for v, f in parts)
    return out[0], out[1]


@dataclass(frozen=True)
class GeomPart:
    """A visible geom of a MuJoCo model, in its body's frame.

    Attributes:
        body: body index.
        name: a name unique within the model (the geom's, else geom<i>).
        kind: "mesh", "box", "sphere", "capsule", "cylinder" or "ellipsoid".
        size: MuJoCo's geom size (half extents, radius, half length). Shape: (3,).
        pos: position in the body frame [m]. Shape: (3,).
        quat: orientation in the body frame, wxyz. Shape: (4,).
        rgb: colour 0..255. Shape: (3,).
        vertices, faces: the mesh (kind "mesh" only), in the geom frame.
    """

    body: int
    name: str
    kind: str
    size: np.ndarray
    pos: np.ndarray
    quat: np.ndarray
    rgb: tuple[int, int, int]
    vertices: np.ndarray | None = None
    faces: np.ndarray | None = None


_KINDS = {
    int(mujoco.mjtGeom.mjGEOM_MESH): "mesh",
    int(mujoco.mjtGeom.mjGEOM_BOX): "box",
    int(mujoco.mjtGeom.mjGEOM_SPHERE): "sphere",
    int(mujoco.mjtGeom.mjGEOM_CAPSULE): "capsule",
    int(mujoco.mjtGeom.mjGEOM_CYLINDER): "cylinder",
    int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): "ellipsoid",
}


def geom_parts(model: mujoco.MjModel) -> list[GeomPart]:
    """The model's drawable geoms (those in VISIBLE_GROUPS, or all when none is), planes left out."""
    groups = np.asarray(model.geom_group)
    shown = np.isin(groups, VISIBLE_GROUPS)
    if not shown.any():
        shown[:] = True
    out = []
    for g in range(model.ngeom):
        kind = _KINDS.get(int(model.geom_type[g]))
        if kind is None or not shown[g] or model.geom_rgba[g, 3] == 0:
            continue
        mat = int(model.geom_matid[g])
        rgba = model.mat_rgba[mat] if mat >= 0 else model.geom_rgba[g]
        verts = faces = None
        if kind == "mesh":
            m = int(model.geom_dataid[g])
            v0, nv = int(model.mesh_vertadr[m]), int(model.mesh_vertnum[m])
            f0, nf = int(model.mesh_faceadr[m]), int(model.mesh_facenum[m])
            verts = np.asarray(model.mesh_vert[v0 : v0 + nv], dtype=np.float32)
            faces = np.asarray(model.mesh_face[f0 : f0 + nf], dtype=np.uint32)
        out.append(
            GeomPart(
                body=int(model.geom_bodyid[g]),
                name=model.geom(g).name or f"geom{g}",
                kind=kind,
                size=model.geom_size[g].copy(),
                pos=model.geom_pos[g].copy(),
                quat=model.geom_quat[g].copy(),
                rgb=tuple(round(255 * float(c)) for c in rgba[:3]),  # type: ignore[arg-type]
                vertices=verts,
                faces=faces,
            )
        )
    return out


def near_limits(robot: Robot, dof_pos: np.ndarray, margin: float = 0.05) -> np.ndarray:
    """Joints within ``margin`` of their range's width from a limit (or past it). Shape: like dof_pos, bool."""
    lo, hi = robot.lower, robot.upper
    width = np.where(np.isfinite(hi - lo), hi - lo, np.inf)
    return (dof_pos - lo < margin * width) | (hi - dof_pos < margin * width)


def joint_bodies(robot: Robot) -> np.ndarray:
    """The body each joint moves (in dof order). Shape: (n,)."""
    return np.asarray(robot.model.jnt_bodyid[robot.joint_ids], dtype=np.int64)
