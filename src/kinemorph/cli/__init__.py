"""The ``kinemorph`` command: one module per subcommand over the library, no algorithm code here.

Each module in ``COMMANDS`` has ``register(sub)``, which adds its subparser and sets ``func``.
Errors a user can cause print one line "kinemorph: error: ..." and exit with code 2, before
anything is written.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

from ..errors import KinemorphError

EXIT_INTERNAL_ERROR = 1
EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

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


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the usage of a command with a hundred
    options would bury the message), pointing to --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USER_ERROR, f"kinemorph: error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="kinemorph", description="Turn recorded and authored motion into motion a legged robot can execute."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    from ._text import plain_help

    plain_help(sub)  # docstrings as descriptions, without their RST markup
    return parser


def _one_line(text: str) -> str:
    """A message on one line (MuJoCo's and other libraries' messages span several)."""
    return "; ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _error(text: str) -> None:
    print(f"kinemorph: error: {_one_line(text)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Whatever goes wrong ends in one line on stderr, never a traceback: the
    package's errors and the operating system's (a folder that cannot be written) exit with 2,
    an interrupt with 130, a closed output pipe (``| head``) quietly, and an unexpected error
    (a bug) with 1 (KINEMORPH_DEBUG=1 shows its traceback). Python warnings raised while the
    command runs are printed after it, as "kinemorph: warning:" lines, and only when it succeeds."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _terminate_cleanly()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        try:
            code = int(args.func(args))
        except KinemorphError as exc:
            _error(str(exc))
            return EXIT_USER_ERROR
        except KeyboardInterrupt:
            print("kinemorph: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        except _Terminated:
            print("kinemorph: terminated", file=sys.stderr)
            return EXIT_TERMINATED
        except BrokenPipeError:
            _silence_stdout()
            return 0
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            _error(f"{where}{exc.strerror or exc}")
            return EXIT_USER_ERROR
        except MemoryError:
            _error("out of memory (the input is too large for this machine)")
            return EXIT_USER_ERROR
        except Exception as exc:  # a bug: still one line, the traceback on request
            if os.environ.get("KINEMORPH_DEBUG"):
                raise
            print(
                f"kinemorph: internal error: {type(exc).__name__}: {_one_line(str(exc))} "
                "(a bug; KINEMORPH_DEBUG=1 shows the traceback)",
                file=sys.stderr,
            )
            return EXIT_INTERNAL_ERROR
    for w in caught:
        print(f"kinemorph: warning: {_one_line(str(w.message))}", file=sys.stderr)
    return code


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that every atomic write in progress removes its
    temporary file on the way out (their ``finally`` blocks run)."""


def _terminate_cleanly() -> None:
    def handler(signum: int, frame: object) -> None:
        raise _Terminated

    try:
        signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread (e.g. called from a test runner's worker thread)
        pass


def _silence_stdout() -> None:
    """After the reader of our output went away, further writes (at exit) go nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
