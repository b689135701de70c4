"""The one retarget job: resolve the source, robot, mapping, engine and config; validate once;
run; evaluate; save. Every face (CLI retarget, batch workers, the app's Preview, demo, render
--source, gait) goes through here, so defaults and checks are the same everywhere.

    from kinemorph.pipeline import Outputs, RetargetJob, run_job
    done = run_job(RetargetJob("walk.bvh", "unitree_g1", outputs=Outputs(("walk_g1.npz",), report="q.json")))
    print(done.report.table())

Checks happen in this order, before anything is written: every output path (format known,
writable, no two the same), then the source and robot files, the engine and its config (compat
preset and overrides), then :func:`kinemorph.retarget.retarget` checks the motion/robot family and
the mapping's names once.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping as MappingType
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._files import check_writable
from .errors import ConfigError, KinemorphError
from .mapping.mapping import Mapping
from .motion.motion import Motion
from .progress import Progress
from .quality.report import QualityReport
from .retarget import Engine, get_engine, resolve_engine, retarget
from .robots.robot import Robot
from .robots.robot_motion import RobotMotion


def engine_config(
    engine: Engine,
    *,
    compat: str | None = None,
    config: Any = None,
    overrides: MappingType[str, Any] | None = None,
) -> Any:
    """The engine's config: ``config`` if given, else the ``compat`` preset (e.g. "gmr": GMR's
    exact settings), else the defaults; then ``overrides`` (field -> value, e.g. from CLI options)."""
    if compat is not None and compat not in engine.compat:
        valid = ", ".join(engine.compat) or "none"
        raise ConfigError(f"engine {engine.name} has no {compat!r} settings; valid: {valid}")
    if config is not None and not isinstance(config, engine.config_type):
        raise ConfigError(f"engine {engine.name} takes a {engine.config_type.__name__}, got {type(config).__name__}")
    base = config if config is not None else (engine.compat[compat]() if compat else engine.config_type())
    if not overrides:
        return base
    names = {f.name for f in dataclasses.fields(engine.config_type)}
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise ConfigError(f"engine {engine.name} has no option {unknown[0]!r}; valid: {', '.join(sorted(names))}")
    try:
        return dataclasses.replace(base, **overrides)  # type: ignore[type-var]
    except (TypeError, ValueError) as exc:
        if isinstance(exc, KinemorphError):
            raise
        raise ConfigError(f"engine {engine.name}: {exc}") from None


@dataclass(frozen=True)
class Outputs:
    """Where a job's results go; every path is checked before anything is written.

    Attributes:
        motion: robot motion files, format by file name (kinemorph.io.EXPORT_FORMATS endings).
        report: the quality report as JSON, or None.
        plot: a PNG of tracking error and joint curves, or None.
        force: overwrite existing files.
        format: a format name for every motion file (kinemorph.io.EXPORT_FORMATS), overriding their names.
    """

    motion: tuple[str | Path, ...] = ()
    report: str | Path | None = None
    plot: str | Path | None = None
    force: bool = False
    format: str | None = None

    def paths(self) -> list[Path]:
        extra = [p for p in (self.report, self.plot) if p is not None]
        return [Path(p) for p in (*self.motion, *extra)]

    def check(self) -> None:
        """Refuse an unknown motion format, an existing file without force, a missing folder and
        two outputs that are one file."""
        from .errors import UnknownNameError
        from .io import format_for

        for p in self.motion:
            try:
                format_for(p, self.format)
            except UnknownNameError as exc:
                raise KinemorphError(f"{p}: unsupported output format; supported: {', '.join(exc.valid)}") from None
        seen: dict[Path, Path] = {}
        for p in self.paths():
            check_writable(p, force=self.force)
            key = p.resolve()
            if key in seen:
                raise KinemorphError(f"{p}: named twice as an output (also {seen[key]}); give each output its own file")
            seen[key] = p

    def write(self, result: RobotMotion, robot: Robot, report: QualityReport | None, physics: Any = None) -> None:
        """Write every output; ``physics`` (a kinemorph.sim SimReport) joins the report JSON
        under "physics"."""
        from .io import save

        for p in self.motion:
            save(result, p, robot=robot, force=self.force, format=self.format)
        if self.report is not None and report is not None and physics is None:
            report.save_json(self.report, force=self.force)
        elif self.report is not None and report is not None:
            import json

            from ._files import write_text_atomic
            from .sim.files import report_json

            merged = {**report.to_dict(), "physics": json.loads(report_json(physics))}
            write_text_atomic(self.report, json.dumps(merged, indent=2, allow_nan=False) + "\n", force=self.force)
        if self.plot is not None and report is not None:
            from .plot import plot_retarget

            plot_retarget(result, robot, report, self.plot, force=self.force)


@dataclass(frozen=True)
class RetargetJob:
    """One clip onto one robot.

    Attributes:
        source: a motion file (any reader of kinemorph.motion) or a loaded Motion.
        robot: a registry name, an MJCF/URDF path or a loaded Robot.
        mapping: a mapping JSON path or a Mapping; None uses the robot's shipped one.
        engine: an engine name or "auto" (quadruped for animal clips, else gmr).
        config: the engine's config; None uses the compat preset or the defaults.
        options: config fields to change, e.g. from command-line options; each applies to the
            engine that runs when its config has the field (``damping`` to every IK engine,
            ``mode`` to quadruped only), and a name no engine knows is refused.
        compat: a named preset of the engine (e.g. "gmr": GMR's exact settings), or None.
        preset: how to read a source file ("auto" detects it).
        source_options: kinemorph.motion.load_motion's options for a source file (unit, up,
            strict, fps, body_model, landmarks).
        outputs: where the results go (nothing is written by default).
        evaluate: compute the quality report.
        simulate: also judge physical feasibility (kinemorph.sim.simulate: inverse dynamics and a
            torque-controlled replay in MuJoCo); the verdict joins the report.
        cleanup: the clean-up stage after the engine (kinemorph.retarget.cleanup: planted feet
            held, nothing below the floor or inside itself, joint speed limit): "auto" runs it for
            engine "auto" without a compat preset (GMR parity stays exact), "on" always, "off" never.
        cleanup_config: its settings; None uses the defaults with ``options`` of its fields.
    """

    source: str | Path | Motion
    robot: str | Path | Robot
    mapping: str | Path | Mapping | None = None
    engine: str = "auto"
    config: Any = None
    options: MappingType[str, Any] = field(default_factory=dict)
    compat: str | None = None
    preset: str = "auto"
    source_options: MappingType[str, Any] = field(default_factory=dict)
    outputs: Outputs = field(default_factory=Outputs)
    evaluate: bool = True
    simulate: bool = False
    cleanup: str = "auto"
    cleanup_config: Any = None


@dataclass(frozen=True)
class JobTimes:
    """Wall-clock time of each stage of a job [s]."""

    load: float
    retarget: float
    evaluate: float
    save: float

    @property
    def total(self) -> float:
        return self.load + self.retarget + self.evaluate + self.save


@dataclass(frozen=True)
class JobResult:
    """What a job produced.

    Attributes:
        motion: the source motion.
        robot: the robot.
        engine: the engine that ran (never "auto").
        config: its config.
        result: the robot motion.
        report: its quality report (None when not evaluated).
        times: time per stage (the physics verdict counts as evaluation).
        physics: the feasibility verdict (kinemorph.sim.SimReport) when asked for, else None.
    """

    motion: Motion
    robot: Robot
    engine: str
    config: Any
    result: RobotMotion
    report: QualityReport | None
    times: JobTimes
    physics: Any = None


def job_config(engine: Engine, job: RetargetJob) -> Any:
    """The config the job runs ``engine`` with (see RetargetJob.options)."""
    from .retarget import ENGINES

    known = {f.name for e in ENGINES.values() for f in dataclasses.fields(e.config_type)} | cleanup_fields()
    unknown = sorted(set(job.options) - known)
    if unknown:
        raise ConfigError(f"no engine has an option {unknown[0]!r}; valid: {', '.join(sorted(known))}")
    mine = {f.name for f in dataclasses.fields(engine.config_type)}
    overrides = {k: v for k, v in job.options.items() if k in mine}
    return engine_config(engine, compat=job.compat, config=job.config, overrides=overrides)


CLEANUP_CHOICES = ("auto", "on", "off")
CLEANUP_ENGINES = ("gmr", "mesh", "graph", "quadruped")
"""Engines the clean-up stage runs after (the quadruped's natural mode with its own contact plan)."""


def cleanup_fields() -> set[str]:
    """Names of the clean-up stage's options (they may appear in RetargetJob.options)."""
    from .retarget.cleanup import CleanupConfig

    return {f.name for f in dataclasses.fields(CleanupConfig)}


def job_cleanup(job: RetargetJob) -> Any:
    """The CleanupConfig the job's clean-up stage runs with, or None when the stage is off."""
    from .retarget.cleanup import CleanupConfig

    if job.cleanup not in CLEANUP_CHOICES:
        raise ConfigError(f"cleanup must be one of {', '.join(CLEANUP_CHOICES)}; got {job.cleanup!r}")
    if job.cleanup == "off" or (job.cleanup == "auto" and (job.engine != "auto" or job.compat is not None)):
        return None
    if job.cleanup_config is not None and not isinstance(job.cleanup_config, CleanupConfig):
        raise ConfigError(f"cleanup_config must be a CleanupConfig, got {type(job.cleanup_config).__name__}")
    base = job.cleanup_config or CleanupConfig()
    overrides = {k: v for k, v in job.options.items() if k in cleanup_fields()}
    try:
        return dataclasses.replace(base, **overrides)  # type: ignore[type-var]
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"cleanup: {exc}") from None


AUTO_ENGINES = ("gmr", "quadruped")
"""The engines "auto" picks from (see kinemorph.retarget.resolve_engine)."""


def check_job_settings(job: RetargetJob) -> None:
    """Check the engine, config, options and compat preset before any clip is read (a batch
    checks them once for every file): with engine "auto", they must fit at least one of the
    engines auto may choose, and option values must be valid for each engine that has them."""
    job_cleanup(job)
    names = AUTO_ENGINES if job.engine == "auto" else (job.engine,)
    errors: list[KinemorphError] = []
    for name in names:
        try:
            job_config(get_engine(name), job)
        except KinemorphError as exc:
            errors.append(exc)
    if len(errors) == len(names):
        raise errors[0]


def load_source(source: str | Path | Motion, preset: str = "auto", **options: Any) -> Motion:
    """The job's motion: a loaded Motion as it is, a file through load_motion with ``options``."""
    if isinstance(source, Motion):
        return source
    from .motion import load_motion

    return load_motion(source, preset, **{k: v for k, v in options.items() if v is not None})


def load_job_robot(robot: str | Path | Robot) -> Robot:
    if isinstance(robot, Robot):
        return robot
    from .robots import load_robot

    return load_robot(robot)


def load_job_mapping(mapping: str | Path | Mapping | None) -> Mapping | None:
    if mapping is None or isinstance(mapping, Mapping):
        return mapping
    return Mapping.load(mapping)


def run_job(job: RetargetJob, *, progress: Progress | None = None) -> JobResult:
    """Run one job (see the module docstring for the order of checks)."""
    from .quality import evaluate

    job.outputs.check()
    t0 = time.perf_counter()
    motion = load_source(job.source, job.preset, **job.source_options)
    engine = get_engine(resolve_engine(job.engine, motion))
    config = job_config(engine, job)
    robot = load_job_robot(job.robot)
    mapping = load_job_mapping(job.mapping)
    t1 = time.perf_counter()
    clean = job_cleanup(job)
    result = retarget(motion, robot, mapping, engine=engine.name, config=config, progress=progress)
    if clean is not None and engine.name in CLEANUP_ENGINES:
        from .retarget.cleanup import cleanup

        result = cleanup(result, robot, motion, config=clean, progress=progress)
    t2 = time.perf_counter()
    report = evaluate(result, robot) if job.evaluate else None
    physics = None
    if job.simulate:
        from .sim import simulate

        physics = simulate(result, robot)
    t3 = time.perf_counter()
    job.outputs.write(result, robot, report, physics)
    t4 = time.perf_counter()
    times = JobTimes(t1 - t0, t2 - t1, t3 - t2, t4 - t3)
    return JobResult(motion, robot, engine.name, config, result, report, times, physics)
