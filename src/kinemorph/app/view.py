"""Open the app straight on a result file (``kinemorph view OUT.npz``): the Preview page plays the
robot motion, with the source clip's joints as an overlay when one is given, its per-frame joint
curves and its quality table. Every export format reads (kinemorph.io)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import KinemorphError

if TYPE_CHECKING:
    from ..motion.motion import Motion
    from ..robots.robot_motion import RobotMotion
    from .server import App


def source_overlay(source: Motion, result: RobotMotion) -> np.ndarray:
    """The source's body positions at each result frame (nearest source frame in time) [m].
    Shape: (T_result, B, 3)."""
    t = np.arange(result.num_frames) / result.fps
    idx = np.clip(np.rint(t * source.fps).astype(int), 0, source.num_frames - 1)
    return np.asarray(source.positions)[idx]


def _robot_key(app: App, robot: str | Path | None, result: RobotMotion) -> str:
    from ..robots import KNOWN_ROBOTS

    name = str(robot) if robot is not None else result.robot
    if name in KNOWN_ROBOTS:
        return name
    models = app.state.sources.models()
    for key, path in models.items():
        if robot is not None and Path(path).resolve() == Path(robot).resolve():
            return key
    raise KinemorphError(
        f"the result is for robot {result.robot!r}, which is not a known robot; "
        f"pass its model (--robot PATH.xml) or a known name ({', '.join(KNOWN_ROBOTS)})"
    )


def open_result(
    app: App, path: str | Path, *, robot: str | Path | None = None, source: str | Path | None = None
) -> str:
    """Show a result file on the Preview page; returns the page's one-line summary.

    Args:
        app: a started app (:func:`kinemorph.app.server.start_app`; a model path given as
            ``robot`` must be among its ``robot_models``).
        path: the result (any format of kinemorph.io.EXPORT_FORMATS).
        robot: the robot; default: the one the file names. Its joint order must be the file's.
        source: the clip the result was made from (.bvh or keypoint .npz), drawn over the robot.

    Raises:
        KinemorphError: an unreadable file, an unknown robot, a robot whose joints differ.
    """
    from ..io import load
    from ..io._common import check_robot
    from ..quality import evaluate
    from .sources import MOTION_SUFFIXES

    state, page = app.state, app.preview_page
    result = load(path)
    key = _robot_key(app, robot, result)
    loaded = state.load(key)
    check_robot(result, loaded)
    if source is not None:
        src = Path(source)
        if not src.is_file():
            raise KinemorphError(f"{src}: no such source clip")
        if src.suffix.lower() not in MOTION_SUFFIXES:
            raise KinemorphError(f"{src}: a source clip is a {' or '.join(MOTION_SUFFIXES)} file")
        state.upload_motion(src.name, src.read_bytes())
    state.select_robot(key)
    report = evaluate(result, loaded)
    with state.lock:
        state.result, state.report = result, report
    page.overlay = source_overlay(state.motion, result) if source is not None and state.motion is not None else None
    page.load_result()
    text = f"viewing {Path(path).name}: {result.num_frames} frames at {result.fps:g} fps on {loaded.name}" + (
        f", source {Path(source).name}" if source is not None else ""
    )
    page.summary_md.content = text
    app.switch("Preview")
    page._show_result()
    return text
