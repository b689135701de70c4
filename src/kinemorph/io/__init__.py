"""Export and import of RobotMotion: .npz with GMR's keys, GMR's .pkl, .csv and .json.

Every format stores the root rotation as a quaternion in **x y z w** order (GMR's); inside the
library it is w x y z. Files are written atomically and an existing file is kept unless force=True.
"""

from ._api import FORMATS, Format, format_for, load, save
from ._pickle import GMR_KEYS, local_body_positions

__all__ = ["FORMATS", "GMR_KEYS", "Format", "format_for", "load", "local_body_positions", "save"]
