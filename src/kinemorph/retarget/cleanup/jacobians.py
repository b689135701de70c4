"""World point Jacobians of the clean-up stage, formed from MuJoCo's joint axes and anchors after
mj_kinematics (checked against mj_jac in the tests)."""

from __future__ import annotations

from numba import njit

from ..ik import DOF_BODY_ROTATION, DOF_SLIDE, DOF_WORLD_TRANSLATION, IkModel


@njit(cache=True)
def point_jacobian(ik: IkModel, chain, nchain, b, p, out) -> None:  # type: ignore[no-untyped-def]
    """World-frame translational Jacobian of world point p moving with body b: out (3, nv),
    written on the dofs of chain[:nchain] only (the caller zeroes the rest once)."""
    for a in range(nchain):
        d = chain[a]
        k = ik.dof_kind[d]
        j = ik.dof_jnt[d]
        if k == DOF_WORLD_TRANSLATION:
            out[0, d] = 0.0
            out[1, d] = 0.0
            out[2, d] = 0.0
            out[ik.dof_axis[d], d] = 1.0
            continue
        if k == DOF_BODY_ROTATION:
            rb = ik.xmat[ik.dof_body[d]]
            i = ik.dof_axis[d]
            ux, uy, uz = rb[i], rb[3 + i], rb[6 + i]
        else:
            ux, uy, uz = ik.xaxis[j, 0], ik.xaxis[j, 1], ik.xaxis[j, 2]
        if k == DOF_SLIDE:
            out[0, d] = ux
            out[1, d] = uy
            out[2, d] = uz
            continue
        dx = p[0] - ik.xanchor[j, 0]
        dy = p[1] - ik.xanchor[j, 1]
        dz = p[2] - ik.xanchor[j, 2]
        out[0, d] = uy * dz - uz * dy
        out[1, d] = uz * dx - ux * dz
        out[2, d] = ux * dy - uy * dx
