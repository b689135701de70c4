"""``kinemorph robots``: the robots known by name."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("robots", help="list the robots known by name")
    p.add_argument("--load", action="store_true", help="load each model and show its joint count")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..robots import KNOWN_ROBOTS, load_robot

    print(f"{'name':<14} {'family':<10} {'feet':<50} default mappings")
    for name, info in KNOWN_ROBOTS.items():
        extra = ""
        if args.load:
            r = load_robot(name)
            extra = f"  ({r.num_dofs} joints, {r.path})"
        print(f"{name:<14} {info.family:<10} {', '.join(info.feet):<50} {', '.join(info.mappings) or '-'}{extra}")
    print("Any MJCF (.xml) or URDF (.urdf) path is accepted too.")
    return 0
