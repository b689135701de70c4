"""Command-line options generated from config dataclasses: one definition, no hand-copied flags.

Each field of a config becomes ``--field-name`` with the field's type, default and the help text
from the "Attributes:" sections of the dataclass's docstrings (kinemorph.config_fields). A field
several configs share (``damping`` in every IK engine) is one option whose help lists each
config's default.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from typing import Any

from ..config_fields import FieldSpec, field_specs


def add_config_options(parser: argparse.ArgumentParser, cls: type, *, group: str | None = None) -> None:
    """Add one option per field of the dataclass ``cls``."""
    add_shared_config_options(parser, [(group or "", cls)], title="{}")


def add_shared_config_options(
    parser: argparse.ArgumentParser, configs: Sequence[tuple[str, type]], *, title: str = "{} options"
) -> None:
    """Options for several configs at once, e.g. every engine's: ``configs`` holds (label, class)
    pairs; each option lands in the group of the first config that has the field, and its help
    shows each config's default where they differ ("[default: gmr 1.0, quadruped 0.01]")."""
    taken = {a.dest for a in parser._actions}
    seen: dict[str, list[tuple[str, FieldSpec]]] = {}
    order: list[tuple[str, str]] = []
    for label, cls in configs:
        for spec in field_specs(cls):
            if spec.name in taken:
                continue
            if spec.name not in seen:
                seen[spec.name] = []
                order.append((label, spec.name))
            seen[spec.name].append((label, spec))
    groups: dict[str, Any] = {}
    for label, name in order:
        if label not in groups:
            groups[label] = parser.add_argument_group(title.format(label)) if label else parser
        _add_option(groups[label], seen[name])


def _shown(value: Any) -> str:
    return "none" if value is None else str(value)


def _add_option(target: Any, owners: list[tuple[str, FieldSpec]]) -> None:
    spec = owners[0][1]
    flag = "--" + spec.name.replace("_", "-")
    if spec.type is bool:
        target.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=spec.help)
        return
    defaults = {_shown(s.default) for _, s in owners}
    if len(defaults) == 1:
        shown = _shown(spec.default)
    else:
        shown = ", ".join(f"{label} {_shown(s.default)}" for label, s in owners)
    target.add_argument(
        flag,
        type=spec.type,
        default=None,
        metavar=spec.type.__name__.upper(),
        help=f"{spec.help} [default: {shown}]" + (" (optional)" if spec.optional else ""),
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


def config_overrides(cls: type, args: argparse.Namespace) -> dict[str, Any]:
    """The fields of ``cls`` the command line set (for a job that builds the config itself)."""
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if getattr(args, f.name, None) is not None}
