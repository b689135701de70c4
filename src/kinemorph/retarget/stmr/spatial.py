"""The spatial stage of STMR (SMR; Yoon et al., T-RO 2025, Sec. V): kinematic foot constraints.

From the unconstrained IK solution q_IK (reference.py) and its velocity v_IK (finite
differences), the frames are solved in order. Frame i starts from the last solution q; its
target step is dq* = (1 - K) v_IK dt + K (q_IK[i] - q) (K: ``smr_gain``; the velocity carries the
motion, the gain keeps it from drifting off the IK solution), and one convex QP per
linearisation finds the step closest to it under the linearised foot constraints of the contact
schedule:

    minimise   1/2 |dq - dq*|^2_W      (W: the base's dofs weigh ``base_weight``, joints 1)
    subject to planted foot j:  z_j + J_jz dq = floor (its sphere's centre one radius above it)
                                c_j + J_cj dq = c_j(q_start) in x, y (its contact point does not slide)
               swinging foot j: z_j + J_jz dq >= floor + clearance_j(i)
               joint limits.

c_j is the material point of the paw's sphere that is lowest at the frame's start q_start (the
previous frame's solution), J_cj its point Jacobian on the paw's body (mj_jac): the paw rolls
with its calf instead of turning on the spot. A paw whose sphere centre were held still would
slide its contact point at radius x turn rate (5.9 cm/s on average on dog_walk onto Go2), which
is what a physical replay measures as slip (kinemorph.sim, kinemorph.quality.foot_slip on round
feet); rolling, the centre moves at radius x turn rate instead. The same x, y rows hold on a
paw's touch-down frame (it comes down onto the point it lands on) and on its first swing frame
(it leaves without scuffing); a foot has no horizontal contact-point speed at either end of a
stance. Feet that are not spheres (and every foot with ``contact_point=False``) hold their
centre instead: at touch-down at the anchor, the projection on the floor of where the centre
was on the frame before (it lands straight down), for the whole stance, and on the first swing
frame it lifts straight up from it. The clearance of a swinging foot (the quadruped planner's
profile: a few centimetres, ramped up after lift-off and down before touch-down) keeps it from
dragging on the floor once the motion is simulated; the paper asks only "above the ground".
When all four feet swing (a flight whose reference base falls like a thrown
body), the base follows a ballistic path: a quadratic
fitted to the last ``ballistic_history`` base positions gives the exit velocity, gravity is
integrated until a foot lands, and the QP moves the legs around that base. The vertical take-off
speed is the one that brings the base to the IK's height on the landing frame (``landing_climb``):
the fitted one can leave the base high when the schedule's landing comes, and the landing paw's
row on the floor then dropped it in one frame (11.5 cm on a 120 fps running dog). A QP that the joint
limits make infeasible is solved again with the planted-foot rows as a stiff penalty.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ...motion.contacts import contact_intervals
from ...optim.qp import solve_qp
from ...progress import Progress, report
from ...robots.robot import Robot
from .floor_cost import foot_sphere
from .landing import LandingBand, landing_task

GRAVITY = 9.81
SOFT_WEIGHT = 1e4


@dataclass(frozen=True)
class SpatialResult:
    """The spatial stage's output.

    Attributes:
        qpos: constrained configurations. Shape: (T, nq).
        anchors: planted feet's centre positions held (NaN while swinging) [m]. Shape: (T, 4, 3).
        flight_frames: frames whose base followed the ballistic path.
        soft_frames: frames whose QP needed the planted rows as a penalty (joint limits).
        qp_failures: frames whose QP failed outright (the target step was taken).
    """

    qpos: np.ndarray
    anchors: np.ndarray
    flight_frames: int
    soft_frames: int
    qp_failures: int


def exit_velocity(history: np.ndarray, dt: float) -> np.ndarray:
    """Velocity at the last of ``history`` (h, 3) positions [m] sampled every dt [s], from a
    least-squares polynomial (degree min(2, h - 1)) [m/s]."""
    h = history.shape[0]
    if h < 2:
        return np.zeros(3)
    t = np.arange(h) * dt
    deg = min(2, h - 1)
    coef = np.polyfit(t, history, deg)  # (deg + 1, 3), highest power first
    powers = np.arange(deg, 0, -1)
    return (coef[:-1] * powers[:, None] * t[-1] ** (powers[:, None] - 1)).sum(axis=0)


def landing_climb(z0: float, ik_z: np.ndarray, ballistic: np.ndarray, first: int, dt: float) -> float:
    """Vertical take-off speed [m/s] of the flight starting at frame ``first`` (``ballistic`` (T,)
    bool) from base height z0 [m] on the frame before, under which the base, stepped frame by frame
    under gravity, is at the IK's height ``ik_z`` (T,) on the landing frame: the fitted exit
    velocity's vertical part misses it (by 11.5 cm, dropped in one frame, on a 120 fps running dog),
    while the landing frame's feet must reach the floor."""
    end = first + int(np.argmin(ballistic[first:]))  # flight_frames: a planted frame follows every flight
    steps = end - first + 1
    return float((ik_z[end] - z0) / (steps * dt) + GRAVITY * dt * (steps + 1) / 2)


def flight_frames(base_z: np.ndarray, contacts: np.ndarray, fps: float) -> np.ndarray:
    """Frames (T,) bool of the flights: runs with no foot planted, planted frames on both sides,
    over which the reference base height (T,) falls like a thrown body (its least-squares parabola
    accelerates downward at 0.5-1.5 g). A run whose base does not (a contact the detection missed,
    a paw held up while walking slowly) keeps the IK's base."""
    out = np.zeros(len(base_z), dtype=bool)
    for a, b in contact_intervals(np.asarray(~contacts.any(axis=1))):
        if a == 0 or b >= len(base_z) or b - a < 2:
            continue
        t = np.arange(a - 1, b + 1) / fps
        acc = 2.0 * np.polyfit(t - t[0], base_z[a - 1 : b + 1], 2)[0]
        if -1.5 * GRAVITY <= acc <= -0.5 * GRAVITY:
            out[a:b] = True
    return out


def _diff(m: mujoco.MjModel, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Tangent step from a to b (nv,)."""
    out = np.zeros(m.nv)
    mujoco.mj_differentiatePos(m, out, 1.0, a, b)
    return out


def spatial_stage(
    robot: Robot,
    q_ik: np.ndarray,
    contacts: np.ndarray,
    foot_bodies: tuple[str, ...],
    foot_height: np.ndarray,
    *,
    fps: float,
    gain: float = 0.3,
    iterations: int = 2,
    ballistic_history: int = 5,
    max_joint_step: float = np.inf,
    base_weight: float = 10.0,
    clearance: np.ndarray | None = None,
    contact_point: bool = True,
    landing: LandingBand | None = None,
    landing_weight: float = 1000.0,
    progress: Progress | None = None,
) -> SpatialResult:
    """Solve the frames of ``q_ik`` (T, nq) under the foot constraints of ``contacts`` (T, 4) bool
    (see the module docstring). foot_height: foot body height above the floor at rest [m] (4,).
    max_joint_step: no joint moves more than this from frame to frame [rad].
    base_weight: weight of the base's 6 dofs against the joints' 1 in the QP's distance.
    clearance: least height of each swinging foot above the floor per frame [m] (T, 4); None: 0.
    contact_point: a planted sphere paw holds its contact point (it rolls), else its centre.
    landing: the soft touch-downs and lift-offs (landing.py): its lower bound replaces
    ``clearance`` (hard); its cap is a task on the legs' joints of weight ``landing_weight`` in
    the QP's distance (landing.landing_task); None: none."""
    m = robot.model
    n, nv = q_ik.shape[0], m.nv
    dt = 1.0 / fps
    feet = [robot.body_id(b) for b in foot_bodies]
    jnt_lo = np.full(nv, -np.inf)
    jnt_hi = np.full(nv, np.inf)
    for j in range(m.njnt):
        if m.jnt_limited[j] and m.jnt_type[j] in (2, 3):  # slide, hinge
            jnt_lo[m.jnt_dofadr[j]], jnt_hi[m.jnt_dofadr[j]] = m.jnt_range[j]
    qadr = np.array([m.jnt_qposadr[j] for j in range(m.njnt) if m.jnt_type[j] in (2, 3)])
    dadr = np.array([m.jnt_dofadr[j] for j in range(m.njnt) if m.jnt_type[j] in (2, 3)])
    out = np.zeros_like(q_ik)
    anchors = np.full((n, 4, 3), np.nan)
    anchor = np.zeros((4, 3))
    q = q_ik[0].copy()
    flight_v: np.ndarray | None = None
    flights = softs = failures = 0
    d = mujoco.MjData(m)
    jac = np.zeros((3, nv))
    w = np.ones(nv)
    w[:6] = base_weight

    spheres = [foot_sphere(m, f) for f in foot_bodies] if contact_point else [None] * 4
    sphere_body = [-1 if g is None else int(m.geom_bodyid[g]) for g in spheres]
    local = np.zeros((4, 3))  # each paw's held material point in its sphere's body frame

    def feet_at(qq: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Foot centres (4, 3) and Jacobians (4, 3, nv); held material points (4, 3) and their Jacobians."""
        d.qpos[:] = qq
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        pos, jacs = np.zeros((4, 3)), np.zeros((4, 3, nv))
        held, held_jacs = np.zeros((4, 3)), np.zeros((4, 3, nv))
        for leg, b in enumerate(feet):
            mujoco.mj_jacBody(m, d, jac, None, b)
            pos[leg], jacs[leg] = d.xpos[b], jac
            if spheres[leg] is not None:
                sb = sphere_body[leg]
                held[leg] = d.xpos[sb] + d.xmat[sb].reshape(3, 3) @ local[leg]
                mujoco.mj_jac(m, d, jac, None, held[leg], sb)
                held_jacs[leg] = jac
        return pos, jacs, held, held_jacs

    def lowest_local(qq: np.ndarray, leg: int) -> np.ndarray:
        """Body-frame coordinates of the lowest point of leg's sphere at pose qq (3,)."""
        g, sb = spheres[leg], sphere_body[leg]
        d.qpos[:] = qq
        mujoco.mj_kinematics(m, d)
        low = d.geom_xpos[g] - np.array([0.0, 0.0, m.geom_size[g, 0]])
        return d.xmat[sb].reshape(3, 3).T @ (low - d.xpos[sb])

    lift = np.zeros((n, 4)) if clearance is None else clearance
    cap = np.full((n, 4), np.inf) if landing is None else landing.upper
    if landing is not None:
        lift = landing.lower
    is_sphere = np.array([g is not None for g in spheres])
    ballistic = flight_frames(q_ik[:, 2], contacts, fps)
    for i in range(n):
        v_ik = _diff(m, q_ik[i - 1], q_ik[i]) if i > 0 else np.zeros(nv)
        target = (1.0 - gain) * v_ik + gain * _diff(m, q, q_ik[i])
        planted = contacts[i]
        if ballistic[i]:
            if flight_v is None:
                hist = out[max(0, i - ballistic_history) : i, :3]
                flight_v = exit_velocity(hist, dt)
                flight_v[2] = landing_climb(out[i - 1, 2], q_ik[:, 2], ballistic, i, dt)
            flight_v = flight_v - np.array([0.0, 0.0, GRAVITY * dt])
            target[:3] = flight_v * dt  # world-frame linear velocity of the free joint
            flights += 1
        else:
            flight_v = None
        q_start = q.copy()
        lifting = ~planted & contacts[i - 1] if i > 0 else np.zeros(4, dtype=bool)
        # a sphere paw on the floor, landing or lifting holds the material point of its sphere that
        # was lowest at q_start: it does not slide in x, y from the frame before
        rolling = (planted | lifting) & is_sphere & (i > 0)
        easing = np.flatnonzero(~planted & np.isfinite(cap[i]))
        if planted.any():
            pred, _, _, _ = feet_at(robot.integrate(q, target) if i == 0 else q)
            for leg in np.flatnonzero(planted):
                if i == 0 or not contacts[i - 1, leg]:  # touch-down: straight below the last swing frame
                    anchor[leg] = [pred[leg, 0], pred[leg, 1], foot_height[leg]]
        for leg in np.flatnonzero(rolling):
            local[leg] = lowest_local(q_start, int(leg))
        held0 = feet_at(q_start)[2]
        for _ in range(iterations):
            pos, jacs, held, held_jacs = feet_at(q)
            want = w * (target - _diff(m, q_start, q))
            eq_rows, eq_rhs = [], []
            for leg in np.flatnonzero(planted | lifting):
                if rolling[leg]:  # its contact point's material velocity 0 in x, y
                    eq_rows.append(held_jacs[leg, :2])
                    eq_rhs.append(held0[leg, :2] - held[leg, :2])
                    if planted[leg]:  # and on the floor
                        eq_rows.append(jacs[leg, 2:3])
                        eq_rhs.append(anchor[leg, 2:3] - pos[leg, 2:3])
                elif planted[leg]:
                    eq_rows.append(jacs[leg])
                    eq_rhs.append(anchor[leg] - pos[leg])
                else:  # lifting straight up from its anchor
                    eq_rows.append(jacs[leg, :2])
                    eq_rhs.append(anchor[leg, :2] - pos[leg, :2])
            swing = np.flatnonzero(~planted)
            a_in = jacs[swing, 2] if swing.size else None
            lo_in = foot_height[swing] + lift[i, swing] - pos[swing, 2] if swing.size else None
            x_lo, x_hi = np.full(nv, -np.inf), np.full(nv, np.inf)
            x_lo[dadr] = np.maximum(jnt_lo[dadr], q_start[qadr] - max_joint_step) - q[qadr]
            x_hi[dadr] = np.minimum(jnt_hi[dadr], q_start[qadr] + max_joint_step) - q[qadr]
            x_lo, x_hi = np.minimum(x_lo, 0.0), np.maximum(x_hi, 0.0)  # never push further out
            h, g = np.diag(w), -want
            if easing.size and landing is not None:  # the soft landing's cap, on the legs' joints
                free = target - _diff(m, q_start, q)
                rows, rhs = landing_task(landing, i, easing, free, foot_height, pos, jacs)
                h = h + landing_weight * rows.T @ rows
                g = g - landing_weight * rows.T @ rhs
            a_eq = np.vstack(eq_rows) if eq_rows else None
            b_eq = np.concatenate(eq_rhs) if eq_rhs else None
            res = solve_qp(h, g, A=a_in, lower=lo_in, A_eq=a_eq, b_eq=b_eq, x_lower=x_lo, x_upper=x_hi)
            if not res.solved and a_eq is not None:
                softs += 1
                h_soft = h + SOFT_WEIGHT * a_eq.T @ a_eq
                g_soft = g - SOFT_WEIGHT * a_eq.T @ b_eq  # type: ignore[operator]
                res = solve_qp(h_soft, g_soft, A=a_in, lower=lo_in, x_lower=x_lo, x_upper=x_hi)
                if not res.solved:  # the clearance rows too cannot all hold: the closest step
                    res = solve_qp(h_soft, g_soft, x_lower=x_lo, x_upper=x_hi)
            if not res.solved:
                failures += 1
                step = np.clip(want / w, x_lo, x_hi)
            else:
                step = res.x
            q = robot.integrate(q, step)
        out[i] = q
        if rolling.any():  # a rolling paw's centre moved: its anchor is where it is
            pos, _, _, _ = feet_at(q)
            anchor[rolling, :2] = pos[rolling, :2]
        anchors[i, planted] = anchor[planted]
        report(progress, i + 1, n)
    return SpatialResult(out, anchors, flights, softs, failures)
