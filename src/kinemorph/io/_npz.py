"""RobotMotion as .npz with GMR's keys.

Keys: ``fps`` (scalar [1/s], int when integral), ``root_pos`` (T, 3) [m], ``root_rot`` (T, 4)
quaternion **x y z w**, ``dof_pos`` (T, n) [rad or m], ``dof_names`` (n,) unicode; when the
motion carries a contact mask, also ``contacts`` (T, F) bool and ``contact_names`` (F,) (the foot
bodies), when it carries controls (the STMR engine, a simulated walk) ``controls`` (K, nu),
``control_dt``, ``control_kind``, ``control_names``, ``control_kp``, ``control_kd`` (and when
known ``gains`` (K, nu, 2 nv), ``control_states`` (K + 1, nq + nv), ``control_physics_dt`` and
``control_floor_solimp`` (2,), ``control_floor_timeconst``, ``control_floor_friction_timeconst``),
and ``kinemorph_meta`` (the export's metadata as a JSON string, see _meta.py). GMR's own
output files have exactly the first five keys and read as they are; GMR's readers ignore the others.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .._files import write_atomic
from .._npz import read_npz
from ..errors import MotionFileError
from ..robots.robot_motion import Controls, RobotMotion
from ._common import file_fps, fps_for_file, guess_robot_name, motion_from_file, wxyz_to_xyzw
from ._meta import META_KEY, ExportMeta, meta_from_array

if TYPE_CHECKING:
    from ..robots.robot import Robot

REQUIRED_KEYS = ("fps", "root_pos", "root_rot", "dof_pos")
"""Keys a file must hold; ``dof_names`` is written always and optional on reading."""


def write(
    motion: RobotMotion, path: Path, *, robot: Robot | None = None, force: bool = False, meta: ExportMeta | None = None
) -> Path:
    """Write ``motion`` atomically, with ``meta`` inside. ``robot`` is not used by this format."""
    arrays: dict[str, Any] = {
        "fps": np.asarray(fps_for_file(motion.fps)),
        "root_pos": np.asarray(motion.root_pos, dtype=np.float64),
        "root_rot": wxyz_to_xyzw(motion.root_rot),
        "dof_pos": np.asarray(motion.dof_pos, dtype=np.float64),
        "dof_names": np.asarray(motion.dof_names, dtype=np.str_),
    }
    if motion.contacts is not None:
        arrays["contacts"] = np.asarray(motion.contacts, dtype=bool)
        arrays["contact_names"] = np.asarray(motion.contact_bodies, dtype=np.str_)
    c = motion.controls
    if c is not None:  # what produced the motion in simulation (STMR, a simulated walk)
        arrays.update(
            controls=np.asarray(c.values, dtype=np.float64),
            control_dt=np.asarray(c.dt), control_kind=np.asarray(c.kind, dtype=np.str_),
            control_names=np.asarray(c.names, dtype=np.str_), control_kp=np.asarray(c.kp, dtype=np.float64),
            control_kd=np.asarray(c.kd, dtype=np.float64),
        )  # fmt: skip
        optional = {
            "gains": c.gains, "control_states": c.states, "control_physics_dt": c.physics_dt,
            "control_floor_solimp": c.floor_solimp, "control_floor_timeconst": c.floor_timeconst,
            "control_floor_friction_timeconst": c.floor_friction_timeconst,
        }  # fmt: skip
        arrays.update({k: np.asarray(v, dtype=np.float64) for k, v in optional.items() if v is not None})
    if meta is not None:
        arrays[META_KEY] = np.asarray(meta.to_json(), dtype=np.str_)

    def dump(f: IO[bytes]) -> None:
        np.savez(f, **arrays)

    return write_atomic(path, dump, force=force)


def _contents(path: Path) -> dict[str, Any]:
    return read_npz(path)  # headers, dtypes and sizes checked before anything is inflated


def read_meta(path: Path) -> ExportMeta | None:
    data = _contents(path)
    return meta_from_array(data[META_KEY], where=str(path)) if META_KEY in data else None


def read(
    path: Path,
    *,
    robot_name: str | None = None,
    dof_names: tuple[str, ...] | None = None,
    meta: ExportMeta | None = None,
) -> RobotMotion:
    """Read a RobotMotion; ``robot_name`` overrides the stored robot, else the name guessed from the file name."""
    data = _contents(path)
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise MotionFileError(path, f"missing keys {missing}; found {sorted(data)}, need {list(REQUIRED_KEYS)}")
    stored = data.get("dof_names")
    motion = motion_from_file(
        path,
        robot=guess_robot_name(path, robot_name, stored=meta.robot if meta else None),
        fps=file_fps(path, data["fps"]),
        root_pos=data["root_pos"],
        root_rot_xyzw=data["root_rot"],
        dof_pos=data["dof_pos"],
        stored_dof_names=None if stored is None else [str(s) for s in np.atleast_1d(stored)],
        requested_dof_names=dof_names,
        contacts=data.get("contacts"),
        contact_bodies=[str(s) for s in np.atleast_1d(data.get("contact_names", []))],
    )
    return _with_controls(path, motion, data)


CONTROL_KEYS = ("controls", "control_dt", "control_kind", "control_names", "control_kp", "control_kd")


def _with_controls(path: Path, motion: RobotMotion, data: dict[str, Any]) -> RobotMotion:
    """The motion with the controls the file carries (all of CONTROL_KEYS), as written by ``write``."""
    present = [k for k in CONTROL_KEYS if k in data]
    if not present:
        return motion
    if len(present) != len(CONTROL_KEYS):
        missing = [k for k in CONTROL_KEYS if k not in data]
        raise MotionFileError(path, f"has controls but lacks {missing} (need all of {list(CONTROL_KEYS)})")

    def opt(key: str) -> np.ndarray | None:
        return np.asarray(data[key], dtype=np.float64) if key in data else None

    try:
        solimp, physics_dt = opt("control_floor_solimp"), opt("control_physics_dt")
        timeconst, friction_tc = opt("control_floor_timeconst"), opt("control_floor_friction_timeconst")
        controls = Controls(
            kind=str(data["control_kind"]), dt=float(data["control_dt"]),
            values=np.asarray(data["controls"], dtype=np.float64), gains=opt("gains"),
            names=tuple(str(s) for s in np.atleast_1d(data["control_names"])),
            kp=np.asarray(data["control_kp"], dtype=np.float64), kd=np.asarray(data["control_kd"], dtype=np.float64),
            states=opt("control_states"), physics_dt=None if physics_dt is None else float(physics_dt),
            floor_solimp=None if solimp is None else (float(solimp[0]), float(solimp[1])),
            floor_timeconst=None if timeconst is None else float(timeconst),
            floor_friction_timeconst=None if friction_tc is None else float(friction_tc),
        )  # fmt: skip
    except (TypeError, ValueError, IndexError) as exc:
        raise MotionFileError(path, f"unreadable controls: {exc}") from None
    nu = len(controls.names)
    gains = controls.gains
    if gains is None and controls.kind == "pd_targets":
        raise MotionFileError(path, "has PD-target controls but lacks ['gains'] (their feedback gains)")
    if (
        controls.values.ndim != 2
        or controls.values.shape[1] != nu
        or (gains is not None and gains.shape[:2] != controls.values.shape)
    ):
        shapes = f"controls {controls.values.shape}" + ("" if gains is None else f" and gains {gains.shape}")
        raise MotionFileError(path, f"{shapes} do not fit {nu} control names")
    k = controls.values.shape[0]
    if controls.states is not None and (controls.states.ndim != 2 or controls.states.shape[0] != k + 1):
        raise MotionFileError(path, f"control_states {controls.states.shape} do not fit {k} control steps")
    return replace(motion, controls=controls)
