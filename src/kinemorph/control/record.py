"""What the walking controller did, kept with its output so that ``kinemorph simulate`` can replay it.

A simulated walk's motion carries its motor torques per control tick and the state at the start of
every tick (RobotMotion.controls, kind "torques"), with the physics step and the floor they were
applied on. Replayed on that model from the same first state (sim/controlled.py), the torques
reproduce the walk: the consistency check of the controller's output is the same verdict every
other motion gets, with nothing acting on the robot but its motors.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ..robots.robot_motion import Controls
from ..sim.model import TorqueModel

WALK_FLOOR_SOLIMP = (0.9, 0.95)
"""The floor the controller walks on: MuJoCo's default contact impedance (solimp d0, d_width)."""


class ControlRecorder:
    """Collects the torques and states of a simulation loop, one control tick at a time."""

    def __init__(self, tm: TorqueModel, data: mujoco.MjData) -> None:
        self._m = tm.model
        d0, width = tm.model.geom_solimp[tm.floor_geom, :2]
        self._floor = (float(d0), float(width))  # the impedance the ticks run on
        self._timeconst = float(tm.model.geom_solref[tm.floor_geom, 0])  # and its contacts' time constant
        self._torques: list[np.ndarray] = []
        self._qpos = [data.qpos.copy()]
        self._qvel = [data.qvel.copy()]

    def add(self, data: mujoco.MjData) -> None:
        """Record the tick that just ran: the motors' torques and the state after it."""
        self._torques.append(data.ctrl.copy())
        self._qpos.append(data.qpos.copy())
        self._qvel.append(data.qvel.copy())

    def controls(self, dt: float) -> Controls | None:
        """The recorded ticks as Controls of kind "torques" (None when no tick ran); dt: control period [s]."""
        if not self._torques:
            return None
        m = self._m
        names = tuple(m.joint(int(m.actuator_trnid[i, 0])).name for i in range(m.nu))
        torques = np.array(self._torques)
        limited = m.actuator_ctrllimited.astype(bool)  # as MuJoCo clamped them
        lo, hi = m.actuator_ctrlrange[limited, 0], m.actuator_ctrlrange[limited, 1]
        torques[:, limited] = np.clip(torques[:, limited], lo, hi)
        zeros = np.zeros(m.nu)
        return Controls(
            kind="torques", dt=dt, values=torques, gains=None, names=names, kp=zeros, kd=zeros,
            states=np.hstack([self._qpos, self._qvel]), physics_dt=float(m.opt.timestep), floor_solimp=self._floor,
            floor_timeconst=self._timeconst,
        )  # fmt: skip
