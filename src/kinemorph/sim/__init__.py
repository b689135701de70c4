"""Physical feasibility: torque-controlled copies of robot models, inverse dynamics with floor
contacts, a torque-controlled replay in MuJoCo and its verdict.

    report = kinemorph.sim.simulate(motion, robot)          # SimReport
    result = kinemorph.sim.run_simulation(motion, robot)    # report + replay + inverse dynamics
"""

from .contacts import ContactSolution, solve_contact_forces
from .gains import Gains, JointGains, pd_gains
from .inverse import ContactSettings, Dynamics, derivatives, inverse_dynamics
from .model import TorqueModel, build_torque_model
from .replay import Rollout, replay
from .simulate import SimConfig, SimResult, check_motion, run_simulation, simulate
from .verdict import SimReport, Thresholds

__all__ = [
    "ContactSettings",
    "ContactSolution",
    "Dynamics",
    "Gains",
    "JointGains",
    "Rollout",
    "SimConfig",
    "SimReport",
    "SimResult",
    "Thresholds",
    "TorqueModel",
    "build_torque_model",
    "check_motion",
    "derivatives",
    "inverse_dynamics",
    "pd_gains",
    "replay",
    "run_simulation",
    "simulate",
    "solve_contact_forces",
]
