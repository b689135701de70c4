"""Writing a feasibility check: the report as JSON, the simulated trajectory as .npz.

The .npz holds GMR's keys for the simulated motion (``fps``, ``root_pos``, ``root_rot`` **x y z w**,
``dof_pos``, ``dof_names``; kinemorph.io.load reads it as a RobotMotion) and the replay's
``torque`` (T, nu) [N m] with ``actuator_joints`` (nu,), ``contact_force`` (T, 3) [N] (total floor
force, world), ``contact_slip`` (T,) [m/s], ``foot_slip`` (T, F) [m/s] (each foot's contact-point
speed, NaN where it carries no load; ``foot_names`` (F,)), and the inverse dynamics' ``id_torque`` (T0, nu) [N m]
and ``residual_force`` (T0, 3) [N] over the reference's T0 frames.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import IO, Any

import numpy as np

from .._files import write_atomic, write_text_atomic
from .simulate import SimResult
from .verdict import SimReport


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def report_json(report: SimReport) -> str:
    """The report as indented JSON (non-finite numbers become null)."""
    return json.dumps(_jsonable(report.to_dict()), indent=2) + "\n"


def save_report(report: SimReport, path: str | Path, *, force: bool = False) -> Path:
    """Write the report as JSON atomically (an existing file is kept unless force)."""
    return write_text_atomic(path, report_json(report), force=force)


def save_simulation(result: SimResult, path: str | Path, *, force: bool = False) -> Path:
    """Write the simulated trajectory, torques and contact forces (module doc) atomically."""
    sim = result.rollout.motion
    m = result.model.model
    fps = float(sim.fps)
    arrays: dict[str, Any] = {
        "fps": np.asarray(int(fps) if fps.is_integer() else fps),
        "root_pos": sim.root_pos,
        "root_rot": sim.root_rot[:, [1, 2, 3, 0]],
        "dof_pos": sim.dof_pos,
        "dof_names": np.asarray(sim.dof_names, dtype=np.str_),
        "torque": result.rollout.torque,
        "actuator_joints": np.asarray([m.joint(int(m.actuator_trnid[i, 0])).name for i in range(m.nu)], dtype=np.str_),
        "contact_force": result.rollout.contact_force,
        "contact_slip": result.rollout.slip,
        "foot_slip": result.rollout.foot_slip,
        "foot_names": np.asarray(result.model.robot.feet, dtype=np.str_),
        "id_torque": result.dynamics.joint_torque,
        "residual_force": result.dynamics.residual_force,
    }

    def dump(f: IO[bytes]) -> None:
        np.savez(f, **arrays)

    return write_atomic(path, dump, force=force)
