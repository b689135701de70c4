"""Synthetic robot models with naming no registry knows, for recognition tests.

humanoid_xml: a biped with waist, two arms, a head, box feet with toe bodies; every body named
by a number pattern (``prefix + k``), so recognition cannot lean on names; any height. Its options
reproduce what other vendors' models do (found on ROBOTIS OP3, Berkeley Humanoid, Apptronik
Apollo): 2-DoF shoulders, arm links whose only shape is a mesh, no arms, an ankle link beside
the ankle, a head link off the mid-line, geoms that never collide, a foot frame with z forward.
quadruped_xml: a four-legged robot with anonymous bodies, sphere feet or capsule calf tips;
optionally box shanks, a texture whose image is absent and <exclude> pairs (ANYmal B and C).
"""

# ruff: noqa: E501  (inline MJCF/URDF templates read best one element per line)

from __future__ import annotations

import math
import re
from pathlib import Path

INERTIAL = '<inertial pos="0 0 0" mass="{m}" diaginertia="{i} {i} {i}"/>'


class _Names:
    def __init__(self, prefix: str) -> None:
        self.prefix, self.k = prefix, 0

    def __call__(self) -> str:
        self.k += 1
        return f"{self.prefix}{self.k:02d}"


def _inertial(m: float) -> str:
    return INERTIAL.format(m=m, i=max(1e-4, 0.01 * m))


def humanoid_xml(
    *,
    height: float = 1.6,
    prefix: str = "seg",
    free: bool = True,
    toes: bool = True,
    hip_width: float = 0.09,
    legs: int = 2,
    fingers: bool = False,
    arms: bool = True,
    shoulder_dofs: int = 3,
    arm_shapes: bool = True,
    ankle_back: float = 0.0,
    head_side: float = 0.0,
    collide: bool = True,
    foot_frame_z_forward: bool = False,
    foot_pitch: float = 0.0,
    foot_mesh: bool = False,
    facing: float = 0.0,
) -> str:
    """A humanoid of about ``height`` metres standing at its zero pose (arms down, legs straight);
    hip_width: lateral offset of each leg [m] at 1.6 m; fingers: three finger chains on each hand
    and sensor bodies (no joints) on the trunk and head; arms: with arms (else legs, trunk and
    head only); shoulder_dofs: 3, or 2 (no shoulder yaw); arm_shapes: False leaves the arm links
    only a visual mesh (dropped at load: their centre of mass says where they point); ankle_back:
    the ankle-roll link sits this far behind the ankle-pitch one [m at 1.6 m], its sole where it
    was; head_side: a last head link this far to the left [m at 1.6 m]; collide: False sets
    contype = conaffinity = 0 on every geom and draws the trunk with a mesh (file absent);
    foot_frame_z_forward: the ankle-roll link's frame has its z axis along the foot; foot_pitch:
    the ankle-roll link (and its sole) pitched by this much at the zero pose [rad] (a robot whose
    feet are level only in a standing keyframe); foot_mesh: the sole is a collision mesh whose file is
    absent (Fourier N1), the ankle-roll link's inertia that of the sole box it replaces; facing: the
    robot faces this yaw from +x in its base's frame [rad] (a CAD export with y forward: pi / 2)."""
    s = height / 1.6
    n = _Names(prefix)
    thigh, shank, ankle, pelvis_w = 0.38 * s, 0.38 * s, 0.07 * s, hip_width * s
    hip_z = thigh + shank + ankle
    upper, fore = 0.26 * s, 0.24 * s
    look = '<geom type="mesh" mesh="look" contype="0" conaffinity="0"/>'
    back = ankle_back * s
    # a foot frame whose z runs forward (-90 deg about y); its geoms framed back to the world's axes
    turn, unturn = (
        ('quat="0.7071068 0 -0.7071068 0"', 'quat="0.7071068 0 0.7071068 0"') if foot_frame_z_forward else ("", "")
    )
    roll_axis = "0 0 1" if foot_frame_z_forward else "1 0 0"
    if foot_pitch:
        turn = f'quat="{math.cos(foot_pitch / 2):.7f} 0 {math.sin(foot_pitch / 2):.7f} 0"'

    half = (0.09 * s, 0.045 * s, 0.015 * s)
    at = f"{0.03 * s + back:.4f} 0 {-ankle + 0.015 * s:.4f}"
    box_i = [0.5 * (half[(k + 1) % 3] ** 2 + half[(k + 2) % 3] ** 2) / 3 for k in range(3)]  # m (b^2 + c^2) / 12
    sole_inertia = f'<inertial pos="{at}" mass="0.5" diaginertia="{box_i[0]:.3e} {box_i[1]:.3e} {box_i[2]:.3e}"/>'
    sole = (
        '<geom type="mesh" mesh="sole"/>'
        if foot_mesh
        else f'<geom type="box" size="{half[0]:.4f} {half[1]:.4f} {half[2]:.4f}" pos="{at}"/>'
    )

    def leg(side: float) -> str:
        toe = (
            f'<body name="{n()}" pos="{0.12 * s + back:.4f} 0 {-ankle:.4f}">{_inertial(0.05)}'
            f'<joint name="{n()}" axis="0 1 0" range="-0.5 0.5"/>'
            f'<geom type="box" size="{0.025 * s:.4f} {0.04 * s:.4f} {0.01 * s:.4f}" pos="{0.025 * s:.4f} 0 {0.01 * s:.4f}"/></body>'
            if toes
            else ""
        )
        return f"""
      <body name="{n()}" pos="0 {side * pelvis_w:.4f} 0">{_inertial(1.0)}
        <joint name="{n()}" axis="0 0 1" range="-0.8 0.8"/>
        <body name="{n()}">{_inertial(1.0)}
          <joint name="{n()}" axis="1 0 0" range="-0.6 0.6"/>
          <body name="{n()}">{_inertial(2.0)}
            <joint name="{n()}" axis="0 1 0" range="-2.2 0.8"/>
            <geom type="capsule" fromto="0 0 0 0 0 {-thigh:.4f}" size="{0.05 * s:.4f}" contype="0" conaffinity="0"/>
            <body name="{n()}" pos="0 0 {-thigh:.4f}">{_inertial(1.5)}
              <joint name="{n()}" axis="0 1 0" range="0 2.4"/>
              <geom type="capsule" fromto="0 0 0 0 0 {-shank:.4f}" size="{0.04 * s:.4f}" contype="0" conaffinity="0"/>
              <body name="{n()}" pos="0 0 {-shank:.4f}">{_inertial(0.3)}
                <joint name="{n()}" axis="0 1 0" range="-0.8 0.6"/>
                <body name="{n()}" pos="{-back:.4f} 0 0" {turn}>{sole_inertia if foot_mesh else _inertial(0.5)}
                  <joint name="{n()}" axis="{roll_axis}" range="-0.4 0.4"/>
                  <frame {unturn}>
                  {sole}
                  {toe}
                  </frame>
                </body>
              </body>
            </body>
          </body>
        </body>
      </body>"""

    def finger_xml() -> str:
        if not fingers:
            return ""
        out = ""
        for dx in (-0.02, 0.0, 0.02):
            out += (
                f'<body name="{n()}" pos="{dx * s:.4f} 0 {-0.04 * s:.4f}">{_inertial(0.02)}'
                f'<joint name="{n()}" axis="0 1 0" range="0 1.5"/>'
                f'<body name="{n()}" pos="0 0 {-0.04 * s:.4f}">{_inertial(0.01)}<joint name="{n()}" axis="0 1 0" range="0 1.5"/>'
                "</body></body>"
            )
        return out

    def link(length: float, radius: float, m: float) -> str:  # an arm link's mass and shape
        if arm_shapes:
            return f'{_inertial(m)}<geom type="capsule" fromto="0 0 0 0 0 {-length:.4f}" size="{radius:.4f}" contype="0" conaffinity="0"/>'
        return f'<inertial pos="0 0 {-length / 2:.4f}" mass="{m}" diaginertia="0.01 0.01 0.001"/>{look}'

    def arm(side: float) -> str:
        yaw = f'<joint name="{n()}" axis="0 0 1" range="-2 2"/>' if shoulder_dofs == 3 else ""
        hand = f'<geom type="sphere" size="{0.035 * s:.4f}" contype="0" conaffinity="0"/>' if arm_shapes else look
        return f"""
          <body name="{n()}" pos="0 {side * 0.17 * s:.4f} {0.45 * s:.4f}">{_inertial(0.5)}
            <joint name="{n()}" axis="0 1 0" range="-3 1.5"/>
            <body name="{n()}">{_inertial(0.3)}
              <joint name="{n()}" axis="1 0 0" range="{-0.3 if side > 0 else -2.5} {2.5 if side > 0 else 0.3}"/>
              <body name="{n()}">{link(upper, 0.03 * s, 0.8)}
                {yaw}
                <body name="{n()}" pos="0 0 {-upper:.4f}">{link(fore, 0.025 * s, 0.5)}
                  <joint name="{n()}" axis="0 1 0" range="-2.5 0.1"/>
                  <body name="{n()}" pos="0 0 {-fore:.4f}">{_inertial(0.2)}
                    <joint name="{n()}" axis="0 0 1" range="-1.5 1.5"/>
                    {hand}
                    {finger_xml()}
                  </body>
                </body>
              </body>
            </body>
          </body>"""

    legs_xml = leg(1.0) + (leg(-1.0) if legs == 2 else "")
    side_head = (
        f'<body name="{n()}" pos="0 {head_side * s:.4f} {0.05 * s:.4f}">{_inertial(0.3)}'
        f'<joint name="{n()}" axis="0 1 0" range="-1 1"/></body>'
        if head_side
        else ""
    )
    upper_body = f"""
      <body name="{n()}" pos="0 0 {0.1 * s:.4f}">{_inertial(6.0)}
        <joint name="{n()}" axis="0 0 1" range="-1 1"/>
        <geom type="box" size="{0.08 * s:.4f} {0.12 * s:.4f} {0.2 * s:.4f}" pos="0 0 {0.22 * s:.4f}" contype="0" conaffinity="0"/>
        {arm(1.0) + arm(-1.0) if arms else ""}
        {f'<body name="{n()}" pos="0.05 0 0.2">{_inertial(0.01)}</body>' if fingers else ""}
        <body name="{n()}" pos="0 0 {0.5 * s:.4f}">{_inertial(1.0)}
          <joint name="{n()}" axis="0 0 1" range="-1 1"/>
          <geom type="sphere" size="{0.09 * s:.4f}" pos="0 0 {0.1 * s:.4f}" contype="0" conaffinity="0"/>
          {side_head}
        </body>
      </body>"""
    joint = '<freejoint name="root"/>' if free else ""
    body = f"""
    <body name="{prefix}_base" pos="0 0 {hip_z:.4f}">{joint}{_inertial(8.0)}
      <geom type="box" size="0.08 0.12 0.06" contype="0" conaffinity="0"/>
      {"" if collide else look}
      <frame quat="{math.cos(facing / 2):.7f} 0 0 {math.sin(facing / 2):.7f}">{legs_xml}{upper_body}</frame>
    </body>"""
    if not collide:  # every geom that collided now does not
        body = re.sub(r"<geom (?![^>]*contype)", '<geom contype="0" conaffinity="0" ', body)
    asset = "".join(
        [
            '<mesh name="look" file="absent_look.stl"/>' if (not collide or not arm_shapes) else "",
            '<mesh name="sole" file="absent_sole.stl"/>' if foot_mesh else "",
        ]
    )
    asset = f"<asset>{asset}</asset>" if asset else ""
    return f"""<mujoco model="synthetic_humanoid">
  <compiler angle="radian"/>
  {asset}
  <worldbody>{body}
  </worldbody>
</mujoco>
"""


def quadruped_xml(
    *,
    length: float = 0.6,
    leg: float = 0.25,
    spheres: bool = True,
    prefix: str = "p",
    box_shanks: bool = False,
    texture: bool = False,
    exclude: bool = False,
    flat: bool = False,
) -> str:
    """A quadruped with trunk ``length`` and thigh = calf = ``leg`` [m], legs straight at zero.
    box_shanks: a box on each calf near the knee (its corners reach past any capsule around it);
    texture: a material with a texture whose image file is absent; exclude: <exclude> pairs between
    the trunk and each thigh, which a thigh's capsule touches when the leg swings back; flat: at the
    zero pose the legs stretch out backward, level with the trunk (Google Barkour's URDF)."""
    n = _Names(prefix)
    thighs: list[str] = []

    def one(x: float, y: float) -> str:
        foot = (
            f'<geom type="sphere" size="0.02" pos="0 0 {-leg:.4f}"/>'
            if spheres
            else f'<geom type="capsule" fromto="0 0 0 0 0 {-leg:.4f}" size="0.015"/>'
        )
        box = f'<geom name="{n()}" type="box" size="0.03 0.025 0.05" pos="0 0 -0.06"/>' if box_shanks else ""
        thighs.append(n())
        return f"""
      <body name="{n()}" pos="{x:.4f} {y:.4f} 0">{_inertial(0.5)}
        <joint name="{n()}" axis="1 0 0" range="-0.8 0.8"/>
        <body name="{thighs[-1]}" pos="0 {0.06 if y > 0 else -0.06} 0" {'quat="0.7071068 0 0.7071068 0"' if flat else ""}>{_inertial(1.0)}
          <joint name="{n()}" axis="0 1 0" range="-1.5 3.4"/>
          <geom type="capsule" fromto="0 0 0 0 0 {-leg:.4f}" size="0.02" contype="0" conaffinity="0"/>
          <body name="{n()}" pos="0 0 {-leg:.4f}">{_inertial(0.3)}
            <joint name="{n()}" axis="0 1 0" range="-2.7 -0.8"/>
            {foot}{box}
          </body>
        </body>
      </body>"""

    legs = "".join(one(x, y) for x in (length / 2, -length / 2) for y in (0.08, -0.08))
    mat = 'material="skin"' if texture else ""
    asset = (
        '<asset><texture name="skin" type="2d" file="absent_skin.png"/><material name="skin" texture="skin"/></asset>'
        if texture
        else ""
    )
    pairs = "".join(f'<exclude body1="{prefix}_trunk" body2="{t}"/>' for t in thighs) if exclude else ""
    return f"""<mujoco model="synthetic_quadruped">
  <compiler angle="radian"/>
  {asset}
  <worldbody>
    <body name="{prefix}_trunk" pos="0 0 {2 * leg + 0.02:.4f}"><freejoint/>{_inertial(8.0)}
      <geom type="box" size="{length / 2 + 0.05:.4f} 0.1 0.05" {mat}/>
      {legs}
    </body>
  </worldbody>
  {f"<contact>{pairs}</contact>" if pairs else ""}
</mujoco>
"""


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def box_stl(path: Path, lo: tuple[float, float, float], hi: tuple[float, float, float]) -> Path:
    """A binary STL of an axis-aligned box from corner ``lo`` to ``hi`` [m]."""
    import struct

    corners = [(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    faces = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1)]
    faces += [(2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    out = bytearray(80) + struct.pack("<I", len(faces))
    for face in faces:
        out += struct.pack("<3f", 0.0, 0.0, 0.0)
        for i in face:
            out += struct.pack("<3f", *corners[i])
        out += b"\0\0"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))
    return path
