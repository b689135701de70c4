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
