"""describe (what an output file holds, for ``kinemorph inspect``) and convert (one format to another)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import KinemorphError
from ..robots.robot_motion import RobotMotion
from . import _mimickit, _pickle, _tracking
from ._api import detect_format, load, read_meta, save
from ._meta import ExportMeta, kinematic_tree_hash, sidecar_path

if TYPE_CHECKING:
    from ..robots.robot import Robot

_PLACEHOLDER = re.compile(r"^dof_\d+$")


@dataclass(frozen=True)
class FileDescription:
    """What an exported motion file holds.

    Attributes:
        path: the file.
        format: its format's name.
        format_description: one line about the format.
        quaternion: how it stores the root rotation.
        num_frames: frames.
        fps: frame rate [1/s].
        robot: the robot it is for ("unknown" when neither the file nor its name says).
        dof_names: joint order. Shape: (n,).
        meta: its metadata (inside or in the sidecar), None when it has none.
        sidecar: the sidecar file when there is one.
        arrays: (name, shape, dtype) of each array or key stored, for archives and pickles.
    """

    path: Path
    format: str
    format_description: str
    quaternion: str
    num_frames: int
    fps: float
    robot: str
    dof_names: tuple[str, ...]
    meta: ExportMeta | None
    sidecar: Path | None
    arrays: tuple[tuple[str, str, str], ...]

    @property
    def duration_s(self) -> float:
        return self.num_frames / self.fps

    def text(self) -> str:
        """A few aligned lines for a terminal."""
        m = self.meta
        rows = [
            ("file", str(self.path)),
            ("format", f"{self.format} ({self.format_description})"),
            ("root rotation", self.quaternion),
            ("frames", f"{self.num_frames} at {self.fps:g} fps ({self.duration_s:.2f} s)"),
            ("robot", self.robot),
            ("joints", f"{len(self.dof_names)}: {', '.join(self.dof_names)}"),
        ]
        if m is None:
            rows.append(("metadata", "none (a file from another tool, or its sidecar is missing)"))
        else:
            rows += [
                ("metadata", "sidecar " + str(self.sidecar) if self.sidecar else "inside the file"),
                ("written by", f"kinemorph {m.kinemorph_version}"),
                ("robot model", f"{m.robot_model or '(not given)'} tree sha256 {m.kinematic_tree_sha256[:16] or '-'}"),
                ("bodies", f"{len(m.body_names)}: {', '.join(m.body_names)}" if m.body_names else "(not recorded)"),
                ("units", ", ".join(f"{k} {v}" for k, v in m.units.items())),
                ("settings", ", ".join(f"{k}={_short(v)}" for k, v in m.settings.items()) or "(none)"),
            ]
        rows += [(f"  {name}", f"{shape} {dtype}") for name, shape, dtype in self.arrays]
        left = max(len(r[0]) for r in rows)
        return "\n".join(f"{a:<{left}}  {b}" for a, b in rows)


def _short(value: Any, limit: int = 60) -> str:
    s = str(value)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _arrays(path: Path, fmt: str) -> tuple[tuple[str, str, str], ...]:
    if fmt in ("npz", "holosoma", "mjlab"):
        data = _tracking.contents(path)
    elif fmt == "mimickit":
        data = _mimickit.contents(path)
    elif fmt == "pkl":
        data = _pickle._contents(path)
    else:
        return ()
    out = []
    for key, value in data.items():
        if isinstance(value, np.ndarray) and value.ndim > 0:
            out.append((key, str(tuple(value.shape)), str(value.dtype)))
        elif isinstance(value, list):
            inner = len(value[0]) if value and isinstance(value[0], list) else None
            out.append((key, f"({len(value)}, {inner})" if inner is not None else f"({len(value)},)", "list"))
        else:
            out.append((key, "()", type(value.item() if isinstance(value, np.ndarray) else value).__name__))
    return tuple(out)


def describe(path: str | Path, *, format: str | None = None) -> FileDescription:
    """Read any export (or a file of one of the formats from another tool) and say what it holds."""
    p = Path(path)
    fmt = detect_format(p, format)
    motion = load(p, format=fmt.name)
    meta = read_meta(p, format=fmt.name)
    side = sidecar_path(p)
    return FileDescription(
        path=p,
        format=fmt.name,
        format_description=fmt.description,
        quaternion=fmt.quaternion,
        num_frames=motion.num_frames,
        fps=float(motion.fps),
        robot=motion.robot,
        dof_names=tuple(motion.dof_names),
        meta=meta,
        sidecar=side if fmt.sidecar and side.is_file() else None,
        arrays=_arrays(p, fmt.name),
    )


@dataclass(frozen=True)
class Conversion:
    """The outcome of :func:`convert`.

    Attributes:
        source: the file read.
        output: the file written.
        source_format, output_format: their formats' names.
        robot: the robot of the motion.
        num_frames: frames converted.
        warnings: what the user should know (joints named from the robot, a different model hash).
    """

    source: Path
    output: Path
    source_format: str
    output_format: str
    robot: str
    num_frames: int
    warnings: tuple[str, ...]


def _resolve_robot(robot: Robot | str | Path | None, motion: RobotMotion, needs: bool) -> Robot | None:
    from ..robots import KNOWN_ROBOTS, load_robot

    if robot is not None and not isinstance(robot, str | Path):
        return robot
    if robot is not None:
        return load_robot(robot)
    if needs or motion.robot in KNOWN_ROBOTS:
        if motion.robot not in KNOWN_ROBOTS:
            raise KinemorphError(
                f"the motion's robot {motion.robot!r} is not a known robot; pass its model (robot=, CLI: --robot)"
            )
        return load_robot(motion.robot)
    return None


def convert(
    source: str | Path,
    output: str | Path,
    *,
    format: str | None = None,
    source_format: str | None = None,
    robot: Robot | str | Path | None = None,
    force: bool = False,
) -> Conversion:
    """Convert an export to another format (``format``, default: by ``output``'s name).

    The motion keeps its robot and joint order: a ``robot`` whose joints differ from the file's
    (another robot, or the same robot with another joint order) is refused, since reordering or
    retargeting is not a conversion. A file without joint names (GMR's .pkl, Unitree's CSV) takes
    the robot's names when the count matches. The source's settings carry over into the output's
    metadata, with ``converted_from``.

    Args:
        source: the file to read (any format of ``EXPORT_FORMATS``).
        output: the file to write.
        format: output format name; default: by the output's file name.
        source_format: the source's format name; default: by its name and content.
        robot: the robot (a Robot, a known name or a model path). Default: the motion's robot when
            it is a known one (needed by holosoma and mjlab, used for the metadata otherwise).
        force: overwrite an existing output.
    """
    from ._api import format_for

    src = Path(source)
    in_fmt = detect_format(src, source_format)
    out_fmt = format_for(output, format)
    motion = load(src, format=in_fmt.name)
    meta = read_meta(src, format=in_fmt.name)
    loaded = _resolve_robot(robot, motion, out_fmt.needs_robot)
    warnings: list[str] = []
    if loaded is not None:
        mine, theirs = tuple(motion.dof_names), tuple(loaded.dof_names)
        if mine != theirs and len(mine) == len(theirs) and all(_PLACEHOLDER.match(n) for n in mine):
            motion = RobotMotion.from_qpos(
                loaded.name, motion.fps, motion.qpos, theirs, info=motion.info, settings=motion.settings
            )
            warnings.append(f"{src} names no joints: they are taken as robot {loaded.name}'s, in its order")
        elif mine != theirs:
            raise KinemorphError(
                f"{src}: refusing to convert a motion of robot {motion.robot} ({len(mine)} joints) for robot "
                f"{loaded.name} ({len(theirs)} joints): the joint orders differ (first: {mine[:1]} vs {theirs[:1]}); "
                f"retarget the source motion onto {loaded.name} instead"
            )
        if (
            meta is not None
            and meta.kinematic_tree_sha256
            and meta.kinematic_tree_sha256 != kinematic_tree_hash(loaded)
        ):
            warnings.append(
                f"{src} was written for another model of {meta.robot} ({meta.robot_model}); "
                f"the output uses {Path(loaded.path).name}"
            )
        if motion.robot != loaded.name:
            motion = dataclasses.replace(motion, robot=loaded.name)
    settings = dict(motion.settings)
    settings["converted_from"] = {"file": str(src), "format": in_fmt.name}
    written = save(motion, output, robot=loaded, force=force, format=out_fmt.name, settings=settings)
    return Conversion(
        source=src,
        output=written,
        source_format=in_fmt.name,
        output_format=out_fmt.name,
        robot=motion.robot,
        num_frames=motion.num_frames,
        warnings=tuple(warnings),
    )
