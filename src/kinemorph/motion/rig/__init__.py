"""Rig recognition: canonical humanoid landmarks, quadruped legs, up axis and unit of any skeleton.

Names first (aliases of the common rigs, names.py), the tree's shape when names are unknown
(chains.py); then geometry decides up axis, family, sides, unit and floor (recognise.py).
"""

from .axes import NAMED_UNITS, UP_AXES, parse_unit, parse_up
from .build import Recognition, foot_body
from .load import RigError, RigWarning, motion_from_raw, recognise_raw, require_rig
from .recognise import recognise
from .report import HUMANOID_LANDMARKS, RigReport
from .tree import PosedTree

__all__ = [
    "HUMANOID_LANDMARKS",
    "NAMED_UNITS",
    "UP_AXES",
    "PosedTree",
    "Recognition",
    "RigError",
    "RigReport",
    "RigWarning",
    "foot_body",
    "motion_from_raw",
    "parse_unit",
    "parse_up",
    "recognise",
    "recognise_raw",
    "require_rig",
]
