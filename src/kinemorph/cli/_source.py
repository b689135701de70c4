"""Options for reading a source motion (--unit, --up, --strict, --fps, --body-model), shared by the
subcommands that read one (rig warnings reach the user through kinemorph.cli.main)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_source_options(p: Any) -> None:
    from ..motion.rig import UP_AXES

    g = p.add_argument_group("reading the source")
    g.add_argument(
        "--unit", help="source length unit: m, cm, mm, inch, ft, cmu, or metres per unit [default: detected]"
    )
    g.add_argument("--up", choices=UP_AXES, help="source up axis [default: detected]")
    g.add_argument("--strict", action="store_true", help="refuse a source whose size looks implausible")
    g.add_argument("--fps", type=float, help="resample the source to this frame rate first")
    g.add_argument("--body-model", type=Path, help="SMPL/SMPL-H/SMPL-X model file or folder (AMASS .npz sources)")
    g.add_argument(
        "--landmarks", type=Path, help='JSON {"pelvis": joint, "hip_l": joint, ...} for a rig not recognised'
    )


def source_options(args: argparse.Namespace) -> dict[str, Any]:
    """load_motion's keyword options from the parsed arguments."""
    return {
        "unit": getattr(args, "unit", None),
        "up": getattr(args, "up", None),
        "strict": bool(getattr(args, "strict", False)),
        "fps": getattr(args, "fps", None),
        "body_model": getattr(args, "body_model", None),
        "landmarks": getattr(args, "landmarks", None),
    }


def load_cli_source(path: Path, preset: str, args: argparse.Namespace) -> Any:
    """The motion, read with the command's source options. Rig warnings are Python warnings: the
    command's main prints them after it succeeds, one "kinemorph: warning:" line each."""
    from ..motion import load_motion

    return load_motion(path, preset, **source_options(args))
