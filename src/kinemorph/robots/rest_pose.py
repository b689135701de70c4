"""The rest pose of a robot model: a standing keyframe when it has one, else a standing pose made
from the joint limits and the floor.

Humanoids: every joint at zero (clipped into its limits), base upright, lowest collision point on
the floor. Quadrupeds: each leg's two pitch joints (thigh, knee) chosen within their limits so that
the foot stands under the thigh joint at a share of the leg's length (knees bent, as robot dogs
stand), then the base is lowered onto the floor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np

KEY_NAMES = ("stand", "standing", "home", "default", "init", "initial", "ready", "neutral", "zero")
STANCE_SHARE = 0.7  # quadrupeds: hip-to-foot height as a share of the thigh+calf length


@dataclass(frozen=True)
class RestPose:
    """A standing configuration.

    Attributes:
        qpos: the configuration. Shape: (nq,).
        source: where it came from ("keyframe 'home'" or "standing pose from joint limits and the floor").
        key: the keyframe's name ("" when computed).
        warnings: what the user should check.
    """

    qpos: np.ndarray
    source: str
    key: str = ""
    warnings: tuple[str, ...] = field(default_factory=tuple)


def _dof_range(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """qpos addresses, lower and upper limits of the hinge and slide joints."""
    adr, lo, hi = [], [], []
    for j in range(model.njnt):
        if model.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
            adr.append(int(model.jnt_qposadr[j]))
            lim = bool(model.jnt_limited[j])
            lo.append(model.jnt_range[j, 0] if lim else -np.inf)
            hi.append(model.jnt_range[j, 1] if lim else np.inf)
    return np.array(adr, dtype=np.int64), np.array(lo), np.array(hi)


def lowest_point(model: mujoco.MjModel, qpos: np.ndarray) -> float:
    """Lowest world z [m] of the model's collision geometry (body origins when it has none)."""
    from .geometry import _lowest_z

    d = mujoco.MjData(model)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(model, d)
    keep = ((model.geom_contype != 0) | (model.geom_conaffinity != 0)) & (model.geom_bodyid != 0)
    keep &= model.geom_type != mujoco.mjtGeom.mjGEOM_PLANE
    gs = np.nonzero(keep)[0]
    z = float(d.xpos[1:, 2].min())
    if len(gs):
        z = min(z, float(_lowest_z(model, gs, d.geom_xpos[gs, 2][None], d.geom_xmat[gs, 6:9][None]).min()))
    return z


def on_floor(model: mujoco.MjModel, qpos: np.ndarray) -> np.ndarray:
    """qpos with the base raised or lowered so that the lowest collision point touches z = 0."""
    q = qpos.copy()
    q[2] -= lowest_point(model, q)
    return q


def initial_pose(model: mujoco.MjModel) -> RestPose:
    """A standing keyframe (by name, else the first) when the model has one, else the zero pose
    with every joint clipped into its limits, base upright, on the floor."""
    if model.nkey:
        names = [model.key(k).name for k in range(model.nkey)]
        k = next((names.index(n) for n in KEY_NAMES if n in names), 0)
        q = model.key_qpos[k].copy()
        return RestPose(on_floor(model, q), f"keyframe {names[k] or k!r}", key=names[k])
    q = model.qpos0.copy()
    adr, lo, hi = _dof_range(model)
    out_of = (q[adr] < lo) | (q[adr] > hi)
    q[adr] = np.clip(q[adr], lo, hi)
    q[:2] = 0.0
    q[3:7] = [1.0, 0.0, 0.0, 0.0]
    warnings: tuple[str, ...] = ()
    if out_of.any():
        warnings = (f"{int(out_of.sum())} joint(s) have zero outside their limits: clipped for the rest pose",)
    return RestPose(on_floor(model, q), "standing pose from joint limits and the floor", warnings=warnings)


def quadruped_stance(
    model: mujoco.MjModel, qpos: np.ndarray, legs: list[tuple[int, int, int, np.ndarray]]
) -> np.ndarray:
    """Bend each leg (thigh body, calf body, foot body or calf, foot point in that body's frame)
    so that its foot stands under its thigh joint, STANCE_SHARE of the leg's length below it;
    knees behind the feet where the limits allow both. Returns the new qpos, on the floor."""
    q = qpos.copy()
    d = mujoco.MjData(model)
    for thigh, calf, foot, point in legs:
        jt = _first_hinge(model, thigh)
        jc = _first_hinge(model, calf)
        if jt < 0 or jc < 0:
            continue
        d.qpos[:] = q
        mujoco.mj_kinematics(model, d)
        hip = d.xpos[thigh].copy()
        tip = d.xpos[foot] + d.xmat[foot].reshape(3, 3) @ point
        length = float(np.linalg.norm(d.xpos[calf] - hip) + np.linalg.norm(tip - d.xpos[calf]))
        target = np.array([hip[0], tip[1], hip[2] - STANCE_SHARE * length])
        best = _search(model, d, q, (jt, jc), foot, point, target)
        q[model.jnt_qposadr[jt]], q[model.jnt_qposadr[jc]] = best
    return on_floor(model, q)


def _first_hinge(model: mujoco.MjModel, body: int) -> int:
    for j in range(model.njnt):
        if model.jnt_bodyid[j] == body and model.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE:
            return j
    return -1


def _search(
    model: mujoco.MjModel, d: mujoco.MjData, q: np.ndarray, joints: tuple[int, int], foot: int, point: np.ndarray,
    target: np.ndarray,
) -> tuple[float, float]:  # fmt: skip
    """Coarse-to-fine grid over two joints within their limits (unlimited: +-pi) minimising the
    foot's distance to the target, with a small preference for the knee behind the foot."""
    lims = []
    for j in joints:
        lo, hi = model.jnt_range[j] if model.jnt_limited[j] else (-np.pi, np.pi)
        lims.append((float(lo), float(hi)))
    centre = [0.5 * (lo + hi) for lo, hi in lims]
    span = [hi - lo for lo, hi in lims]
    qq = q.copy()
    a0, a1 = int(model.jnt_qposadr[joints[0]]), int(model.jnt_qposadr[joints[1]])
    best = (centre[0], centre[1])
    for _ in range(3):
        grid = [np.clip(np.linspace(c - s / 2, c + s / 2, 15), lo, hi) for c, s, (lo, hi) in zip(centre, span, lims)]
        scores = []
        for x in grid[0]:
            for y in grid[1]:
                qq[a0], qq[a1] = x, y
                d.qpos[:] = qq
                mujoco.mj_kinematics(model, d)
                tip = d.xpos[foot] + d.xmat[foot].reshape(3, 3) @ point
                knee_x = d.xpos[model.jnt_bodyid[joints[1]], 0]
                scores.append((float(np.sum((tip - target) ** 2)) + 1e-3 * float(knee_x > tip[0]), x, y))
        _, bx, by = min(scores)
        best = (bx, by)
        centre = [bx, by]
        span = [s / 7 for s in span]
    return best


def _far_z(model: mujoco.MjModel, d: mujoco.MjData) -> float:
    """Sum over bodies of the world z [m] of each body's far point: twice its centre of mass from its
    origin (a massless frame: its origin)."""
    massive = model.body_mass[1:] > 1e-9
    z = np.where(massive, 2.0 * d.xipos[1:, 2] - d.xpos[1:, 2], d.xpos[1:, 2])
    return float(z.sum())


def hanging(model: mujoco.MjModel, qpos: np.ndarray) -> np.ndarray:
    """qpos with the limbs hanging down: a model whose zero pose lies flat (Google Barkour's URDF:
    legs stretched out level with the trunk) gets, one joint at a time, the value within its limits
    (eighth turns and the limits) that lowers its bodies' far points the most in sum, while one
    still lowers them by a centimetre or more: among the pitch joints (axis across the body, within
    30 deg of y: legs swing fore and aft), and among all only when those hung nothing."""
    q = qpos.copy()
    d = mujoco.MjData(model)
    d.qpos[:] = q
    mujoco.mj_kinematics(model, d)
    hinges = [j for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE]
    pitch = [j for j in hinges if abs(float(d.xaxis[j, 1])) > np.cos(np.radians(30))]

    def cost(qq: np.ndarray) -> float:
        d.qpos[:] = qq
        mujoco.mj_kinematics(model, d)
        return _far_z(model, d)

    now = start = cost(q)
    for group in (pitch, hinges):
        if now < start - 0.01:  # the pitch joints hung the legs: the others stay
            break
        for _ in range(4 * len(group)):
            best = (0.0, -1, 0.0)
            for j in group:
                a = int(model.jnt_qposadr[j])
                lo, hi = model.jnt_range[j] if model.jnt_limited[j] else (-np.pi, np.pi)
                for v in np.unique([*np.clip(np.arange(-8, 9) * np.pi / 4, lo, hi).tolist(), lo, hi]):
                    qq = q.copy()
                    qq[a] = v
                    gain = now - cost(qq)
                    if gain > best[0] + 1e-6:
                        best = (gain, a, float(v))
            if best[0] < 0.01:
                break
            q[best[1]] = best[2]
            now -= best[0]
    return q
