"""Joint PD gains of the replay, derived from the model.

Gains are computed at the first frame. Each joint alone moving its distal subtree
(inertia M_ii, the joint-space mass-matrix diagonal with armature) is a critically damped
oscillator of frequency ``bandwidth_hz``: kp = M_ii w^2. A joint between the trunk and a foot also
carries the rest of the robot when that foot is planted: there the robot is an inverted pendulum
over the joint whose gravity stiffness m_p g h (m_p the mass on the trunk side, h the height of
its centre of mass above the joint axis) the joint must beat, so such joints add
``load_factor`` m_p g h and their kd uses the pendulum's inertia m_p r^2 as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np

from ..errors import ConfigError
from .model import TorqueModel


@dataclass(frozen=True)
class Gains:
    """Joint PD gains.

    Attributes:
        bandwidth_hz: natural frequency of each joint's PD loop [Hz].
        damping_ratio: zeta of each joint's PD loop.
        load_factor: stiffness of leg joints over the gravity stiffness of what they carry.
        balance_hz: bandwidth of the base balance feedback [Hz] (0: off).
        balance_rate_hz: how often the balance feedback is recomputed [1/s].
        kp: per-joint overrides [N m / rad], by joint name.
        kd: per-joint overrides [N m s / rad], by joint name.
    """

    bandwidth_hz: float = 10.0
    damping_ratio: float = 1.0
    load_factor: float = 2.0
    balance_hz: float = 2.0
    balance_rate_hz: float = 250.0
    kp: dict[str, float] = field(default_factory=dict)
    kd: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("bandwidth_hz", "damping_ratio", "balance_rate_hz"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"Gains.{name} must be positive, got {getattr(self, name)}")
        for name in ("load_factor", "balance_hz"):
            if not getattr(self, name) >= 0:
                raise ConfigError(f"Gains.{name} must be >= 0, got {getattr(self, name)}")


@dataclass(frozen=True)
class JointGains:
    """PD gains per actuator. kp [N m / rad], kd [N m s / rad]: Shape (nu,)."""

    kp: np.ndarray
    kd: np.ndarray


def pd_gains(tm: TorqueModel, qpos0: np.ndarray, gains: Gains) -> JointGains:
    """kp, kd per actuator from the model at qpos0 (see module doc)."""
    m = tm.model
    d = mujoco.MjData(m)
    d.qpos[:] = qpos0
    mujoco.mj_forward(m, d)
    full = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, full)
    w = 2 * np.pi * gains.bandwidth_hz
    inertia = np.diag(full)[tm.act_dof]
    kp = inertia * w * w
    kd = 2 * gains.damping_ratio * inertia * w
    feet = [tm.robot.body_id(f) for f in tm.robot.feet]
    total, com = float(m.body_subtreemass[0]), d.subtree_com[0].copy()
    g = float(np.linalg.norm(m.opt.gravity))
    for i in range(m.nu):
        j = int(m.actuator_trnid[i, 0])
        b = int(m.jnt_bodyid[j])
        if not any(_is_ancestor_or_self(m, b, f) for f in feet):
            continue
        m_sub = float(m.body_subtreemass[b])
        m_p = total - m_sub
        if m_p <= 0:
            continue
        c_p = (total * com - m_sub * d.subtree_com[b]) / m_p
        r = c_p - d.xanchor[j]
        a = d.xaxis[j]
        r_perp = r - (r @ a) * a
        k_load = m_p * g * max(float(r[2]), 0.0) * (1.0 - float(a[2]) ** 2)
        kp[i] += gains.load_factor * k_load
        kd[i] = 2 * gains.damping_ratio * np.sqrt(kp[i] * (inertia[i] + m_p * float(r_perp @ r_perp)))
    names = [m.joint(int(m.actuator_trnid[i, 0])).name for i in range(m.nu)]
    for table, out in ((gains.kp, kp), (gains.kd, kd)):
        for name, v in table.items():
            if name not in names:
                raise ConfigError(f"gain override for unknown joint {name!r}; valid: {', '.join(names)}")
            out[names.index(name)] = float(v)
    return JointGains(kp, kd)


def _is_ancestor_or_self(m: mujoco.MjModel, a: int, b: int) -> bool:
    while b > 0:
        if b == a:
            return True
        b = int(m.body_parentid[b])
    return False
