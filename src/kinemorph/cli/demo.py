"""``kinemorph demo``: the main job on an embedded default (a generated walk onto Unitree G1)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="the main job on an embedded default: a generated walk onto Unitree G1")
    p.add_argument("--out", type=Path, default=Path("kinemorph-demo"), help="output folder [default: ./kinemorph-demo]")
    p.add_argument("--robot", default="unitree_g1")
    p.add_argument("--force", action="store_true", help="overwrite the folder's files")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    run_demo(args.out, robot_name=args.robot, force=args.force)
    return 0
