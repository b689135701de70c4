"""Styles as JSON: the writer beside schema.py's validating reader (same layout; a written style
reads back equal)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .._files import write_text_atomic
from .schema import FORMAT, VERSION
from .splines import Curve
from .style import ATTRIBUTES, Style


def _knots(c: Curve) -> list[list[float]]:
    return [[float(u), float(v)] for u, v in np.asarray(c.knots).reshape(-1, 2)]


def style_to_dict(style: Style) -> dict[str, Any]:
    """The JSON object of a style (inverse of :func:`style_from_dict`); zero curves are left out."""
    samples: dict[str, Any] = {}
    for s in style.ordered():
        t = s.timing
        curves: dict[str, dict[str, Any]] = {}
        for key, c in s.curves.items():
            if len(c.knots):
                group, name = key.split(".", 1)
                curves.setdefault(group, {})[name] = _knots(c)
        samples[s.name] = {
            "velocity": [float(v) for v in s.velocity],
            "intervals": {
                "cycle": [0.0, t.cycle],
                "left_swing": [0.0, t.left_touchdown],
                "right_swing": [t.right_liftoff, t.right_touchdown],
            },
            "attributes": {a: float(getattr(s.attributes, a)) for a in ATTRIBUTES},
            "curves": curves,
        }
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": style.name,
        "description": style.description,
        "samples": samples,
    }


def _dump(obj: Any, indent: int = 0) -> str:
    """JSON with objects indented and lists of numbers (and of knots) on one line."""
    pad = "  " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad}  {json.dumps(k)}: {_dump(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    return json.dumps(obj, separators=(", ", ": "))


def style_to_json(style: Style) -> str:
    return _dump(style_to_dict(style)) + "\n"


def save_style(style: Style, path: str | Path, *, force: bool = False) -> Path:
    """Write a style file atomically."""
    return write_text_atomic(path, style_to_json(style), force=force)
