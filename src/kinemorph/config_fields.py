"""What a config dataclass's fields are: name, base type, optional or not, help text and default.

One reading of the engine and tool configs serves every face: the CLI's options
(kinemorph.cli._options) and the app's forms (kinemorph.app.forms) are generated from it. Help
text comes from the "Attributes:" sections of the class's docstring and its bases' docstrings
(shared settings such as :class:`kinemorph.retarget.settings.IkSettings` document their fields
once).
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FieldSpec:
    """One config field.

    Attributes:
        name: the field's name.
        type: its base type: float, int, str or bool.
        optional: whether None is allowed.
        help: the field's line(s) from the Attributes section.
        default: the class's default value.
    """

    name: str
    type: type
    optional: bool
    help: str
    default: Any


def _attributes(doc: str) -> dict[str, str]:
    out: dict[str, str] = {}
    if "Attributes:" not in doc:
        return out
    body = doc.split("Attributes:", 1)[1]
    current = None
    for line in body.splitlines():
        m = re.match(r"^\s{8}(\w+):\s*(.*)$", line)
        if m:
            current = m.group(1)
            out[current] = m.group(2).strip()
        elif current and line.strip():
            out[current] += " " + line.strip()
    return out


def field_help(cls: type) -> dict[str, str]:
    """Help per field name, from the class's docstring, then its bases' (the nearest wins)."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        out.update(_attributes(klass.__dict__.get("__doc__") or ""))
    return out


def scalar_type(annotation: Any) -> tuple[type, bool]:
    """(base type, optional) of a field annotation such as float, int, str, float | None."""
    if isinstance(annotation, str):
        annotation = eval(annotation, {"float": float, "int": int, "str": str, "bool": bool, "None": None})
    args = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        non_none = [a for a in args if a is not type(None)]
        return non_none[0], len(non_none) < len(args)
    return annotation, False


def field_specs(cls: type) -> list[FieldSpec]:
    """Every field of the dataclass ``cls``, in declaration order."""
    helps = field_help(cls)
    out = []
    for f in dataclasses.fields(cls):
        typ, optional = scalar_type(f.type)
        out.append(FieldSpec(f.name, typ, optional, helps.get(f.name, ""), f.default))
    return out


_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def _scalar(text: str, kind: type, optional: bool) -> Any:
    """``text`` as a value of a scalar field (ValueError when it is none)."""
    if optional and text.lower() == "none":
        return None
    if kind is bool:
        if text.lower() not in _TRUE + _FALSE:
            raise ValueError(f"{text!r} is not true or false")
        return text.lower() in _TRUE
    return kind(text)


def _scalar_spec(cls: type, name: str) -> FieldSpec | None:
    """The field's spec when it is a scalar (float, int, str, bool, optionally None), else None."""
    for f in dataclasses.fields(cls):
        if f.name == name:
            try:
                kind, optional = scalar_type(f.type)
            except Exception:  # a tuple, an array, a config class: not given as one value
                return None
            return FieldSpec(name, kind, optional, "", f.default) if kind in (bool, int, float, str) else None
    return None


def apply_settings(config: Any, settings: typing.Sequence[str], *, option: str = "--set") -> Any:
    """``config`` (a frozen dataclass) with settings "part.field=value" applied, e.g.
    ``stepping.hold.enabled=true`` on a ControlConfig: each part names a nested config, the last
    a scalar field (bool: true/false, int, float, str; an optional one also takes "none"). The
    configs' own checks run on the result. ConfigError names a setting that is malformed, names no
    scalar field, or has a bad value."""
    from .errors import ConfigError

    for item in settings:
        key, eq, text = item.partition("=")
        *parts, name = key.split(".")
        if not eq or not name:
            raise ConfigError(f"{option} {item!r}: expected PART.FIELD=VALUE, e.g. stepping.enabled=true")
        chain = [config]
        for part in parts:
            inner = getattr(chain[-1], part, None)
            if not (dataclasses.is_dataclass(inner) and part in {f.name for f in dataclasses.fields(chain[-1])}):
                raise ConfigError(f"{option} {item!r}: {type(chain[-1]).__name__} has no part {part!r}")
            chain.append(inner)
        spec = _scalar_spec(type(chain[-1]), name)
        if spec is None:
            raise ConfigError(f"{option} {item!r}: {type(chain[-1]).__name__} has no setting {name!r}")
        try:
            new: Any = dataclasses.replace(chain[-1], **{name: _scalar(text, spec.type, spec.optional)})
            for outer, part in zip(reversed(chain[:-1]), reversed(parts)):
                new = dataclasses.replace(outer, **{part: new})
        except ConfigError as exc:
            raise ConfigError(f"{option} {item!r}: {exc}") from None
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{option} {item!r}: bad value ({exc})") from None
        config = new
    return config
