"""``kinemorph render``: a video of a robot motion file, rendered offscreen with MuJoCo.

    kinemorph render walk_g1.npz --robot unitree_g1 -o walk.mp4
    kinemorph render walk_g1.npz --robot unitree_g1 -o walk.gif --source walk.bvh --fps 15

Defaults: MP4 640x360 at the motion's rate (at most 30 fps); GIF 320x180 at 15 fps, at most 60 s
(a longer clip is cut there, with a note). Frames are streamed to the encoder, not held.

``--source CLIP`` overlays the source keypoints: the clip is retargeted again (same robot,
engine and mapping options as ``retarget``'s defaults, or --mapping) and the targets its engine
tracked are drawn over the robot. Needs EGL or OSMesa (MUJOCO_GL=egl|osmesa picks one).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._options import add_config_options, config_from_args


def register(sub: Any) -> None:
    """Register the ``render`` subcommand; video options come from RenderConfig."""
    from ..render.video import VIDEO_FORMATS, RenderConfig

    p = sub.add_parser(
        "render",
        help="render a robot motion file to a video (.mp4 or .gif), offscreen",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("input", type=Path, help="robot motion file (.npz .pkl .csv .json)")
    p.add_argument("--robot", required=True, help="the robot the motion is for (name or MJCF/URDF path)")
    p.add_argument("-o", "--output", type=Path, required=True, help=f"video file: {' '.join(VIDEO_FORMATS)}")
    p.add_argument("--source", type=Path, help="source clip whose keypoints are drawn over the robot")
    p.add_argument("--mapping", type=Path, help="mapping JSON for --source (default: the robot's shipped one)")
    p.add_argument("--force", action="store_true", help="overwrite an existing video")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_config_options(p, RenderConfig, group="video options")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._files import check_writable
    from ..io import load
    from ..progress import ProgressBar
    from ..render.video import RenderConfig, render_video
    from ..robots import load_robot

    check_writable(args.output, force=args.force)
    config = config_from_args(RenderConfig, args)
    robot = load_robot(args.robot)  # kinematics only: the render model compiles its own meshes
    motion = load(args.input, robot_name=robot.name, dof_names=robot.dof_names)
    overlay: Any = False
    if args.source is not None:
        overlay = _source_keypoints(args.source, args.mapping, robot, motion.num_frames)
    bar = None if args.quiet else ProgressBar(f"render {args.input.name} -> {args.output.name}")
    info = render_video(motion, robot, args.output, config, overlay=overlay, force=args.force, progress=bar)
    for note in info.notes:
        print(f"kinemorph: note: {note}", file=sys.stderr)
    if not args.quiet:
        x = info.extra
        print(
            f"{info.frames} frames at {info.fps:g} fps in {info.seconds:.1f} s "
            f"({info.frames_per_s:.1f} frames/s, {info.backend}; rendering {x['seconds_render']:.1f} s, "
            f"encoding {x['seconds_encode']:.1f} s, setup {x['seconds_setup']:.1f} s, "
            f"ffmpeg CPU {x['seconds_encoder_cpu']:.1f} s) -> {info.path}",
            file=sys.stdout,
        )
    return 0


def _source_keypoints(source: Path, mapping_path: Path | None, robot: Any, frames: int) -> Any:
    from ..errors import KinemorphError
    from ..pipeline import RetargetJob, run_job

    result = run_job(RetargetJob(source, robot, mapping_path, evaluate=False)).result
    if result.keypoints is None:
        raise KinemorphError(f"{source}: the engine gives no keypoints to overlay")
    if result.num_frames != frames:
        raise KinemorphError(f"{source} has {result.num_frames} frames, the motion {frames}: not its source")
    return result.keypoints.positions
