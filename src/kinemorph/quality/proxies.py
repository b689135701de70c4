"""Capsule proxies of a robot's links, for self-collision and floor checks that need no meshes.

Each collision geom of the model file (contype or conaffinity set; meshes included, read from
their STL or OBJ files, so a robot loaded without meshes still gets its full collision shape)
becomes one capsule in its body's frame: the segment along the principal axis of the geom's
points and a radius that covers 95% of them (a sphere is a capsule of zero length). Pairs to
keep apart are every pair of proxies on different bodies that are not parent and child, not
excluded by the model (<exclude>, contype/conaffinity) and not already within 1 cm of each other
in the robot's rest pose (shapes that always touch, such as a hip's links).

A foot whose collision shape is flat (a box or a sole mesh) is checked against the floor through
its sole points instead of its capsule (kinemorph.quality.soles): extra proxies of zero radius,
used by the floor checks only; the capsule still keeps the foot apart from the other links.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from ..robots.robot import Robot, RobotPose
from ._capsules import clip_pair_distances, clip_proxy_lowest
from .corners import corner_points
from .soles import _Cap, sole_points

_T = mujoco.mjtGeom
COVERAGE = 95.0
"""[%] share of a geom's points inside its capsule (the rest are mesh corners that stick out)."""
REST_CLEARANCE = 0.01
"""[m] pairs closer than this in the rest pose are treated as always touching and not checked."""


@dataclass(frozen=True)
class LinkProxies:
    """Capsules in body frames and the pairs to keep apart.

    Attributes:
        body: robot body id of each capsule. Shape: (P,) int.
        p0: first segment end in the body frame [m]. Shape: (P, 3).
        p1: second segment end in the body frame [m]. Shape: (P, 3).
        radius: capsule radius [m]. Shape: (P,).
        pairs: proxy index pairs to keep apart. Shape: (K, 2) int.
        names: "body/geom" label per capsule, for messages. Shape: (P,).
        floor: proxies checked against the floor (False: a flat foot's capsule, whose sole
            points stand for it there). Shape: (P,) bool.
    """

    body: np.ndarray
    p0: np.ndarray
    p1: np.ndarray
    radius: np.ndarray
    pairs: np.ndarray
    names: tuple[str, ...]
    floor: np.ndarray

    @property
    def count(self) -> int:
        return int(self.body.shape[0])


def _read_mesh(path: Path) -> np.ndarray:
    """Vertices (V, 3) of an STL (binary or ASCII) or OBJ file; empty when unreadable."""
    try:
        raw = path.read_bytes()
    except OSError:
        return np.zeros((0, 3))
    suffix = path.suffix.lower()
    if suffix == ".stl":
        if len(raw) >= 84:
            n = int(np.frombuffer(raw[80:84], dtype="<u4")[0])
            if 84 + 50 * n == len(raw):
                rec = np.frombuffer(raw[84:], dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
                return rec["v"].reshape(-1, 3).astype(np.float64)
        text = raw.decode("ascii", errors="ignore").split()
        idx = [i for i, w in enumerate(text) if w == "vertex"]
        return np.array([[float(text[i + 1]), float(text[i + 2]), float(text[i + 3])] for i in idx]).reshape(-1, 3)
    if suffix == ".obj":
        lines = raw.decode("ascii", errors="ignore").splitlines()
        rows = [line.split()[1:4] for line in lines if line.startswith("v ")]
        return np.array(rows, dtype=np.float64).reshape(-1, 3)
    return np.zeros((0, 3))


def _capsule(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Capsule (p0, p1, radius) around points (N, 3) in their frame."""
    c = points.mean(axis=0)
    x = points - c
    _, _, vt = np.linalg.svd(x[:: max(1, len(x) // 2000)], full_matrices=False)
    axis = vt[0]
    s = x @ axis
    radial = np.linalg.norm(x - s[:, None] * axis, axis=1)
    r = float(np.percentile(radial, COVERAGE))
    lo, hi = float(np.percentile(s, 100 - COVERAGE)), float(np.percentile(s, COVERAGE))
    lo, hi = lo + r, hi - r
    if hi < lo:
        lo = hi = 0.5 * (lo + hi)
    return c + lo * axis, c + hi * axis, r


def _primitive_points(gtype: int, size: np.ndarray) -> np.ndarray | tuple[np.ndarray, np.ndarray, float]:
    if gtype == _T.mjGEOM_SPHERE:
        return np.zeros(3), np.zeros(3), float(size[0])
    if gtype == _T.mjGEOM_CAPSULE:
        return np.array([0, 0, -size[1]]), np.array([0, 0, size[1]]), float(size[0])
    if gtype == _T.mjGEOM_CYLINDER:
        ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        ring = np.column_stack([size[0] * np.cos(ang), size[0] * np.sin(ang)])
        return np.vstack([np.column_stack([ring, np.full(16, z)]) for z in (-size[1], 0.0, size[1])])
    if gtype in (_T.mjGEOM_BOX, _T.mjGEOM_ELLIPSOID):
        g = np.stack(np.meshgrid(*[np.linspace(-1, 1, 5)] * 3, indexing="ij"), -1).reshape(-1, 3)
        return g * size[:3]
    return np.zeros((1, 3))


def _compile_frames(path: Path) -> tuple[mujoco.MjModel, list[tuple[int, Path, np.ndarray]]]:
    """The model with every mesh geom replaced by a point sphere (fast to compile, geom frames as
    written in the file) and, per replaced geom, (geom id, mesh file, scale)."""
    spec = mujoco.MjSpec.from_file(str(path))
    meshdir = Path(spec.modelfiledir or path.parent) / (spec.meshdir or "")
    meshes = {m.name or Path(m.file).stem: m for m in spec.meshes}
    files: dict[str, tuple[Path, np.ndarray]] = {}
    for g in spec.geoms:
        if g.type == _T.mjGEOM_MESH:
            m = meshes.get(g.meshname)
            g.type = _T.mjGEOM_SPHERE
            g.size = np.array([1e-3, 0, 0])
            g.meshname = ""
            if m is not None and (g.contype or g.conaffinity):
                g.name = g.name or f"_proxy_{len(files)}"
                files[g.name] = (meshdir / m.file, np.array(m.scale, dtype=float))
    for m in list(spec.meshes):
        spec.delete(m)
    for t in list(spec.textures):  # colours only; a file may come without its images
        spec.delete(t)
    for mat in spec.materials:
        mat.textures = [""] * len(mat.textures)
    model = spec.compile()
    out = []
    for name, (f, scale) in files.items():
        out.append((mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name), f, scale))
    return model, out


_CACHE: dict[tuple[str, float], tuple[list[_Cap], set]] = {}


def _file_capsules(path: Path) -> tuple[list[_Cap], set]:
    key = (str(path), os.path.getmtime(path))
    if key in _CACHE:
        return _CACHE[key]
    model, mesh_geoms = _compile_frames(path)
    mesh_of = {gid: (f, scale) for gid, f, scale in mesh_geoms}
    caps = []
    for g in range(model.ngeom):
        b = int(model.geom_bodyid[g])
        if b == 0 or not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        if int(model.geom_type[g]) == _T.mjGEOM_PLANE:
            continue
        if g in mesh_of:
            f, scale = mesh_of[g]
            pts = _read_mesh(f) * scale
            if pts.shape[0] < 4:
                continue
            shape: np.ndarray | tuple = pts
        else:
            shape = _primitive_points(int(model.geom_type[g]), model.geom_size[g])
        flat = np.empty(9)
        mujoco.mju_quat2Mat(flat, model.geom_quat[g])
        rot = flat.reshape(3, 3)
        if isinstance(shape, tuple):
            p0, p1, r = shape
        else:
            p0, p1, r = _capsule(shape)
        pos = model.geom_pos[g]
        flat_pts = None if isinstance(shape, tuple) else pos + shape @ rot.T
        caps.append(
            (
                model.body(b).name,
                model.geom(g).name,
                pos + rot @ p0,
                pos + rot @ p1,
                r,
                int(model.geom_contype[g]),
                int(model.geom_conaffinity[g]),
                flat_pts,
            )
        )
    sig = model.exclude_signature  # (body1 << 16) + body2 per <exclude>
    excluded = {(model.body(int(a)).name, model.body(int(b)).name) for a, b in zip(sig >> 16, sig & 0xFFFF)}
    _CACHE[key] = (caps, excluded)
    return caps, excluded


def _loaded_only(robot: Robot, covered: set[str]) -> list[_Cap]:
    """Primitive collision geoms of the loaded model on bodies the file has none on (bodies added
    at load, such as the Go2's and A1's foot bodies)."""
    m = robot.model
    out = []
    for g in range(m.ngeom):
        b = int(m.geom_bodyid[g])
        name = robot.body_names[b]
        if b == 0 or name in covered or not (m.geom_contype[g] or m.geom_conaffinity[g]):
            continue
        shape = _primitive_points(int(m.geom_type[g]), m.geom_size[g])
        if int(m.geom_type[g]) in (_T.mjGEOM_PLANE, _T.mjGEOM_MESH):
            continue
        p0, p1, r = shape if isinstance(shape, tuple) else _capsule(shape)
        flat = np.empty(9)
        mujoco.mju_quat2Mat(flat, m.geom_quat[g])
        rot = flat.reshape(3, 3)
        pos = m.geom_pos[g]
        ct, ca = int(m.geom_contype[g]), int(m.geom_conaffinity[g])
        pts = None if isinstance(shape, tuple) else pos + shape @ rot.T
        out.append((name, m.geom(g).name, pos + rot @ p0, pos + rot @ p1, r, ct, ca, pts))
    return out


_PROXIES: dict[tuple, LinkProxies] = {}


def link_proxies(robot: Robot) -> LinkProxies:
    """Capsule proxies of ``robot``'s collision geometry (cached per model file and body list);
    see :func:`build_link_proxies`."""
    try:
        key: tuple = (str(robot.path), os.path.getmtime(robot.path), robot.body_names, robot.rest_qpos().tobytes())
    except OSError:
        return build_link_proxies(robot)
    if key not in _PROXIES:
        _PROXIES[key] = build_link_proxies(robot)
    return _PROXIES[key]


def build_link_proxies(robot: Robot) -> LinkProxies:
    """Capsule proxies of ``robot``'s collision geometry (read from its model file) and the pairs
    to keep apart. Robots whose file cannot be read again fall back to the loaded model's geoms."""
    try:
        caps, excluded = _file_capsules(Path(robot.path))
    except Exception:  # a model built in memory, or a file that changed: use what is loaded
        caps, excluded = [], set()
    sig = robot.model.exclude_signature  # the loaded model's <exclude> pairs hold as well
    loaded = {(robot.body_names[int(a)], robot.body_names[int(b)]) for a, b in zip(sig >> 16, sig & 0xFFFF)}
    excluded = excluded | loaded  # (not in place: the file's set is cached)
    caps = [c for c in caps if c[0] in robot.body_names]
    caps += _loaded_only(robot, {c[0] for c in caps})
    body = np.array([robot.body_names.index(c[0]) for c in caps], dtype=np.int64)
    p0 = np.array([c[2] for c in caps]).reshape(-1, 3)
    p1 = np.array([c[3] for c in caps]).reshape(-1, 3)
    radius = np.array([c[4] for c in caps], dtype=np.float64)
    names = tuple(f"{c[0]}/{c[1]}" for c in caps)
    m = robot.model
    parent = m.body_parentid
    cand = []
    for i in range(len(caps)):
        for j in range(i + 1, len(caps)):
            a, b = int(body[i]), int(body[j])
            if a == b or parent[a] == b or parent[b] == a:
                continue
            if (caps[i][0], caps[j][0]) in excluded or (caps[j][0], caps[i][0]) in excluded:
                continue
            if not ((caps[i][5] & caps[j][6]) or (caps[j][5] & caps[i][6])):
                continue
            cand.append((i, j))
    pairs = np.array(cand, dtype=np.int64).reshape(-1, 2)
    floor = np.ones(len(caps), dtype=bool)
    sole_body, sole_pts, sole_radius, sole_names = sole_points(robot, caps, floor)
    corner_body, corner_pts, corner_names = corner_points(robot, caps, floor, p0, p1, radius)
    sole_body = np.concatenate([sole_body, corner_body])
    sole_pts = np.concatenate([sole_pts, corner_pts])
    sole_radius = np.concatenate([sole_radius, np.zeros(len(corner_body))])
    sole_names = sole_names + corner_names
    body = np.concatenate([body, sole_body])
    p0 = np.concatenate([p0, sole_pts])
    p1 = np.concatenate([p1, sole_pts])
    radius = np.concatenate([radius, sole_radius])
    names = names + sole_names
    floor = np.concatenate([floor, np.ones(len(sole_body), dtype=bool)])
    prox = LinkProxies(body, p0, p1, radius, pairs, names, floor)
    if pairs.shape[0]:
        d = mujoco.MjData(m)
        xpos = np.empty((2, m.nbody, 3))
        xmat = np.empty((2, m.nbody, 9))
        for k, q in enumerate((robot.rest_qpos(), m.qpos0)):  # once per robot (cached)
            d.qpos[:] = q
            mujoco.mj_fwdPosition(m, d)
            xpos[k], xmat[k] = d.xpos, d.xmat
        d = clip_pair_distances(xpos, xmat, body, p0, p1, radius, pairs).min(axis=0)
        prox = LinkProxies(body, p0, p1, radius, pairs[d > REST_CLEARANCE], names, floor)
    return prox


def body_frames(robot: Robot, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Body positions (T, nbody, 3) [m] and rotation matrices (T, nbody, 9) for qpos (T, nq), from a
    MjData of our own (the robot's is left alone)."""
    q = np.atleast_2d(np.asarray(qpos, dtype=np.float64))
    m = robot.model
    d = mujoco.MjData(m)
    xpos = np.empty((q.shape[0], m.nbody, 3))
    xmat = np.empty((q.shape[0], m.nbody, 9))
    for t in range(q.shape[0]):
        d.qpos[:] = q[t]
        mujoco.mj_kinematics(m, d)
        xpos[t] = d.xpos
        xmat[t] = d.xmat
    return xpos, xmat


def pose_frames(pose: RobotPose) -> tuple[np.ndarray, np.ndarray]:
    """Body positions (T, nbody, 3) and rotation matrices (T, nbody, 9) from body poses (robot.fk)."""
    w, x, y, z = np.moveaxis(pose.rotations, -1, 0)
    mat = np.stack(
        [
            1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
        ],
        axis=-1,
    )  # fmt: skip
    return np.ascontiguousarray(pose.positions), np.ascontiguousarray(mat)


def clip_self_distances(robot: Robot, prox: LinkProxies, qpos: np.ndarray, pose: RobotPose | None = None) -> np.ndarray:
    """Signed distance [m] of every proxy pair per frame (negative: overlap). Shape: (T, K).
    ``pose`` (robot.fk(qpos)) saves the kinematics pass."""
    xpos, xmat = body_frames(robot, qpos) if pose is None else pose_frames(pose)
    return clip_pair_distances(xpos, xmat, prox.body, prox.p0, prox.p1, prox.radius, prox.pairs)


def clip_lowest(robot: Robot, prox: LinkProxies, qpos: np.ndarray, pose: RobotPose | None = None) -> np.ndarray:
    """Lowest world z [m] of every proxy per frame (+inf for proxies off the floor checks: a flat
    foot's capsule). Shape: (T, P). ``pose`` saves the kinematics pass."""
    xpos, xmat = body_frames(robot, qpos) if pose is None else pose_frames(pose)
    low = clip_proxy_lowest(xpos, xmat, prox.body, prox.p0, prox.p1, prox.radius)
    low[:, ~prox.floor] = np.inf
    return low
