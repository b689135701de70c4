"""Export and import of RobotMotion: GMR's .npz and .pkl, kinemorph's .csv and .json, and the
formats training frameworks read directly: BeyondMimic's CSV, MimicKit's motion pickle, and the
tracking .npz of holosoma and mjlab (per-body world states through the robot's kinematics).

A format is chosen by name (``format="mjlab"``) or by the file name's ending (``walk.mjlab.npz``;
a plain ``.npz`` is GMR's). Each file states its root quaternion order (see the format modules;
inside the library quaternions are w x y z). Every export carries its metadata (robot, kinematic
tree hash, joint and body order, fps, conventions, units, version, settings): inside the file
where the format has room, else in a sidecar ``<file>.meta.json``. Files are written atomically
and an existing file is kept unless force=True.
"""

from ._api import (
    EXPORT_FORMATS,
    FORMATS,
    Format,
    detect_format,
    format_for,
    get_format,
    is_export,
    load,
    output_suffix,
    read_meta,
    save,
    written_files,
)
from ._bodies import BodyStates, body_states
from ._convert import Conversion, FileDescription, convert, describe
from ._meta import META_KEY, UNITS, ExportMeta, kinematic_tree_hash, sidecar_path
from ._pickle import GMR_KEYS, local_body_positions

__all__ = [
    "EXPORT_FORMATS",
    "FORMATS",
    "GMR_KEYS",
    "META_KEY",
    "UNITS",
    "BodyStates",
    "Conversion",
    "ExportMeta",
    "FileDescription",
    "Format",
    "body_states",
    "convert",
    "describe",
    "detect_format",
    "format_for",
    "get_format",
    "is_export",
    "kinematic_tree_hash",
    "load",
    "local_body_positions",
    "output_suffix",
    "read_meta",
    "save",
    "sidecar_path",
    "written_files",
]
