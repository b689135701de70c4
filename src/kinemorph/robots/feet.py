"""Foot bodies for robots whose feet are only collision spheres on the shank (Unitree Go2, A1).

A foot body at the sphere's centre gives IK a point to drive, quality metrics a foot to measure
and ground contact a geom to test. The sphere moves onto the new body unchanged in world
placement and contact properties (density 0: the shank keeps its own explicit inertia), so
kinematics, collisions and dynamics are those of the original model.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ..errors import RobotLoadError

_COPIED = (
    "type", "size", "quat", "contype", "conaffinity", "condim", "friction", "priority",
    "solref", "solimp", "solmix", "margin", "gap", "rgba", "group",
)  # fmt: skip


def add_foot_bodies(spec: mujoco.MjSpec, foot_spheres: dict[str, str], *, where: str) -> None:
    """For each (foot body name -> shank body name): move the shank's sphere geom farthest from
    the shank's origin onto a new child body of that name, placed at the sphere's centre."""
    for foot, shank_name in foot_spheres.items():
        shank = spec.body(shank_name)
        if shank is None:
            raise RobotLoadError(f"{where}: no body {shank_name!r} to attach {foot!r} to")
        spheres = [g for g in shank.geoms if g.type == mujoco.mjtGeom.mjGEOM_SPHERE]
        if not spheres:
            raise RobotLoadError(f"{where}: body {shank_name!r} has no sphere geom for the foot {foot!r}")
        sphere = max(spheres, key=lambda g: float(np.linalg.norm(g.pos)))
        body = shank.add_body(name=foot, pos=np.array(sphere.pos, dtype=float))
        geom = body.add_geom()
        for attr in _COPIED:
            setattr(geom, attr, getattr(sphere, attr))
        name = sphere.name
        spec.delete(sphere)
        geom.name = name
        geom.pos = np.zeros(3)
        geom.density = 0.0
