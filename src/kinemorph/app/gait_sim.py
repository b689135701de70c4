"""The gait page's "simulate" view, logic only (no viser): the style under edit walked under
physics by kinemorph.control (CoM MPC, whole-body QP, gait feedback in MuJoCo) in a background
thread, with an optional push, progress, and a summary of what happened.

A fall is a result, not an error: the simulation stops there and the summary says when and in
which phase. Bad settings (a push out of range, a robot without torque limits) are refused with
the control package's own message.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..control import GaitSimulation, Push, SimulationConfig, simulate_gait
from ..control.summary import describe
from ..errors import ConfigError, KinemorphError
from ..gait import Commands, Style
from ..robots import Robot

MAX_DURATION = 60.0
"""[s] the longest walk the page simulates."""
PUSH_SIDES = ("none", "front", "back", "left", "right")


@dataclass(frozen=True)
class SimRequest:
    """One simulated walk: a constant command for ``duration`` and at most one push.

    Attributes:
        command: vx, vy [m/s], yaw rate [rad/s] in the body frame. Shape: (3,).
        duration: [s], in (0, MAX_DURATION].
        push: the push, or None.
    """

    command: tuple[float, float, float]
    duration: float
    push: Push | None = None


def make_request(
    command: tuple[float, float, float], duration: float, side: str, force: float, at: float
) -> SimRequest:
    """A request from the page's fields; ``side`` "none" (or a zero force) means no push."""
    if not (np.isfinite(duration) and 0 < duration <= MAX_DURATION):
        raise ConfigError(f"simulation length must be in (0, {MAX_DURATION:g}] s, got {duration}")
    if side not in PUSH_SIDES:
        raise ConfigError(f"push side {side!r}; valid: {', '.join(PUSH_SIDES)}")
    push = None if side == "none" or force == 0 else Push(float(force), float(at), side)
    if push is not None and push.start >= duration:
        raise ConfigError(f"the push at {push.start:g} s comes after the walk ends ({duration:g} s)")
    return SimRequest(tuple(float(c) for c in command), float(duration), push)  # type: ignore[arg-type]


class GaitSimRunner:
    """Runs one simulated walk at a time in a thread; ``progress`` (0-1), ``result`` and ``error``
    are read by the page."""

    def __init__(self) -> None:
        self.progress = 0.0
        self.result: GaitSimulation | None = None
        self.summary = ""
        self.error = ""
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self, style: Style, robot: Robot, request: SimRequest) -> GaitSimulation:
        """Simulate now (in this thread); a fall ends the walk and is reported in the summary."""
        self.progress, self.error = 0.0, ""

        def progress(done: int, total: int) -> None:
            self.progress = done / max(1, total)

        cfg = replace(SimulationConfig(), raise_on_fall=False)
        pushes = (request.push,) if request.push is not None else ()
        sim = simulate_gait(
            style, robot, Commands.constant(np.array(request.command)), request.duration,
            config=cfg, pushes=pushes, progress=progress,
        )  # fmt: skip
        self.result, self.summary, self.progress = sim, describe(sim), 1.0
        return sim

    def start(self, style: Style, robot: Robot, request: SimRequest, on_done: Callable[[GaitSimRunner], None]) -> bool:
        """Simulate in the background and call ``on_done(self)`` when finished (also on an error,
        then in ``error``). False when a walk is already being simulated."""
        if self.running:
            return False

        def work() -> None:
            try:
                self.run(style, robot, request)
            except KinemorphError as exc:
                self.error = str(exc)
            except Exception as exc:  # a solver failure must reach the page as a message, not a traceback
                self.error = f"the simulation failed: {type(exc).__name__}: {exc}"
            on_done(self)

        self._thread = threading.Thread(target=work, name="kinemorph-gait-sim", daemon=True)
        self._thread.start()
        return True

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def pelvis_series(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Time [s], planned and simulated pelvis height [m] of the last result (empty without one)."""
        if self.result is None:
            return np.zeros(0), np.zeros(0), np.zeros(0)
        log = self.result.log
        return log.time, log.pelvis_height_ref, log.pelvis_height
