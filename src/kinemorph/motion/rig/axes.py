"""Up axis, units and floor: parsing the user's overrides and detecting them from poses."""

from __future__ import annotations

import numpy as np

from ...errors import ConfigError

NAMED_UNITS: dict[str, float] = {
    "m": 1.0,
    "cm": 0.01,
    "mm": 0.001,
    "inch": 0.0254,
    "ft": 0.3048,
    "cmu": 0.0254 / 0.45,
}
"""Metres per unit. "cmu" is the CMU ASF/AMC length unit (1/0.45 inch, about 5.64 cm) kept by the
widely used cgspeed BVH conversion of the CMU database."""

_ALIASES = {"in": "inch", "inches": "inch", "feet": "ft", "foot": "ft", "metre": "m", "meter": "m"}
UP_AXES = ("x", "y", "z", "-x", "-y", "-z")

HUMAN_STATURE = (1.2, 2.1)
"""Statures [m] a detected unit must give (adults and older children)."""
PLAUSIBLE_STATURE = (1.0, 2.3)
"""Outside this [m] a stature is reported as implausible (a warning, an error under strict or
with a unit the user gave)."""
QUADRUPED_HIP_HEIGHT = (0.08, 3.5)
"""Hip heights [m] of animals from cats to elephants."""


def parse_unit(unit: str | float) -> tuple[str, float]:
    """(name, metres per unit) of "m", "cm", "mm", "inch", "ft", "cmu", or a number of metres."""
    if isinstance(unit, (int, float)) and not isinstance(unit, bool):
        value = float(unit)
        name = f"{value:g} m"
    else:
        s = str(unit).strip().lower()
        s = _ALIASES.get(s, s)
        if s in NAMED_UNITS:
            return s, NAMED_UNITS[s]
        try:
            value = float(s)
        except ValueError:
            raise ConfigError(
                f"unknown unit {unit!r}; valid: {', '.join(NAMED_UNITS)} or a number of metres per unit"
            ) from None
        name = f"{value:g} m"
    if not np.isfinite(value) or value <= 0:
        raise ConfigError(f"unit must be a positive number of metres per unit, got {unit!r}")
    return name, value


def parse_up(up: str) -> np.ndarray:
    """The unit vector of "x", "y", "z", "-x", "-y" or "-z" ("+y" is accepted)."""
    s = str(up).strip().lower().lstrip("+")
    if s not in UP_AXES:
        raise ConfigError(f"unknown up axis {up!r}; valid: {', '.join(UP_AXES)}")
    v = np.zeros(3)
    v["xyz".index(s[-1])] = -1.0 if s.startswith("-") else 1.0
    return v


def axis_name(v: np.ndarray) -> str:
    i = int(np.argmax(np.abs(v)))
    return ("-" if v[i] < 0 else "") + "xyz"[i]


def snap_axis(v: np.ndarray) -> np.ndarray:
    """The coordinate axis (signed) nearest to direction v."""
    out = np.zeros(3)
    i = int(np.argmax(np.abs(v)))
    out[i] = np.sign(v[i]) or 1.0
    return out


def to_z_up(up: np.ndarray) -> np.ndarray:
    """Rotation (3x3) taking the signed coordinate axis ``up`` onto +z by the smallest turn
    (y-up gives x -> x, y -> z, z -> -y, as the lafan1 preset does)."""
    u = snap_axis(up)
    z = np.array([0.0, 0.0, 1.0])
    if u[2] > 0:
        return np.eye(3)
    if u[2] < 0:
        return np.diag([1.0, -1.0, -1.0])
    axis = np.cross(u, z)
    # 90 deg about axis (Rodrigues with sin 1, cos 0)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + k + k @ k


ANIMAL_UNITS = ("m", "cm", "mm", "inch")
"""Units tried for animals, in order: the first giving a plausible hip height wins (animal sizes
span a wider range than a unit step, so nearest-to-typical would pick feet for an elephant in m)."""

STATURE_RATIOS = {"shoulder": 0.818, "hip": 0.530, "head": 0.90}
"""Height of a landmark over stature (Drillis and Contini's segment proportions: acromion 0.818,
greater trochanter 0.530; the head joint of mocap rigs sits at about 0.90, at the skull's base)."""


def pick_unit(
    height: float, plausible: tuple[float, float], typical: float, *, order: tuple[str, ...] | None = None
) -> tuple[str, float] | None:
    """The named unit giving a height in ``plausible`` nearest (in ratio) to ``typical``, or None.
    With ``order``: the first unit of that order giving a plausible height."""
    if order is not None:
        for name in order:
            if plausible[0] <= height * NAMED_UNITS[name] <= plausible[1]:
                return name, NAMED_UNITS[name]
        return None
    best = None
    for name, s in NAMED_UNITS.items():
        h = height * s
        if plausible[0] <= h <= plausible[1]:
            d = abs(np.log(h / typical))
            if best is None or d < best[0]:
                best = (d, name, s)
    return None if best is None else (best[1], best[2])


def floor_height(heights: np.ndarray) -> float:
    """The plane the feet return to: a low quantile over frames of the lowest foot point.

    heights: per frame, the lowest foot point's height. Shape: (K,)."""
    return float(np.quantile(heights, 0.1))
