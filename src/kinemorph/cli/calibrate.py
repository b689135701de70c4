"""``kinemorph calibrate``: a mapping's scales and rotation offsets from rest poses."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("calibrate", help="derive a mapping's scales and rotation offsets from rest poses")
    p.add_argument("input", type=Path, help="source motion with a standing frame (.bvh)")
    p.add_argument("--robot", required=True)
    p.add_argument("--mapping", type=Path, help="template mapping (default: the robot's shipped one)")
    p.add_argument("--frame", type=int, help="rest frame (default: the most neutral standing frame)")
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument("--force", action="store_true")
    from ._source import add_source_options

    add_source_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._files import check_writable
    from ..mapping.calibrate import calibrate
    from ..mapping.landmarks import calibrate_default
    from ..pipeline import load_job_mapping, load_job_robot

    check_writable(args.output, force=args.force)
    from ._source import load_cli_source

    motion = load_cli_source(args.input, "auto", args)
    robot = load_job_robot(args.robot)
    template = load_job_mapping(args.mapping)
    if template is None:  # the default: for a recognised rig, the landmark path retarget uses
        mapping, cal = calibrate_default(motion, robot, frame=args.frame)
    else:
        mapping, cal = calibrate(template, motion, robot, frame=args.frame)
    mapping.save(args.output, force=args.force)
    print(f"rest frame {cal.frame}, stature {cal.stature:.3f} m; offset residuals [deg]:")
    for body, deg in cal.snap_deg.items():
        print(f"  {body:<28} {deg:5.1f}")
    print(f"-> {args.output}")
    return 0
