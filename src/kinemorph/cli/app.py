"""``kinemorph app``: the browser app (viser), on http://127.0.0.1:8080 by default.

Pages: Motion (open a sample from KINEMORPH_DATA/motions or upload a BVH; play, scrub, joints),
Setup (engine, robot, mapping tables, scales, solver parameters; mapping JSON import/export),
Preview (retarget with progress, robot and keypoints in sync, plots, quality, downloads) and
Gait (edit a style's samples and watch the robot walk them; test mode; save the style).
Loopback only unless --host says otherwise: anyone who can reach the port can use the app.
Uploads: at most --max-upload-mb, counted as the bytes arrive; a .npz or a robot .zip may unpack to
10 times that; a robot model may only name files inside its own upload. SIGTERM removes the
server's temporary upload folder.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Register the ``app`` subcommand."""
    from ..app.sources import MAX_UPLOAD_BYTES

    p = sub.add_parser(
        "app",
        help="open the browser app: motion viewer, retarget setup and preview, gait editor",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind [default: 127.0.0.1, this machine only]")
    p.add_argument("--port", type=int, default=8080, help="port [default: 8080; 0 picks a free one]")
    p.add_argument(
        "--robot-model",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="an MJCF or URDF robot model the page may offer (repeatable); the browser cannot name paths",
    )
    p.add_argument(
        "--max-upload-mb",
        type=float,
        default=MAX_UPLOAD_BYTES / 1024 / 1024,
        help="largest upload accepted, counted on the bytes received [MB; default: 50]",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import KinemorphError

    try:
        import viser  # noqa: F401
    except ImportError:
        raise KinemorphError("the app needs viser: pip install 'kinemorph[app]'") from None
    from ..app.server import start_app

    for p in args.robot_model:
        if not p.is_file() or p.suffix.lower() not in (".xml", ".urdf"):
            raise KinemorphError(f"{p}: --robot-model takes an existing .xml or .urdf file")
    if not 0 <= args.port <= 65535:
        raise KinemorphError(f"--port must be in [0, 65535] (0: a free one), got {args.port}")
    if not 0 < args.max_upload_mb <= 1024:
        raise KinemorphError(f"--max-upload-mb must be in (0, 1024], got {args.max_upload_mb}")
    app = start_app(
        args.host, args.port, robot_models=[*args.robot_model, *_gallery_models(args.robot_model)],
        max_upload_bytes=int(args.max_upload_mb * 1024 * 1024),
    )  # fmt: skip
    print(f"kinemorph app on http://{args.host}:{app.server.get_port()} (Ctrl+C stops it)", file=sys.stderr)
    try:
        while True:
            time.sleep(3600)
    finally:
        app.stop()


def _gallery_models(given: list[Path]) -> list[Path]:
    """The gallery's models outside the registry (MENAGERIE_ROOT, KINEMORPH_ROBOTS) that were
    recognised, for the Setup page's robot list (one per file name; --robot-model files first)."""
    from ..robots.gallery import gallery

    names = {p.name for p in given}
    out = []
    for e in gallery():
        usable = e.source != "registry" and e.path and e.family in ("humanoid", "quadruped")
        if usable and Path(e.path).name not in names:
            names.add(Path(e.path).name)
            out.append(Path(e.path))
    return out
