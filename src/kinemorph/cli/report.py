"""``kinemorph report DIR``: the dataset report of a batch output folder (DIR/report.html and
DIR/report.json); ``--keep-passing DIR2`` copies the clips that pass into a clean subset.

Thresholds are the defaults (``kinemorph report --help`` lists them) with a JSON file's entries
applied (``--thresholds F``: metric -> upper bound, ``{"max": x}``, ``{"min": x}`` or null).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    from ..report import DEFAULT_THRESHOLDS, PHYSICS_MODES

    defaults = ", ".join(f"{t.metric} {t.text()}" for t in DEFAULT_THRESHOLDS)
    p = sub.add_parser(
        "report",
        help="write the dataset report of a batch output folder (report.html, report.json)",
        description=__doc__ + f"\nDefault thresholds: {defaults}.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("folder", type=Path, help="a batch output folder (holds manifest.jsonl)")
    p.add_argument("--thresholds", type=Path, help="JSON file of thresholds (metric -> limit)")
    p.add_argument("--worst", type=int, default=3, help="worst clips shown per metric [default: 3]")
    p.add_argument("--keep-passing", type=Path, metavar="DIR2", help="copy the passing clips into this new folder")
    p.add_argument(
        "--physics",
        choices=PHYSICS_MODES,
        help="also require each clip's physics verdict (kinemorph.sim, ~0.3 s per 4 s clip): dynamics "
        "(residual force, torques, penetration) or replay (also no fall in the torque replay)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import ConfigError
    from ..progress import ProgressBar
    from ..report import DEFAULT_THRESHOLDS, build_report, keep_passing, load_thresholds, write_report

    if args.worst < 0:
        raise ConfigError(f"--worst must be >= 0, got {args.worst}")
    thresholds = load_thresholds(args.thresholds) if args.thresholds else DEFAULT_THRESHOLDS
    if args.keep_passing is not None:
        build_report(args.folder, thresholds=thresholds)  # a bad folder fails before the report is written
    bar = ProgressBar(f"physics verdicts of {args.folder}") if args.physics and not args.quiet else None
    files = write_report(args.folder, thresholds=thresholds, worst=args.worst, physics=args.physics, progress=bar)
    r = files.report
    print(
        f"{len(r.passing)} of {len(r.clips)} clips pass ({sum(c.status != 'ok' for c in r.clips)} failed in the batch) "
        f"-> {files.html}, {files.json} ({files.seconds:.2f} s)"
    )
    if args.keep_passing is not None:
        kept = keep_passing(r, args.keep_passing)
        print(f"kept {len(kept.clips)} clips ({kept.files} files) in {kept.folder}")
    return 0
