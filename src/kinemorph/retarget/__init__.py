"""Retargeting engines behind one signature, and the shared differential-IK step (ik.py)."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, UnknownNameError
from ..mapping.mapping import Mapping, default_mapping
from ..motion.motion import Motion
from ..progress import Progress
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from .gmr import GmrConfig, solve_gmr
from .graph import GraphConfig, solve_graph
from .mesh import MeshConfig, solve_mesh
from .quadruped import QuadrupedConfig, solve_quadruped
from .stmr import StmrConfig, solve_stmr

Solver = Callable[..., RobotMotion]


@dataclass(frozen=True)
class Engine:
    """A registered engine: its config type, its solve function
    solve(motion, robot, mapping, config, *, progress) -> RobotMotion, named settings that
    reproduce other tools (``compat``: name -> config factory) and how a config of it uses a
    mapping (``mapping_use``): "tasks" (every task: all its names are checked), "root" (the root
    task's orientation only) or "none" (solve gets None)."""

    name: str
    config_type: type
    solve: Solver
    summary: str
    compat: dict[str, Callable[[], Any]] = field(default_factory=dict)
    mapping_use: Callable[[Any], str] = lambda config: "tasks"


ENGINES: dict[str, Engine] = {
    "gmr": Engine(
        "gmr",
        GmrConfig,
        solve_gmr,
        "GMR's two-stage differential IK (exact parity with GMR's output)",
        compat={"gmr": GmrConfig.gmr_compatible},
    ),
    "mesh": Engine(
        "mesh",
        MeshConfig,
        solve_mesh,
        "GMR's two stages plus an interaction mesh (Laplacian coordinates): keeps body parts' relations",
    ),
    "graph": Engine(
        "graph",
        GraphConfig,
        solve_graph,
        "per-frame optimisation of a proximity-weighted landmark graph distance (relation-preserving)",
        mapping_use=lambda config: "root",
    ),
    "quadruped": Engine(
        "quadruped",
        QuadrupedConfig,
        solve_quadruped,
        "animal motion onto quadrupeds: natural-motion planner + regularised IK, or plain keypoint IK",
        mapping_use=lambda config: "tasks" if config.mode == "plain" else "none",
    ),
    "stmr": Engine(
        "stmr",
        StmrConfig,
        solve_stmr,
        "spatio-temporal retargeting for quadrupeds: foot-constrained kinematics, then iLQR dynamics with time warping",
        mapping_use=lambda config: "none",
    ),
}


def get_engine(name: str) -> Engine:
    try:
        return ENGINES[name]
    except KeyError:
        raise UnknownNameError("engine", name, [*ENGINES, "auto"]) from None


def retarget(
    motion: Motion,
    robot: Robot,
    mapping: Mapping | None = None,
    *,
    engine: str = "auto",
    config: Any = None,
    progress: Progress | None = None,
) -> RobotMotion:
    """Retarget a motion onto a robot.

    engine: a name in ENGINES, or "auto": "quadruped" for quadruped motion, else "gmr".
    mapping: None uses the robot's shipped default for the motion's preset (engines that need one).
    config: the engine's config dataclass (e.g. GmrConfig); None uses its defaults.
    """
    eng = get_engine(resolve_engine(engine, motion))
    if config is not None and not isinstance(config, eng.config_type):
        raise ConfigError(f"engine {eng.name} takes a {eng.config_type.__name__}, got {type(config).__name__}")
    cfg = config or eng.config_type()
    robot.check_motion(motion)  # the one family check of a retarget
    use = eng.mapping_use(cfg)
    if use == "none":
        mapping = None
    else:
        if mapping is None:
            mapping = default_mapping(motion, robot)
        mapping.check_names(motion, robot, where=mapping.where, root_only=use == "root")
    result = eng.solve(motion, robot, mapping, cfg, progress=progress)
    settings = {"engine": eng.name, "config": _plain(cfg), "mapping": None if mapping is None else mapping.where}
    return dataclasses.replace(result, settings=settings)


def _plain(config: Any) -> dict[str, Any]:
    """A config dataclass as strict-JSON data (infinite values as the strings "inf", "-inf")."""

    def clean(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return str(v)
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [clean(x) for x in v]
        return v

    return clean(json.loads(json.dumps(dataclasses.asdict(config), default=str)))


def resolve_engine(engine: str, motion: Motion) -> str:
    """The engine "auto" stands for: "quadruped" for quadruped motion, else "gmr"."""
    if engine != "auto":
        return engine
    return "quadruped" if motion.family == "quadruped" else "gmr"


def timing_summary(result: RobotMotion) -> str:
    """One line on how long the engine took, e.g. for the CLI and the demo."""
    info = result.solve_info
    text = f"{result.num_frames} frames in {info.seconds_solve:.3f} s ({info.frames_per_s:.0f} frames/s"
    if info.iterations_per_frame is not None:
        text += f", {info.iterations_per_frame:.2f} iterations/frame"
    text += ")"
    if info.seconds_compile > 1.0:
        text += f"; first use compiled the kernels in {info.seconds_compile:.1f} s (cached for later runs)"
    return text


__all__ = [
    "ENGINES",
    "Engine",
    "GmrConfig",
    "GraphConfig",
    "MeshConfig",
    "QuadrupedConfig",
    "StmrConfig",
    "default_mapping",
    "get_engine",
    "resolve_engine",
    "retarget",
    "timing_summary",
]
