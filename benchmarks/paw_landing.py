"""What one touch-down costs on kinemorph.sim's floor: a quadruped's paw dropped with a speed.

    .venv/bin/python benchmarks/paw_landing.py [--robot unitree_go2] [--timeconst 0.02 0.004]
    .venv/bin/python benchmarks/paw_landing.py --timeconst 0.02 --friction-timeconst 0.004

Builds a free body (with a large rotational inertia: a paw on a leg does not spin up like a free
ball) carrying the robot's first paw sphere (its size, solimp, solref, friction,
condim, margin and priority, as the robot's model has them) with a quarter of the robot's mass,
on the floor of the verdict's torque model (kinemorph.sim.build_torque_model with SimConfig's
floor: its solimp, friction, priority and condim), at the verdict's 1 kHz and the robot's own
cone and impratio. For each downward and horizontal landing speed it prints how far the paw's
contact point slides over the 300 ms after contact (the contact point's horizontal material
speed integrated) and how deep the paw's lowest point goes below z = 0 at most, and where it
rests (the floor's priority makes its contact parameters, not the paw's, act), once per floor
contact time constant given (MuJoCo's solref; default: MuJoCo's 0.02 s and 0.004 s), with the
friction rows alone at ``--friction-timeconst`` when given (build_torque_model's contact pair and
its solreffriction). STMR's replay
slip is the mean contact-point speed over the planted frames, so slide / stance time is what one
touch-down adds (README, STMR; docs/STMR.md). Needs MENAGERIE_ROOT.
"""

from __future__ import annotations

import argparse

import mujoco
import numpy as np

DOWN = (0.3, 1.0, 1.7)
ACROSS = (0.0, 0.1, 0.3, 0.6)


PAW = 1
"""The paw's geom id in the model paw_model builds (after the floor)."""


def _copy_contact(geom: mujoco.MjsGeom, m: mujoco.MjModel, g: int) -> None:
    """Give a spec geom the contact parameters (solimp, solref, friction) of model geom g."""
    geom.solimp = m.geom_solimp[g].copy()
    geom.solref = m.geom_solref[g].copy()
    geom.friction = m.geom_friction[g].copy()


def paw_model(
    robot_name: str, timeconst: float | None = None, friction_timeconst: float | None = None
) -> tuple[mujoco.MjModel, float]:
    from kinemorph.retarget.stmr.floor_cost import foot_sphere
    from kinemorph.robots import load_robot
    from kinemorph.sim import SimConfig, build_torque_model
    from kinemorph.sim.model import floor_friction_timeconst

    robot = load_robot(robot_name)
    tm = build_torque_model(
        robot, floor_solimp=SimConfig().floor_solimp, floor_timeconst=timeconst,
        floor_friction_timeconst=friction_timeconst,
    )  # fmt: skip
    m = tm.model
    g = foot_sphere(m, robot.feet[0])
    if g is None:
        raise SystemExit(f"{robot_name}: its first foot {robot.feet[0]} has no sphere")
    fl = tm.floor_geom
    mass = float(mujoco.mj_getTotalmass(m)) / 4.0
    spec = mujoco.MjSpec()
    spec.option.timestep = 0.001
    spec.option.cone = m.opt.cone
    spec.option.impratio = m.opt.impratio
    floor = spec.worldbody.add_geom()
    floor.type = mujoco.mjtGeom.mjGEOM_PLANE
    floor.size = np.array([5.0, 5.0, 0.1])
    _copy_contact(floor, m, fl)
    floor.priority, floor.condim = int(m.geom_priority[fl]), int(m.geom_condim[fl])
    body = spec.worldbody.add_body()
    body.pos = np.array([0.0, 0.0, 0.05])
    body.add_freejoint()
    body.mass = mass
    body.inertia = np.full(3, 1.0)  # a paw on a leg: it does not spin up like a free ball
    body.explicitinertial = True
    paw = body.add_geom()
    paw.type = mujoco.mjtGeom.mjGEOM_SPHERE
    paw.size = np.array([m.geom_size[g, 0], 0.0, 0.0])
    _copy_contact(paw, m, g)
    paw.priority, paw.condim, paw.margin = int(m.geom_priority[g]), int(m.geom_condim[g]), float(m.geom_margin[g])
    if floor_friction_timeconst(m, fl) is not None:  # the floor's pair with that paw, as build_torque_model made it
        k = int(np.flatnonzero((m.pair_geom1 == fl) & (m.pair_geom2 == g))[0])
        floor.name, paw.name, paw.contype, paw.conaffinity = "floor", "paw", 0, 0
        pair = spec.add_pair()
        pair.geomname1, pair.geomname2, pair.condim = "floor", "paw", int(m.pair_dim[k])
        pair.friction, pair.margin = m.pair_friction[k].copy(), float(m.pair_margin[k])
        pair.solref, pair.solimp = m.pair_solref[k].copy(), m.pair_solimp[k].copy()
        pair.solreffriction = m.pair_solreffriction[k].copy()
    return spec.compile(), mass


def drop(model: mujoco.MjModel, down: float, across: float) -> tuple[float, float]:
    """(slide [mm], deepest [mm]) of one landing at (down, across) [m/s]."""
    d = mujoco.MjData(model)
    r = float(model.geom_size[PAW, 0])
    d.qpos[2] = r + 0.0005
    d.qvel[0], d.qvel[2] = across, -down
    slide, deepest, touched = 0.0, 0.0, 0
    while touched < 300:
        mujoco.mj_step(model, d)
        if d.ncon:
            touched += 1
            w = d.xmat[1].reshape(3, 3) @ d.qvel[3:6]  # the free joint's angular velocity is local
            v = d.qvel[:3] + np.cross(w, [0.0, 0.0, -r])  # the lowest point's material velocity
            slide += float(np.hypot(v[0], v[1])) * model.opt.timestep
            deepest = max(deepest, r - float(d.qpos[2]))
        elif d.time > 1.0:
            break
    return 1000 * slide, 1000 * deepest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="unitree_go2")
    ap.add_argument("--timeconst", type=float, nargs="+", default=None, help="floor time constants [s]")
    ap.add_argument("--friction-timeconst", type=float, default=None, help="the friction rows' time constant [s]")
    args = ap.parse_args()
    for timeconst in args.timeconst or (0.02, 0.004):
        model, mass = paw_model(args.robot, timeconst, args.friction_timeconst)
        radius = 1000 * model.geom_size[PAW, 0]
        print(f"{args.robot}: paw radius {radius:.0f} mm, carrying {mass:.2f} kg, on the verdict's floor "
              f"with a contact time constant of {1000 * model.geom_solref[0, 0]:g} ms"
              + (f", friction rows {1000 * model.pair_solreffriction[0, 0]:g} ms" if model.npair else ""))  # fmt: skip
        print("down [m/s]  across [m/s]  slide [mm]  deepest [mm]")
        for down in DOWN:
            for across in ACROSS:
                slide, deep = drop(model, down, across)
                print(f"{down:10.1f}  {across:12.1f}  {slide:10.2f}  {deep:12.1f}")
        d = mujoco.MjData(model)
        d.qpos[2] = float(model.geom_size[PAW, 0])
        for _ in range(3000):
            mujoco.mj_step(model, d)
        print(f"at rest: the paw's lowest point {1000 * (d.qpos[2] - model.geom_size[PAW, 0]):+.1f} mm from z = 0\n")


if __name__ == "__main__":
    main()
