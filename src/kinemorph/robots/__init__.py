"""Robots: MuJoCo models by name or path, their joint order, limits, feet and kinematics."""

from .registry import KNOWN_ROBOTS, RobotInfo, default_mapping_path, robot_info
from .robot import Robot, RobotPose, load_robot

__all__ = ["KNOWN_ROBOTS", "Robot", "RobotInfo", "RobotPose", "default_mapping_path", "load_robot", "robot_info"]
