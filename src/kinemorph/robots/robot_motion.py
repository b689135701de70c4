"""RobotMotion: what every engine returns and every exporter and metric reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import KinemorphError


@dataclass(frozen=True)
class Keypoints:
    """Positions the engine tried to put robot bodies at, for tracking metrics.

    Attributes:
        robot_bodies: robot body per keypoint. Shape: (K,).
        positions: target positions [m]. Shape: (T, K, 3).
    """

    robot_bodies: tuple[str, ...]
    positions: np.ndarray


@dataclass(frozen=True)
class Controls:
    """A control sequence that produced a motion in simulation (the STMR engine's, a simulated walk's).

    Attributes:
        kind: "pd_targets" (joint targets of PD servos, torques clamped at the motors' limits) or
            "torques" (motor torques [N m], clamped at the motors' limits, plus joint PD feedback
            ``kp (q_ref - q) + kd (v_ref - v)`` around ``states``).
        dt: control step [s].
        values: controls per step, in ``names`` order. Shape: (K, nu).
        gains: feedback gains on the tangent state error [dq (nv), dv (nv)]: u = u_k + K_k dx
            (None: no state feedback beyond kp, kd). Shape: (K, nu, 2 nv).
        names: joint driven by each control. Shape: (nu,).
        kp: servo stiffness per control [N m / rad]. Shape: (nu,).
        kd: servo damping per control [N m s / rad]. Shape: (nu,).
        states: the state the gains act around at the start of each control step and after the
            last, [qpos (nq), qvel (nv)] (None: unknown). Shape: (K + 1, nq + nv).
        physics_dt: the physics step the controls were made with [s] (None: any; the check's own).
        floor_solimp: the floor's contact impedance they were made on (MuJoCo's solimp d0, d_width;
            None: the check's own floor).
        floor_timeconst: the time constant of that floor's contacts [s] (MuJoCo's solref; None: the
            check's own).
        floor_friction_timeconst: the time constant of that floor's friction rows alone [s]
            (MuJoCo's solreffriction; None: as its contacts').
    """

    kind: str
    dt: float
    values: np.ndarray
    gains: np.ndarray | None
    names: tuple[str, ...]
    kp: np.ndarray
    kd: np.ndarray
    states: np.ndarray | None = None
    physics_dt: float | None = None
    floor_solimp: tuple[float, float] | None = None
    floor_timeconst: float | None = None
    floor_friction_timeconst: float | None = None


@dataclass(frozen=True)
class SolveInfo:
    """What an engine reports about a solve, typed: the faces read this, not string keys.

    Attributes:
        engine: the engine that ran ("" when unknown, e.g. a motion read from a file).
        frames: frames solved.
        seconds_solve: time of the solve loop [s].
        seconds_compile: time spent compiling or loading kernels before it [s].
        frames_per_s: the engine's own speed figure [1/s] (nan when unknown).
        iterations_per_frame: mean IK iterations per frame (None for engines without).
        qp_failures: QP steps that failed.
        warnings: things the user should know (e.g. feet with no contacts found).
    """

    engine: str = ""
    frames: int = 0
    seconds_solve: float = 0.0
    seconds_compile: float = 0.0
    frames_per_s: float = float("nan")
    iterations_per_frame: float | None = None
    qp_failures: int = 0
    warnings: tuple[str, ...] = ()

    @classmethod
    def of(cls, info: dict[str, Any]) -> SolveInfo:
        """Read the typed fields out of a RobotMotion's ``info`` (its serialised form)."""
        warnings = info.get("warnings", ())
        if isinstance(warnings, str):
            warnings = (warnings,)
        single = info.get("warning")
        all_warnings = tuple(str(w) for w in warnings) + ((str(single),) if single else ())
        ipf = info.get("iterations_per_frame")

        def num(key: str, default: float) -> float:
            v = info.get(key, default)
            return float(v) if isinstance(v, int | float) else default

        return cls(
            engine=str(info.get("engine", "")),
            frames=int(num("frames", 0)),
            seconds_solve=num("seconds_solve", 0.0),
            seconds_compile=num("seconds_compile", 0.0),
            frames_per_s=num("frames_per_s", float("nan")),
            iterations_per_frame=float(ipf) if isinstance(ipf, int | float) else None,
            qp_failures=int(num("qp_failures", 0)),
            warnings=all_warnings,
        )


@dataclass(frozen=True)
class RobotMotion:
    """A robot trajectory.

    Attributes:
        robot: robot name (registry key or model file stem).
        fps: frames per second [1/s].
        root_pos: floating-base position [m]. Shape: (T, 3).
        root_rot: floating-base orientation, quaternion **wxyz** (exports write xyzw). Shape: (T, 4).
        dof_pos: joint positions [rad or m] in the model's joint order. Shape: (T, n).
        dof_names: joint names. Shape: (n,).
        keypoints: targets the engine tracked (optional, for metrics).
        info: engine details (engine name, iterations per frame, timings, engine-specific
            figures), JSON-serialisable: the serialised form exports carry; read the common fields
            typed through :attr:`solve_info`.
        contacts: planted frames per foot, when the engine knows them. Shape: (T, F) bool.
        contact_bodies: the robot body of each contacts column. Shape: (F,).
        settings: what produced the motion (engine, its config, the mapping's origin), JSON-
            serialisable and deterministic (no timings); exports record it.
        controls: the control sequence and feedback gains that produced it in simulation (the
            STMR engine), None for kinematic engines.
    """

    robot: str
    fps: float
    root_pos: np.ndarray
    root_rot: np.ndarray
    dof_pos: np.ndarray
    dof_names: tuple[str, ...]
    keypoints: Keypoints | None = None
    info: dict[str, Any] = field(default_factory=dict)
    contacts: np.ndarray | None = None
    contact_bodies: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)
    controls: Controls | None = None

    def __post_init__(self) -> None:
        t = self.root_pos.shape[0]
        n = len(self.dof_names)
        for name, shape in (("root_pos", (t, 3)), ("root_rot", (t, 4)), ("dof_pos", (t, n))):
            got = getattr(self, name).shape
            if got != shape:
                raise KinemorphError(f"RobotMotion.{name} has shape {got}, expected {shape}")
        if t == 0:
            raise KinemorphError("RobotMotion has no frames")
        for name in ("root_pos", "root_rot", "dof_pos"):
            bad = ~np.isfinite(getattr(self, name))
            if bad.any():
                frame = int(np.argwhere(bad)[0][0])
                raise KinemorphError(f"RobotMotion.{name} has a non-finite value at frame {frame}")
        norms = np.linalg.norm(self.root_rot, axis=1)
        if (np.abs(norms - 1.0) > 1e-3).any():
            f = int(np.argmax(np.abs(norms - 1.0) > 1e-3))
            raise KinemorphError(f"RobotMotion.root_rot at frame {f} is not a unit quaternion (norm {norms[f]:.4g})")
        if not np.isfinite(self.fps) or self.fps <= 0:
            raise KinemorphError(f"RobotMotion.fps must be positive, got {self.fps}")
        if self.contacts is not None:
            if self.contacts.shape != (t, len(self.contact_bodies)) or self.contacts.dtype != bool:
                raise KinemorphError(
                    f"RobotMotion.contacts must be bool of shape {(t, len(self.contact_bodies))}, "
                    f"got {self.contacts.dtype} {self.contacts.shape}"
                )

    @property
    def solve_info(self) -> SolveInfo:
        """The engine's report, typed."""
        return SolveInfo.of(self.info)

    @property
    def num_frames(self) -> int:
        return int(self.root_pos.shape[0])

    @property
    def qpos(self) -> np.ndarray:
        """MuJoCo qpos per frame [root pos, root quat wxyz, joints]. Shape: (T, 7 + n)."""
        return np.concatenate([self.root_pos, self.root_rot, self.dof_pos], axis=1)

    @classmethod
    def from_qpos(cls, robot: str, fps: float, qpos: np.ndarray, dof_names: tuple[str, ...], **kw: Any) -> RobotMotion:
        return cls(
            robot=robot,
            fps=fps,
            root_pos=qpos[:, :3].copy(),
            root_rot=qpos[:, 3:7].copy(),
            dof_pos=qpos[:, 7:].copy(),
            dof_names=tuple(dof_names),
            **kw,
        )
