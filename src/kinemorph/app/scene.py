"""Scene helpers over viser: checkerboard floor, skeleton capsules, robot meshes, keypoints, links.

Every helper keeps the handles viser returns and updates them in place; names are hierarchical
(``/motion/skeleton/bones``, ``/robots/unitree_g1/pelvis/...``).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..motion.motion import Motion
from ..robots.robot import Robot
from .geometry import (
    GeomPart,
    bone_segments,
    capsule_instances,
    checker_quads,
    cluster_vertices,
    geom_parts,
    joint_bodies,
    near_limits,
)

BONE_RGB = (70, 130, 200)
JOINT_RGB = (230, 235, 240)
SELECTED_RGB = (250, 170, 30)
LIMIT_RGB = (220, 40, 40)


@functools.cache
def _unit_mesh(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, faces) of a unit cylinder (radius 1, height 1 along z, centred) or a unit sphere."""
    import trimesh  # viser's dependency (the [app] extra)

    if kind == "cylinder":
        m = trimesh.creation.cylinder(radius=1.0, height=1.0, sections=14)
    else:
        m = trimesh.creation.icosphere(subdivisions=2, radius=1.0)
    return np.asarray(m.vertices, dtype=np.float32), np.asarray(m.faces, dtype=np.uint32)


def add_floor(server: Any, name: str = "/floor", half_size: float = 12.0, cell: float = 0.5) -> list[Any]:
    """A checkerboard on z = 0 that receives shadows; the default lights cast them."""
    server.scene.configure_default_lights(enabled=True, cast_shadow=True)
    (lv, lf), (dv, df) = checker_quads(half_size, cell)
    return [
        server.scene.add_mesh_simple(
            f"{name}/light", lv, lf, color=(235, 235, 230), cast_shadow=False, receive_shadow=True
        ),
        server.scene.add_mesh_simple(
            f"{name}/dark", dv, df, color=(140, 146, 158), cast_shadow=False, receive_shadow=True
        ),
    ]


class SkeletonView:
    """A motion's skeleton as capsules: a shaft per bone and a ball per joint (batched meshes)."""

    def __init__(self, server: Any, name: str, motion: Motion, *, radius: float | None = None) -> None:
        self.motion = motion
        self.radius = radius or 0.018 * max(motion.stature(), 0.3)
        self.selected = -1
        starts, ends = bone_segments(motion, 0)
        pos, quat, scale = capsule_instances(starts, ends, self.radius)
        nj = motion.skeleton.num_joints
        self.bones = server.scene.add_batched_meshes_simple(
            f"{name}/bones", *_unit_mesh("cylinder"), quat, pos, batched_scales=scale, batched_colors=BONE_RGB
        )
        joints = np.vstack([motion.positions[0, :nj], ends[nj - 1 :]])
        self.joints = server.scene.add_batched_meshes_simple(
            f"{name}/joints", *_unit_mesh("sphere"), np.tile([1.0, 0, 0, 0], (len(joints), 1)), joints,
            batched_scales=np.full(len(joints), self.radius * 1.25), batched_colors=self._colors(len(joints)),
        )  # fmt: skip

    def _colors(self, n: int) -> np.ndarray:
        c = np.tile(np.array(JOINT_RGB, dtype=np.uint8), (n, 1))
        if 0 <= self.selected < n:
            c[self.selected] = SELECTED_RGB
        return c

    def show(self, frame: int) -> None:
        nj = self.motion.skeleton.num_joints
        starts, ends = bone_segments(self.motion, frame)
        pos, quat, scale = capsule_instances(starts, ends, self.radius)
        self.bones.batched_positions, self.bones.batched_wxyzs, self.bones.batched_scales = pos, quat, scale
        self.joints.batched_positions = np.vstack([self.motion.positions[frame, :nj], ends[nj - 1 :]])

    def select(self, joint: int) -> None:
        self.selected = joint
        self.joints.batched_colors = self._colors(len(self.joints.batched_positions))

    def remove(self) -> None:
        self.bones.remove()
        self.joints.remove()


MESH_CELL = 0.006
"""[m] Robot meshes are sent to the browser with their vertices merged on a grid this fine (vertex
clustering: about a sixth of the triangles, which keeps software-rendered WebGL usable)."""


def _add_part(server: Any, name: str, part: GeomPart) -> Any:
    kw = {"color": part.rgb, "position": part.pos, "wxyz": part.quat}
    s = part.size
    if part.kind == "mesh":
        assert part.vertices is not None and part.faces is not None
        verts, faces = cluster_vertices(part.vertices, part.faces, MESH_CELL)
        return server.scene.add_mesh_simple(name, verts, faces, **kw)
    if part.kind == "box":
        return server.scene.add_box(name, dimensions=2 * s, **kw)
    if part.kind == "sphere":
        return server.scene.add_icosphere(name, radius=float(s[0]), **kw)
    if part.kind == "ellipsoid":
        return server.scene.add_icosphere(name, radius=1.0, scale=tuple(float(x) for x in s), **kw)
    if part.kind == "cylinder":
        return server.scene.add_cylinder(name, radius=float(s[0]), height=2 * float(s[1]), **kw)
    import trimesh

    mesh = trimesh.creation.capsule(height=2 * float(s[1]), radius=float(s[0]), count=[10, 10])
    return server.scene.add_mesh_simple(name, mesh.vertices, mesh.faces, **kw)


class RobotView:
    """A robot drawn from its MuJoCo model's visible geoms: a frame per body holding its geoms.
    ``show(qpos)`` poses it; joints near their limits can colour their bodies red."""

    def __init__(self, server: Any, name: str, robot: Robot) -> None:
        self.server = server
        self.robot = robot
        self.name = name
        self.root = server.scene.add_frame(name, show_axes=False)
        parts = geom_parts(robot.model)
        self.body_ids = sorted({p.body for p in parts if p.body > 0})
        self.frames = {
            b: server.scene.add_frame(f"{name}/{robot.body_names[b] or f'body{b}'}", show_axes=False)
            for b in self.body_ids
        }
        self.geoms: dict[int, list[tuple[Any, tuple[int, int, int]]]] = {b: [] for b in self.body_ids}
        for p in parts:
            if p.body in self.frames:
                handle = _add_part(server, f"{self.frames[p.body].name}/{p.name}", p)
                self.geoms[p.body].append((handle, p.rgb))
        self._red: set[int] = set()
        self._joint_bodies = joint_bodies(robot)

    @property
    def visible(self) -> bool:
        return bool(self.root.visible)

    @visible.setter
    def visible(self, value: bool) -> None:
        self.root.visible = value

    def show(self, qpos: np.ndarray, *, pose: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Place the bodies for one configuration (or precomputed body positions and wxyz)."""
        if pose is None:
            fk = self.robot.fk(qpos)
            pos, rot = fk.positions[0], fk.rotations[0]
        else:
            pos, rot = pose
        for b, frame in self.frames.items():
            frame.position, frame.wxyz = pos[b], rot[b]

    def mark_limits(self, dof_pos: np.ndarray, margin: float = 0.05) -> list[str]:
        """Colour red the bodies whose joint is near a limit; returns those joints' names."""
        near = near_limits(self.robot, dof_pos, margin)
        red = {int(b) for b in self._joint_bodies[near]}
        for b in red ^ self._red:
            for handle, rgb in self.geoms.get(b, []):
                handle.color = LIMIT_RGB if b in red else rgb
        self._red = red
        return [self.robot.dof_names[i] for i in np.flatnonzero(near)]

    def remove(self) -> None:
        self.root.remove()


class PointsView:
    """Small spheres (keypoints, targets) updated as one batch."""

    def __init__(self, server: Any, name: str, points: np.ndarray, rgb: tuple[int, int, int], radius: float) -> None:
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        self.handle = server.scene.add_batched_meshes_simple(
            name, *_unit_mesh("sphere"), np.tile([1.0, 0, 0, 0], (len(p), 1)), p,
            batched_scales=np.full(len(p), radius), batched_colors=rgb, cast_shadow=False,
        )  # fmt: skip

    def show(self, points: np.ndarray) -> None:
        self.handle.batched_positions = np.asarray(points, dtype=np.float64).reshape(-1, 3)

    def remove(self) -> None:
        self.handle.remove()


def add_links(server: Any, name: str, starts: np.ndarray, ends: np.ndarray, rgb: tuple[int, int, int]) -> Any:
    """Line segments from each start to its end point."""
    pts = np.stack([starts, ends], axis=1).astype(np.float32)
    return server.scene.add_line_segments(name, pts, colors=rgb, thickness=2.0, thickness_units="screen")
