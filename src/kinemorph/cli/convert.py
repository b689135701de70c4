"""``kinemorph convert IN OUT``: a result file into another format (by OUT's name or --format),
keeping its robot, joint order and metadata; a --robot whose joints differ is refused."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def format_help() -> str:
    """--format's help: every format's name and file name ending."""
    from ..io import EXPORT_FORMATS

    return "output format: " + ", ".join(f"{n} ({f.suffix})" for n, f in EXPORT_FORMATS.items())


def register(sub: Any) -> None:
    from ..io import EXPORT_FORMATS

    lines = "\n".join(f"  {n:<12} {f.suffix:<17} {f.description}" for n, f in EXPORT_FORMATS.items())
    p = sub.add_parser(
        "convert",
        help="convert a result file between formats (GMR, BeyondMimic, MimicKit, holosoma, mjlab...)",
        description=__doc__ + "\n\nFormats (name, file name ending, layout):\n" + lines,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("input", type=Path, help="a result file in any format")
    p.add_argument("output", type=Path, help="the file to write; its name's ending picks the format")
    p.add_argument("--format", choices=list(EXPORT_FORMATS), help="output format (overrides OUT's name)")
    p.add_argument("--from", dest="source_format", choices=list(EXPORT_FORMATS), help="input format [default: detect]")
    p.add_argument("--robot", help="robot name or MJCF/URDF path [default: the one the file names]")
    p.add_argument("--force", action="store_true", help="overwrite OUT")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..io import convert

    done = convert(
        args.input,
        args.output,
        format=args.format,
        source_format=args.source_format,
        robot=args.robot,
        force=args.force,
    )
    for w in done.warnings:
        print(f"kinemorph: warning: {w}", file=sys.stderr)
    print(f"{done.source} ({done.source_format}) -> {done.output} ({done.output_format}), {done.num_frames} frames")
    return 0
