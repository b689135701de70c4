"""The gait editor's logic (no viser): a style being edited as its JSON object, validated by the
gait package on every edit; the robot walking the chosen sample; test mode driven by a velocity.

Every edit goes through ``style_from_dict``, so an edit that breaks a rule (e.g. a double support
shorter than the minimum) is refused with the gait package's own message, and the last valid
style stays in use.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ..gait import (
    GAIT_ROBOTS,
    KEY_SAMPLES,
    Commands,
    GaitConfig,
    Planner,
    Reference,
    Style,
    StyleError,
    gait_body,
    gait_motion,
    load_style,
    save_style,
    solve_reference,
    style_from_dict,
    style_names,
    style_to_dict,
)
from ..gait.style import ATTRIBUTES, CURVE_KEYS
from ..robots import Robot, load_robot
from ..robots.robot_motion import RobotMotion
from .geometry import near_limits

INTERVALS = ("cycle", "left_touchdown", "right_liftoff", "right_touchdown")
"""Editable interval ends [s] (the cycle and the left swing start at 0)."""

_SLOTS = {"cycle": ("cycle", 1), "left_touchdown": ("left_swing", 1), "right_liftoff": ("right_swing", 0),
          "right_touchdown": ("right_swing", 1)}  # fmt: skip


def concat_references(refs: list[Reference]) -> Reference:
    """Frames of several references, one after another."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(Reference):
        values = [getattr(r, f.name) for r in refs]
        out[f.name] = np.concatenate(values) if isinstance(values[0], np.ndarray) else values[0]
    return Reference(**out)


class GaitEditor:
    """A style under edit, its chosen sample and curve, and the robot that walks it.

    Attributes:
        robot_name: a biped of GAIT_ROBOTS.
        data: the style's JSON object (edits change it only when the result validates).
        style: the validated style.
        sample: the sample being edited (KEY_SAMPLES).
        curve: the curve being edited ("group.name", CURVE_KEYS).
        error: (group, message) of the last refused edit, group one of "intervals", "attributes",
            "curves", "style"; None after a valid edit.
    """

    def __init__(self, *, robot_name: str = "unitree_g1", style: str = "neutral", sample: str = "forward_slow") -> None:
        self.robot_name = robot_name
        self.style: Style = load_style(style)
        self.data: dict[str, Any] = style_to_dict(self.style)
        self.sample = sample
        self.curve = "left_foot.z"
        self.error: tuple[str, str] | None = None
        self.config = GaitConfig()
        self._robots: dict[str, Robot] = {}
        self._planner: Planner | None = None
        self.uploaded: dict[str, Style] = {}

    # -- choices ---------------------------------------------------------------------------------------
    @staticmethod
    def robots() -> list[str]:
        return list(GAIT_ROBOTS)

    def styles(self) -> list[str]:
        return [*style_names(), *self.uploaded]

    @staticmethod
    def samples() -> list[str]:
        return list(KEY_SAMPLES)

    @staticmethod
    def curves() -> list[str]:
        return list(CURVE_KEYS)

    def robot(self) -> Robot:
        if self.robot_name not in self._robots:
            self._robots[self.robot_name] = load_robot(self.robot_name)
        return self._robots[self.robot_name]

    def set_robot(self, name: str) -> None:
        if name not in GAIT_ROBOTS:
            raise StyleError(f"unknown gait robot {name!r}; valid: {', '.join(GAIT_ROBOTS)}")
        self.robot_name = name
        self._planner = None

    def set_style(self, name: str) -> Style:
        style = self.uploaded[name] if name in self.uploaded else load_style(name)
        self.style, self.data, self.error = style, style_to_dict(style), None
        self._planner = None
        return style

    def upload_style(self, name: str, content: bytes) -> Style:
        """A style JSON upload, validated by the gait package; chosen when valid."""
        try:
            raw = json.loads(content.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StyleError(f"{name}: not valid JSON ({exc})") from None
        style = style_from_dict(raw, source=name)
        self.uploaded[style.name] = style
        return self.set_style(style.name)

    def set_sample(self, name: str) -> None:
        if name not in KEY_SAMPLES:
            raise StyleError(f"unknown sample {name!r}; valid: {', '.join(KEY_SAMPLES)}")
        self.sample = name

    # -- the sample's values ------------------------------------------------------------------------------
    def _sample(self, data: dict[str, Any] | None = None) -> dict[str, Any]:
        return (data or self.data)["samples"][self.sample]

    def intervals(self) -> dict[str, float]:
        iv = self._sample()["intervals"]
        return {k: float(iv[slot][i]) for k, (slot, i) in _SLOTS.items()}

    def attributes(self) -> dict[str, float]:
        attrs = self._sample().get("attributes", {})
        return {a: float(attrs.get(a, 0.0)) for a in ATTRIBUTES}

    def knots(self, key: str | None = None) -> list[list[float]]:
        group, name = (key or self.curve).split(".", 1)
        return [list(map(float, k)) for k in self._sample().get("curves", {}).get(group, {}).get(name, [])]

    def curve_values(self, key: str | None = None, n: int = 101) -> tuple[np.ndarray, np.ndarray]:
        """The validated curve over u in [0, 1] (its interval, normalised)."""
        u = np.linspace(0.0, 1.0, n)
        return u, np.asarray(self.style.samples[self.sample].curve(key or self.curve)(u), dtype=np.float64)

    # -- edits -------------------------------------------------------------------------------------------
    def _commit(self, data: dict[str, Any], group: str) -> Style:
        try:
            style = style_from_dict(data, source=f"style {data.get('name', '?')!r}")
        except StyleError as exc:
            self.error = (group, str(exc))
            raise
        self.style, self.data, self.error = style, data, None
        self._planner = None
        return style

    def set_interval(self, name: str, value: float) -> Style:
        slot, i = _SLOTS[name]
        data = copy.deepcopy(self.data)
        self._sample(data)["intervals"][slot][i] = float(value)
        return self._commit(data, "intervals")

    def set_attribute(self, name: str, value: float) -> Style:
        if name not in ATTRIBUTES:
            raise StyleError(f"unknown attribute {name!r}; valid: {', '.join(ATTRIBUTES)}")
        data = copy.deepcopy(self.data)
        self._sample(data).setdefault("attributes", {})[name] = float(value)
        return self._commit(data, "attributes")

    def set_knots(self, knots: list[list[float]], key: str | None = None) -> Style:
        """Replace a curve's control points [[u, value], ...] (kept sorted by u)."""
        group, name = (key or self.curve).split(".", 1)
        data = copy.deepcopy(self.data)
        curves = self._sample(data).setdefault("curves", {}).setdefault(group, {})
        curves[name] = sorted([[float(u), float(v)] for u, v in knots])
        if not curves[name]:
            curves.pop(name)
        return self._commit(data, "curves")

    def set_knot(self, index: int, u: float, value: float) -> Style:
        knots = self.knots()
        if not 0 <= index < len(knots):
            raise StyleError(f"curve {self.curve} has no control point {index} (it has {len(knots)})")
        knots[index] = [u, value]
        return self.set_knots(knots)

    def add_knot(self, u: float, value: float) -> Style:
        return self.set_knots([*self.knots(), [u, value]])

    def remove_knot(self, index: int) -> Style:
        knots = self.knots()
        if not 0 <= index < len(knots):
            raise StyleError(f"curve {self.curve} has no control point {index} (it has {len(knots)})")
        del knots[index]
        return self.set_knots(knots)

    # -- motion ------------------------------------------------------------------------------------------
    def velocity(self) -> np.ndarray:
        return np.asarray(self.style.samples[self.sample].velocity, dtype=np.float64)

    def walk(self, cycles: float = 2.0) -> RobotMotion:
        """The robot walking the sample at its own velocity for a few cycles (the gait package's kinematic output)."""
        cycle = self.style.samples[self.sample].timing.cycle
        return gait_motion(self.style, self.robot(), Commands.constant(self.velocity()), cycles * cycle, self.config)

    def velocity_limits(self) -> dict[str, tuple[float, float]]:
        """Slider ranges from the style's key samples: vx [m/s], vy [m/s], yaw rate [rad/s]."""
        v = np.array([s.velocity for s in self.style.ordered()])
        return {
            k: (float(min(v[:, i].min(), 0.0)), float(max(v[:, i].max(), 0.0)))
            for i, k in enumerate(("vx", "vy", "yaw_rate"))
        }

    def test_chunk(self, velocity: tuple[float, float, float], seconds: float = 1.0) -> RobotMotion:
        """The next ``seconds`` of an ongoing walk under a velocity (test mode): the planner keeps
        its path and phase between chunks."""
        robot = self.robot()
        first = self._planner is None
        if self._planner is None:
            self._planner = Planner(self.style, gait_body(robot))
        dt = 1.0 / self.config.fps
        n = max(2, round(seconds * self.config.fps))
        refs = [self._planner.step(velocity, 0.0 if first and k == 0 else dt) for k in range(n)]
        return solve_reference(concat_references(refs), robot, self.config)

    def reset_test(self) -> None:
        self._planner = None

    def limits(self, motion: RobotMotion, frame: int, margin: float = 0.05) -> list[str]:
        near = near_limits(self.robot(), motion.dof_pos[frame], margin)
        return [self.robot().dof_names[i] for i in np.flatnonzero(near)]

    def style_json(self) -> tuple[str, bytes]:
        """The validated style as a file (the gait package's own writer)."""
        with tempfile.TemporaryDirectory(prefix="kinemorph-style-") as tmp:
            path = save_style(self.style, Path(tmp) / f"{self.style.name}.json")
            return path.name, path.read_bytes()
