"""What loading does to a model file that would not serve as it is: geoms that never collide,
texture images that are absent (robots/robot.py's compile calls these on the spec)."""

from __future__ import annotations

from pathlib import Path

import mujoco


def collide_primitives(spec: mujoco.MjSpec, path: Path) -> None:
    """A model none of whose geoms collide (contype = conaffinity = 0 everywhere: contacts left to
    <pair> elements of a scene file, as Apptronik Apollo's) has no shape kinemorph can stand on the
    floor: when it draws itself with meshes, its primitive geoms are its collision shapes and are
    made to collide, with a RobotWarning (a model of primitives only is left as it is)."""
    geoms = [g for g in spec.geoms if g.type != mujoco.mjtGeom.mjGEOM_PLANE]
    if not geoms or any(g.contype or g.conaffinity for g in geoms):
        return
    prims = [g for g in geoms if g.type != mujoco.mjtGeom.mjGEOM_MESH]
    if prims and len(prims) < len(geoms):
        import warnings

        from .recognised import RobotWarning

        for g in prims:
            g.contype, g.conaffinity = 1, 1
        warnings.warn(
            f"{path.name}: no geom collides (contype = conaffinity = 0): its {len(prims)} primitive geoms "
            "are taken as its collision shape", RobotWarning, stacklevel=4,
        )  # fmt: skip


def drop_textures(spec: mujoco.MjSpec) -> None:
    """Textures only colour what is drawn: a model loaded without meshes drops them (and the
    materials' references to them), so that a model file without its image files loads."""
    for t in list(spec.textures):
        spec.delete(t)
    for mat in spec.materials:
        mat.textures = [""] * len(mat.textures)
