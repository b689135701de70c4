"""The app's state: the open motion, the chosen robot, engine, mapping and configs, the last result.

Plain Python over the library (no viser here), so that every page handler can be tested by
calling it. One lock serialises changes made from the server's callback threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import KinemorphError, UnknownNameError
from ..mapping.mapping import Mapping, default_mapping
from ..motion import Motion, apply_preset, load_motion, read_bvh
from ..motion.bvh import BvhData
from ..pipeline import RetargetJob, run_job
from ..progress import Progress
from ..quality import QualityReport
from ..retarget import ENGINES, resolve_engine
from ..robots import KNOWN_ROBOTS, Robot, load_robot
from ..robots.robot import families_match
from ..robots.robot_motion import RobotMotion
from .sources import MOTION_SUFFIXES, Sources
from .upload_checks import UploadError, check_npz

ENGINE_CHOICES = ("auto", *ENGINES)


@dataclass(frozen=True)
class RobotChoice:
    """A robot the setup page offers: its key (registry name or ``model:``/``upload:`` key), family
    ("" when unknown until loaded) and whether it suits the open motion's family."""

    key: str
    family: str
    enabled: bool


@dataclass
class AppState:
    """Everything the pages share. Handlers change it under ``lock``.

    Attributes:
        sources: the files the browser may open.
        motion: the open motion (None before one is opened).
        motion_key: its key in ``sources``.
        bvh: the raw BVH content of the open motion (channels in file units), None for keypoint files.
        robot_key: the chosen robot.
        engine: an ENGINE_CHOICES entry.
        configs: the config of each engine (defaults until edited).
        mapping: an edited or imported mapping; None means the robot's shipped default.
        result, report: the last retarget and its quality report.
        stale: why the last result was dropped ("" while it is current, or before any).
        generation: counts the changes that make a result stale (a retarget started before one
            is not kept).
        listeners: called with the state after a motion or robot change.
        invalidated: called with the reason when a change drops the result.
        notes: what the app says about an uploaded robot, by key (e.g. loaded without meshes).
    """

    sources: Sources = field(default_factory=Sources)
    motion: Motion | None = None
    motion_key: str = ""
    bvh: BvhData | None = None
    robot_key: str = "unitree_g1"
    engine: str = "auto"
    configs: dict[str, Any] = field(default_factory=lambda: {n: e.config_type() for n, e in ENGINES.items()})
    mapping: Mapping | None = None
    result: RobotMotion | None = None
    report: QualityReport | None = None
    stale: str = ""
    generation: int = 0
    listeners: list[Callable[[AppState], None]] = field(default_factory=list)
    invalidated: list[Callable[[str], None]] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)
    _robots: dict[tuple[str, bool], Robot] = field(default_factory=dict)

    # -- motion ------------------------------------------------------------------------------------
    def open_motion(self, key: str) -> Motion:
        """Open a sample or an uploaded clip by key with the library's readers; the robot follows
        the clip's family (see :meth:`align_robot`)."""
        path = self.sources.path(key, "motion")
        with self.lock:
            if path.suffix.lower() == ".bvh":
                bvh = read_bvh(path)
                motion = apply_preset(bvh, "auto", source=str(path))
            else:
                bvh, motion = None, load_motion(path)
            self.motion, self.motion_key, self.bvh = motion, key, bvh
            self.align_robot()
            self.invalidate(f"the clip changed to {key}")
        self._notify()
        return motion

    def upload_motion(self, name: str, content: bytes) -> Motion:
        """Store an uploaded clip and open it. A .npz is checked from its headers first (it may
        not unpack past ``sources.unpack_limit``); a file that does not parse, for whatever
        reason, is deleted (not selectable) and the error raised as a KinemorphError."""
        key, path = self.sources.store(name, content, MOTION_SUFFIXES)
        try:
            if path.suffix.lower() == ".npz":
                check_npz(path, name, self.sources.unpack_limit)
            return self.open_motion(key)
        except BaseException as exc:
            self.sources.discard(key)
            raise _as_upload_error(name, exc) from None

    # -- robot -------------------------------------------------------------------------------------
    def family_of(self, key: str) -> str:
        if key in KNOWN_ROBOTS:
            return KNOWN_ROBOTS[key].family
        cached = self._robots.get((key, False))
        return cached.family if cached else ""

    def robot_choices(self) -> list[RobotChoice]:
        """Registry robots and model files; a robot of the other family than the open clip's is disabled."""
        want = self.motion.family if self.motion is not None else "other"
        keys = [*KNOWN_ROBOTS, *self.sources.models()]
        return [RobotChoice(k, self.family_of(k), families_match(want, self.family_of(k))) for k in keys]

    def robot(self, *, meshes: bool = False) -> Robot:
        """The chosen robot (loaded once; with meshes for drawing)."""
        return self.load(self.robot_key, meshes=meshes)

    def load(self, key: str, *, meshes: bool = False) -> Robot:
        """A robot by key, loaded once. An uploaded model whose mesh files were not uploaded
        loads without meshes even when they are asked for (``notes`` says so)."""
        with self.lock:
            if key in self.notes and meshes:
                meshes = False
            if (key, meshes) not in self._robots:
                target: str | Path = key if key in KNOWN_ROBOTS else self.sources.path(key, "model")
                self._robots[(key, meshes)] = load_robot(target, meshes=meshes)
            return self._robots[(key, meshes)]

    def select_robot(self, key: str) -> Robot:
        """Choose a robot; refuses one of the other family than the open clip's. Resets the mapping."""
        valid = [c.key for c in self.robot_choices()]
        if key not in valid:
            raise UnknownNameError("robot", key, valid)
        with self.lock:
            robot = self.load(key)
            if self.motion is not None:
                robot.check_motion(self.motion)
            changed = key != self.robot_key
            self.robot_key, self.mapping = key, None
            if changed:
                self.invalidate(f"the robot changed to {key}")
        self._notify()
        return robot

    def upload_robot(self, name: str, content: bytes) -> Robot:
        """Store an uploaded robot (an MJCF or URDF file, or a .zip of its folder with meshes)
        and choose it. Files it names must lie inside its upload; when its mesh files are not
        there it loads without meshes and ``notes[key]`` says so. A model that does not load is
        deleted again."""
        key, files = self.sources.store_robot(name, content)
        self.notes.pop(key, None)
        self._robots = {k: r for k, r in self._robots.items() if k[0] != key}
        if files.missing:
            shown = ", ".join(files.missing[:3]) + (
                f" and {len(files.missing) - 3} more" if len(files.missing) > 3 else ""
            )
            self.notes[key] = (
                f"{key} is shown without its meshes ({shown} not uploaded): upload a .zip of the model "
                "folder with its mesh files to see them"
            )
        try:
            self.load(key)
            return self.select_robot(key)
        except BaseException as exc:
            self.sources.discard(key)
            self.notes.pop(key, None)
            raise _as_upload_error(name, exc) from None

    def align_robot(self) -> None:
        """When the open clip's family differs from the robot's, switch to the first registry robot
        of the clip's family (a dog clip selects unitree_go2, a human clip unitree_g1)."""
        if self.motion is None or self.motion.family == "other":
            return
        if self.family_of(self.robot_key) in ("", self.motion.family):
            return
        for name, info in KNOWN_ROBOTS.items():
            if info.family == self.motion.family:
                self.robot_key, self.mapping = name, None
                return

    # -- mapping, engine ---------------------------------------------------------------------------
    def need_motion(self) -> Motion:
        if self.motion is None:
            raise KinemorphError("open a motion first (Motion page)")
        return self.motion

    def current_mapping(self) -> Mapping:
        """The edited or imported mapping, else the robot's shipped one for the clip's preset."""
        if self.mapping is not None:
            return self.mapping
        return default_mapping(self.need_motion(), self.robot())

    def set_mapping(self, mapping: Mapping) -> None:
        """Use a mapping after checking it against the open clip and the robot."""
        mapping.check(self.need_motion(), self.robot())
        with self.lock:
            self.mapping = mapping
            self.invalidate("the mapping changed")

    def engine_name(self) -> str:
        """The engine "auto" resolves to for the open clip."""
        return resolve_engine(self.engine, self.motion) if self.motion is not None else "gmr"

    def set_engine(self, name: str) -> None:
        if name not in ENGINE_CHOICES:
            raise UnknownNameError("engine", name, ENGINE_CHOICES)
        if name != self.engine:
            self.engine = name
            self.invalidate(f"the engine changed to {name}")

    def invalidate(self, reason: str) -> None:
        """Drop the last result (it no longer matches the setup) and tell the pages why."""
        with self.lock:
            self.generation += 1
            had = self.result is not None
            self.result = self.report = None
            if had:
                self.stale = reason
        if had:
            for cb in list(self.invalidated):
                cb(reason)

    def config(self) -> Any:
        return self.configs[self.engine_name()]

    # -- retarget ----------------------------------------------------------------------------------
    def run_retarget(self, progress: Progress | None = None) -> tuple[RobotMotion, QualityReport]:
        """Retarget the open clip with the current settings and evaluate it (the library's job)."""
        with self.lock:
            motion, robot, generation = self.need_motion(), self.robot(), self.generation
            job = RetargetJob(motion, robot, self.mapping, engine=self.engine_name(), config=self.config())
        done = run_job(job, progress=progress)
        result, report = done.result, done.report
        assert report is not None
        with self.lock:
            if generation != self.generation:
                raise KinemorphError(
                    "the setup changed while retargeting (clip, robot, mapping or engine): retarget again"
                )
            self.result, self.report, self.stale = result, report, ""
        return result, report

    def _notify(self) -> None:
        for cb in list(self.listeners):
            cb(self)


def _as_upload_error(name: str, exc: BaseException) -> BaseException:
    """A KinemorphError as it is; anything else a reader raised on an upload (MemoryError,
    TypeError, ...) as an UploadError the page can show. Interrupts pass through."""
    if isinstance(exc, KinemorphError) or not isinstance(exc, Exception | MemoryError):
        return exc
    if isinstance(exc, MemoryError):
        return UploadError(f"{name}: too large to read into memory")
    return UploadError(f"{name}: cannot be read ({type(exc).__name__}: {exc})")
