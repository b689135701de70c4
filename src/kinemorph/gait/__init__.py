"""Stylized walking gaits: authored gait samples, phase-space blending, a procedural planner.

After Hopkins et al., "Interactive Design of Stylized Walking Gaits for Robotic Characters"
(ACM TOG 2024)::

    style = load_style("relaxed")                  # Style: nine gait samples (JSON, validated)
    walk = Commands.constant([0.3, 0.0, 0.0])      # vx [m/s], vy [m/s], yaw rate [rad/s]
    ref = plan(style, walk, 10.0, rate=125.0, body=gait_body(robot))   # Reference r(t)
    motion = gait_motion(style, robot, walk, 10.0)                    # RobotMotion through the IK step

Modules: style.py (data), schema.py (JSON), splines.py (function curves), phase.py (phase map),
sampler.py (velocity interpolation, blending), footsteps.py (path, footholds), planner.py,
stylize.py (r(t)), commands.py (velocity schedules), robot_table.py (per-robot geometry and
upper-body joints), kinematic.py (r(t) solved by the IK step), cli.py (``kinemorph gait``).
"""

from .commands import Commands, load_schedule, parse_command
from .footsteps import GaitBody
from .kinematic import GaitConfig, gait_motion, solve_reference
from .planner import Planner, plan
from .robot_table import GAIT_ROBOTS, RobotGait, gait_body, robot_gait, robot_gait_info
from .sampler import GaitParams, Sampler, StyleTables
from .schema import load_style, read_style, style_from_dict, style_names
from .schema_write import save_style, style_to_dict
from .style import KEY_SAMPLES, UPPER_BODY_JOINTS, Attributes, GaitSample, Style, StyleError, Timing
from .stylize import Reference

__all__ = [
    "GAIT_ROBOTS",
    "KEY_SAMPLES",
    "UPPER_BODY_JOINTS",
    "Attributes",
    "Commands",
    "GaitBody",
    "GaitConfig",
    "GaitParams",
    "GaitSample",
    "Planner",
    "Reference",
    "RobotGait",
    "Sampler",
    "Style",
    "StyleError",
    "StyleTables",
    "Timing",
    "gait_body",
    "gait_motion",
    "load_schedule",
    "load_style",
    "parse_command",
    "plan",
    "read_style",
    "robot_gait",
    "robot_gait_info",
    "save_style",
    "solve_reference",
    "style_from_dict",
    "style_names",
    "style_to_dict",
]
