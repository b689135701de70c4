"""Robot: a MuJoCo model with the joint order, limits, feet and kinematics kinemorph needs."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from ..errors import KinemorphError, RobotLoadError, UnknownNameError
from .feet import add_foot_bodies
from .loading import collide_primitives, drop_textures
from .registry import KNOWN_ROBOTS, RobotInfo, robot_info


def _menagerie_file(name: str) -> Path:
    import mujoco_menagerie

    try:
        entry = mujoco_menagerie.get(name)
        default = next(e for e in entry.entry_points if e.name == entry.default_model)
        path = Path(entry.path()) / default.file
    except Exception as exc:  # the package raises its own error types, and download errors offline
        root = os.environ.get("MENAGERIE_ROOT", "(unset)")
        raise RobotLoadError(
            f"robot {name!r}: mujoco-menagerie could not provide the model ({type(exc).__name__}: {exc}); "
            f"MENAGERIE_ROOT={root}. Offline machines need MENAGERIE_ROOT pointing at a local copy."
        ) from None
    if not path.is_file():
        raise RobotLoadError(
            f"robot {name!r}: model file {path} is missing (MENAGERIE_ROOT={os.environ.get('MENAGERIE_ROOT')})"
        )
    return path


def _compile(
    path: Path,
    *,
    meshes: bool,
    foot_spheres: dict[str, str] | None = None,
    keep_meshes_on: frozenset[str] = frozenset(),
    tips: dict[str, tuple[str, tuple[float, float, float]]] | None = None,
    soles: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
) -> mujoco.MjModel:
    """Compile an MJCF or URDF file. Without meshes, mesh geoms, textures and assets are dropped (except the
    collision meshes of the bodies in keep_meshes_on: feet whose soles are meshes): kinematics
    and primitive collision geoms are unchanged and compiling is 10-50x faster, but a body whose
    inertia came from mesh geoms loses it, so dynamics and rendering ask for meshes=True. Mesh
    files that cannot be read are dropped with a RobotWarning (kinematics kept).
    A model without a free joint gets one on its first body, so that every robot has a floating base.
    tips: foot bodies to add without geometry, name -> (parent body, position in its frame [m]).
    soles: box collision geoms to add (massless), body -> (position, quaternion wxyz, half sizes)
    in the body's frame [m]: the sole of a foot whose own shape is a mesh file that is absent."""
    try:
        spec = mujoco.MjSpec.from_file(str(path))
    except Exception as exc:
        raise RobotLoadError(f"{path}: cannot parse robot model: {exc}") from None
    try:
        return _compile_spec(
            spec, path, meshes=meshes, foot_spheres=foot_spheres, keep=keep_meshes_on, tips=tips, soles=soles
        )
    except _MeshFileError as exc:
        import warnings

        from .recognised import RobotWarning

        warnings.warn(
            f"{path}: mesh files cannot be read ({exc}); loaded without meshes (kinematics kept)", RobotWarning,
            stacklevel=3,
        )  # fmt: skip
        spec = mujoco.MjSpec.from_file(str(path))
        kept: frozenset[str] = frozenset()
        return _compile_spec(spec, path, meshes=False, foot_spheres=foot_spheres, keep=kept, tips=tips, soles=soles)


class _MeshFileError(Exception):
    pass


def _resolve_package_uris(spec: mujoco.MjSpec, path: Path) -> None:
    """URDF meshes named ``package://PKG/rest`` (ROS) point at the file beside the model when one
    of the usual layouts has it (``rest`` or its file name under the model's folder, its parent,
    or a ``meshes`` folder there); others are left for the compiler to report."""
    for m in spec.meshes:
        if not m.file.startswith("package:"):
            continue
        rest = m.file.split(":", 1)[1].lstrip("/").split("/", 1)[-1]
        name = Path(rest).name
        for base in (path.parent, path.parent.parent):
            for cand in (base / rest, base / name, base / "meshes" / name):
                if cand.is_file():
                    m.file = str(cand.resolve())
                    break
            if not m.file.startswith("package:"):
                break


def _compile_spec(
    spec: mujoco.MjSpec, path: Path, *, meshes: bool, foot_spheres: dict[str, str] | None, keep: frozenset[str],
    tips: dict[str, tuple[str, tuple[float, float, float]]] | None,
    soles: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
) -> mujoco.MjModel:  # fmt: skip
    _resolve_package_uris(spec, path)
    collide_primitives(spec, path)
    spec.compiler.fusestatic = False  # a URDF's joint-less links (foot frames) stay bodies, and bodies added here
    if not meshes:
        used: set[str] = set()
        for g in list(spec.geoms):
            if g.type == mujoco.mjtGeom.mjGEOM_MESH:
                body = g.parent.name if hasattr(g, "parent") else ""
                if body in keep and (g.contype or g.conaffinity):
                    used.add(g.meshname)
                else:
                    spec.delete(g)
        for m in list(spec.meshes):
            if m.name not in used:
                spec.delete(m)
        drop_textures(spec)
    for name, (at, quat, half) in (soles or {}).items():
        g = spec.body(name).add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=half, pos=at, quat=quat, group=3)
        g.contype, g.conaffinity, g.density = 1, 1, 0.0
    for name, (parent, pos) in (tips or {}).items():
        spec.body(parent).add_body(name=name, pos=np.array(pos, dtype=float))
    if foot_spheres:
        add_foot_bodies(spec, foot_spheres, where=str(path))
    if not any(j.type == mujoco.mjtJoint.mjJNT_FREE for j in spec.joints):
        bodies = spec.worldbody.bodies
        if not bodies:
            raise RobotLoadError(f"{path}: the model has no bodies")
        base = max(bodies, key=_subtree_joints)  # the robot, not a static stand or marker before it
        if base.joints:
            raise RobotLoadError(
                f"{path}: no floating base (no free joint) and the first body {base.name!r} has joints "
                "of its own: a fixed-base model, not a legged robot"
            )
        base.add_freejoint()
    try:
        return spec.compile()
    except Exception as exc:
        if (spec.meshes or spec.textures) and ("opening file" in str(exc) or "resource" in str(exc).lower()):
            raise _MeshFileError(str(exc).removeprefix("Error: ")) from None
        raise RobotLoadError(f"{path}: cannot compile robot model: {exc}") from None


def _subtree_joints(body: mujoco.MjsBody) -> int:
    return len(body.joints) + sum(_subtree_joints(b) for b in body.bodies)


def families_match(motion_family: str, robot_family: str) -> bool:
    """The motion/robot family rule: a humanoid clip needs a humanoid robot, a quadruped clip a
    quadruped; a motion of family "other" or a robot of unknown family ("") goes with any."""
    return motion_family == "other" or not motion_family or not robot_family or motion_family == robot_family


@dataclass(frozen=True)
class RobotPose:
    """Body poses of a robot over frames. positions (T, nbody, 3) [m], rotations (T, nbody, 4) wxyz."""

    positions: np.ndarray
    rotations: np.ndarray


class Robot:
    """A floating-base robot model.

    The joint order is the MuJoCo model's: ``dof_names`` lists the actuated (non-free) joints in
    qpos order, each with one coordinate (hinge or slide). qpos = [root pos (3), root quat wxyz (4), dof (n)].
    """

    def __init__(self, model: mujoco.MjModel, *, name: str, path: Path, info: RobotInfo) -> None:
        self.model = model
        self.data = mujoco.MjData(model)
        self.name = name
        self.path = path
        self.family = info.family
        free = [j for j in range(model.njnt) if int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_FREE)]
        if len(free) != 1 or model.jnt_qposadr[free[0]] != 0:
            raise RobotLoadError(f"{path}: expected exactly one free joint at the start of qpos, found {len(free)}")
        joints = [j for j in range(model.njnt) if j != free[0]]
        bad = [
            model.joint(j).name
            for j in joints
            if int(model.jnt_type[j]) not in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        ]
        if bad:
            raise RobotLoadError(
                f"{path}: only hinge and slide joints are supported besides the free joint; found {', '.join(bad)}"
            )
        self.joint_ids = np.array(joints, dtype=np.int64)
        self.dof_names = tuple(model.joint(j).name or f"joint{j}" for j in joints)
        self.root_body_id = int(model.jnt_bodyid[free[0]])
        self.root_body = model.body(self.root_body_id).name
        if info.root_body and info.root_body != self.root_body:
            raise RobotLoadError(f"{path}: root body is {self.root_body!r}, the registry says {info.root_body!r}")
        limited = model.jnt_limited[joints].astype(bool)
        rng = model.jnt_range[joints]
        self.lower = np.where(limited, rng[:, 0], -np.inf)
        self.upper = np.where(limited, rng[:, 1], np.inf)
        self.body_names = tuple(model.body(i).name for i in range(model.nbody))
        self.feet = tuple(info.feet) if info.feet else self._guess_feet()
        for f in self.feet:
            self.body_id(f)
        self.rest_key = info.rest_key
        self.legs = tuple(info.legs)
        self.landmarks = tuple(info.landmarks)
        for body, _ in self.landmarks:
            self.body_id(body)
        for hip, foot in self.legs:
            self.body_id(hip)
            self.body_id(foot)
        self.recognition: Any = None  # robots/recognise.Recognition of a model not in the registry
        self.rest_pose: np.ndarray | None = None  # its rest configuration when it has no rest keyframe
        self.recognition_error = ""  # why recognition failed on a model not in the registry

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def load(cls, name_or_path: str | Path, *, meshes: bool = False) -> Robot:
        """A known robot by name (see ``KNOWN_ROBOTS``) or any MJCF (.xml) or URDF (.urdf) path."""
        s = str(name_or_path)
        if s in KNOWN_ROBOTS:
            info = robot_info(s)
            path = _menagerie_file(s)
        elif s.lower().endswith((".xml", ".urdf", ".mjcf")):
            path = Path(s)
            if not path.is_file():
                raise RobotLoadError(f"{path}: no such robot model file")
            from .recognise import RecognitionError
            from .recognised import load_recognised

            try:
                found = load_recognised(path, meshes=meshes)  # a model never seen: recognise its parts
            except RecognitionError as exc:  # still loads for kinematics; retargeting reports why not
                info = RobotInfo(name=path.stem, family="", root_body="", feet=())
                robot = cls(_compile(path, meshes=meshes), name=info.name, path=path, info=info)
                robot.family = robot._guess_family()
                robot.recognition_error = str(exc)
                return robot
            robot = cls(found.model, name=found.info.name, path=path, info=found.info)
            robot.recognition = found.recognition
            robot.rest_pose = None if found.recognition.rest is None else found.recognition.rest.qpos.copy()
            return robot
        else:
            raise UnknownNameError("robot", s, [*KNOWN_ROBOTS, "<path to .xml or .urdf>"])
        model = _compile(path, meshes=meshes, foot_spheres=info.foot_spheres)
        robot = cls(model, name=info.name, path=path, info=info)
        if not info.family:
            robot.family = robot._guess_family()
        return robot

    def _guess_feet(self) -> tuple[str, ...]:
        """Most distal bodies whose names say foot, ankle or toe (for models not in the registry)."""
        keys = ("foot", "ankle", "toe", "calf")
        cand = [i for i, n in enumerate(self.body_names) if any(k in n.lower() for k in keys)]
        distal = []
        for i in cand:
            if not any(self._is_ancestor(i, j) for j in cand if j != i):
                distal.append(i)
        return tuple(self.body_names[i] for i in distal)

    def _guess_family(self) -> str:
        return "quadruped" if len(self.feet) == 4 else "humanoid"

    def _is_ancestor(self, a: int, b: int) -> bool:
        while b > 0:
            b = int(self.model.body_parentid[b])
            if b == a:
                return True
        return False

    # -- names ----------------------------------------------------------------------------------
    @property
    def nq(self) -> int:
        return int(self.model.nq)

    @property
    def nv(self) -> int:
        return int(self.model.nv)

    @property
    def num_dofs(self) -> int:
        return len(self.dof_names)

    def body_id(self, name: str) -> int:
        """Body index by name; UnknownNameError lists the robot's bodies."""
        i = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, name)
        if i < 0 or name == "world":
            raise UnknownNameError("body", name, self.body_names[1:], where=f"robot {self.name}")
        return int(i)

    # -- poses ----------------------------------------------------------------------------------
    def rest_qpos(self) -> np.ndarray:
        """A standing configuration: the registry's keyframe when the model has it, the recognised
        rest pose for a model not in the registry (robots/rest_pose.py), else qpos0."""
        if self.rest_pose is not None:
            return self.rest_pose.copy()
        if self.rest_key:
            k = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_KEY, self.rest_key)
            if k >= 0:
                return self.model.key_qpos[k].copy()
        return self.model.qpos0.copy()

    def qpos(self, root_pos: np.ndarray, root_rot: np.ndarray, dof_pos: np.ndarray) -> np.ndarray:
        """Stack root position (..., 3), root quaternion wxyz (..., 4) and joint values (..., n)."""
        return np.concatenate([root_pos, root_rot, dof_pos], axis=-1)

    def fk(self, qpos: np.ndarray) -> RobotPose:
        """Body poses for one configuration (nq,) or many (T, nq); results always have a T axis."""
        q = np.atleast_2d(np.asarray(qpos, dtype=np.float64))
        if q.shape[1] != self.nq:
            raise KinemorphError(f"robot {self.name}: qpos has {q.shape[1]} entries, expected {self.nq}")
        pos = np.empty((q.shape[0], self.model.nbody, 3))
        rot = np.empty((q.shape[0], self.model.nbody, 4))
        m, d = self.model, self.data
        for t in range(q.shape[0]):
            d.qpos[:] = q[t]
            mujoco.mj_kinematics(m, d)
            pos[t] = d.xpos
            rot[t] = d.xquat
        return RobotPose(pos, rot)

    def landmark_positions(self, pose: RobotPose) -> np.ndarray:
        """World positions [m] of the robot's landmarks (kinemorph.conventions.LANDMARKS) from
        body poses (fk). Shape: (T, 14, 3)."""
        if not self.landmarks:
            raise KinemorphError(f"robot {self.name} has no landmarks defined (known humanoids have them)")
        ids = [self.body_id(b) for b, _ in self.landmarks]
        offsets = np.array([o for _, o in self.landmarks])
        from ..transforms import quat_rotate

        return pose.positions[:, ids] + quat_rotate(pose.rotations[:, ids], offsets[None])

    def jacobian(self, qpos: np.ndarray, body: str) -> np.ndarray:
        """World-aligned Jacobian of a body's origin: rows [linear (3); angular (3)]. Shape: (6, nv)."""
        b = self.body_id(body)
        self.data.qpos[:] = qpos
        mujoco.mj_kinematics(self.model, self.data)
        mujoco.mj_comPos(self.model, self.data)
        jac = np.zeros((6, self.nv))
        mujoco.mj_jacBody(self.model, self.data, jac[:3], jac[3:], b)
        return jac

    def integrate(self, qpos: np.ndarray, velocity: np.ndarray, dt: float = 1.0) -> np.ndarray:
        """qpos advanced by a tangent velocity (nv,) over dt [s] (quaternion-aware)."""
        out = np.array(qpos, dtype=np.float64, copy=True)
        mujoco.mj_integratePos(self.model, out, np.asarray(velocity, dtype=np.float64), dt)
        return out

    def check_motion(self, motion: Any) -> None:
        """Refuse a motion of the other family: a humanoid clip needs a humanoid robot, a quadruped
        clip a quadruped (motions of family "other" go anywhere). ``motion``: a kinemorph Motion."""
        family = getattr(motion, "family", "other")
        if self.recognition_error and not families_match(family, self.family):  # its family was a guess
            from .recognise import RecognitionError

            raise RecognitionError(self.recognition_error)
        if not families_match(family, self.family):
            how = f"preset {motion.preset}" if motion.preset != "generic" else "recognised from its skeleton"
            raise KinemorphError(
                f"{motion.source} is a {family} motion ({how}) but robot "
                f"{self.name} is a {self.family}; pick a {family} robot or another motion"
            )

    def clip_to_limits(self, dof_pos: np.ndarray) -> np.ndarray:
        return np.clip(dof_pos, self.lower, self.upper)

    def __repr__(self) -> str:
        return f"Robot({self.name!r}, family={self.family}, dofs={self.num_dofs}, path={str(self.path)!r})"


def load_robot(name_or_path: str | Path, *, meshes: bool = False) -> Robot:
    """Load a robot by registry name or by MJCF/URDF path. See :meth:`Robot.load`."""
    return Robot.load(name_or_path, meshes=meshes)
