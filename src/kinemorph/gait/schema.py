"""Styles as JSON: reading with validation, writing, and the packaged styles.

Layout (every length in metres, angle in radians, time in seconds)::

    {"format": "kinemorph-gait-style", "version": 1, "name": "neutral", "description": "...",
     "samples": {
       "forward_slow": {
         "velocity": [0.25, 0.0, 0.0],                       # vx, vy, yaw rate
         "intervals": {"cycle": [0, 1.0], "left_swing": [0, 0.4], "right_swing": [0.5, 0.9]},
         "attributes": {"stance_width": 0.0, "stance_splay": 0.05, "x_bias": 0.0,
                        "heel_toe_liftoff": 0.12, "heel_toe_touchdown": 0.06},
         "curves": {"pelvis": {"height": [[0, -0.01], [0.2, 0.01], ...], "yaw": ...},
                    "left_foot": {"z": [[0.5, 0.08]], "toe_pitch": [[0, 0.3], [0.3, 0]], ...},
                    "right_foot": {...},
                    "upper": {"shoulder_pitch_l": [[0, 0.1], ...], ...}}},
       ... one entry per key sample (style.KEY_SAMPLES) ...}}

Curves are lists of knots [u, value], u in [0, 1] the position within the curve's interval
(splines.py). Missing attributes and curves are zero. Every check names the sample and field.
"""

from __future__ import annotations

import itertools
import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UnknownNameError
from .splines import Curve
from .style import (
    ATTRIBUTES,
    CURVE_GROUPS,
    KEY_SAMPLES,
    MAX_HEEL_TOE_SHARE,
    MAX_SPLAY,
    MIN_DOUBLE_SUPPORT,
    MIN_SINGLE_SUPPORT,
    Attributes,
    GaitSample,
    Style,
    StyleError,
    Timing,
    curve_kind,
)

FORMAT = "kinemorph-gait-style"
VERSION = 1
_PITCH_RANGE = {"heel_pitch": (-math.pi / 2, 0.0), "toe_pitch": (0.0, math.pi / 2)}
_ZERO = 1e-9


def _styles_folder() -> Any:
    return resources.files("kinemorph.gait") / "styles"


def style_names() -> list[str]:
    """Names of the styles shipped with kinemorph (kinemorph/gait/styles/*.json)."""
    return sorted(p.name[: -len(".json")] for p in _styles_folder().iterdir() if p.name.endswith(".json"))


class _Where:
    """Prefix of every message: the style's source, then the sample."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sample: str | None = None

    def error(self, field: str, message: str) -> StyleError:
        sample = f"sample {self.sample!r}: " if self.sample else ""
        return StyleError(f"{self.source}: {sample}{field}: {message}")


def _number(value: Any, where: _Where, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise where.error(field, f"expected a number, got {json.dumps(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise where.error(field, f"is {x} (not finite)")
    return x


def _numbers(value: Any, n: int, where: _Where, field: str) -> list[float]:
    if not isinstance(value, list) or len(value) != n:
        raise where.error(field, f"expected a list of {n} numbers, got {json.dumps(value)}")
    return [_number(v, where, f"{field}[{i}]") for i, v in enumerate(value)]


def _object(value: Any, where: _Where, field: str, valid: tuple[str, ...] | None = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise where.error(field, f"expected an object, got {type(value).__name__}")
    if valid is not None:
        unknown = [k for k in value if k not in valid]
        if unknown:
            raise where.error(field, f"unknown key {unknown[0]!r}; valid: {', '.join(valid)}")
    return value


# -- one sample ---------------------------------------------------------------------------------
def _timing(raw: Any, where: _Where) -> Timing:
    obj = _object(raw, where, "intervals", ("cycle", "left_swing", "right_swing"))
    for k in ("cycle", "left_swing", "right_swing"):
        if k not in obj:
            raise where.error("intervals", f"missing {k!r} (give cycle, left_swing and right_swing as [start, end])")
    c0, cycle = _numbers(obj["cycle"], 2, where, "intervals.cycle")
    l0, ltd = _numbers(obj["left_swing"], 2, where, "intervals.left_swing")
    rlo, rtd = _numbers(obj["right_swing"], 2, where, "intervals.right_swing")
    if c0 != 0.0:
        raise where.error("intervals.cycle", f"must start at 0 (the cycle begins at left liftoff), got {c0:g}")
    if l0 != 0.0:
        raise where.error("intervals.left_swing", f"must start at 0 (left liftoff begins the cycle), got {l0:g}")
    events = [("left liftoff", 0.0), ("left touchdown", ltd), ("right liftoff", rlo), ("right touchdown", rtd)]
    events.append(("cycle end", cycle))
    for (na, a), (nb, b) in itertools.pairwise(events):
        if not b > a:
            raise where.error(
                "intervals",
                f"events out of order: {nb} at {b:g} s is not after {na} at {a:g} s "
                "(need 0 = left liftoff < left touchdown < right liftoff < right touchdown < cycle end)",
            )
    phases = (
        ("single support", ltd, MIN_SINGLE_SUPPORT, "left liftoff and left touchdown", "left_swing"),
        ("double support", rlo - ltd, MIN_DOUBLE_SUPPORT, "left touchdown and right liftoff", "intervals"),
        ("single support", rtd - rlo, MIN_SINGLE_SUPPORT, "right liftoff and right touchdown", "right_swing"),
        ("double support", cycle - rtd, MIN_DOUBLE_SUPPORT, "right touchdown and left liftoff", "intervals"),
    )
    for what, duration, minimum, between, field in phases:
        if duration < minimum - _ZERO:
            name = field if field == "intervals" else f"intervals.{field}"
            raise where.error(name, f"{what} {duration:.3g} s is below the minimum {minimum:g} s between {between}")
    return Timing(cycle=cycle, left_touchdown=ltd, right_liftoff=rlo, right_touchdown=rtd)


def _attributes(raw: Any, timing: Timing, where: _Where) -> Attributes:
    obj = _object(raw if raw is not None else {}, where, "attributes", ATTRIBUTES)
    values = {k: _number(obj[k], where, f"attributes.{k}") for k in ATTRIBUTES if k in obj}
    attrs = Attributes(**values)
    if abs(attrs.stance_splay) > MAX_SPLAY:
        raise where.error("attributes.stance_splay", f"{attrs.stance_splay:g} rad exceeds +-{MAX_SPLAY:.3f} rad")
    for k in ("heel_toe_liftoff", "heel_toe_touchdown"):
        v = getattr(attrs, k)
        if v < 0:
            raise where.error(f"attributes.{k}", f"{v:g} s is negative")
        for side in ("left", "right"):
            stance = timing.stance(side)
            if v > MAX_HEEL_TOE_SHARE * stance + _ZERO:
                raise where.error(
                    f"attributes.{k}",
                    f"{v:g} s is more than {MAX_HEEL_TOE_SHARE:.0%} of the {side} foot's stance ({stance:.3g} s)",
                )
    return attrs


def _curve(raw: Any, key: str, where: _Where) -> Curve:
    field = f"curves.{key}"
    if not isinstance(raw, list):
        raise where.error(field, f"expected a list of [u, value] knots, got {type(raw).__name__}")
    knots = np.array([_numbers(k, 2, where, f"{field}[{i}]") for i, k in enumerate(raw)]).reshape(-1, 2)
    u, y = knots[:, 0], knots[:, 1]
    if len(u) and (u.min() < 0 or u.max() > 1):
        raise where.error(field, "knot positions u must lie in [0, 1] (fractions of the curve's interval)")
    if np.any(np.diff(u) <= 0):
        raise where.error(field, "knot positions u must be strictly increasing")
    kind = curve_kind(key)
    if kind == "cycle" and len(u):
        if u[0] != 0.0:
            raise where.error(field, f"a cycle curve's first knot must be at u = 0, got {u[0]:g}")
        if u[-1] == 1.0:
            raise where.error(field, "a cycle curve is periodic: u = 1 is u = 0, leave that knot out")
    if kind == "swing":
        ends = (u == 0.0) | (u == 1.0)
        if np.any(np.abs(y[ends]) > _ZERO):
            raise where.error(field, "a swing curve is clamped to 0 at the swing's ends (u = 0 and 1)")
    if kind == "pitch":
        name = key.split(".", 1)[1]
        lo, hi = _PITCH_RANGE[name]
        if len(y) and (y.min() < lo - _ZERO or y.max() > hi + _ZERO):
            raise where.error(field, f"{name} must stay in [{lo:.4g}, {hi:.4g}] rad")
    curve = Curve(kind, knots)
    if key.endswith(".z") and key.split(".")[0].endswith("_foot"):
        grid = np.linspace(0.0, 1.0, 201)
        z = curve(grid)
        if z.min() < -1e-6:
            i = int(z.argmin())
            raise where.error(
                field,
                f"dips to {100 * z[i]:.2f} cm at u = {grid[i]:.3f}: the swing foot would go below the floor "
                "(add knots where the spline undershoots)",
            )
    return curve


def _curves(raw: Any, where: _Where) -> dict[str, Curve]:
    groups = _object(raw if raw is not None else {}, where, "curves", tuple(CURVE_GROUPS))
    out: dict[str, Curve] = {}
    for group, content in groups.items():
        names = CURVE_GROUPS[group][0]
        for name, knots in _object(content, where, f"curves.{group}", names).items():
            key = f"{group}.{name}"
            out[key] = _curve(knots, key, where)
    for side in ("left_foot", "right_foot"):
        heel = out.get(f"{side}.heel_pitch")
        toe = out.get(f"{side}.toe_pitch")
        if heel is None or toe is None:
            continue
        for u, event in ((0.0, "liftoff"), (1.0, "touchdown")):
            h, t = float(heel(u)), float(toe(u))
            if abs(h) > _ZERO and abs(t) > _ZERO:
                raise where.error(
                    f"curves.{side}",
                    f"heel_pitch ({h:.3g}) and toe_pitch ({t:.3g}) are both non-zero at {event}: "
                    "the foot pivots about its heel or its toe, not both",
                )
    return out


def _velocity(raw: Any, name: str, where: _Where) -> np.ndarray:
    vx, vy, wz = _numbers(raw, 3, where, "velocity")
    rules = {
        "standing": (vx == 0 and vy == 0 and wz == 0, "must be [0, 0, 0]"),
        "forward_slow": (vx > 0 and vy == 0 and wz == 0, "must be [vx > 0, 0, 0]"),
        "forward_fast": (vx > 0 and vy == 0 and wz == 0, "must be [vx > 0, 0, 0]"),
        "backward_slow": (vx < 0 and vy == 0 and wz == 0, "must be [vx < 0, 0, 0]"),
        "backward_fast": (vx < 0 and vy == 0 and wz == 0, "must be [vx < 0, 0, 0]"),
        "turn_left": (vx == 0 and vy == 0 and wz > 0, "must be [0, 0, yaw rate > 0]"),
        "turn_right": (vx == 0 and vy == 0 and wz < 0, "must be [0, 0, yaw rate < 0]"),
        "strafe_left": (vx == 0 and vy > 0 and wz == 0, "must be [0, vy > 0, 0]"),
        "strafe_right": (vx == 0 and vy < 0 and wz == 0, "must be [0, vy < 0, 0]"),
    }
    ok, rule = rules[name]
    if not ok:
        raise where.error("velocity", f"{rule}, got [{vx:g}, {vy:g}, {wz:g}]")
    return np.array([vx, vy, wz])


def _sample(raw: Any, name: str, where: _Where) -> GaitSample:
    obj = _object(raw, where, "sample", ("velocity", "intervals", "attributes", "curves", "description"))
    for k in ("velocity", "intervals"):
        if k not in obj:
            raise where.error(k, "missing")
    velocity = _velocity(obj["velocity"], name, where)
    timing = _timing(obj["intervals"], where)
    attrs = _attributes(obj.get("attributes"), timing, where)
    curves = _curves(obj.get("curves"), where)
    return GaitSample(name=name, velocity=velocity, timing=timing, attributes=attrs, curves=curves)


def style_from_dict(raw: Any, *, source: str = "<style>") -> Style:
    """Build and validate a Style from its JSON object; StyleError names the sample and field."""
    where = _Where(source)
    obj = _object(raw, where, "style", ("format", "version", "name", "description", "samples"))
    if obj.get("format", FORMAT) != FORMAT:
        raise where.error("format", f"expected {FORMAT!r}, got {obj['format']!r}")
    if obj.get("version", VERSION) != VERSION:
        raise where.error("version", f"version {obj['version']!r} is not supported (this kinemorph reads {VERSION})")
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise where.error("name", "missing (a non-empty string)")
    description = obj.get("description", "")
    samples_raw = _object(obj.get("samples"), where, "samples")
    unknown = [k for k in samples_raw if k not in KEY_SAMPLES]
    if unknown:
        raise where.error("samples", f"unknown sample {unknown[0]!r}; valid: {', '.join(KEY_SAMPLES)}")
    missing = [k for k in KEY_SAMPLES if k not in samples_raw]
    if missing:
        raise where.error(
            "samples", f"missing key sample {missing[0]!r} (a style needs all of: {', '.join(KEY_SAMPLES)})"
        )
    samples = {}
    for k in KEY_SAMPLES:
        where.sample = k
        samples[k] = _sample(samples_raw[k], k, where)
    where.sample = None
    x = [samples[k].velocity[0] for k in ("backward_fast", "backward_slow", "standing", "forward_slow", "forward_fast")]
    if not np.all(np.diff(x) > 0):
        raise where.error(
            "samples",
            "forward/backward velocities must increase: "
            "backward_fast < backward_slow < 0 < forward_slow < forward_fast",
        )
    return Style(name=name, description=str(description), samples=samples, source=source)


# -- files --------------------------------------------------------------------------------------
def read_style(path: str | Path) -> Style:
    """Read and validate a style file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise StyleError(f"{p}: cannot read style file: {exc.strerror or exc}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StyleError(f"{p}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    return style_from_dict(raw, source=str(p))


def load_style(name_or_path: str | Path) -> Style:
    """A packaged style by name (see :func:`style_names`) or a style file (.json)."""
    s = str(name_or_path)
    if s in style_names():
        text = (_styles_folder() / f"{s}.json").read_text(encoding="utf-8")
        return style_from_dict(json.loads(text), source=f"style {s!r}")
    if s.lower().endswith(".json") or Path(s).is_file():
        return read_style(s)
    raise UnknownNameError("gait style", s, [*style_names(), "<path to .json>"])
