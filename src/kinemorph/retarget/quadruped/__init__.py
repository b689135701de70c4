"""Quadruped retargeting: a natural-motion planner (planner.py) and the engine (engine.py)."""

from .config import QuadrupedConfig
from .engine import solve_quadruped
from .planner import QuadrupedPlan, RobotLegs, plan

__all__ = ["QuadrupedConfig", "QuadrupedPlan", "RobotLegs", "plan", "solve_quadruped"]
