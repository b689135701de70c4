"""The render model: the robot's own MuJoCo model (meshes included) on a checkerboard floor, under
a light that casts shadows, and a frame renderer with a camera that can follow the robot."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ..robots.feet import add_foot_bodies
from ..robots.mesh_lod import simplify_model_meshes, simplify_spec_meshes
from ..robots.registry import KNOWN_ROBOTS
from ..robots.robot import Robot
from .backend import RenderError, gl_context

OVERLAY_RGBA = np.array([1.0, 0.45, 0.1, 0.9], dtype=np.float32)
"""Colour of the source keypoints drawn over the robot."""

OVERLAY_RADIUS = 0.025
"""[m] Radius of a source keypoint sphere."""


def render_model(
    robot: Robot, width: int, height: int, *, shadows: bool = True, shadow_size: int = 1024, mesh_cell: float = 0.0
) -> mujoco.MjModel:
    """The robot's model file compiled with meshes, a floor, a sky, a sun (its shadow map
    ``shadow_size`` [px] square) and an offscreen buffer of ``width`` x ``height`` [px]; with
    ``mesh_cell`` > 0 [m] the meshes are simplified for drawing (robots.mesh_lod). Its joints
    must be the robot's (same names, same order)."""
    try:
        spec = mujoco.MjSpec.from_file(str(robot.path))
    except Exception as exc:  # MuJoCo raises ValueError or its own FatalError; the message says why
        raise RenderError(f"{robot.path}: cannot parse the robot model for rendering: {exc}") from None
    info = KNOWN_ROBOTS.get(robot.name)
    if info is not None and info.foot_spheres:
        add_foot_bodies(spec, info.foot_spheres, where=str(robot.path))
    if not any(j.type == mujoco.mjtJoint.mjJNT_FREE for j in spec.joints):
        spec.worldbody.bodies[0].add_freejoint()
    simplify_spec_meshes(spec, mesh_cell)
    for g in spec.geoms:  # drawing only: no collision data (convex hulls) to build
        g.contype = g.conaffinity = 0
    vis = spec.visual
    vis.global_.offwidth = max(int(width), int(vis.global_.offwidth))
    vis.global_.offheight = max(int(height), int(vis.global_.offheight))
    vis.quality.offsamples = 0  # multisampling costs 50% in software GL for little gain at video sizes
    vis.quality.shadowsize = int(shadow_size) if shadows else 0
    vis.headlight.ambient = [0.35, 0.35, 0.35]
    vis.headlight.diffuse = [0.45, 0.45, 0.45]
    sky = spec.add_texture(name="km_sky", type=mujoco.mjtTexture.mjTEXTURE_SKYBOX)
    sky.builtin = mujoco.mjtBuiltin.mjBUILTIN_GRADIENT
    sky.rgb1, sky.rgb2, sky.width, sky.height = [0.75, 0.82, 0.9], [0.97, 0.98, 1.0], 64, 384
    grid = spec.add_texture(name="km_floor", type=mujoco.mjtTexture.mjTEXTURE_2D)
    grid.builtin = mujoco.mjtBuiltin.mjBUILTIN_CHECKER
    grid.rgb1, grid.rgb2, grid.width, grid.height = [0.86, 0.86, 0.84], [0.62, 0.64, 0.68], 256, 256
    mat = spec.add_material(name="km_floor")
    mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "km_floor"
    mat.texrepeat, mat.texuniform, mat.reflectance = [2.0, 2.0], True, 0.0
    spec.worldbody.add_geom(
        name="km_floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 0.05], material="km_floor",
        contype=0, conaffinity=0, group=0,
    )  # fmt: skip
    sun = spec.worldbody.add_light(name="km_sun", pos=[0.0, 0.0, 6.0], dir=[0.25, 0.35, -1.0], castshadow=shadows)
    sun.type = mujoco.mjtLightType.mjLIGHT_DIRECTIONAL
    sun.diffuse, sun.ambient = [0.6, 0.6, 0.6], [0.15, 0.15, 0.15]
    try:
        model = spec.compile()
    except Exception as exc:
        raise RenderError(f"{robot.path}: cannot compile the robot model for rendering: {exc}") from None
    jnt = [model.joint(j) for j in range(model.njnt) if model.jnt_type[j] != mujoco.mjtJoint.mjJNT_FREE]
    if tuple(j.name for j in jnt) != robot.dof_names or model.nq != robot.nq:
        raise RenderError(f"{robot.path}: the render model's joints differ from robot {robot.name}'s")
    simplify_model_meshes(model, mesh_cell)  # meshes of other formats
    return model


@dataclass
class Camera:
    """Where the camera looks from: azimuth and elevation [deg], distance [m]; ``follow`` moves the
    point it looks at with the robot's root (smoothed over ``smoothing`` [s])."""

    azimuth: float = 135.0
    elevation: float = -15.0
    distance: float = 3.0
    follow: bool = True
    smoothing: float = 0.5


class FrameRenderer:
    """Renders qpos frames of one model into RGB images (H, W, 3) uint8, offscreen."""

    def __init__(self, model: mujoco.MjModel, width: int, height: int) -> None:
        self.model = model
        self.data = mujoco.MjData(model)
        self.width, self.height = int(width), int(height)
        self._ctx = gl_context(self.width, self.height)
        self._con = mujoco.MjrContext(model, mujoco.mjtFontScale.mjFONTSCALE_100)
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self._con)
        self._scene = mujoco.MjvScene(model, maxgeom=model.ngeom + 200)
        self._option = mujoco.MjvOption()
        self._cam = mujoco.MjvCamera()
        self._rect = mujoco.MjrRect(0, 0, self.width, self.height)
        self._image = np.empty((self.height, self.width, 3), dtype=np.uint8)

    def render(
        self,
        qpos: np.ndarray,
        lookat: np.ndarray,
        camera: Camera,
        overlay: np.ndarray | None = None,
        *,
        flip: bool = True,
    ) -> np.ndarray:
        """One image (H, W, 3) uint8 of the robot at ``qpos``, looking at ``lookat`` [m];
        ``overlay`` points (K, 3) [m] are drawn as small spheres over it. With ``flip=False`` the
        image is OpenGL's bottom-up buffer itself (no copy; overwritten by the next render)."""
        m, d = self.model, self.data
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        cam = self._cam
        cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        cam.lookat[:] = lookat
        cam.azimuth, cam.elevation, cam.distance = camera.azimuth, camera.elevation, camera.distance
        scn = self._scene
        mujoco.mjv_updateScene(m, d, self._option, None, cam, mujoco.mjtCatBit.mjCAT_ALL, scn)
        if overlay is not None:
            size = np.array([OVERLAY_RADIUS, 0.0, 0.0])
            for p in overlay[: scn.maxgeom - scn.ngeom]:
                mujoco.mjv_initGeom(
                    scn.geoms[scn.ngeom], mujoco.mjtGeom.mjGEOM_SPHERE, size, p, np.eye(3).ravel(), OVERLAY_RGBA
                )
                scn.ngeom += 1
        mujoco.mjr_render(self._rect, scn, self._con)
        mujoco.mjr_readPixels(self._image, None, self._rect, self._con)
        return self._image[::-1].copy() if flip else self._image

    def close(self) -> None:
        """Free the OpenGL context (before the interpreter shuts down, which OSMesa needs)."""
        if self._ctx is not None:
            self._con.free()
            self._ctx.free()
            self._ctx = None

    def __enter__(self) -> FrameRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
