"""A recognition as text: what ``kinemorph robots --describe PATH`` prints."""

from __future__ import annotations

from .recognise import Recognition


def describe(rec: Recognition, *, name: str, path: str, dofs: int) -> str:
    """Recognised parts, rest pose and warnings of one robot, one fact per line."""
    lines = [
        f"robot {name} ({path})",
        f"  family      {rec.family}, {dofs} joints, {rec.height:.2f} m tall at rest",
        f"  base        {rec.root}" + ("" if rec.floating_base else " (no free joint in the file: one was added)"),
    ]
    if rec.family == "quadruped":
        lines.append(f"  trunk       {rec.pelvis}")
        for q in rec.quad_legs:
            foot = f"body {q.foot}" if q.foot else ("sphere" if q.foot_sphere else "tip") + f" of {q.calf}"
            point = ", ".join(f"{x:+.3f}" for x in q.foot_point)
            lines.append(
                f"  leg {q.name}      hip {q.hip}, thigh {q.thigh}, calf {q.calf}, foot {foot} at ({point}) in the calf"
            )
    else:
        lines.append(f"  pelvis      {rec.pelvis}")
        for leg in rec.legs:
            toe = f", toe {leg.toe}" if leg.toe else ""
            lines.append(
                f"  leg {leg.side}       hip {leg.hip}, knee {leg.knee}, foot {leg.foot}{toe}; "
                f"sole {100 * leg.sole_height:.1f} cm "
                f"below the foot, front at {leg.toe_offset[0]:+.3f} m"
            )
        lines.append(f"  waist       {', '.join(rec.waist) or '-'}")
        lines.append(f"  torso       {rec.torso or '-'}")
        for arm in rec.arms:
            wrist = arm.wrist or f"none (hand at {arm.hand_offset} in {arm.bodies[-1]})"
            lines.append(f"  arm {arm.side}       shoulder {arm.shoulder}, elbow {arm.elbow}, wrist {wrist}")
        lines.append(f"  head        {', '.join(rec.head) or '-'}")
    if rec.rest is not None:
        lines.append(f"  rest pose   {rec.rest.source}, base at {rec.rest.qpos[2]:.3f} m")
    for w in rec.warnings:
        lines.append(f"  warning     {w}")
    return "\n".join(lines)
