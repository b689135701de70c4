"""The package's own exception types.

Every error a user can cause (a bad file, an unknown name, a motion that does not fit the
robot, a bad parameter) is raised as a :class:`KinemorphError` subclass whose message says
what went wrong and where: file and line for files, the valid choices for names.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


class KinemorphError(Exception):
    """Base of every error kinemorph raises on purpose."""


class MotionFileError(KinemorphError):
    """A motion file is malformed. The message names the file and, where known, the line."""

    def __init__(self, path: str | Path | None, message: str, line: int | None = None) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        where = self.path or "<text>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")


class UnknownNameError(KinemorphError, KeyError):
    """A name (robot, body, joint, engine, preset...) that does not exist; lists the valid ones."""

    def __init__(self, kind: str, name: str, valid: Iterable[str], where: str | None = None) -> None:
        self.kind = kind
        self.name = name
        self.valid = sorted(valid)
        prefix = f"{where}: " if where else ""
        shown = ", ".join(self.valid) if self.valid else "(none)"
        super().__init__(f"{prefix}unknown {kind} {name!r}; valid: {shown}")

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return str(self.args[0])


class MappingError(KinemorphError):
    """A mapping (ik_config) is malformed or does not fit the motion or the robot."""


class RobotLoadError(KinemorphError):
    """A robot model could not be found or compiled."""


class ConfigError(KinemorphError, ValueError):
    """A parameter has an invalid value."""


class OutputExistsError(KinemorphError):
    """An output file exists and overwriting was not asked for."""
