"""The ``kinemorph`` command: subcommands over the library, no algorithm code here.

Errors a user can cause print one line "kinemorph: error: ..." and exit with code 2, before
anything is written.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cli_options import add_config_options, config_from_args
from .errors import KinemorphError

EXIT_USER_ERROR = 2


def _engine_names() -> list[str]:
    from .retarget import ENGINES

    return list(ENGINES)


def _robot_names() -> list[str]:
    from .robots.registry import KNOWN_ROBOTS

    return list(KNOWN_ROBOTS)


# -- retarget ----------------------------------------------------------------------------------
def _add_retarget(sub: Any) -> None:
    from .motion.presets import PRESETS
    from .retarget import ENGINES

    p = sub.add_parser("retarget", help="retarget a motion file onto a robot")
    p.add_argument("input", type=Path, help="motion file (.bvh)")
    p.add_argument("--robot", required=True, help=f"robot name ({', '.join(_robot_names())}) or an MJCF/URDF path")
    p.add_argument(
        "--engine",
        default="auto",
        choices=["auto", *ENGINES],
        help="retargeting engine; auto: quadruped for animal clips, else gmr [default: auto]",
    )
    p.add_argument("--mapping", type=Path, help="mapping JSON (GMR ik_config layout); default: the robot's shipped one")
    p.add_argument(
        "--preset", default="auto", choices=["auto", *PRESETS], help="how to read the source [default: auto]"
    )
    p.add_argument("-o", "--output", type=Path, required=True, help="output file: .npz .pkl .csv or .json")
    p.add_argument("--force", action="store_true", help="overwrite existing outputs")
    compat = sorted({c for e in ENGINES.values() for c in e.compat})
    p.add_argument("--compat", choices=compat, help="reproduce another tool's settings (gmr: GMR's BVH pipeline)")
    p.add_argument("--report", type=Path, help="also save the quality report as JSON")
    p.add_argument("--plot", type=Path, help="also save a PNG of per-frame tracking error and joint curves")
    p.add_argument("--quiet", action="store_true", help="no progress bar or table")
    for name, eng in ENGINES.items():
        add_config_options(p, eng.config_type, group=f"{name} engine options")
    p.set_defaults(func=cmd_retarget)


def _outputs(args: argparse.Namespace) -> list[Path]:
    return [q for q in (args.output, args.report, args.plot) if q is not None]


def cmd_retarget(args: argparse.Namespace) -> int:
    from ._files import check_writable
    from .io import FORMATS
    from .mapping.mapping import Mapping, check_family
    from .motion import load_motion
    from .progress import ProgressBar
    from .quality import evaluate
    from .retarget import get_engine, resolve_engine, retarget, timing_summary
    from .robots import load_robot

    t0 = time.perf_counter()
    if args.output.suffix.lower() not in FORMATS:
        raise KinemorphError(f"{args.output}: unsupported output format; supported: {', '.join(FORMATS)}")
    for out in _outputs(args):
        check_writable(out, force=args.force)
    motion = load_motion(args.input, args.preset)
    engine = get_engine(resolve_engine(args.engine, motion))
    if args.compat and args.compat not in engine.compat:
        raise KinemorphError(f"engine {engine.name} has no {args.compat!r} settings; valid: {', '.join(engine.compat)}")
    base = engine.compat[args.compat]() if args.compat else None
    config = config_from_args(engine.config_type, args, base)
    robot = load_robot(args.robot)
    check_family(motion, robot)
    mapping = Mapping.load(args.mapping) if args.mapping else None
    if mapping is not None:
        mapping.check(motion, robot, where=str(args.mapping))
    bar = None if args.quiet else ProgressBar(f"retarget {args.input.name} -> {robot.name}")
    result = retarget(motion, robot, mapping, engine=engine.name, config=config, progress=bar)
    if result.info.get("warning"):
        print(f"kinemorph: warning: {result.info['warning']}", file=sys.stderr)
    report = evaluate(result, robot)
    _save_outputs(args, result, robot, report)
    if not args.quiet:
        print(report.table())
        print(f"{timing_summary(result)}; total {time.perf_counter() - t0:.2f} s -> {args.output}")
    return 0


def _save_outputs(args: argparse.Namespace, result: Any, robot: Any, report: Any) -> None:
    from .io import save

    save(result, args.output, robot=robot, force=args.force)
    if args.report:
        report.save_json(args.report, force=args.force)
    if args.plot:
        from .plot import plot_retarget

        plot_retarget(result, robot, report, args.plot, force=args.force)


# -- robots, inspect ------------------------------------------------------------------------------
def _add_robots(sub: Any) -> None:
    p = sub.add_parser("robots", help="list the robots known by name")
    p.add_argument("--load", action="store_true", help="load each model and show its joint count")
    p.set_defaults(func=cmd_robots)


def cmd_robots(args: argparse.Namespace) -> int:
    from .robots import KNOWN_ROBOTS, load_robot

    print(f"{'name':<14} {'family':<10} {'feet':<50} default mappings")
    for name, info in KNOWN_ROBOTS.items():
        extra = ""
        if args.load:
            r = load_robot(name)
            extra = f"  ({r.num_dofs} joints, {r.path})"
        print(f"{name:<14} {info.family:<10} {', '.join(info.feet):<50} {', '.join(info.mappings) or '-'}{extra}")
    print("Any MJCF (.xml) or URDF (.urdf) path is accepted too.")
    return 0


def _add_inspect(sub: Any) -> None:
    from .motion.presets import PRESETS

    p = sub.add_parser("inspect", help="show a motion file's skeleton, frames, fps and duration")
    p.add_argument("input", type=Path)
    p.add_argument("--preset", default="auto", choices=["auto", *PRESETS])
    p.set_defaults(func=cmd_inspect)


def cmd_inspect(args: argparse.Namespace) -> int:
    from .motion import load_motion

    m = load_motion(args.input, args.preset)
    sk = m.skeleton
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
    return 0


# -- compare --------------------------------------------------------------------------------------
def _add_compare(sub: Any) -> None:
    p = sub.add_parser("compare", help="run several engines on one clip: relation, foot and speed figures")
    p.add_argument("input", type=Path, help="motion file (.bvh)")
    p.add_argument("--robot", required=True)
    p.add_argument("--engines", default="gmr,mesh,graph", help="comma-separated engine names [default: gmr,mesh,graph]")
    p.add_argument("--mapping", type=Path)
    p.add_argument("--plot", type=Path, help="PNG of SRP over time per engine")
    p.add_argument("--json", type=Path, help="save the figures as JSON")
    p.add_argument("--force", action="store_true")
    p.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    import json

    from ._files import check_writable, write_text_atomic
    from .compare import compare_engines, comparison_table
    from .mapping.mapping import Mapping
    from .motion import load_motion
    from .robots import load_robot

    for out in (args.plot, args.json):
        if out is not None:
            check_writable(out, force=args.force)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    motion = load_motion(args.input)
    robot = load_robot(args.robot)
    mapping = Mapping.load(args.mapping) if args.mapping else None
    runs = compare_engines(motion, robot, engines, mapping=mapping)
    print(comparison_table(runs))
    if args.json:
        write_text_atomic(args.json, json.dumps({r.engine: r.figures for r in runs}, indent=2) + "\n", force=args.force)
    if args.plot:
        from .plot import plot_srp

        plot_srp(runs, motion.fps, args.plot, force=args.force)
    return 0


# -- calibrate ------------------------------------------------------------------------------------
def _add_calibrate(sub: Any) -> None:
    p = sub.add_parser("calibrate", help="derive a mapping's scales and rotation offsets from rest poses")
    p.add_argument("input", type=Path, help="source motion with a standing frame (.bvh)")
    p.add_argument("--robot", required=True)
    p.add_argument("--mapping", type=Path, help="template mapping (default: the robot's shipped one)")
    p.add_argument("--frame", type=int, help="rest frame (default: the most neutral standing frame)")
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument("--force", action="store_true")
    p.set_defaults(func=cmd_calibrate)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from ._files import check_writable
    from .mapping.calibrate import calibrate
    from .mapping.mapping import Mapping, default_mapping
    from .motion import load_motion
    from .robots import load_robot

    check_writable(args.output, force=args.force)
    motion = load_motion(args.input)
    robot = load_robot(args.robot)
    template = Mapping.load(args.mapping) if args.mapping else default_mapping(motion, robot)
    mapping, cal = calibrate(template, motion, robot, frame=args.frame)
    mapping.save(args.output, force=args.force)
    print(f"rest frame {cal.frame}, stature {cal.stature:.3f} m; offset residuals [deg]:")
    for body, deg in cal.snap_deg.items():
        print(f"  {body:<28} {deg:5.1f}")
    print(f"-> {args.output}")
    return 0


# -- demo -----------------------------------------------------------------------------------------
def _add_demo(sub: Any) -> None:
    p = sub.add_parser("demo", help="the main job on an embedded default: a generated walk onto Unitree G1")
    p.add_argument("--out", type=Path, default=Path("kinemorph-demo"), help="output folder [default: ./kinemorph-demo]")
    p.add_argument("--robot", default="unitree_g1")
    p.add_argument("--force", action="store_true", help="overwrite the folder's files")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    run_demo(args.out, robot_name=args.robot, force=args.force)
    return 0


# -- entry point ----------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kinemorph", description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    from .app.cli import add_app_parser
    from .batch.cli import add_batch_parser
    from .gait.cli import add_gait_parser
    from .render import add_render_parser

    for add in (
        _add_retarget,
        _add_robots,
        _add_inspect,
        _add_compare,
        _add_calibrate,
        _add_demo,
        add_batch_parser,
        add_gait_parser,
        add_app_parser,
        add_render_parser,
    ):
        add(sub)
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
        return 130


if __name__ == "__main__":
    sys.exit(main())
