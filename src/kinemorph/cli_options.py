"""Command-line options generated from config dataclasses: one definition, no hand-copied flags.

Each field of an engine's config becomes ``--field-name`` with the field's type, default and the
help text from the "Attributes:" section of the dataclass docstring.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import types
import typing
from typing import Any


def _field_help(cls: type) -> dict[str, str]:
    doc = cls.__doc__ or ""
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


def _scalar_type(annotation: Any) -> tuple[type, bool]:
    """(base type, optional) of a field annotation such as float, int, str, float | None."""
    if isinstance(annotation, str):
        annotation = eval(annotation, {"float": float, "int": int, "str": str, "bool": bool, "None": None})
    args = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        non_none = [a for a in args if a is not type(None)]
        return non_none[0], len(non_none) < len(args)
    return annotation, False


def add_config_options(parser: argparse.ArgumentParser, cls: type, *, group: str | None = None) -> None:
    """Add one option per field of the dataclass ``cls``. A field name another config already
    added (e.g. ``damping`` in two engines) is added once and serves both."""
    target: Any = parser.add_argument_group(group) if group else parser
    helps = _field_help(cls)
    taken = {a.dest for a in parser._actions}
    for f in dataclasses.fields(cls):
        if f.name in taken:
            continue
        typ, optional = _scalar_type(f.type)
        flag = "--" + f.name.replace("_", "-")
        default = f.default
        help_text = helps.get(f.name, "")
        if typ is bool:
            target.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=help_text)
        else:
            shown = "none" if default is None else default
            target.add_argument(
                flag,
                type=typ,
                default=None,
                metavar=typ.__name__.upper(),
                help=f"{help_text} [default: {shown}]" + (" (optional)" if optional else ""),
            )


def config_from_args(cls: type, args: argparse.Namespace, base: Any = None) -> Any:
    """Build ``cls`` from parsed options; options left unset keep the base config's values."""
    base = base if base is not None else cls()
    changes = {}
    for f in dataclasses.fields(cls):
        v = getattr(args, f.name, None)
        if v is not None:
            changes[f.name] = v
    return dataclasses.replace(base, **changes)
