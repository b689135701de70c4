"""The inner problem's body clearance cost: a leg or the trunk coming down onto the floor.

Only the feet may push on the floor: kinemorph.sim's verdict explains the output's motion by
forces at the feet that its contact mask marks, and a calf or thigh that hits the floor leaves
that force unexplained. In the gallop at the end of dog_walk (2-2.5 m/s, flight phases) the
rollouts of Go2 and A1 sag to a 24-26 cm base and fold their legs onto the floor: Go2's front-left
calf 480 N and rear-left calf 780 N, A1's rear-right thigh 270 N, for 10-30 ms each (measured on
the rollouts' own states), which left 0.8 m/s and 3 rad/s of residual base velocity within half
a second in the verdict. This residual, evaluated on the rollout (optim.ilqr.StateResidual),
prices every collision geom of the robot that is not a foot by how far its lowest point
(kinemorph.sim.contacts.lowest_points: a capsule's lower end, a box's lowest corner) is below
``clearance`` above the floor,

    r = sqrt(w) min(0, z - clearance),

a hinge (no pull while clear), with Gauss-Newton Jacobian sqrt(w) times the point's vertical
Jacobian on the position.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ...sim.contacts import lowest_points
from .floor_cost import foot_sphere


def body_geoms(model: mujoco.MjModel, collision: np.ndarray, feet: tuple[str, ...], rest: np.ndarray,
               clearance: float) -> np.ndarray:  # fmt: skip
    """The geoms of ``collision`` that belong to no foot: not a foot's sphere (which may sit on the
    calf when the foot body has no geometry), not on a foot body or below it, and not within
    ``clearance`` [m] above the feet's lowest point in the ``rest`` pose (qpos): such a geom ends at
    the paw (A1's calf capsules end 1 cm above its paws' soles) and comes that close whenever the
    paw stands; pricing it would lift the planted paws."""
    feet_ids = {model.body(f).id for f in feet}
    spheres = {foot_sphere(model, f) for f in feet}
    d = mujoco.MjData(model)
    d.qpos[:] = rest
    mujoco.mj_kinematics(model, d)
    soles = [g for g in spheres if g is not None]
    sole = min((float(d.geom_xpos[g, 2] - model.geom_size[g, 0]) for g in soles), default=-np.inf)
    out = []
    for g in np.asarray(collision, dtype=np.int64):
        if int(g) in spheres:
            continue
        b = int(model.geom_bodyid[g])
        while b > 0 and b not in feet_ids:
            b = int(model.body_parentid[b])
        low = lowest_points(model, d, np.array([g])).points
        if b == 0 and len(low) and float(low[:, 2].min()) - sole >= clearance:
            out.append(int(g))
    return np.array(out, dtype=np.int64)


class BodyClearanceResidual:
    """Residual of the non-foot geoms' lowest points under ``clearance`` (module docstring); an
    optim.ilqr.StateResidual.

    Args:
        model: the dynamics model.
        geoms: the geoms it watches (body_geoms). Shape: (G,).
        weight: w [1/m^2].
        clearance: height above the floor under which the cost sets in [m].
    """

    def __init__(self, model: mujoco.MjModel, geoms: np.ndarray, *, weight: float, clearance: float) -> None:
        if not (weight >= 0 and clearance >= 0):
            raise ValueError(f"BodyClearanceResidual: need weight >= 0 and clearance >= 0, got {weight}, {clearance}")
        self.m = model
        self.d = mujoco.MjData(model)
        self.geoms = np.asarray(geoms, dtype=np.int64)
        self.s = float(np.sqrt(weight))
        self.clearance = float(clearance)
        self._jac = np.zeros((3, model.nv))

    def __call__(self, k: int, qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m, d = self.m, self.d
        nv = m.nv
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        cp = lowest_points(m, d, self.geoms)
        low = np.flatnonzero(cp.points[:, 2] < self.clearance) if len(cp.points) else np.zeros(0, dtype=np.int64)
        if low.size == 0:
            return np.zeros(0), np.zeros((0, 2 * nv))
        mujoco.mj_comPos(m, d)
        r = self.s * (cp.points[low, 2] - self.clearance)
        jac = np.zeros((low.size, 2 * nv))
        for i, p in enumerate(low):
            mujoco.mj_jac(m, d, self._jac, None, cp.points[p], int(m.geom_bodyid[cp.geoms[p]]))
            jac[i, :nv] = self.s * self._jac[2]
        return r, jac
