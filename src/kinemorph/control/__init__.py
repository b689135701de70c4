"""Walking under physics: the stylized gaits of kinemorph.gait tracked in MuJoCo by a model-based
controller after Hopkins et al. 2024 (appendices A and B): a LIPM CoM MPC (mpc.py), a task-space
inverse-dynamics QP (wbc.py), gait feedback (feedback.py) and the simulation loop (loop.py)::

    sim = simulate_gait(load_style("relaxed"), robot, Commands.constant([0.3, 0, 0]), 20.0)
    sim.motion        # RobotMotion (simulated)
    sim.log.save("walk_log.npz")
"""

from .controller import ControlConfig, GaitController
from .feedback import FeedbackConfig
from .log import ControlLog
from .loop import ControlError, GaitSimulation, SimulationConfig, simulate_gait
from .mpc import MpcConfig, MpcPlan, solve_mpc
from .push import Push, parse_push
from .wbc import WbcConfig

__all__ = [
    "ControlConfig",
    "ControlError",
    "ControlLog",
    "FeedbackConfig",
    "GaitController",
    "GaitSimulation",
    "MpcConfig",
    "MpcPlan",
    "Push",
    "SimulationConfig",
    "WbcConfig",
    "parse_push",
    "simulate_gait",
    "solve_mpc",
]
