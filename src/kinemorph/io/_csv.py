"""RobotMotion as .csv: one header row, one row per frame.

Columns: ``frame``, ``time`` [s] (frame / fps), ``root_x root_y root_z`` [m],
``root_qx root_qy root_qz root_qw`` (quaternion **x y z w**), then one column per joint named
after it [rad or m]. Numbers are written with full precision (Python's shortest round-trip form).
The file stores no fps and no robot: reading recovers fps from the time column (so at least two
frames are needed); the robot comes from ``robot_name``, else the sidecar ``<file>.meta.json``
kinemorph writes beside it, else the file name.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._files import write_text_atomic
from ..errors import MotionFileError
from ..robots.robot_motion import RobotMotion
from ._common import guess_robot_name, motion_from_file, wxyz_to_xyzw
from ._meta import ExportMeta

if TYPE_CHECKING:
    from ..robots.robot import Robot

ROOT_COLUMNS = ("root_x", "root_y", "root_z", "root_qx", "root_qy", "root_qz", "root_qw")
HEADER = ("frame", "time", *ROOT_COLUMNS)
"""The columns before the joint columns."""

_FPS_DECIMALS = 9
"""fps read back is rounded to this many decimals, so that 30 reads as 30.0, not 30.000000000000004."""


def write(
    motion: RobotMotion, path: Path, *, robot: Robot | None = None, force: bool = False, meta: ExportMeta | None = None
) -> Path:
    """Write ``motion`` atomically. ``robot`` is not used; ``meta`` goes to the sidecar the caller writes."""
    values = np.concatenate([motion.root_pos, wxyz_to_xyzw(motion.root_rot), motion.dof_pos], axis=1)
    text = io.StringIO()
    out = csv.writer(text, lineterminator="\n")
    out.writerow([*HEADER, *motion.dof_names])
    for frame, row in enumerate(values.tolist()):
        out.writerow([frame, frame / motion.fps, *row])
    return write_text_atomic(path, text.getvalue(), force=force)


def _rows(path: Path) -> tuple[list[str], np.ndarray]:
    """Header and numbers (one row per frame, line numbers in errors)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise MotionFileError(path, f"not a readable CSV file: {exc}") from None
    if not lines:
        raise MotionFileError(path, "empty file", line=1)
    header = lines[0]
    if tuple(header[: len(HEADER)]) != HEADER:
        raise MotionFileError(path, f"header starts {header[: len(HEADER)]}, expected {list(HEADER)}", line=1)
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if len(line) != len(header):
            raise MotionFileError(path, f"{len(line)} values, the header has {len(header)}", line=number)
        try:
            rows.append([float(v) for v in line])
        except ValueError as exc:
            raise MotionFileError(path, str(exc), line=number) from None
    if not rows:
        raise MotionFileError(path, "no frames after the header", line=2)
    return header, np.array(rows, dtype=np.float64)


def _fps(path: Path, time: np.ndarray) -> float:
    """Frame rate [1/s] from a uniform time column [s]. Shape: (T,)."""
    if len(time) < 2:
        raise MotionFileError(path, "one frame only: the frame rate cannot be recovered from the time column")
    fps = (len(time) - 1) / (time[-1] - time[0])
    if not np.isfinite(fps) or fps <= 0 or not np.allclose(np.diff(time), 1.0 / fps, rtol=1e-6, atol=1e-9):
        raise MotionFileError(path, "the time column is not evenly spaced and increasing")
    return round(float(fps), _FPS_DECIMALS)


def read(
    path: Path,
    *,
    robot_name: str | None = None,
    dof_names: tuple[str, ...] | None = None,
    meta: ExportMeta | None = None,
) -> RobotMotion:
    """Read a RobotMotion written by :func:`write` (or any file with the same columns)."""
    header, values = _rows(path)
    root = len(HEADER)
    return motion_from_file(
        path,
        robot=guess_robot_name(path, robot_name, stored=meta.robot if meta else None),
        fps=_fps(path, values[:, 1]),
        root_pos=values[:, 2:5],
        root_rot_xyzw=values[:, 5:root],
        dof_pos=values[:, root:],
        stored_dof_names=header[root:],
        requested_dof_names=dof_names,
    )
