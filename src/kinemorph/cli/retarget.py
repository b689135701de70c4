"""``kinemorph retarget``: one clip onto one robot, with its quality table."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ._common import add_engine_options, engine_options, robot_help
from ._source import add_source_options, load_cli_source
from .convert import format_help


def register(sub: Any) -> None:
    from ..io import EXPORT_FORMATS

    p = sub.add_parser("retarget", help="retarget a motion file onto a robot")
    p.add_argument("input", type=Path, help="motion file (.bvh, keypoint .npz)")
    p.add_argument("--robot", required=True, help=robot_help())
    p.add_argument(
        "-o", "--output", type=Path, required=True, help="output file; its name picks the format (see --format)"
    )
    p.add_argument("--format", choices=list(EXPORT_FORMATS), help=format_help())
    p.add_argument("--force", action="store_true", help="overwrite existing outputs")
    p.add_argument("--report", type=Path, help="also save the quality report as JSON")
    p.add_argument("--plot", type=Path, help="also save a PNG of per-frame tracking error and joint curves")
    p.add_argument(
        "--save-mapping", type=Path, metavar="FILE",
        help="also save the mapping used (e.g. the automatic one of a robot kinemorph has never seen) for review",
    )  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bar or table")
    p.add_argument(
        "--simulate",
        action="store_true",
        help="also judge physical feasibility in MuJoCo (inverse dynamics and a torque replay; see "
        "`kinemorph simulate`); the verdict is printed and joins --report",
    )
    add_engine_options(p)
    add_source_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..pipeline import Outputs, RetargetJob, run_job
    from ..progress import ProgressBar
    from ..retarget import timing_summary

    t0 = time.perf_counter()
    source, robot, mapping = load_cli_source(args.input, args.preset, args), args.robot, args.mapping
    if args.save_mapping is not None:
        robot, mapping = _mapping_to_save(args, source)
    job = RetargetJob(
        source,
        robot,
        mapping,
        engine=args.engine,
        options=engine_options(args),
        compat=args.compat,
        preset=args.preset,
        simulate=args.simulate,
        cleanup=args.cleanup,
        outputs=Outputs((args.output,), report=args.report, plot=args.plot, force=args.force, format=args.format),
    )
    bar = None if args.quiet else ProgressBar(f"retarget {args.input.name} -> {Path(args.robot).stem}")
    done = run_job(job, progress=bar)
    if args.save_mapping is not None:
        mapping.save(args.save_mapping, force=True)  # checked before the job ran
    for warning in done.result.solve_info.warnings:
        print(f"kinemorph: warning: {warning}", file=sys.stderr)
    if not args.quiet and done.report is not None:
        print(done.report.table())
        if done.physics is not None:
            print(done.physics.summary())
        print(f"{timing_summary(done.result)}; total {time.perf_counter() - t0:.2f} s -> {args.output}")
    return 0


def _mapping_to_save(args: argparse.Namespace, motion: Any) -> tuple[Any, Any]:
    """The robot and the mapping the job will use (--mapping, else the default one: shipped or
    automatic), resolved before the job so that --save-mapping writes exactly it."""
    from ..errors import KinemorphError, OutputExistsError
    from ..mapping.mapping import default_mapping
    from ..pipeline import load_job_mapping, load_job_robot

    if args.save_mapping.exists() and not args.force:
        raise OutputExistsError(f"{args.save_mapping} exists (pass --force to overwrite)")
    if args.engine == "quadruped" or (args.engine == "auto" and motion.family == "quadruped"):
        raise KinemorphError(
            "--save-mapping: the quadruped engine's natural mode uses no mapping (the recognised legs)"
        )
    robot = load_job_robot(args.robot)
    return robot, load_job_mapping(args.mapping) or default_mapping(motion, robot)
