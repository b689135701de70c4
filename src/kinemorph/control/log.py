"""The simulated walk's log: references, measurements, forces, torques and feedback, per planner tick."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from .._files import write_atomic


@dataclass(frozen=True)
class ControlLog:
    """One row per planner tick (125 Hz by default); world frame, SI units.

    Attributes:
        time: [s]. Shape: (N,).
        phase: gait phase of the reference. Shape: (N,).
        command: commanded velocity vx, vy [m/s], yaw rate [rad/s]. Shape: (N, 3).
        command_adjusted: the command after the velocity adjustment. Shape: (N, 3).
        pelvis_height_ref, pelvis_height: [m]. Shape: (N,).
        yaw_ref, yaw: pelvis heading [rad]. Shape: (N,).
        com_ref, com: horizontal CoM [m]. Shape: (N, 2).
        com_vel_ref, com_vel: horizontal CoM velocity [m/s]. Shape: (N, 2).
        cop_ref: the CoM planner's CoP now [m]. Shape: (N, 2).
        foot_pos_ref, foot_pos: foot body origins [m]. Shape: (N, 2, 3).
        contacts_ref: feet the plan has on the floor. Shape: (N, 2).
        contact_force: floor force on each foot measured in MuJoCo [N]. Shape: (N, 2, 3).
        qp_force: contact force of each foot in the whole-body QP [N]. Shape: (N, 2, 3).
        torque: motor torques [N m]. Shape: (N, nu).
        upper_names: the style-driven joints' names. Shape: (U,).
        upper_ref, upper: their values [rad]. Shape: (N, U).
        kappa: time-scaling rate. Shape: (N,).
        step_adjust: foothold shift [m]. Shape: (N, 2).
        velocity_adjust: velocity offset, world frame [m/s]. Shape: (N, 2).
        time_scaling_engaged, step_adjust_engaged, velocity_adjust_engaged: Shape: (N,) bool.
        mpc_solved: the CoM planner's QP solved at this tick. Shape: (N,) bool.
        wbc_failures: whole-body QP solves that did not succeed since the previous row. Shape: (N,).
        push_force: external force on the pelvis [N]. Shape: (N, 3).
        push_estimate: the controller's estimate of the horizontal external force [N]. Shape: (N, 3).
    """

    time: np.ndarray
    phase: np.ndarray
    command: np.ndarray
    command_adjusted: np.ndarray
    pelvis_height_ref: np.ndarray
    pelvis_height: np.ndarray
    yaw_ref: np.ndarray
    yaw: np.ndarray
    com_ref: np.ndarray
    com: np.ndarray
    com_vel_ref: np.ndarray
    com_vel: np.ndarray
    cop_ref: np.ndarray
    foot_pos_ref: np.ndarray
    foot_pos: np.ndarray
    contacts_ref: np.ndarray
    contact_force: np.ndarray
    qp_force: np.ndarray
    torque: np.ndarray
    upper_names: np.ndarray
    upper_ref: np.ndarray
    upper: np.ndarray
    kappa: np.ndarray
    step_adjust: np.ndarray
    velocity_adjust: np.ndarray
    time_scaling_engaged: np.ndarray
    step_adjust_engaged: np.ndarray
    velocity_adjust_engaged: np.ndarray
    mpc_solved: np.ndarray
    wbc_failures: np.ndarray
    push_force: np.ndarray
    push_estimate: np.ndarray

    @property
    def num_rows(self) -> int:
        return int(self.time.shape[0])

    def save(self, path: str | Path, *, force: bool = False) -> Path:
        """Write every field to an .npz file (atomic)."""
        arrays = {f.name: np.asarray(getattr(self, f.name)) for f in fields(self)}
        return write_atomic(path, lambda fh: np.savez_compressed(fh, **arrays), force=force)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: str | Path) -> ControlLog:
        with np.load(path, allow_pickle=False) as z:
            return cls(**{f.name: z[f.name] for f in fields(cls)})


class LogBuilder:
    """Rows appended one at a time (keyword per field), stacked into a :class:`ControlLog`."""

    def __init__(self, upper_names: tuple[str, ...]) -> None:
        self.upper_names = np.array(upper_names, dtype=str)
        self.rows: dict[str, list] = {f.name: [] for f in fields(ControlLog) if f.name != "upper_names"}

    def add(self, **row: object) -> None:
        for k, v in row.items():
            self.rows[k].append(v)

    def build(self) -> ControlLog:
        cols = {k: np.asarray(v) for k, v in self.rows.items()}
        return ControlLog(upper_names=self.upper_names, **cols)
