"""The main job on an embedded default: a walk the project generates itself, retargeted onto a
robot (Unitree G1 by default), with every export, the quality report, a plot and, where offscreen
OpenGL works (EGL or OSMesa), a GIF of the robot walking."""

from __future__ import annotations

import sys
from pathlib import Path

from ._files import check_writable
from .errors import KinemorphError
from .motion import save_bvh
from .motion.procedural import procedural_walk
from .pipeline import Outputs, RetargetJob, run_job
from .progress import ProgressBar
from .render import RenderConfig, RenderError, gl_backend, render_video
from .retarget import timing_summary
from .robots import load_robot

DEMO_NAME = "demo_walk"


def demo_outputs(out: Path, robot_name: str) -> dict[str, Path]:
    stem = f"{DEMO_NAME}_{robot_name}"
    return {
        "source": out / f"{DEMO_NAME}.bvh",
        **{ext: out / f"{stem}.{ext}" for ext in ("npz", "pkl", "csv", "json")},
        "report": out / f"{stem}_quality.json",
        "plot": out / f"{stem}.png",
    }


DEMO_GIF = RenderConfig(width=320, height=240, fps=10.0, duration=6.0)
"""The demo's GIF: small and short, so that software OpenGL renders it in seconds."""


def gif_reason() -> str | None:
    """None when the demo can write its GIF, else why not (no OpenGL backend)."""
    try:
        gl_backend()
    except RenderError as exc:
        return str(exc)
    return None


def run_demo(
    out: str | Path = "kinemorph-demo", *, robot_name: str = "unitree_g1", force: bool = False, quiet: bool = False
) -> dict[str, Path]:
    """Generate a walk, retarget it, evaluate it, and write everything into ``out``."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise KinemorphError(f"{out}: exists and is not a folder")
    robot = load_robot(robot_name)
    motion = procedural_walk(turn_rate=0.25)
    paths = demo_outputs(out, robot.name)
    no_gif = gif_reason()
    if no_gif is None:
        paths["gif"] = out / f"{DEMO_NAME}_{robot.name}.gif"
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        for p in paths.values():
            check_writable(p, force=force)
        outputs = Outputs(
            tuple(paths[ext] for ext in ("npz", "pkl", "csv", "json")),
            report=paths["report"],
            plot=paths["plot"],
            force=force,
        )
        bar = None if quiet else ProgressBar(f"retarget {paths['source'].name} -> {robot.name}")
        done = run_job(RetargetJob(motion, robot, outputs=outputs), progress=bar)
    except BaseException:
        if created and not any(out.iterdir()):
            out.rmdir()  # a refused demo leaves nothing behind
        raise
    save_bvh(motion, paths["source"], force=force)
    result, report = done.result, done.report
    assert report is not None
    if no_gif is None:
        render_video(result, load_robot(robot_name, meshes=True), paths["gif"], DEMO_GIF, force=force)
    if not quiet:
        print(
            f"source: generated walk, {motion.num_frames} frames at {motion.fps:g} fps "
            f"({motion.duration:.1f} s), stature {motion.stature():.2f} m",
            file=sys.stdout,
        )
        print(report.table())
        print(timing_summary(result))
        for k, p in paths.items():
            print(f"  {k:<7} {p}")
        if no_gif is not None:
            print(f"  no GIF: {no_gif}")
    return paths
