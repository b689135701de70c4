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


def shared_robot(rel: str) -> Path:
    """Path of a robot model with no kinemorph mapping, KINEMORPH_DATA/../robots/<rel>; skips the
    test when it is unavailable."""
    root = os.environ.get("KINEMORPH_DATA")
    if not root:
        pytest.skip("KINEMORPH_DATA is not set (its ../robots holds the unseen models)")
    path = Path(root).parent / "robots" / rel
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


@pytest.fixture(scope="session")
def generated_walk():  # type: ignore[no-untyped-def]
    """The project's own generated walk (LAFAN1 skeleton), shared by the tests that only read it."""
    from kinemorph.motion.procedural import procedural_walk

    return procedural_walk()


def robot_or_skip(name: str):  # type: ignore[no-untyped-def]
    """A known robot, or a skip when no local mujoco-menagerie copy is configured."""
    if not HAS_MENAGERIE:
        pytest.skip("MENAGERIE_ROOT is not set (local mujoco-menagerie copy; the tests never download)")
    from kinemorph.robots import load_robot

    return load_robot(name)


def gmr_reference() -> Path:
    """GMR's reference folder (config, model, outputs) beside the shared data, or a skip."""
    root = os.environ.get("KINEMORPH_DATA")
    if not root:
        pytest.skip("KINEMORPH_DATA is not set: GMR's reference outputs live beside the shared data")
    ref = Path(root).resolve().parent / "reference" / "gmr"
    if not (ref / "bvh_to_g1.json").is_file():
        pytest.skip(f"GMR reference files not found in {ref}")
    return ref
