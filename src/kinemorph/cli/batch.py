"""``kinemorph batch``: retarget a whole dataset into one folder (local process pool or Ray).

Exit codes: 0 every input is done (retargeted now or up to date); 2 bad input (no matching
file, a bad option, an unknown robot...; nothing is written); 3 partial failure (some inputs
failed: their messages are in the manifest and printed); 130 interrupted (finished files are
kept and recorded; rerun the same command to do the rest).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import EXIT_INTERRUPTED
from ._common import add_engine_options, engine_options, robot_help
from ._source import add_source_options, source_options
from .convert import format_help

EXIT_OK = 0
EXIT_PARTIAL = 3


def _format(text: str) -> str:
    return text.lower().lstrip(".")


def register(sub: Any) -> None:
    """Register the ``batch`` subcommand; engine options come from the engines' config dataclasses."""
    from ..io import EXPORT_FORMATS

    p = sub.add_parser(
        "batch",
        help="retarget many files (a dataset) into one folder; resumable",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("inputs", nargs="+", help="motion files or quoted glob patterns ('clips/**/*.bvh')")
    p.add_argument("--robot", required=True, help=robot_help())
    p.add_argument("--out", type=Path, required=True, help="output folder: outputs, manifest.jsonl, summary.csv")
    p.add_argument(
        "--format",
        type=_format,
        default="npz",
        choices=list(EXPORT_FORMATS),
        help=format_help() + " [default: npz]; the output keeps the input's relative path",
    )
    p.add_argument("--workers", type=int, help="worker processes [default: the CPU cores]; with --ray: tasks in flight")
    p.add_argument(
        "--ray",
        metavar="auto|ADDRESS",
        help="run on Ray (pip install 'kinemorph[ray]'): 'auto' (RAY_ADDRESS, a cluster started here, "
        "else a local Ray) or a cluster address such as HEAD_IP:6379",
    )
    p.add_argument("--force", action="store_true", help="redo every input, even those whose output is up to date")
    p.add_argument("--quiet", action="store_true", help="no progress bar, only failures")
    add_engine_options(p)
    add_source_options(p)
    p.set_defaults(func=run)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (e.g. a job scheduler stopping the run) ends the batch like Ctrl-C."""

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave SIGTERM alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(args: argparse.Namespace) -> int:
    from ..batch.progress import FileProgressBar
    from ..batch.runner import run_batch

    bar = None if args.quiet else FileProgressBar(f"batch -> {Path(args.robot).stem}")
    try:
        with _sigterm_as_interrupt():
            result = run_batch(
                args.inputs,
                args.out,
                robot=args.robot,
                engine=args.engine,
                options=engine_options(args),
                compat=args.compat,
                source_options=source_options(args),
                cleanup=args.cleanup,
                mapping=args.mapping,
                preset=args.preset,
                format=args.format,
                workers=args.workers,
                ray=args.ray,
                force=args.force,
                progress=bar,
            )
    except KeyboardInterrupt:
        print(
            f"\nkinemorph: interrupted; finished files are kept and recorded in {args.out / 'manifest.jsonl'}; "
            "rerun the same command to do the rest",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    for rec in result.failures:
        print(f"failed: {rec.input}: {rec.error}", file=sys.stderr)
    if not args.quiet:
        frames = sum(r.frames or 0 for r in result.records)
        where = f"{result.workers} {result.executor} workers" if result.executor != "none" else "nothing to do"
        print(
            f"{result.total} inputs: {result.done} retargeted, {result.skipped} up to date, {result.failed} failed "
            f"in {result.seconds:.1f} s ({where}; {frames / max(result.seconds, 1e-9):.0f} frames/s) -> {args.out}/ "
            "(manifest.jsonl, summary.csv)"
        )
    return EXIT_PARTIAL if result.failed else EXIT_OK
