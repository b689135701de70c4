"""Loading a robot kinemorph has never seen: recognise its parts, give it foot bodies and soles,
and fill the registry fields (family, feet, legs, landmarks, rest pose) from what was found.

1. Compile without meshes and recognise (robots/recognise.py).
2. Compile again with what the feet need: quadrupeds' foot spheres become foot bodies
   (robots/feet.py), a calf without one gets a foot body at its tip, and humanoid feet whose
   only collision geometry is a mesh keep that mesh (the sole is under it).
3. Recognise the final model; its rest pose is a keyframe, else a standing pose
   (robots/rest_pose.py).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import mujoco
import numpy as np

from ..conventions import LEGS
from .recognise import Recognition, recognise_model
from .registry import RobotInfo
from .rest_pose import RestPose, quadruped_stance


class RobotWarning(UserWarning):
    """Something about a robot model the user should check (printed by the CLI as a warning line)."""


@dataclass(frozen=True)
class Recognised:
    """A model compiled for kinemorph with what recognition found.

    Attributes:
        model: the compiled model (foot bodies added).
        info: registry-like fields filled from the recognition.
        recognition: the recognition of ``model``.
    """

    model: mujoco.MjModel
    info: RobotInfo
    recognition: Recognition


def _had_free_joint(path: Path) -> bool:
    try:
        spec = mujoco.MjSpec.from_file(str(path))
    except Exception:
        return True  # _compile reports parse errors
    return any(j.type == mujoco.mjtJoint.mjJNT_FREE for j in spec.joints)


def _mesh_feet(path: Path, feet: tuple[str, ...]) -> frozenset[str]:
    """Feet whose collision geometry is a mesh in the file."""
    spec = mujoco.MjSpec.from_file(str(path))
    out = set()
    for g in spec.geoms:
        if g.type == mujoco.mjtGeom.mjGEOM_MESH and (g.contype or g.conaffinity) and g.parent.name in feet:
            out.add(g.parent.name)
    return frozenset(out)


def load_recognised(path: Path, *, meshes: bool) -> Recognised:
    """Compile and recognise a model file (see the module docstring)."""
    from .robot import _compile

    where = str(path)
    free = _had_free_joint(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobotWarning)  # the final compile warns once
        model0 = _compile(path, meshes=meshes)
    first = recognise_model(model0, where=where, floating_base=free)
    spheres: dict[str, str] = {}
    tips: dict[str, tuple[str, tuple[float, float, float]]] = {}
    keep: frozenset[str] = frozenset()
    if first.family == "quadruped":
        names = {model0.body(b).name for b in range(model0.nbody)}
        for leg in first.quad_legs:
            if leg.foot:
                continue
            name = _fresh(f"{leg.name}_foot", names)
            if leg.foot_sphere:
                spheres[name] = leg.calf
            else:
                tips[name] = (leg.calf, leg.foot_point)
    else:
        no_sole = tuple(leg.foot for leg in first.legs if leg.sole_height < 1e-3)
        keep = _mesh_feet(path, no_sole) if no_sole else frozenset()
    with warnings.catch_warnings(record=True) as caught:  # what loading met joins the recognition's
        warnings.simplefilter("always", RobotWarning)
        model = _compile(path, meshes=meshes, foot_spheres=spheres or None, keep_meshes_on=keep, tips=tips or None)
    met = []
    for w in caught:
        if not issubclass(w.category, RobotWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            continue
        text = str(w.message)
        for prefix in (f"{path}: ", f"{path.name}: "):
            text = text.removeprefix(prefix)
        if text not in met:  # a compile retried without meshes warns again
            met.append(text)
    rec = recognise_model(model, where=where, floating_base=free)
    bare = tuple(leg.foot for leg in rec.legs if leg.sole_height < 1e-3)
    if bare:  # a foot whose shape is an absent mesh file stands on the box of its inertia
        soles = {f: inertia_box(model, model.body(f).id) for f in bare}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RobotWarning)  # met above
            model = _compile(path, meshes=meshes, foot_spheres=spheres or None, tips=tips or None, soles=soles)
        rec = recognise_model(model, where=where, floating_base=free)
        met += [f"the foot {f!r} has no shape (its mesh file is absent): it stands on its inertia's box" for f in bare]
    rec = replace(rec, warnings=(*met, *rec.warnings))
    if rec.family == "quadruped":
        rec = _quadruped_rest(model, rec)
    for note in rec.warnings:
        warnings.warn(f"{path.name}: {note}", RobotWarning, stacklevel=3)
    return Recognised(model, info_of(rec, name=path.stem), rec)


def inertia_box(model: mujoco.MjModel, body: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The solid box with a body's mass and principal inertia (MuJoCo draws the same one):
    (centre, quaternion wxyz, half sizes) in the body's frame [m]. A box of sides a, b, c has
    I_x = m (b^2 + c^2) / 12, so a^2 = 6 (I_y + I_z - I_x) / m."""
    m = max(float(model.body_mass[body]), 1e-9)
    i = model.body_inertia[body]
    sides = np.sqrt(np.maximum(6.0 * (i.sum() - 2.0 * i) / m, 1e-8))
    return model.body_ipos[body].copy(), model.body_iquat[body].copy(), 0.5 * sides


def _fresh(name: str, taken: set[str]) -> str:
    out, k = name, 1
    while out in taken:
        out, k = f"{name}_{k}", k + 1
    taken.add(out)
    return out


def _quadruped_rest(model: mujoco.MjModel, rec: Recognition) -> Recognition:
    """A quadruped without a keyframe stands with bent knees (rest_pose.quadruped_stance)."""
    assert rec.rest is not None
    if rec.rest.key:
        return rec
    legs = []
    for leg in rec.quad_legs:
        foot = model.body(leg.foot).id if leg.foot else model.body(leg.calf).id
        point = np.zeros(3) if leg.foot else np.array(leg.foot_point)
        legs.append((model.body(leg.thigh).id, model.body(leg.calf).id, foot, point))
    q = quadruped_stance(model, rec.rest.qpos, legs)
    return replace(rec, rest=RestPose(q, "standing pose from joint limits and the floor (knees bent)"))


def info_of(rec: Recognition, *, name: str) -> RobotInfo:
    """Registry fields from a recognition: family, root, feet, legs, landmarks, rest keyframe."""
    if rec.family == "quadruped":
        feet = tuple(q.foot for q in rec.quad_legs)
        legs = tuple((q.thigh, q.foot) for q in rec.quad_legs)
        assert all(feet) and [q.name for q in rec.quad_legs] == list(LEGS)
        return RobotInfo(name=name, family="quadruped", root_body=rec.root, feet=feet, legs=legs)
    return RobotInfo(
        name=name, family="humanoid", root_body=rec.root, feet=rec.feet, landmarks=_landmarks(rec),
    )  # fmt: skip


def _landmarks(rec: Recognition) -> tuple[tuple[str, tuple[float, float, float]], ...]:
    """Bodies and offsets per kinemorph.conventions.LANDMARKS (a robot without arms: its trunk's
    top corners stand for shoulders, elbows and wrists)."""
    zero = (0.0, 0.0, 0.0)
    out = [(rec.pelvis, zero), (rec.torso, rec.neck_offset)]
    if len(rec.arms) != 2:
        if len(rec.trunk_sides) != 2:
            return ()
        out += [(rec.torso, side) for _ in range(3) for side in rec.trunk_sides]
    for part in ("shoulder", "elbow", "wrist") if len(rec.arms) == 2 else ():
        for arm in rec.arms:
            if part == "wrist":
                out.append((arm.wrist, zero) if arm.wrist else (arm.bodies[-1], arm.hand_offset))
            else:
                out.append((getattr(arm, part), zero))
    for part in ("knee", "ankle", "toe"):
        for leg in rec.legs:
            if part == "knee":
                out.append((leg.knee, zero))
            elif part == "ankle":
                out.append((leg.foot, zero))
            else:
                out.append((leg.foot, leg.toe_offset))
    return tuple(out)


def require_recognition(robot: object) -> Recognition:
    """A robot's recognition; the RecognitionError that loading it met when there is none."""
    from .recognise import RecognitionError, recognise_model

    rec = getattr(robot, "recognition", None)
    if rec is not None:
        return rec
    error = getattr(robot, "recognition_error", "")
    if error:
        raise RecognitionError(error)
    return recognise_model(robot.model, where=str(robot.path))  # type: ignore[attr-defined]
