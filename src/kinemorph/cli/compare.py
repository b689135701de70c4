"""``kinemorph compare``: several engines on one clip, side by side."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("compare", help="run several engines on one clip: relation, foot and speed figures")
    p.add_argument("input", type=Path, help="motion file (.bvh)")
    p.add_argument("--robot", required=True)
    p.add_argument("--engines", default="gmr,mesh,graph", help="comma-separated engine names [default: gmr,mesh,graph]")
    p.add_argument("--mapping", type=Path)
    p.add_argument("--plot", type=Path, help="PNG of SRP over time per engine")
    p.add_argument("--json", type=Path, help="save the figures as JSON")
    p.add_argument("--force", action="store_true")
    p.add_argument(
        "--simulate", action="store_true", help="also judge each engine's output for physical feasibility in MuJoCo"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._files import check_writable, write_text_atomic
    from ..compare import compare_engines, comparison_table
    from ..pipeline import load_job_mapping, load_job_robot, load_source

    for out in (args.plot, args.json):
        if out is not None:
            check_writable(out, force=args.force)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if not engines:
        from ..errors import UnknownNameError
        from ..retarget import ENGINES

        raise UnknownNameError("engine list", args.engines, ENGINES, where="--engines (comma-separated names)")
    motion = load_source(args.input)
    robot = load_job_robot(args.robot)
    runs = compare_engines(motion, robot, engines, mapping=load_job_mapping(args.mapping))
    print(comparison_table(runs))
    figures: dict[str, dict[str, Any]] = {r.engine: dict(r.figures) for r in runs}
    if args.simulate:
        from ..sim import simulate
        from ..sim.files import report_json

        for r in runs:
            verdict = simulate(r.result, robot)
            print(f"{r.engine}: {verdict.summary()}")
            figures[r.engine]["physics"] = json.loads(report_json(verdict))
    if args.json:
        write_text_atomic(args.json, json.dumps(figures, indent=2) + "\n", force=args.force)
    if args.plot:
        from ..plot import plot_srp

        plot_srp(runs, motion.fps, args.plot, force=args.force)
    return 0
