"""Per-frame curves of one clip for the report's worst-clip plots, read back from the clip's output
file and computed through the robot's kinematics (the same functions as the quality metrics)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import KinemorphError
from ..transforms import quat_rotate

if TYPE_CHECKING:
    from ..robots.robot import Robot
    from ..robots.robot_motion import RobotMotion

KIND_OF_METRIC = {
    "foot_slip_mean_cm_s": "slip",
    "foot_slip_max_cm_s": "slip",
    "planted_fraction": "slip",
    "penetration_p95_cm": "clearance",
    "penetration_max_cm": "clearance",
    "jerk_rms_rad_s3": "joint_speed",
    "joint_jump_frames": "joint_speed",
    "trunk_tilt_mean_deg": "tilt",
    "trunk_tilt_max_deg": "tilt",
    "roll_rate_deg_s": "tilt",
    "pitch_rate_deg_s": "tilt",
    "limit_violations": "limit_margin",
    "limit_excess_max_rad": "limit_margin",
}
"""Which per-frame curve shows each metric; metrics not listed (tracking error: files keep no
keypoint targets) get none."""


@dataclass(frozen=True)
class FrameSeries:
    """Curves over a clip's frames.

    Attributes:
        title: what is plotted, with its unit.
        series: curve name -> values per frame (NaN where undefined). Shape: (T,) each.
        fps: frame rate [1/s].
        limit: a level to draw (0 for clearance and limit margin), or None.
    """

    title: str
    series: dict[str, np.ndarray]
    fps: float
    limit: float | None = None


def joint_speed(motion: RobotMotion) -> FrameSeries:
    """Largest |joint velocity| per frame [rad/s] (backward differences; frame 0 copies frame 1)."""
    q = np.asarray(motion.dof_pos)
    speed = np.abs(np.diff(q, axis=0)).max(axis=1) * motion.fps if q.shape[1] and len(q) > 1 else np.zeros(1)
    speed = np.concatenate([speed[:1], speed])[: motion.num_frames]
    return FrameSeries("largest joint speed [rad/s]", {"joint speed": speed}, motion.fps)


def tilt(motion: RobotMotion) -> FrameSeries:
    """Angle of the root's z axis from world z per frame [deg]."""
    up = quat_rotate(motion.root_rot, np.array([0.0, 0.0, 1.0]))[:, 2]
    return FrameSeries("trunk tilt [deg]", {"tilt": np.degrees(np.arccos(np.clip(up, -1.0, 1.0)))}, motion.fps)


def clearance(motion: RobotMotion, robot: Robot) -> FrameSeries:
    """Height of the robot's lowest collision point per frame [cm]; below 0 is penetration."""
    from ..robots.geometry import ground_clearance

    low = ground_clearance(robot, motion.qpos).overall() * 100.0
    return FrameSeries("lowest point above the floor [cm]", {"lowest point": low}, motion.fps, limit=0.0)


def slip(motion: RobotMotion, robot: Robot) -> FrameSeries:
    """Slip speed of each foot while it is planted [cm/s] (NaN in the air): kinemorph.quality.foot_slip's
    (a flat foot's origin, a round foot's contact point)."""
    from ..quality import foot_slip
    from ..robots.geometry import ground_clearance

    gc = ground_clearance(robot, motion.qpos)
    fs = foot_slip(motion, robot, pose=gc.pose, feet_lowest=gc.of_bodies(robot, robot.feet))
    out = {}
    for f, foot in enumerate(robot.feet):
        out[foot] = np.where(fs.planted[:, f], fs.speed_cm_s[:, f], np.nan)
    return FrameSeries("planted foot speed [cm/s]", out, motion.fps)


def limit_margin(motion: RobotMotion, robot: Robot) -> FrameSeries:
    """Smallest distance of any joint to its nearest limit per frame [rad]; below 0 is a violation."""
    q = np.asarray(motion.dof_pos)
    margin = np.minimum(q - robot.lower, robot.upper - q).min(axis=1) if q.shape[1] else np.zeros(len(q))
    return FrameSeries("smallest joint-limit margin [rad]", {"margin": margin}, motion.fps, limit=0.0)


class ClipCurves:
    """The per-frame curves of one batch folder's clips, each file and robot loaded once (the
    physics verdicts share the loads)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._motions: dict[str, RobotMotion | str] = {}
        self._robots: dict[str, Robot | None] = {}
        self._curves: dict[tuple[str, str], FrameSeries | str] = {}

    def motion(self, output: str) -> RobotMotion | str:
        """A clip's output motion, read once, or why it cannot be read."""
        if output not in self._motions:
            from ..io import load

            try:
                self._motions[output] = load(self.folder / output)
            except KinemorphError as exc:
                self._motions[output] = f"cannot read the output: {exc}"
        return self._motions[output]

    def robot(self, name: str) -> Robot | None:
        """A known robot by name, loaded once; None for a robot that is not known."""
        if name not in self._robots:
            from ..robots import KNOWN_ROBOTS, load_robot

            self._robots[name] = load_robot(name) if name in KNOWN_ROBOTS else None
        return self._robots[name]

    def curves(self, output: str, metric: str) -> FrameSeries | str:
        """The curve that shows ``metric`` on a clip, or why there is none."""
        kind = KIND_OF_METRIC.get(metric)
        if kind is None:
            return "no per-frame curve for this metric"
        key = (output, kind)
        if key not in self._curves:
            motion = self.motion(output)
            if isinstance(motion, str):
                self._curves[key] = motion
            elif kind == "joint_speed":
                self._curves[key] = joint_speed(motion)
            elif kind == "tilt":
                self._curves[key] = tilt(motion)
            else:
                robot = self.robot(motion.robot)
                if robot is None or tuple(robot.dof_names) != tuple(motion.dof_names):
                    self._curves[key] = f"robot model of {motion.robot!r} not available"
                else:
                    fn = {"clearance": clearance, "slip": slip, "limit_margin": limit_margin}[kind]
                    self._curves[key] = fn(motion, robot)
        return self._curves[key]
