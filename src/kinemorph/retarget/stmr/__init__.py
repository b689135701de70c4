"""Engine ``stmr``: spatio-temporal motion retargeting for quadrupeds (see engine.py)."""

from .config import StmrConfig
from .engine import solve_stmr

__all__ = ["StmrConfig", "solve_stmr"]
