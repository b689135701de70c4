"""Which way a biped faces in its own frame, told by its knees: a knee bends the shank backward, so
moving a knee joint toward the long side of its range moves the foot back. Recognition turns the
rest pose of a robot whose frame faces -x or +-y (a CAD export with y forward) so that it faces
+x, the convention its left/right rule and the mappings need."""

from __future__ import annotations

from typing import TYPE_CHECKING

import mujoco
import numpy as np

if TYPE_CHECKING:
    from .recognise import _Tree
    from .rest_pose import RestPose

ASYMMETRY = 0.3
"""A knee's range tells its bending side when |lo + hi| is at least this share of hi - lo (an
unlimited or symmetric knee tells nothing)."""


def facing_yaw(tree: _Tree, pelvis: int, ends: list[int]) -> float:
    """The yaw [rad], a multiple of 90 deg, by which the robot at ``tree``'s configuration faces
    away from +x; 0 when its knees tell nothing (no knee with a one-sided range)."""
    from .recognise import _split

    m = tree.m
    d = mujoco.MjData(m)
    back = np.zeros(2)
    for end in ends:
        chain = [b for b in tree.path(pelvis, end) if tree.joints[b] or b == end]
        if len(chain) < 3:
            continue
        k = _split(tree, chain, tree.pos[chain[0]], tree.pos[end], ("knee", "shank", "calf", "tibia"))
        if k <= 0:
            continue
        hinge = mujoco.mjtJoint.mjJNT_HINGE
        j = next((j for j in range(m.njnt) if m.jnt_bodyid[j] == chain[k] and m.jnt_type[j] == hinge), -1)
        if j < 0 or not m.jnt_limited[j]:
            continue
        lo, hi = (float(v) for v in m.jnt_range[j])
        if abs(lo + hi) < ASYMMETRY * (hi - lo):
            continue
        d.qpos[:] = tree.d.qpos
        adr = int(m.jnt_qposadr[j])
        d.qpos[adr] = np.clip(d.qpos[adr] + 0.3 * np.sign(lo + hi), lo, hi)
        mujoco.mj_kinematics(m, d)
        step = d.xpos[end, :2] - tree.pos[end, :2]
        if np.linalg.norm(step) > 1e-4:
            back += step / np.linalg.norm(step)
    if np.linalg.norm(back) < 1e-6:
        return 0.0
    yaw = float(np.arctan2(-back[1], -back[0]))
    return float(np.round(yaw / (np.pi / 2)) * (np.pi / 2))


def face_x(
    model: mujoco.MjModel, rest: RestPose, tree: _Tree, root: int, pelvis: int, ends: list[int], where: str
) -> tuple[RestPose, _Tree, list[int]]:
    """The rest pose turned about z so that a biped whose frame faces elsewhere faces +x
    (facing_yaw), with the tree and feet at it; unchanged when it already does."""
    from dataclasses import replace

    from ..transforms import axis_angle_to_quat, quat_mul
    from .recognise import _feet, _Tree
    from .rest_pose import on_floor

    yaw = facing_yaw(tree, pelvis, ends)
    if abs(yaw) < 1e-6:
        return rest, tree, ends
    q = rest.qpos.copy()
    q[3:7] = quat_mul(axis_angle_to_quat(np.array([0.0, 0.0, 1.0]), np.array(-yaw)), q[3:7])
    note = f"the model faces {np.degrees(yaw):+.0f} deg from +x in its own frame: its rest pose is turned to face +x"
    rest = replace(rest, qpos=on_floor(model, q), warnings=(*rest.warnings, note))
    tree = _Tree(model, rest.qpos)
    return rest, tree, _feet(tree, root, where)[0]
