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
from .sources import MOTION_SUFFIXES, ROBOT_SUFFIXES, Sources

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
        listeners: called with the state after a motion or robot change.
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
    listeners: list[Callable[[AppState], None]] = field(default_factory=list)
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
            self.result = self.report = None
            self.align_robot()
        self._notify()
        return motion

    def upload_motion(self, name: str, content: bytes) -> Motion:
        """Store an uploaded clip and open it; a file that does not parse is deleted, the error raised."""
        key, _ = self.sources.store(name, content, MOTION_SUFFIXES)
        try:
            return self.open_motion(key)
        except KinemorphError:
            self.sources.discard(key)
            raise

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
        with self.lock:
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
            self.robot_key, self.mapping = key, None
            self.result = self.report = None
        self._notify()
        return robot

    def upload_robot(self, name: str, content: bytes) -> Robot:
        """Store an uploaded, self-contained MJCF or URDF file and choose it."""
        key, _ = self.sources.store(name, content, ROBOT_SUFFIXES)
        try:
            self.load(key)
        except KinemorphError:
            self.sources.discard(key)
            raise
        return self.select_robot(key)

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
            self.result = self.report = None

    def engine_name(self) -> str:
        """The engine "auto" resolves to for the open clip."""
        return resolve_engine(self.engine, self.motion) if self.motion is not None else "gmr"

    def set_engine(self, name: str) -> None:
        if name not in ENGINE_CHOICES:
            raise UnknownNameError("engine", name, ENGINE_CHOICES)
        self.engine = name

    def config(self) -> Any:
        return self.configs[self.engine_name()]

    # -- retarget ----------------------------------------------------------------------------------
    def run_retarget(self, progress: Progress | None = None) -> tuple[RobotMotion, QualityReport]:
        """Retarget the open clip with the current settings and evaluate it (the library's job)."""
        motion, robot = self.need_motion(), self.robot()
        job = RetargetJob(motion, robot, self.mapping, engine=self.engine_name(), config=self.config())
        done = run_job(job, progress=progress)
        result, report = done.result, done.report
        assert report is not None
        with self.lock:
            self.result, self.report = result, report
        return result, report

    def _notify(self) -> None:
        for cb in list(self.listeners):
            cb(self)
