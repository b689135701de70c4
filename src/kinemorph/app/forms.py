"""Config dataclasses as forms: one widget per field, generated from the same dataclasses (and
docstrings) the CLI's options come from. Parsing is plain Python, tested without a browser."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ..config_fields import FieldSpec, field_specs
from ..errors import ConfigError


def parse_value(spec: FieldSpec, raw: Any) -> Any:
    """A widget's value as the field's type; an optional field takes "" (or "none") as None."""
    if spec.type is bool:
        return bool(raw)
    if isinstance(raw, str):
        text = raw.strip()
        if spec.optional and text.lower() in ("", "none"):
            return None
        if spec.type is str:
            return text
        try:
            value = float(text)
        except ValueError:
            raise ConfigError(f"{spec.name}: {raw!r} is not a number") from None
    else:
        value = raw
    if spec.type is int:
        if not float(value).is_integer():
            raise ConfigError(f"{spec.name}: expected a whole number, got {value}")
        return int(value)
    if spec.type is float:
        if not math.isfinite(float(value)):
            if not (_unbounded(spec) and float(value) == math.inf):  # "inf" means no limit there
                raise ConfigError(f"{spec.name}: {value} is not finite")
        return float(value)
    return value


def _unbounded(spec: FieldSpec) -> bool:
    """A float field whose default is inf (e.g. max_joint_speed: no limit) takes inf."""
    return spec.type is float and isinstance(spec.default, float) and spec.default == math.inf


def apply_values(config: Any, raw: dict[str, Any]) -> Any:
    """A new config with the widget values (validated by the dataclass); ConfigError says which field."""
    specs = {s.name: s for s in field_specs(type(config))}
    changes = {name: parse_value(specs[name], value) for name, value in raw.items() if name in specs}
    try:
        return dataclasses.replace(config, **changes)
    except (TypeError, ValueError) as exc:
        raise ConfigError(str(exc)) from None


def add_form(gui: Any, config: Any) -> dict[str, Any]:
    """A widget per field of ``config`` (number, checkbox or text), holding its current value."""
    handles: dict[str, Any] = {}
    for spec in field_specs(type(config)):
        value = getattr(config, spec.name)
        hint = spec.help or None
        if spec.type is bool:
            handles[spec.name] = gui.add_checkbox(spec.name, initial_value=bool(value), hint=hint)
        elif spec.optional or spec.type is str or _unbounded(spec):
            handles[spec.name] = gui.add_text(spec.name, initial_value="" if value is None else str(value), hint=hint)
        elif spec.type is int:
            handles[spec.name] = gui.add_number(spec.name, initial_value=int(value), step=1, hint=hint)
        else:
            step = 10 ** math.floor(math.log10(abs(value))) / 10 if value else 0.01
            handles[spec.name] = gui.add_number(spec.name, initial_value=float(value), step=step, hint=hint)
    return handles
