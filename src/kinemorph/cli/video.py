"""``kinemorph video``: a filmed person (video or BlazePose landmark .npz) to a LAFAN1 BVH."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return v


def register(sub: Any) -> None:
    p = sub.add_parser(
        "video",
        help="a person filmed with one camera (mp4/webm/mov, or a landmark .npz) -> BVH on the LAFAN1 skeleton",
        description=(
            "Detect the person's 33 BlazePose landmarks in every frame (MediaPipe Pose Landmarker; needs the [video] "
            "extra and a .task model file), fit the LAFAN1 skeleton to them and write a BVH that retargets like any "
            "LAFAN1 clip. A landmark .npz (what --save-landmarks writes) skips the detection."
        ),
    )
    p.add_argument("input", type=Path, help="video (.mp4 .webm .mov .mkv .avi .m4v) or landmark file (.npz)")
    p.add_argument("-o", "--output", type=Path, required=True, help="output BVH (LAFAN1 skeleton, Y-up, cm)")
    p.add_argument("--fps", type=_positive, help="output frame rate (resampled); needed for landmarks without fps")
    p.add_argument(
        "--pose-model", type=Path, help="MediaPipe Pose Landmarker .task file [default: $KINEMORPH_POSE_MODEL]"
    )
    p.add_argument("--save-landmarks", type=Path, metavar="NPZ", help="also write the detected landmarks (.npz)")
    p.add_argument(
        "--travel",
        default="auto",
        choices=["auto", "image", "in_place"],
        help="root travel: from the image landmarks when present (auto), always, or never [default: auto]",
    )
    p.add_argument("--hfov", type=_positive, default=60.0, help="camera's horizontal field of view [deg] (travel)")
    p.add_argument("--level", action="store_true", help="tilted camera: make the median body axis vertical")
    p.add_argument("--min-cutoff", type=_positive, default=2.0, help="One-Euro cutoff at rest [Hz] [default: 2]")
    p.add_argument("--beta", type=float, default=2.0, help="One-Euro speed coefficient [default: 2]")
    p.add_argument("--causal", action="store_true", help="one forward filter pass (lags) instead of zero-lag")
    p.add_argument("--no-smoothing", action="store_true", help="no One-Euro filter")
    p.add_argument("--no-limits", action="store_true", help="keep poses outside human joint limits")
    p.add_argument("--force", action="store_true", help="overwrite existing outputs")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..progress import ProgressBar
    from ..video import OneEuroConfig, SolverConfig, convert

    smoothing = OneEuroConfig(
        min_cutoff=args.min_cutoff, beta=args.beta, zero_lag=not args.causal, enabled=not args.no_smoothing
    )
    config = SolverConfig(
        fps=args.fps,
        smoothing=smoothing,
        joint_limits=not args.no_limits,
        travel=args.travel,
        camera_hfov_deg=args.hfov,
        level=args.level,
    )
    bar = None if args.quiet else ProgressBar(f"detect {args.input.name}")
    fit = convert(
        args.input,
        args.output,
        pose_model=args.pose_model,
        config=config,
        landmarks_out=args.save_landmarks,
        force=args.force,
        progress=bar,
    )
    print(f"{args.output}: {fit.report.summary()}")
    for note in fit.report.notes:
        print(f"  {note}")
    if args.save_landmarks is not None:
        print(f"{args.save_landmarks}: landmarks of {fit.report.detected} detected frames")
    return 0
