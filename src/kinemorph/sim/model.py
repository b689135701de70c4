"""Torque-controlled copies of robot models on a floor plane, for inverse dynamics and replay.

The copy is rebuilt with MjSpec from the model the Robot was loaded from (the same foot bodies,
the same free joint), then every actuator becomes a torque motor: gain 1, no bias, gear 1 and a
control range equal to the joint's force range (the joint's ``actuatorfrcrange`` when set, else
the actuator's ``forcerange``, else the control range of a model that already had motors). A
plane at z = 0 is added with its own friction and the higher contact priority, so that every
foot contact uses the floor's friction (which the contact QP of the inverse dynamics uses too).

Inertias do not change with ``meshes``: the menagerie models here (G1, Go2, A1, H1, T1) give
every body an explicit inertial, so dropping mesh geoms keeps masses and inertias exactly (checked
against the full model at build). Mesh geoms only add collision shapes (G1: pelvis and leg links)
that matter when a falling robot hits the floor with them.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ..errors import ConfigError, KinemorphError, RobotLoadError
from ..robots.registry import KNOWN_ROBOTS
from ..robots.robot import Robot

FLOOR = "kinemorph_floor"
_MESH = int(mujoco.mjtGeom.mjGEOM_MESH)
_PRIMITIVES = (
    int(mujoco.mjtGeom.mjGEOM_SPHERE),
    int(mujoco.mjtGeom.mjGEOM_CAPSULE),
    int(mujoco.mjtGeom.mjGEOM_BOX),
    int(mujoco.mjtGeom.mjGEOM_CYLINDER),
    int(mujoco.mjtGeom.mjGEOM_ELLIPSOID),
    int(mujoco.mjtGeom.mjGEOM_MESH),
)


@dataclass(frozen=True)
class TorqueModel:
    """A robot as torque motors on a floor.

    Attributes:
        model: the compiled copy (floor plane added, actuators are motors).
        robot: the robot it was made from.
        act_dof: velocity index (qvel address) driven by each actuator. Shape: (nu,).
        torque_limit: |torque| bound per actuator [N m or N]; inf when unlimited. Shape: (nu,).
        floor_geom: geom id of the floor plane.
        collision_geoms: geoms of the robot that collide with the floor. Shape: (G,).
        friction: floor friction coefficient used by MuJoCo and by the contact QP.
        mass: total mass [kg].
    """

    model: mujoco.MjModel
    robot: Robot
    act_dof: np.ndarray
    torque_limit: np.ndarray
    floor_geom: int
    collision_geoms: np.ndarray
    friction: float
    mass: float

    @property
    def weight(self) -> float:
        """Body weight [N]."""
        return self.mass * float(np.linalg.norm(self.model.opt.gravity))


def _limited(flag: int, rng: np.ndarray) -> bool:
    """MuJoCo's limited flags: true, or auto (the compiler's autolimits) with a range given."""
    if flag == mujoco.mjtLimited.mjLIMITED_TRUE:
        return True
    return bool(flag == mujoco.mjtLimited.mjLIMITED_AUTO and rng[0] < rng[1])


def _force_range(spec: mujoco.MjSpec, act: mujoco.MjsActuator) -> tuple[float, float]:
    joint = spec.joint(act.target)
    if joint is not None and _limited(joint.actfrclimited, joint.actfrcrange):
        return float(joint.actfrcrange[0]), float(joint.actfrcrange[1])
    if _limited(act.forcelimited, act.forcerange):
        return float(act.forcerange[0]), float(act.forcerange[1])
    is_motor = act.gaintype == mujoco.mjtGain.mjGAIN_FIXED and act.biastype == mujoco.mjtBias.mjBIAS_NONE
    if is_motor and _limited(act.ctrllimited, act.ctrlrange):
        g = float(act.gear[0])
        lo, hi = sorted((g * float(act.ctrlrange[0]), g * float(act.ctrlrange[1])))
        return lo, hi
    return -np.inf, np.inf


def _spec_of(robot: Robot, *, meshes: bool) -> mujoco.MjSpec:
    """The robot's model as a spec, rebuilt the way robots.load_robot built it."""
    try:
        spec = mujoco.MjSpec.from_file(str(robot.path))
    except Exception as exc:  # MuJoCo raises plain ValueError for unreadable files
        raise RobotLoadError(f"{robot.path}: cannot rebuild the model for simulation: {exc}") from None
    if not meshes:  # drop mesh geoms, except where the loaded model kept them (mesh soles)
        ref = robot.model
        kept = {ref.body(int(ref.geom_bodyid[g])).name for g in range(ref.ngeom) if ref.geom_type[g] == _MESH}
        used: set[str] = set()
        for g in list(spec.geoms):
            if g.type == mujoco.mjtGeom.mjGEOM_MESH:
                if g.parent.name in kept and (g.contype or g.conaffinity):
                    used.add(g.meshname)
                else:
                    spec.delete(g)
        for m in list(spec.meshes):
            if m.name not in used:
                spec.delete(m)
    info = KNOWN_ROBOTS.get(robot.name)
    if info is not None and info.foot_spheres:
        from ..robots.feet import add_foot_bodies

        add_foot_bodies(spec, info.foot_spheres, where=str(robot.path))
    _add_loader_bodies(spec, robot)
    if not any(j.type == mujoco.mjtJoint.mjJNT_FREE for j in spec.joints):
        spec.worldbody.bodies[0].add_freejoint()
    return spec


def _add_loader_bodies(spec: mujoco.MjSpec, robot: Robot) -> None:
    """Bodies the loader added to a model it recognised (robots/recognised.py): foot bodies made
    from a shank's sphere (robots/feet.py, as the loader does) and geometry-free foot tips, placed
    as in the loaded model. Anything else is left to _check_same to refuse."""
    from ..robots.feet import add_foot_bodies

    m = robot.model
    for b in range(1, m.nbody):
        name = m.body(b).name
        if spec.body(name) is not None:
            continue
        parent = m.body(int(m.body_parentid[b])).name
        geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] == b]
        if spec.body(parent) is None:
            continue  # _check_same names it
        if len(geoms) == 1 and m.geom_type[geoms[0]] == mujoco.mjtGeom.mjGEOM_SPHERE:
            add_foot_bodies(spec, {name: parent}, where=str(robot.path))
        elif not geoms:
            spec.body(parent).add_body(name=name, pos=m.body_pos[b].copy(), quat=m.body_quat[b].copy())


MIN_STEP, MAX_STEP = 1e-4, 0.005
"""[s] The physics steps a torque-controlled copy may be built with."""


def build_torque_model(
    robot: Robot,
    *,
    timestep: float = 0.001,
    friction: float = 0.8,
    meshes: bool = False,
    floor_solimp: tuple[float, float] | None = None,
    floor_timeconst: float | None = None,
    floor_friction_timeconst: float | None = None,
) -> TorqueModel:
    """A torque-controlled copy of ``robot`` on a floor plane (see the module docstring).
    floor_solimp: the floor's contact impedance (MuJoCo's solimp d0, d_width; None: MuJoCo's
    default 0.9, 0.95, under which a trotting Go2's loaded feet sink 1-3 cm).
    floor_timeconst: the time constant [s] of the floor's contacts (MuJoCo's solref, critically
    damped; raised to two physics steps, MuJoCo's own floor for stability; None: MuJoCo's default
    0.02). It sets how fast a contact stops a sliding point as well as how far a loaded one sinks:
    at 0.02 a paw landing with horizontal speed v slides about v x 9 ms whatever the friction.
    floor_friction_timeconst: the time constant [s] of the floor contacts' friction rows alone
    (MuJoCo's solreffriction; raised to two physics steps; None: as the normal's). Given, the floor
    meets each of the robot's collision geoms through an explicit contact pair with the floor's
    contact parameters (its priority gives it them anyway) and this friction time constant, and
    the automatic floor contacts are excluded (set_floor keeps the pairs in step with the floor).
    It stops a landing foot's slide without changing how deep it sinks.

    Args:
        timestep: physics step [s]; 0.0005-0.002 (0.5-2 kHz).
        friction: floor friction coefficient (the contact cone's mu).
        meshes: keep mesh collision geoms (slower contacts, falls hit the floor with links).
    """
    if not MIN_STEP <= timestep <= MAX_STEP:
        raise ConfigError(f"sim timestep must be in [{MIN_STEP}, {MAX_STEP}] s, got {timestep}")
    if not 0.05 <= friction <= 3.0:
        raise ConfigError(f"sim friction must be in [0.05, 3], got {friction}")
    where = f"robot {robot.name} ({robot.path})"
    spec = _spec_of(robot, meshes=meshes)
    if not spec.actuators:
        raise KinemorphError(f"{where} has no actuators: nothing can be torque-controlled")
    for act in spec.actuators:
        if act.trntype != mujoco.mjtTrn.mjTRN_JOINT:
            raise KinemorphError(
                f"{where}: actuator {act.name!r} does not drive a joint; only joint actuators are supported"
            )
        lo, hi = _force_range(spec, act)
        act.dyntype = mujoco.mjtDyn.mjDYN_NONE
        act.gaintype = mujoco.mjtGain.mjGAIN_FIXED
        act.biastype = mujoco.mjtBias.mjBIAS_NONE
        act.gainprm = np.r_[1.0, np.zeros(9)]
        act.biasprm = np.zeros(10)
        act.gear = np.r_[1.0, np.zeros(5)]
        act.forcelimited = mujoco.mjtLimited.mjLIMITED_FALSE
        finite = bool(np.isfinite(lo) and np.isfinite(hi))
        act.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE if finite else mujoco.mjtLimited.mjLIMITED_FALSE
        if finite:
            act.ctrlrange = np.array([lo, hi])
    spec.option.timestep = timestep
    floor = spec.worldbody.add_geom()
    floor.name = FLOOR
    floor.type = mujoco.mjtGeom.mjGEOM_PLANE
    floor.size = np.array([0.0, 0.0, 0.05])
    floor.friction = np.array([friction, 0.005, 0.0001])
    floor.priority = 10
    floor.condim = 3
    if floor_solimp is not None:
        if not all(0 < x < 1 for x in floor_solimp):
            raise ConfigError(f"floor_solimp values must be in (0, 1), got {floor_solimp}")
        floor.solimp = np.array([floor_solimp[0], floor_solimp[1], 0.001, 0.5, 2.0])
    if floor_timeconst is not None:
        if not 0 < floor_timeconst <= 0.1:
            raise ConfigError(f"floor_timeconst must be in (0, 0.1] s, got {floor_timeconst}")
        floor.solref = np.array([max(floor_timeconst, 2 * timestep), 1.0])
    floor.contype = 1
    floor.conaffinity = 1
    if floor_friction_timeconst is not None:
        if not 0 < floor_friction_timeconst <= 0.1:
            raise ConfigError(f"floor_friction_timeconst must be in (0, 0.1] s, got {floor_friction_timeconst}")
        _floor_pairs(spec, floor, max(floor_friction_timeconst, 2 * timestep))
    try:
        model = spec.compile()
    except Exception as exc:
        raise RobotLoadError(f"{where}: cannot compile the torque-controlled copy: {exc}") from None
    _check_same(robot, model, where)
    nu = model.nu
    act_dof = np.array([model.jnt_dofadr[model.actuator_trnid[i, 0]] for i in range(nu)], dtype=np.int64)
    if len(set(act_dof.tolist())) != nu:
        raise KinemorphError(f"{where}: two actuators drive the same joint; not supported")
    rng = model.actuator_ctrlrange
    limited = model.actuator_ctrllimited.astype(bool)
    torque_limit = np.where(limited, np.minimum(np.abs(rng[:, 0]), np.abs(rng[:, 1])), np.inf)
    fid = model.geom(FLOOR).id
    coll = [
        g
        for g in range(model.ngeom)
        if g != fid
        and int(model.geom_type[g]) in _PRIMITIVES
        and (model.geom_contype[g] & model.geom_conaffinity[fid] or model.geom_conaffinity[g] & model.geom_contype[fid])
        and model.geom_bodyid[g] != 0
    ]
    return TorqueModel(
        model=model,
        robot=robot,
        act_dof=act_dof,
        torque_limit=torque_limit,
        floor_geom=int(fid),
        collision_geoms=np.array(coll, dtype=np.int64),
        friction=float(friction),
        mass=float(model.body_subtreemass[0]),
    )


def _floor_pairs(spec: mujoco.MjSpec, floor: mujoco.MjsGeom, friction_timeconst: float) -> None:
    """One contact pair of ``floor`` with each robot geom that collides with it (the floor's condim,
    friction, solref and solimp; the larger margin and gap; ``friction_timeconst`` for the friction
    rows), and the automatic contacts between the world body and those geoms' bodies excluded."""
    bodies: list[str] = []
    for i, g in enumerate(spec.geoms):
        body = g.parent
        if g is floor or body.name == "world" or not (g.contype & floor.conaffinity or g.conaffinity & floor.contype):
            continue
        if not g.name:
            g.name = f"{FLOOR}_geom{i}"
        pair = spec.add_pair()
        pair.geomname1, pair.geomname2 = floor.name, g.name
        pair.condim = floor.condim
        mu, spin, roll = (float(x) for x in floor.friction)
        pair.friction = np.array([mu, mu, spin, roll, roll])
        pair.solref = np.array(floor.solref)
        pair.solimp = np.array(floor.solimp)
        pair.solreffriction = np.array([friction_timeconst, 1.0])
        pair.margin, pair.gap = max(g.margin, floor.margin), max(g.gap, floor.gap)
        if body.name not in bodies:
            bodies.append(body.name)
    for name in bodies:
        ex = spec.add_exclude()
        ex.bodyname1, ex.bodyname2 = "world", name


def _floor_pair_rows(model: mujoco.MjModel, floor: int) -> np.ndarray:
    """The contact pairs _floor_pairs made (the floor's; a model file's own pairs are not touched)."""
    return np.flatnonzero(model.pair_geom1 == floor)


def floor_friction_timeconst(model: mujoco.MjModel, floor: int) -> float | None:
    """The time constant [s] of the friction rows of geom ``floor`` when build_torque_model gave it
    one (None: the friction rows follow the floor's own solref)."""
    rows = _floor_pair_rows(model, floor)
    return float(model.pair_solreffriction[rows[0], 0]) if len(rows) else None


def set_floor(
    model: mujoco.MjModel,
    floor: int,
    *,
    margin: float | None = None,
    solimp: tuple[float, float] | None = None,
    timeconst: float | None = None,
    friction_timeconst: float | None = None,
) -> None:
    """Change the floor's contact parameters of a compiled copy in place: its geom's and those of
    its contact pairs (build_torque_model's floor_friction_timeconst), which MuJoCo reads instead
    for the geoms they pair. ``margin`` [m], ``solimp`` (d0, d_width), ``timeconst`` [s] (solref),
    ``friction_timeconst`` [s] (the pairs' solreffriction; ignored without pairs); None keeps each."""
    if margin is not None:
        model.geom_margin[floor] = margin
    if solimp is not None:
        model.geom_solimp[floor, :2] = solimp
    if timeconst is not None:
        model.geom_solref[floor, 0] = timeconst
    rows = _floor_pair_rows(model, floor)
    model.pair_margin[rows] = np.maximum(model.geom_margin[model.pair_geom2[rows]], model.geom_margin[floor])
    model.pair_solimp[rows] = model.geom_solimp[floor]
    model.pair_solref[rows] = model.geom_solref[floor]
    if friction_timeconst is not None:
        model.pair_solreffriction[rows, 0] = friction_timeconst


def _check_same(robot: Robot, model: mujoco.MjModel, where: str) -> None:
    """The copy must have the robot's coordinates and inertias (else the spec was rebuilt wrongly)."""
    ref = robot.model
    names = tuple(model.joint(j).name for j in range(model.njnt) if model.jnt_type[j] != mujoco.mjtJoint.mjJNT_FREE)
    if names != robot.dof_names or model.nq != ref.nq or model.nv != ref.nv:
        raise RobotLoadError(f"{where}: the simulation copy has other joints than the loaded model")
    bodies = {model.body(b).name for b in range(model.nbody)}
    extra = sorted({ref.body(b).name for b in range(ref.nbody)} - bodies)
    if extra:
        raise RobotLoadError(
            f"{where}: the loader added bodies {extra} that the simulation copy, rebuilt from the file, "
            f"lacks; simulate a registered robot ({', '.join(KNOWN_ROBOTS)}) or a model the loader keeps as it is"
        )
    if not (np.allclose(model.body_mass, ref.body_mass) and np.allclose(model.body_inertia, ref.body_inertia)):
        raise RobotLoadError(f"{where}: the simulation copy's masses or inertias differ from the loaded model's")
