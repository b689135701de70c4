"""Retargeting engines behind one signature, and the shared differential-IK step (ik.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, UnknownNameError
from ..mapping.mapping import Mapping, check_family, load_mapping
from ..motion.motion import Motion
from ..progress import Progress
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from .gmr import GmrConfig, solve_gmr

Solver = Callable[..., RobotMotion]


@dataclass(frozen=True)
class Engine:
    """A registered engine: its config type, its solve function
    solve(motion, robot, mapping, config, *, progress) -> RobotMotion, and named settings that
    reproduce other tools (``compat``: name -> config factory)."""

    name: str
    config_type: type
    solve: Solver
    summary: str
    compat: dict[str, Callable[[], Any]] = field(default_factory=dict)


ENGINES: dict[str, Engine] = {
    "gmr": Engine(
        "gmr",
        GmrConfig,
        solve_gmr,
        "GMR's two-stage differential IK (exact parity with GMR's output)",
        compat={"gmr": GmrConfig.gmr_compatible},
    ),
}


def get_engine(name: str) -> Engine:
    try:
        return ENGINES[name]
    except KeyError:
        raise UnknownNameError("engine", name, ENGINES) from None


def default_mapping(motion: Motion, robot: Robot) -> Mapping:
    """The shipped mapping for the robot and the motion's preset."""
    from ..robots.registry import KNOWN_ROBOTS

    check_family(motion, robot)
    if robot.name not in KNOWN_ROBOTS:
        raise UnknownNameError(
            "robot with a shipped mapping",
            robot.name,
            KNOWN_ROBOTS,
            where=f"{robot.path} has no default mapping: pass one (--mapping FILE)",
        )
    return load_mapping(robot.name, motion.preset)


def retarget(
    motion: Motion,
    robot: Robot,
    mapping: Mapping | None = None,
    *,
    engine: str = "gmr",
    config: Any = None,
    progress: Progress | None = None,
) -> RobotMotion:
    """Retarget a motion onto a robot.

    mapping: None uses the robot's shipped default for the motion's preset.
    config: the engine's config dataclass (e.g. GmrConfig); None uses its defaults.
    """
    eng = get_engine(engine)
    if config is not None and not isinstance(config, eng.config_type):
        raise ConfigError(f"engine {engine} takes a {eng.config_type.__name__}, got {type(config).__name__}")
    if mapping is None:
        mapping = default_mapping(motion, robot)
    return eng.solve(motion, robot, mapping, config or eng.config_type(), progress=progress)


def timing_summary(result: RobotMotion) -> str:
    """One line on how long the engine took, e.g. for the CLI and the demo."""
    info = result.info
    text = f"{result.num_frames} frames in {info['seconds_solve']:.3f} s ({info['frames_per_s']:.0f} frames/s"
    if "iterations_per_frame" in info:
        text += f", {info['iterations_per_frame']:.2f} iterations/frame"
    text += ")"
    if info.get("seconds_compile", 0.0) > 1.0:
        text += f"; first use compiled the kernels in {info['seconds_compile']:.1f} s (cached for later runs)"
    return text


__all__ = ["ENGINES", "Engine", "GmrConfig", "default_mapping", "get_engine", "retarget", "timing_summary"]
