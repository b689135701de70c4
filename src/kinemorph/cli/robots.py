"""``kinemorph robots``: every robot model kinemorph can find, or what it recognises in one."""

from __future__ import annotations

import argparse
import warnings
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "robots",
        help="list the robots kinemorph can find (registry, MENAGERIE_ROOT, KINEMORPH_ROBOTS folders)",
    )
    p.add_argument(
        "--describe", metavar="PATH", help="print what recognition finds in a model (name or MJCF/URDF path)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.describe:
        return _describe(args.describe)
    from ..robots.gallery import gallery

    entries = gallery()
    print(f"{'name':<24} {'source':<17} {'family':<10} {'dofs':>4}  path / note")
    for e in entries:
        dofs = "-" if e.dofs < 0 else str(e.dofs)
        where = " ".join(x for x in (e.path, f"({e.note})" if e.note else "") if x)
        print(f"{e.name:<24} {e.source:<17} {e.family:<10} {dofs:>4}  {where}")
    print("Any MJCF (.xml) or URDF (.urdf) path is accepted too (--describe PATH shows what is recognised).")
    return 0


def _describe(name: str) -> int:
    from ..robots import load_robot
    from ..robots.describe import describe
    from ..robots.recognised import RobotWarning, require_recognition

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobotWarning)  # describe prints them
        robot = load_robot(name)
    rec = require_recognition(robot)
    print(describe(rec, name=robot.name, path=str(robot.path), dofs=robot.num_dofs))
    return 0
