"""RobotMotion as the BeyondMimic CSV: the layout of Unitree's LAFAN1 retargeting dataset
(huggingface.co/datasets/lvhaidong/LAFAN1_Retargeting_Dataset), which BeyondMimic's and mjlab's
``csv_to_npz`` read.

No header; one row per frame, comma separated: root position ``x y z`` [m], root quaternion
**x y z w**, then one column per joint in the robot's joint order [rad or m] (7 + n columns; G1:
7 + 29). mjlab's csv_to_npz reorders columns 3:7 as [3, 0, 1, 2] to get w x y z, which is this
order. The file stores neither fps nor names: they live in the sidecar ``<file>.meta.json``;
without one, fps is 30 (the dataset's rate) unless given, and the joints are named from
``dof_names`` or ``dof_0 .. dof_{n-1}``. Numbers are written with full precision.
"""

from __future__ import annotations

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

DEFAULT_FPS = 30.0
"""Frame rate [1/s] assumed for a file without a sidecar: the LAFAN1 retargeting dataset's."""

ROOT_COLUMNS = 7


def rows(motion: RobotMotion) -> np.ndarray:
    """The table written: root position, quaternion x y z w, joints. Shape: (T, 7 + n)."""
    return np.concatenate([motion.root_pos, wxyz_to_xyzw(motion.root_rot), motion.dof_pos], axis=1)


def write(motion: RobotMotion, path: Path, *, robot: Robot | None, force: bool, meta: ExportMeta) -> Path:
    """Write ``motion`` atomically (the sidecar is written by the caller)."""
    text = "".join(",".join(repr(v) for v in row) + "\n" for row in rows(motion).tolist())
    return write_text_atomic(path, text, force=force)


def looks_like(path: Path) -> bool:
    """True when the first line is all numbers (kinemorph's own CSV starts with a header)."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
        [float(v) for v in first.split(",")]
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return bool(first.strip())


def _table(path: Path) -> np.ndarray:
    values = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise MotionFileError(path, f"not a readable CSV file: {exc}") from None
    width = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split(",")
        if width is None:
            width = len(fields)
            if width < ROOT_COLUMNS:
                raise MotionFileError(path, f"{width} columns, expected 7 (root) + joints", line=number)
        if len(fields) != width:
            raise MotionFileError(path, f"{len(fields)} values, the first row has {width}", line=number)
        try:
            values.append([float(v) for v in fields])
        except ValueError as exc:
            raise MotionFileError(path, f"{exc} (this format has no header)", line=number) from None
    if not values:
        raise MotionFileError(path, "no frames", line=1)
    return np.array(values, dtype=np.float64)


def read(
    path: Path, *, robot_name: str | None, dof_names: tuple[str, ...] | None, meta: ExportMeta | None
) -> RobotMotion:
    """Read a BeyondMimic CSV; fps and joint names from the sidecar when there is one."""
    table = _table(path)
    stored = meta.dof_names if meta is not None else None
    if stored is not None and len(stored) != table.shape[1] - ROOT_COLUMNS:
        raise MotionFileError(path, f"{table.shape[1] - ROOT_COLUMNS} joint columns, the sidecar names {len(stored)}")
    return motion_from_file(
        path,
        robot=guess_robot_name(path, robot_name, stored=meta.robot if meta else None),
        fps=meta.fps if meta is not None else DEFAULT_FPS,
        root_pos=table[:, :3],
        root_rot_xyzw=table[:, 3:ROOT_COLUMNS],
        dof_pos=table[:, ROOT_COLUMNS:],
        stored_dof_names=stored,
        requested_dof_names=dof_names,
    )
