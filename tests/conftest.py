"""Shared test helpers: paths to the optional shared data, skipping with a clear reason when unset."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Moderate example counts keep the suite fast; no deadline, since the first call of a numba kernel
# compiles it. HYPOTHESIS_PROFILE=thorough runs more examples.
settings.register_profile("default", max_examples=40, deadline=None)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

HAS_DATA = bool(os.environ.get("KINEMORPH_DATA"))
HAS_MENAGERIE = bool(os.environ.get("MENAGERIE_ROOT"))

needs_data = pytest.mark.skipif(not HAS_DATA, reason="KINEMORPH_DATA is not set (folder holding motions/*.bvh)")
needs_menagerie = pytest.mark.skipif(
    not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set (local mujoco-menagerie copy; the tests never download)"
)


def data_path(name: str) -> Path:
    """Path of a shared motion clip, KINEMORPH_DATA/motions/<name>; skips the test when it is unavailable."""
    root = os.environ.get("KINEMORPH_DATA")
    if not root:
        pytest.skip("KINEMORPH_DATA is not set (folder holding motions/*.bvh)")
    path = Path(root) / "motions" / name
    if not path.is_file():
        pytest.skip(f"{path} does not exist")
    return path
