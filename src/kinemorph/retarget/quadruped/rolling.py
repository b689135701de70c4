"""Planted paws that roll: foot targets whose sphere's contact point stays put (natural mode).

The planner holds a planted foot body at its anchor for the whole stance. A quadruped's paw is
a sphere on its calf: the calf turns during a stance, so a paw whose centre stands still turns
on the spot and its contact point slides at radius x turn rate (4-6 cm/s on the shared dog
clips), which a physical replay and kinemorph.quality.foot_slip measure as slip. A paw that
does not slip rolls: between frames t and t + 1 the material point of the sphere that touched
at t stays where it is, so the centre moves by

    c(t + 1) - c(t) = r (R_{t+1} R_t^T z - z)        (horizontally: r (R_{t+1} R_t^T z)_xy)

with R the paw body's orientation and r the sphere's radius. :func:`rolled_feet` takes the turns
from a first solve and moves each stance's targets along them; the swing after a stance starts
from where the rolled paw ended and blends into its planned path by the next touch-down; the
frame before a touch-down and the first swing frame roll too (the paw lands and leaves without
sliding its contact point). A
second solve then tracks the rolled targets (the turn changes by the second solve only by the
small shift: a centimetre on a 20 cm calf).
"""

from __future__ import annotations

import numpy as np

from ...motion.contacts import contact_intervals
from ...robots.geometry import round_geom
from ...robots.robot import Robot
from ...transforms import quat_to_mat


def body_rotations(robot: Robot, qpos: np.ndarray) -> np.ndarray:
    """Rotation matrices (T, nbody, 3, 3) of every body over qpos (T, nq), from one kinematics pass."""
    return quat_to_mat(robot.fk(qpos).rotations)


def roll_shift(rots: np.ndarray, radius: float, a: int, b: int) -> np.ndarray:
    """Horizontal displacement (b - a, 2) [m] of a sphere's centre from frame a on, rolling without
    slipping along the body rotations ``rots`` (T, 3, 3): sum of r (R_{t+1} R_t^T z)_xy."""
    step = np.zeros((b - a, 2))
    for t in range(a, b - 1):
        step[t + 1 - a] = radius * (rots[t + 1] @ rots[t][2])[:2]
    return np.cumsum(step, axis=0)


def rolled_feet(
    robot: Robot, qpos: np.ndarray, feet: np.ndarray, contacts: np.ndarray, foot_bodies: tuple[str, ...]
) -> np.ndarray:
    """Foot targets (T, F, 3) [m] whose planted sphere paws roll along the turns of ``qpos`` (T, nq)
    (module docstring); feet (T, F, 3) the planned targets, contacts (T, F) bool. Feet that are
    not spheres keep their targets."""
    m = robot.model
    out = np.array(feet, dtype=np.float64, copy=True)
    n = qpos.shape[0]
    all_rots: np.ndarray | None = None
    for leg, foot in enumerate(foot_bodies):
        g = round_geom(robot, foot, capsule=False)
        if g is None:
            continue
        radius = float(m.geom_size[g, 0])
        all_rots = body_rotations(robot, qpos) if all_rots is None else all_rots
        rots = all_rots[:, int(m.geom_bodyid[g])]
        runs = contact_intervals(contacts[:, leg])
        ends = []  # per stance: shift on the frame before touch-down, on the first swing frame
        for a, b in runs:
            # rolling from touch-down a to the first swing frame b (the paw leaves as it rolled)
            last = min(b + 1, n)
            shift = roll_shift(rots, radius, a, last)
            out[a:last, leg, :2] += shift
            back = -radius * (rots[a] @ rots[a - 1][2])[:2] if a > 0 else np.zeros(2)  # it lands rolling too
            if a > 0:
                out[a - 1, leg, :2] += back
            ends.append((back, shift[-1], last))
        for k in range(len(runs)):  # each swing blends from where its paw left to where it lands
            _, leave, start = ends[k]
            stop = runs[k + 1][0] - 1 if k + 1 < len(runs) else n
            if stop <= start:
                continue
            w = np.arange(1, stop - start + 1) / (stop - start + 1) if k + 1 < len(runs) else np.zeros(stop - start)
            arrive = ends[k + 1][0] if k + 1 < len(runs) else np.zeros(2)
            out[start:stop, leg, :2] += (1.0 - w)[:, None] * leave + w[:, None] * arrive
        if runs and runs[0][0] > 1:  # before the first stance: as it lands
            out[: runs[0][0] - 1, leg, :2] += ends[0][0]
    return out
