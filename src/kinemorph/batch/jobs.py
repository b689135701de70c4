"""What a batch does to each file: the settings every file shares, one job per input, and the
hashes that decide whether an existing output is still up to date.

A job's ``key`` is the SHA-256 of the settings digest and the input file's content hash. The
settings digest covers everything that changes an output: the robot (name or path, and its model
file's content), the engine and its config, the mapping's content (the robot's shipped mappings
when none is given), the source preset, the output format and the kinemorph version.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..retarget import ENGINES


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file's content."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Settings:
    """The settings every file of a batch is retargeted with; sent to each worker once.

    Attributes:
        robot: robot name (registry key) or absolute model path.
        engine: engine name (a key of kinemorph.retarget.ENGINES) or "auto" (chosen per clip by
            its family, as ``kinemorph retarget`` does).
        config: the engine's config dataclass, or None for the compat preset or defaults.
        options: engine config fields to change (kinemorph.pipeline.RetargetJob.options).
        compat: a named preset of the engine's settings (e.g. "gmr"), or None.
        cleanup: the clean-up stage: "auto", "on" or "off" (RetargetJob.cleanup).
        source_options: how sources are read (kinemorph.pipeline.RetargetJob.source_options:
            unit, up, strict, fps, body_model, landmarks).
        mapping: the mapping's JSON content (GMR ik_config layout); None uses the robot's shipped
            mapping for each motion's preset.
        mapping_source: where the mapping came from, for messages.
        preset: how to read sources ("auto" or a preset name).
        format: output suffix, a key of kinemorph.io.FORMATS (".npz").
        digest: hex SHA-256 over all of the above, the robot model file and the kinemorph version
            (see :func:`settings_digest`); workers cache their loaded robot under it.
        warmup: an input file whose first frames each worker retargets once at start, so that the
            engine's compiled kernels are loaded before the first job; None: no warm-up.
    """

    robot: str
    engine: str
    config: Any
    options: dict[str, Any]
    compat: str | None
    source_options: dict[str, Any]
    cleanup: str
    mapping: dict[str, Any] | None
    mapping_source: str
    preset: str
    format: str
    digest: str = ""
    warmup: str | None = None


def settings_digest(settings: Settings, *, robot_model: Path, default_mappings: dict[str, dict[str, Any]]) -> str:
    """Hex SHA-256 of what determines every output besides the input file itself.

    robot_model: the robot's model file (its content is hashed).
    default_mappings: preset -> JSON content of the robot's shipped mappings, used when
        ``settings.mapping`` is None.
    """
    described = {
        "kinemorph": __version__,
        "robot": settings.robot,
        "robot_model_sha256": file_sha256(robot_model),
        "engine": settings.engine,
        "config_type": type(settings.config).__qualname__,
        "config": _config_dict(settings.config),
        "options": settings.options,
        "compat": settings.compat,
        "cleanup": settings.cleanup,
        "source_options": {k: str(v) for k, v in settings.source_options.items() if v is not None},
        "engine_defaults": {name: _config_dict(e.config_type()) for name, e in ENGINES.items()},
        "mapping": settings.mapping if settings.mapping is not None else {"shipped": default_mappings},
        "preset": settings.preset,
        "format": settings.format,
    }
    return text_sha256(json.dumps(described, sort_keys=True, separators=(",", ":"), default=str))


def _config_dict(config: Any) -> dict[str, Any] | None:
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return dataclasses.asdict(config)
    return None


def job_key(settings_digest: str, input_sha256: str) -> str:
    """The hash an output is recorded under: settings and input content together."""
    return text_sha256(f"{settings_digest}:{input_sha256}")


@dataclass(frozen=True)
class Job:
    """One input file to retarget.

    Attributes:
        input: the input path as matched.
        output: absolute path of the output file.
        rel: the output's path relative to the output folder (POSIX); the manifest's key.
        input_sha256: content hash of the input ("" when it could not be read).
        key: :func:`job_key` of the settings digest and input_sha256.
    """

    input: str
    output: str
    rel: str
    input_sha256: str
    key: str
