"""Feedback terms of the replay besides the joint PD: balance through the contacts, the external
base assist, and the floor-contact readout (replay.py describes what each does)."""

from __future__ import annotations

import mujoco
import numpy as np

from ..robots.geometry import body_collision_geoms


def balance_torques(
    m: mujoco.MjModel, d: mujoco.MjData, q: np.ndarray, v: np.ndarray, w: float, floor: int, vadr: np.ndarray
) -> np.ndarray:
    """Joint torques that make the floor contacts push the base towards the reference (module doc)."""
    pts = [(d.contact[i].pos.copy(), d.contact[i].geom2 if d.contact[i].geom1 == floor else d.contact[i].geom1)
           for i in range(d.ncon) if floor in (d.contact[i].geom1, d.contact[i].geom2)]  # fmt: skip
    if not pts:
        return np.zeros(len(vadr))
    err = np.zeros(m.nv)
    mujoco.mj_differentiatePos(m, err, 1.0, d.qpos, q)
    acc = w * w * err[:6] + 2 * w * (v[:6] - d.qvel[:6])
    full = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, full)
    want = full[:6, :6] @ acc
    jac = np.zeros((3 * len(pts), m.nv))
    jacp = np.zeros((3, m.nv))
    for k, (p, g) in enumerate(pts):
        mujoco.mj_jac(m, d, jacp, None, p, int(m.geom_bodyid[g]))
        jac[3 * k : 3 * k + 3] = jacp
    jb = jac[:, :6].T  # (6, 3P)
    scale = float(np.trace(jb @ jb.T)) / 6.0 + 1e-9
    df = jb.T @ np.linalg.solve(jb @ jb.T + 1e-3 * scale * np.eye(6), want)
    return -(jac[:, vadr].T @ df)


def base_assist(
    m: mujoco.MjModel, d: mujoco.MjData, q: np.ndarray, v: np.ndarray, w: float, mass: float, root: int
) -> float:
    """Apply a PD wrench on the root body towards the reference base pose; returns |force| [N]."""
    err = np.zeros(m.nv)
    mujoco.mj_differentiatePos(m, err, 1.0, d.qpos, q)
    force = mass * (w * w * err[:3] + 2 * w * (v[:3] - d.qvel[:3]))
    inertia = mass * 0.05  # a rough base rotational inertia [kg m^2] for the orientation PD
    rot = d.xmat[root].reshape(3, 3)
    torque = rot @ (inertia * (w * w * err[3:6] + 2 * w * (v[3:6] - d.qvel[3:6])))
    d.xfrc_applied[root, :3] = force
    d.xfrc_applied[root, 3:] = torque
    return float(np.linalg.norm(force))


def floor_force(m: mujoco.MjModel, floor: int, d: mujoco.MjData) -> np.ndarray:
    """Total force of the floor geom on the robot (world) [N] in the current contacts. Shape: (3,)."""
    total = np.zeros(3)
    f6 = np.zeros(6)
    for i in range(d.ncon):
        c = d.contact[i]
        if floor not in (c.geom1, c.geom2):
            continue
        mujoco.mj_contactForce(m, d, i, f6)
        frame = c.frame.reshape(3, 3)  # rows: normal, tangents (world)
        sign = 1.0 if c.geom1 == floor else -1.0  # force on geom2 from geom1
        total += sign * (frame.T @ f6[:3])
    return total


def foot_of_geoms(m: mujoco.MjModel, feet: tuple[str, ...]) -> np.ndarray:
    """The foot (index into ``feet``, body names) each geom of ``m`` belongs to, -1 for the others:
    the foot's collision geoms as kinemorph.robots.geometry.collision_geoms has them (a bare foot
    point's parent's: a quadruped's paw sphere on its calf). Shape: (ngeom,)."""
    out = np.full(m.ngeom, -1, dtype=np.int64)
    for f, name in enumerate(feet):
        out[body_collision_geoms(m, m.body(name).id)] = f
    return out


def floor_contacts(
    m: mujoco.MjModel,
    floor: int,
    d: mujoco.MjData,
    foot_of: np.ndarray | None = None,
    loaded: float = 0.0,
    feet: int = 0,
) -> tuple[np.ndarray, float, np.ndarray]:
    """Total floor force on the robot (world) [N], mean tangential contact-point speed [m/s] and,
    with ``foot_of`` (foot_of_geoms), each foot's mean tangential contact-point speed [m/s] over its
    contacts that carry a normal force over ``loaded`` [N] (NaN for a foot without). Shape of the
    last: (feet,)."""
    speeds = []
    foot_sum, foot_n = np.zeros(feet), np.zeros(feet)
    jacp = np.zeros((3, m.nv))
    f6 = np.zeros(6)
    for i in range(d.ncon):
        c = d.contact[i]
        if floor not in (c.geom1, c.geom2):
            continue
        other = c.geom2 if c.geom1 == floor else c.geom1
        mujoco.mj_jac(m, d, jacp, None, c.pos, int(m.geom_bodyid[other]))
        vel = jacp @ d.qvel
        speed = float(np.linalg.norm(vel[:2]))
        speeds.append(speed)
        f = -1 if foot_of is None else int(foot_of[other])
        if 0 <= f < feet:
            mujoco.mj_contactForce(m, d, i, f6)
            if f6[0] > loaded:
                foot_sum[f] += speed
                foot_n[f] += 1
    with np.errstate(invalid="ignore"):
        per_foot = np.where(foot_n > 0, foot_sum / np.maximum(foot_n, 1), np.nan)
    return floor_force(m, floor, d), float(np.mean(speeds)) if speeds else 0.0, per_foot
