"""RobotMotion as .json, for tools outside Python (the browser app among them).

One object: ``robot``, ``fps`` [1/s] (int when integral), ``dof_names`` (n), ``root_pos``
(T x 3) [m], ``root_rot_xyzw`` (T x 4, quaternion **x y z w**), ``dof_pos`` (T x n) [rad or m]
and ``info`` (the engine's details), plus ``contacts`` (T, F) and ``contact_bodies`` when the
motion carries a contact mask, and ``meta`` (the export's metadata, see _meta.py).
Strict JSON: NaN and infinities are refused; numpy values
in ``info`` are written as plain numbers and lists (and read back as such).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .._files import write_atomic
from ..errors import KinemorphError, MotionFileError
from ..robots.robot_motion import RobotMotion
from ._common import file_fps, fps_for_file, guess_robot_name, motion_from_file, wxyz_to_xyzw
from ._meta import ExportMeta

if TYPE_CHECKING:
    from ..robots.robot import Robot

KEYS = ("robot", "fps", "dof_names", "root_pos", "root_rot_xyzw", "dof_pos", "info")


def _plain(value: Any) -> Any:
    """json.dump's fallback for numpy values in ``info``."""
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} {value!r} is not JSON-serialisable")


def write(
    motion: RobotMotion, path: Path, *, robot: Robot | None = None, force: bool = False, meta: ExportMeta | None = None
) -> Path:
    """Write ``motion`` atomically, with ``meta`` inside. ``robot`` is not used by this format."""
    doc = {
        "robot": motion.robot,
        "fps": fps_for_file(motion.fps),
        "dof_names": list(motion.dof_names),
        "root_pos": np.asarray(motion.root_pos, dtype=np.float64).tolist(),
        "root_rot_xyzw": wxyz_to_xyzw(motion.root_rot).tolist(),
        "dof_pos": np.asarray(motion.dof_pos, dtype=np.float64).tolist(),
        "info": motion.info,
    }
    if motion.contacts is not None:
        doc["contacts"] = np.asarray(motion.contacts, dtype=bool).tolist()
        doc["contact_bodies"] = list(motion.contact_bodies)
    if meta is not None:
        doc["meta"] = json.loads(meta.to_json())

    def dump(f: IO[bytes]) -> None:
        text = io.TextIOWrapper(f, encoding="utf-8")
        try:
            json.dump(doc, text, default=_plain, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise KinemorphError(f"{path}: the motion cannot be written as JSON: {exc}") from None
        finally:
            text.detach()

    return write_atomic(path, dump, force=force)


def _document(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except json.JSONDecodeError as exc:
        raise MotionFileError(path, exc.msg, line=exc.lineno) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MotionFileError(path, f"not a readable JSON file: {exc}") from None
    return doc


def read_meta(path: Path) -> ExportMeta | None:
    doc = _document(path)
    if not isinstance(doc, dict) or "meta" not in doc:
        return None
    return ExportMeta.from_dict(doc["meta"], where=str(path))


def read(
    path: Path,
    *,
    robot_name: str | None = None,
    dof_names: tuple[str, ...] | None = None,
    meta: ExportMeta | None = None,
) -> RobotMotion:
    """Read a RobotMotion; ``robot_name`` overrides the file's ``robot``."""
    doc = _document(path)
    if not isinstance(doc, dict):
        raise MotionFileError(path, f"holds a {type(doc).__name__}, expected an object with keys {list(KEYS)}")
    missing = [key for key in KEYS if key not in doc]
    if missing:
        raise MotionFileError(path, f"missing keys {missing}; need {list(KEYS)}")
    if not isinstance(doc["info"], dict):
        raise MotionFileError(path, f"info must be an object, got {type(doc['info']).__name__}")
    if not isinstance(doc["dof_names"], list) or not all(isinstance(s, str) for s in doc["dof_names"]):
        raise MotionFileError(path, "dof_names must be a list of strings")
    return motion_from_file(
        path,
        robot=guess_robot_name(path, robot_name, stored=str(doc["robot"] or "")),
        fps=file_fps(path, doc["fps"]),
        root_pos=doc["root_pos"],
        root_rot_xyzw=doc["root_rot_xyzw"],
        dof_pos=doc["dof_pos"],
        stored_dof_names=doc["dof_names"],
        requested_dof_names=dof_names,
        info=doc["info"],
        contacts=doc.get("contacts"),
        contact_bodies=doc.get("contact_bodies", []),
    )
