"""Every robot model kinemorph can find: the registry, MENAGERIE_ROOT's humanoids and quadrupeds
(mujoco-menagerie's metadata says which) and the folders named in KINEMORPH_ROBOTS (os.pathsep
separated; each model file in the folder or one level below)."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import mujoco

from ..errors import KinemorphError
from .registry import KNOWN_ROBOTS

FAMILIES = ("humanoid", "quadruped", "biped")  # menagerie categories listed ("biped": legs only)


@dataclass(frozen=True)
class GalleryEntry:
    """One model.

    Attributes:
        name: registry name, menagerie name or file stem.
        source: "registry", "menagerie" or "KINEMORPH_ROBOTS".
        family: "humanoid" or "quadruped" ("?" when recognition failed).
        dofs: joints besides the floating base (-1 when the model did not load).
        path: the model file ("" when not present on this machine).
        note: why a model is not usable, or what it offers (shipped mappings).
    """

    name: str
    source: str
    family: str
    dofs: int
    path: str
    note: str = ""


def _probe(path: Path) -> tuple[str, int, str]:
    """(family, dofs, note) of a model file, from recognition without meshes; dofs -1: it does not
    compile, 0: no joints (a scene or terrain file)."""
    from .recognise import recognise_model
    from .robot import _compile

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = _compile(path, meshes=False)
        except KinemorphError as exc:
            return "?", -1, _first_line(exc)
        hinge = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        dofs = sum(int(model.jnt_type[j]) in hinge for j in range(model.njnt))
        if not dofs:
            return "", 0, ""
        try:
            return recognise_model(model, where=str(path)).family, dofs, ""
        except KinemorphError as exc:
            return "?", dofs, _first_line(exc)


def _first_line(exc: Exception) -> str:
    return str(exc).split(": ", 1)[-1].splitlines()[0]


def _registry() -> list[GalleryEntry]:
    from .robot import _menagerie_file

    out = []
    for name, info in KNOWN_ROBOTS.items():
        try:
            path = _menagerie_file(name)
            model = mujoco.MjSpec.from_file(str(path))
            dofs = sum(j.type in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE) for j in model.joints)
            where = str(path)
        except (KinemorphError, ValueError):
            dofs, where = -1, ""
        note = f"shipped mappings: {', '.join(info.mappings)}" if info.mappings else ""
        out.append(GalleryEntry(name, "registry", info.family, dofs, where, note))
    return out


def _menagerie() -> list[GalleryEntry]:
    root = os.environ.get("MENAGERIE_ROOT")
    if not root:
        return []
    import mujoco_menagerie

    out = []
    for meta in mujoco_menagerie.robots():
        if meta.category not in FAMILIES or meta.name in KNOWN_ROBOTS:
            continue
        entry = next((e for e in meta.entry_points if e.name == meta.default_model), None)
        path = Path(root) / meta.name / (entry.file if entry else "")
        if entry is None or not path.is_file():
            out.append(GalleryEntry(meta.name, "menagerie", meta.category, -1, "", "not in MENAGERIE_ROOT"))
            continue
        family, dofs, note = _probe(path)
        out.append(GalleryEntry(meta.name, "menagerie", family, dofs, str(path), note))
    return out


def _model_files(folder: Path) -> list[Path]:
    files = sorted([*folder.glob("*.xml"), *folder.glob("*.urdf"), *folder.glob("*/*.xml"), *folder.glob("*/*.urdf")])
    return [f for f in files if not f.name.startswith("scene")]


def _folders() -> list[GalleryEntry]:
    out = []
    for folder in filter(None, os.environ.get("KINEMORPH_ROBOTS", "").split(os.pathsep)):
        for path in _model_files(Path(folder)):
            family, dofs, note = _probe(path)
            if dofs == 0:
                continue  # not a robot (terrain, scene or asset file)
            out.append(GalleryEntry(path.stem, "KINEMORPH_ROBOTS", family, dofs, str(path), note))
    return out


def gallery() -> list[GalleryEntry]:
    """Every model found (see the module docstring): registry first, then menagerie, then folders."""
    return [*_registry(), *_menagerie(), *_folders()]
