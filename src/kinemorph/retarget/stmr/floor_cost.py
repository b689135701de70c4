"""The inner problem's contact-implicit foot cost: how a foot comes down onto the floor.

The schedule's foot costs (inner.foot_hessians) are linearised at the targets: where the rollout
puts a foot down earlier, later or elsewhere than the targets do (it leaves them by centimetres
in a fast gait), they weight the wrong steps. This residual is evaluated on the rollout itself
(optim.ilqr.StateResidual): for each foot whose lowest point is within ``band`` of the floor,
with gate g = 1 - height / band in [0, 1],

    r = sqrt(w g) min(0, v_z)                    (default: a soft landing)
    r = sqrt(w g) [v_x, v_y, min(0, v_z)]        (``sideways=True``)

where v is the velocity of the foot's lowest point (the point that touches: a rolling sphere's
contact point stands still, its centre does not), J its point Jacobian. A foot on or just above
the floor that moves downwards (a hard landing, which sinks it into the stiff floor: the output's
penetration) pays for it, wherever and whenever it happens; with ``sideways`` also one that moves
sideways (a landing with horizontal speed, a slide, a scuff). Measured (README, STMR; docs/STMR.md): the
downward term at weight 100 lowers the penetration of Go2's and A1's rollouts (about a third on
fixed-timing slices) but not reliably the replay's slip (lower on some slices; on a whole dog_walk
run 8.9 -> 14.1 cm/s, and one dog_idle slice's replay fell), so it is off; the sideways terms
tipped the rollouts at higher weights and gained nothing at lower ones (they fight the swing of
a paw that passes low over the floor). The gate's own derivative is
left out (Gauss-Newton on the gated residual), so the optimiser is not pushed to lift feet to
avoid the cost.
"""

from __future__ import annotations

import mujoco
import numpy as np


def foot_sphere(model: mujoco.MjModel, body: str) -> int | None:
    """The colliding sphere geom of a foot body (or of its parent when the body has none), or None."""
    b = model.body(body).id
    for owner in (b, int(model.body_parentid[b])):
        for g in range(model.ngeom):
            if model.geom_bodyid[g] == owner and (model.geom_contype[g] or model.geom_conaffinity[g]):
                if int(model.geom_type[g]) == mujoco.mjtGeom.mjGEOM_SPHERE:
                    return g
        if any(model.geom_bodyid[g] == b for g in range(model.ngeom)):
            return None
    return None


def lowest_point_jacobian(model: mujoco.MjModel, data: mujoco.MjData, geom: int, out: np.ndarray) -> np.ndarray:
    """Point Jacobian (3, nv) into ``out`` of a sphere geom's lowest point (its centre less its
    radius in z) on the geom's body: the paw's contact point (kinematics and comPos computed)."""
    point = data.geom_xpos[geom] - np.array([0.0, 0.0, model.geom_size[geom, 0]])
    mujoco.mj_jac(model, data, out, None, point, int(model.geom_bodyid[geom]))
    return out


class FloorSlipResidual:
    """Residual of the feet's speed near the floor (module docstring); an optim.ilqr.StateResidual.

    Args:
        model: the dynamics model.
        feet: foot body names (each with a colliding sphere: quadrupeds' paws).
        weight: w [s^2/m^2].
        band: height under which the gate opens [m].
        floor_z: height of the floor's surface [m].
        sideways: weight the horizontal speed too (else only the downward one).
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        feet: tuple[str, ...],
        *,
        weight: float,
        band: float = 0.02,
        floor_z: float = 0.0,
        sideways: bool = False,
    ) -> None:
        self.m = model
        self.sideways = bool(sideways)
        self.d = mujoco.MjData(model)
        self.w = float(weight)
        self.band = float(band)
        self.floor_z = float(floor_z)
        geoms = [foot_sphere(model, f) for f in feet]
        if any(g is None for g in geoms):
            raise ValueError(f"FloorSlipResidual: feet {feet} are not all spheres")
        self.geoms = np.array(geoms, dtype=np.int64)
        self.radius = model.geom_size[self.geoms, 0].copy()
        self._jac = np.zeros((3, model.nv))

    def _lowest_point_jacobian(self, f: int) -> np.ndarray:
        """Point Jacobian (3, nv) of foot f's sphere's lowest point (kinematics and comPos computed)."""
        return lowest_point_jacobian(self.m, self.d, int(self.geoms[f]), self._jac)

    def __call__(self, k: int, qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m, d = self.m, self.d
        nv = m.nv
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        centre = d.geom_xpos[self.geoms]
        height = centre[:, 2] - self.radius - self.floor_z
        near = np.flatnonzero(height < self.band)
        if near.size == 0:
            return np.zeros(0), np.zeros((0, 2 * nv))
        mujoco.mj_comPos(m, d)
        axes = [0, 1, 2] if self.sideways else [2]  # the vertical row last
        n = len(axes)
        r = np.zeros(n * near.size)
        jac = np.zeros((n * near.size, 2 * nv))
        for i, f in enumerate(near):
            pj = self._lowest_point_jacobian(int(f))
            gate = float(np.clip(1.0 - height[f] / self.band, 0.0, 1.0))
            s = np.sqrt(self.w * gate)
            v = pj @ qvel
            rows = slice(n * i, n * i + n)
            r[rows] = s * np.array([v[0], v[1], min(0.0, v[2])])[axes]
            jac[rows, nv:] = s * pj[axes]
            if v[2] > 0:
                jac[n * i + n - 1, nv:] = 0.0
        return r, jac


class PlantedSlipResidual(FloorSlipResidual):
    """Residual of the planted feet's contact-point velocity by the schedule: for each foot that
    ``planted`` (K + 1, F) marks at step k, r = sqrt(w) v_p (3 components), v_p the velocity of
    the sphere's lowest point. Unlike a cost on the foot body's (the sphere centre's) velocity
    against the targets', it lets the paw roll: the spatial stage holds the centres still while
    the paws turn with their calves, which asks the contact points to slide at radius x turn
    rate (5.9 cm/s on average on dog_walk onto Go2). ``offset`` shifts the step index (the
    receding horizon's window start)."""

    def __init__(self, model: mujoco.MjModel, feet: tuple[str, ...], planted: np.ndarray, *, weight: float) -> None:
        super().__init__(model, feet, weight=weight)
        self.planted = np.asarray(planted, dtype=bool)
        self.offset = 0

    def __call__(self, k: int, qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m, d = self.m, self.d
        nv = m.nv
        legs = np.flatnonzero(self.planted[min(k + self.offset, len(self.planted) - 1)])
        if legs.size == 0:
            return np.zeros(0), np.zeros((0, 2 * nv))
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        s = np.sqrt(self.w)
        r = np.zeros(3 * legs.size)
        jac = np.zeros((3 * legs.size, 2 * nv))
        for i, f in enumerate(legs):
            pj = self._lowest_point_jacobian(int(f))
            r[3 * i : 3 * i + 3] = s * (pj @ qvel)
            jac[3 * i : 3 * i + 3, nv:] = s * pj
        return r, jac


class Residuals:
    """The sum of several StateResiduals (their rows stacked); ``offset`` is passed on."""

    def __init__(self, parts: list) -> None:  # type: ignore[type-arg]
        self.parts = parts

    @property
    def offset(self) -> int:
        return getattr(self.parts[0], "offset", 0)

    @offset.setter
    def offset(self, value: int) -> None:
        for p in self.parts:
            if hasattr(p, "offset"):
                p.offset = value

    def __call__(self, k: int, qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = [p(k, qpos, qvel) for p in self.parts]
        return np.concatenate([o[0] for o in out]), np.vstack([o[1] for o in out])
