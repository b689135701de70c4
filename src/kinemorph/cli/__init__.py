"""The ``kinemorph`` command: one module per subcommand over the library, no algorithm code here.

Each module in ``COMMANDS`` has ``register(sub)``, which adds its subparser and sets ``func``.
Errors a user can cause print one line "kinemorph: error: ..." and exit with code 2, before
anything is written.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..errors import KinemorphError

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130

COMMANDS = (
    "retarget",
    "robots",
    "inspect",
    "compare",
    "calibrate",
    "demo",
    "batch",
    "gait",
    "app",
    "render",
    "simulate",
    "video",
    "convert",
    "report",
    "view",
)
"""Subcommand modules of this package, in the order ``kinemorph --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kinemorph", description="Turn recorded and authored motion into motion a legged robot can execute."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KinemorphError as exc:
        print(f"kinemorph: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("kinemorph: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
