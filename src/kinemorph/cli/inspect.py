"""``kinemorph inspect``: a motion file's skeleton, frames, fps and duration; for a result file
(any export format) its format, robot, joint and body order, metadata and arrays."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    from ..motion.presets import PRESETS

    p = sub.add_parser("inspect", help="show a motion file's skeleton, frames, fps and duration, or a result file's")
    p.add_argument("input", type=Path)
    p.add_argument("--preset", default="auto", choices=["auto", *PRESETS])
    p.add_argument("--json", action="store_true", help="motion files: print the summary and rig report as JSON")
    from ._source import add_source_options

    add_source_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..io import describe, is_export

    if is_export(args.input):
        print(describe(args.input).text())
        return 0

    from ._source import load_cli_source

    m = load_cli_source(args.input, args.preset, args)
    sk = m.skeleton
    if args.json:
        import json

        doc = {"file": str(args.input), "preset": m.preset, "family": m.family, "frames": m.num_frames,
               "fps": m.fps, "joints": list(sk.names), "rig": m.rig.to_dict() if m.rig else None}  # fmt: skip
        print(json.dumps(doc, indent=2))
        return 0
    print(f"{args.input}: preset {m.preset} ({m.family}), {m.num_frames} frames at {m.fps:g} fps = {m.duration:.2f} s")
    print(
        f"{sk.num_joints} joints, {sk.num_channels} channels, {len(sk.end_sites)} End Sites, "
        f"stature {m.stature():.2f} m"
    )
    depth = {0: 0}
    for j in range(sk.num_joints):
        if j:
            depth[j] = depth[int(sk.parents[j])] + 1
        print(f"  {'  ' * depth[j]}{sk.names[j]}  [{' '.join(c[0] + c[1:4] for c in sk.channels[j])}]")
    extra = m.body_names[sk.num_joints :]
    if extra:
        print(f"virtual bodies: {', '.join(extra)}")
    if m.rig is not None:
        print(m.rig.to_text())
    return 0
