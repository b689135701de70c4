"""Parametric humanoids: one topology (29 joints like Unitree G1's legs, waist and arms), any
arm-to-height and leg-to-height ratio. For proportion sweeps: how well an engine keeps spatial
relations as a robot's proportions leave the human's.

Every link frame is aligned with the pelvis at the zero pose (standing, arms down), as in
Unitree G1, so G1's mapping conventions (root rotation offset) apply.
"""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np

from ..errors import ConfigError
from .registry import RobotInfo
from .robot import Robot

ANKLE_HEIGHT = 0.06  # [m] ankle joint above the sole
HEAD = 0.25  # [m] from the shoulders to the top of the head
FOOT = (0.05, 0.14)  # [m] heel behind and toe ahead of the ankle


def _side(name: str, y: float, sign: float, a: dict[str, float]) -> tuple[str, str]:
    """Arm and leg MJCF of one side (sign +1 left, -1 right)."""
    lo, hi = (-0.5, 2.8) if sign > 0 else (-2.8, 0.5)
    arm = f"""
        <body name="{name}_shoulder_pitch_link" pos="0 {sign * a["shoulder_w"]:.4f} {a["torso"]:.4f}">
          <inertial pos="0 0 0" mass="0.5" diaginertia="0.001 0.001 0.001"/>
          <joint name="{name}_shoulder_pitch_joint" axis="0 1 0" range="-3.0 1.5"/>
          <body name="{name}_shoulder_roll_link">
            <inertial pos="0 0 0" mass="0.3" diaginertia="0.001 0.001 0.001"/>
            <joint name="{name}_shoulder_roll_joint" axis="1 0 0" range="{lo} {hi}"/>
            <body name="{name}_shoulder_yaw_link">
              <inertial pos="0 0 {-a["upper"] / 2:.4f}" mass="1.0" diaginertia="0.01 0.01 0.001"/>
              <joint name="{name}_shoulder_yaw_joint" axis="0 0 1" range="-2.0 2.0"/>
              <geom fromto="0 0 0 0 0 {-a["upper"]:.4f}" size="0.035"/>
              <body name="{name}_elbow_link" pos="0 0 {-a["upper"]:.4f}">
                <inertial pos="0 0 {-a["fore"] / 2:.4f}" mass="0.6" diaginertia="0.005 0.005 0.001"/>
                <joint name="{name}_elbow_joint" axis="0 1 0" range="-2.6 0.1"/>
                <geom fromto="0 0 0 0 0 {-a["fore"]:.4f}" size="0.03"/>
                <body name="{name}_wrist_roll_link" pos="0 0 {-a["fore"]:.4f}">
                  <inertial pos="0 0 0" mass="0.2" diaginertia="0.0005 0.0005 0.0005"/>
                  <joint name="{name}_wrist_roll_joint" axis="0 0 1" range="-1.9 1.9"/>
                  <geom type="sphere" size="0.04"/>
                </body>
              </body>
            </body>
          </body>
        </body>"""
    lo_r, hi_r = (-0.5, 1.2) if sign > 0 else (-1.2, 0.5)
    leg = f"""
      <body name="{name}_hip_pitch_link" pos="0 {sign * y:.4f} 0">
        <inertial pos="0 0 0" mass="1.0" diaginertia="0.002 0.002 0.002"/>
        <joint name="{name}_hip_pitch_joint" axis="0 1 0" range="-2.5 1.0"/>
        <body name="{name}_hip_roll_link">
          <inertial pos="0 0 0" mass="1.0" diaginertia="0.002 0.002 0.002"/>
          <joint name="{name}_hip_roll_joint" axis="1 0 0" range="{lo_r} {hi_r}"/>
          <body name="{name}_hip_yaw_link">
            <inertial pos="0 0 {-a["thigh"] / 2:.4f}" mass="3.0" diaginertia="0.03 0.03 0.005"/>
            <joint name="{name}_hip_yaw_joint" axis="0 0 1" range="-1.5 1.5"/>
            <geom fromto="0 0 0 0 0 {-a["thigh"]:.4f}" size="0.05"/>
            <body name="{name}_knee_link" pos="0 0 {-a["thigh"]:.4f}">
              <inertial pos="0 0 {-a["shank"] / 2:.4f}" mass="2.0" diaginertia="0.02 0.02 0.003"/>
              <joint name="{name}_knee_joint" axis="0 1 0" range="-0.05 2.6"/>
              <geom fromto="0 0 0 0 0 {-a["shank"]:.4f}" size="0.04"/>
              <body name="{name}_ankle_pitch_link" pos="0 0 {-a["shank"]:.4f}">
                <inertial pos="0 0 0" mass="0.2" diaginertia="0.0005 0.0005 0.0005"/>
                <joint name="{name}_ankle_pitch_joint" axis="0 1 0" range="-0.9 0.9"/>
                <body name="{name}_ankle_roll_link">
                  <inertial pos="0.04 0 -0.03" mass="0.6" diaginertia="0.001 0.002 0.002"/>
                  <joint name="{name}_ankle_roll_joint" axis="1 0 0" range="-0.4 0.4"/>
                  <geom type="box" pos="{(FOOT[1] - FOOT[0]) / 2:.4f} 0 {-ANKLE_HEIGHT / 2:.4f}"
                        size="{(FOOT[0] + FOOT[1]) / 2:.4f} 0.045 {ANKLE_HEIGHT / 2:.4f}"/>
                </body>
              </body>
            </body>
          </body>
        </body>
      </body>"""
    return arm, leg


def humanoid_mjcf(arm_ratio: float, leg_ratio: float, *, height: float = 1.6) -> str:
    """MJCF text of a humanoid of the given stature [m] whose shoulder-to-wrist length is
    arm_ratio * height and hip-to-ankle length leg_ratio * height."""
    if not (0.1 <= arm_ratio <= 0.7 and 0.2 <= leg_ratio <= 0.7 and 0.5 <= height <= 3.0):
        raise ConfigError(f"need 0.1 <= arm_ratio <= 0.7, 0.2 <= leg_ratio <= 0.7, 0.5 <= height <= 3; got "
                          f"{arm_ratio}, {leg_ratio}, {height}")  # fmt: skip
    leg = leg_ratio * height
    pelvis_z = leg + ANKLE_HEIGHT
    torso = height - HEAD - pelvis_z
    if torso < 0.1:
        raise ConfigError(f"legs of {leg:.2f} m leave no torso in a {height} m humanoid")
    arm = arm_ratio * height
    a = {"torso": torso, "upper": 0.55 * arm, "fore": 0.45 * arm, "thigh": leg / 2, "shank": leg / 2,
         "shoulder_w": 0.11 * height}  # fmt: skip
    left_arm, left_leg = _side("left", 0.06 * height, 1.0, a)
    right_arm, right_leg = _side("right", 0.06 * height, -1.0, a)
    return f"""<mujoco model="humanoid_a{arm_ratio:.3f}_l{leg_ratio:.3f}">
  <compiler angle="radian" autolimits="true"/>
  <default><geom type="capsule" contype="1" conaffinity="1" density="0"/></default>
  <worldbody>
    <body name="pelvis" pos="0 0 {pelvis_z:.4f}">
      <freejoint name="floating_base_joint"/>
      <inertial pos="0 0 0" mass="5" diaginertia="0.05 0.05 0.05"/>
      <geom type="sphere" size="0.08"/>{left_leg}{right_leg}
      <body name="torso_link">
        <inertial pos="0 0 {torso / 2:.4f}" mass="10" diaginertia="0.2 0.2 0.1"/>
        <joint name="waist_yaw_joint" axis="0 0 1" range="-1.5 1.5"/>
        <joint name="waist_pitch_joint" axis="0 1 0" range="-0.5 1.0"/>
        <geom fromto="0 0 0.05 0 0 {torso:.4f}" size="0.08"/>
        <geom type="sphere" pos="0 0 {torso + HEAD / 2:.4f}" size="0.1"/>{left_arm}{right_arm}
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def parametric_humanoid(arm_ratio: float, leg_ratio: float, *, height: float = 1.6) -> Robot:
    """A Robot of the parametric family, with landmarks and feet (see humanoid_mjcf)."""
    model = mujoco.MjModel.from_xml_string(humanoid_mjcf(arm_ratio, leg_ratio, height=height))
    torso = height - HEAD - (leg_ratio * height + ANKLE_HEIGHT)
    toe = (FOOT[1], 0.0, -ANKLE_HEIGHT)
    landmarks: list[tuple[str, tuple[float, float, float]]] = [
        ("pelvis", (0.0, 0.0, 0.0)),
        ("torso_link", (0.0, 0.0, torso + 0.05)),
    ]
    for limb in ("shoulder_yaw_link", "elbow_link", "wrist_roll_link", "knee_link", "ankle_roll_link"):
        landmarks += [(f"left_{limb}", (0.0, 0.0, 0.0)), (f"right_{limb}", (0.0, 0.0, 0.0))]
    landmarks += [("left_ankle_roll_link", toe), ("right_ankle_roll_link", toe)]
    info = RobotInfo(
        name=f"humanoid_a{arm_ratio:.3f}_l{leg_ratio:.3f}",
        family="humanoid",
        root_body="pelvis",
        feet=("left_ankle_roll_link", "right_ankle_roll_link"),
        landmarks=tuple(landmarks),
    )
    return Robot(model, name=info.name, path=Path("<generated>"), info=info)


def proportion_grid(n: int = 21) -> tuple[np.ndarray, np.ndarray]:
    """The sweep's arm and leg ratios (n each): arms 0.20-0.50, legs 0.30-0.60 of the stature."""
    return np.linspace(0.20, 0.50, n), np.linspace(0.30, 0.60, n)
