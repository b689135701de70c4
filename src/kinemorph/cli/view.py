"""``kinemorph view OUT``: open the browser app straight on a result file: the robot plays the
motion, the source clip's joints drawn over it when --source is given, per-frame joint curves and
the quality table (Preview page). Loopback only unless --host says otherwise."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("view", help="open the app on a result file (robot playback, source overlay, plots)")
    p.add_argument("result", type=Path, help="a result file in any export format")
    p.add_argument("--robot", help="robot name or MJCF/URDF path [default: the one the file names]")
    p.add_argument("--source", type=Path, help="the source clip (.bvh or keypoint .npz), drawn over the robot")
    p.add_argument("--host", default="127.0.0.1", help="address to bind [default: 127.0.0.1, this machine only]")
    p.add_argument("--port", type=int, default=8080, help="port [default: 8080; 0 picks a free one]")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import KinemorphError
    from ..io import load

    try:
        import viser  # noqa: F401
    except ImportError:
        raise KinemorphError("the viewer needs viser: pip install 'kinemorph[app]'") from None
    from ..app.server import start_app
    from ..app.view import open_result

    load(args.result)  # an unreadable file fails before the server starts
    models = [args.robot] if args.robot and str(args.robot).lower().endswith((".xml", ".urdf")) else []
    app = start_app(args.host, args.port, robot_models=models, verbose=False)
    try:
        text = open_result(app, args.result, robot=args.robot, source=args.source)
        print(f"{text}: http://{args.host}:{app.server.get_port()} (Ctrl+C stops it)", file=sys.stderr)
        while True:
            time.sleep(3600)
    finally:
        app.stop()
