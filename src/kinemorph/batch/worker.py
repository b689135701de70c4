"""The work done in a worker process: one file in, one output and one Record out.

Each worker process loads the robot and the mapping once, on its first job or in the pool's
initialiser, and keeps them in a cache keyed by the settings digest; jobs then only load their
motion, retarget, evaluate and save. A file's own errors (a corrupt file, a mapping that does not
fit it) become a failed Record; they never stop the worker.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import KinemorphError
from ..mapping.mapping import Mapping
from ..robots.robot import Robot
from .jobs import Job, Settings, file_sha256
from .manifest import Record

_ROBOT_LOADS = 0
_STATES: dict[str, WorkerState] = {}
_CURRENT_OUTPUT: str | None = None


@dataclass
class WorkerState:
    """What a worker keeps between jobs of one batch.

    Attributes:
        robot: the loaded robot.
        mapping: the batch's mapping, or None to use the robot's shipped one per preset.
        seconds_load: time to load the robot and mapping [s].
        seconds_warmup: time of the warm-up retarget (kernel loading) [s]; 0 without one.
    """

    robot: Robot
    mapping: Mapping | None
    seconds_load: float = 0.0
    seconds_warmup: float = 0.0

    def job(self, settings: Settings, source: Any, outputs: Any = None, *, evaluate: bool = True) -> Any:
        """The pipeline job for one source with the batch's settings and this worker's robot."""
        from ..pipeline import Outputs, RetargetJob

        return RetargetJob(
            source,
            self.robot,
            self.mapping,
            engine=settings.engine,
            config=settings.config,
            options=settings.options,
            compat=settings.compat,
            preset=settings.preset,
            source_options=settings.source_options,
            cleanup=settings.cleanup,
            outputs=outputs or Outputs(),
            evaluate=evaluate,
        )


def worker_state(settings: Settings) -> WorkerState:
    """This process's state for the settings: loaded on first use, then reused."""
    global _ROBOT_LOADS
    state = _STATES.get(settings.digest)
    if state is None:
        from ..robots import load_robot

        t0 = time.perf_counter()
        robot = load_robot(settings.robot)
        _ROBOT_LOADS += 1
        mapping = (
            None if settings.mapping is None else Mapping.from_dict(settings.mapping, where=settings.mapping_source)
        )
        state = WorkerState(robot, mapping, seconds_load=time.perf_counter() - t0)
        state.seconds_warmup = _warm_up(state, settings)
        _STATES[settings.digest] = state
    return state


def _warm_up(state: WorkerState, settings: Settings) -> float:
    """Retarget the first frames of one input so that the engine's compiled kernels are loaded
    (from numba's on-disk cache; compiled once if the cache is cold) before the first job."""
    if settings.warmup is None:
        return 0.0
    from ..pipeline import load_source, run_job

    t0 = time.perf_counter()
    try:
        motion = load_source(settings.warmup, settings.preset, **settings.source_options)
        run_job(state.job(settings, motion.slice(0, min(motion.num_frames, 10)), evaluate=False))
    except Exception:  # an optimisation only: the file's own job reports its error
        pass
    return time.perf_counter() - t0


def init_worker(settings: Settings) -> None:
    """Initialiser of a local pool's worker: Ctrl-C goes to the main process only (which finishes
    the files in progress), SIGTERM removes the output being written before exiting, the worker
    exits when its parent dies, and the robot and mapping are loaded once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    try:
        worker_state(settings)
    except Exception:  # the same error recurs in each job, which records it per file
        pass


def _on_sigterm(signum: int, frame: Any) -> None:
    remove_partial(_CURRENT_OUTPUT)
    os._exit(128 + signum)


def remove_partial(output: str | None) -> None:
    """Remove the temporary files of an interrupted write of ``output`` (the atomic writer's
    ``.NAME.XXXXXXXX.tmp`` beside it)."""
    if output is None:
        return
    p = Path(output)
    for tmp in p.parent.glob(f".{p.name}.*.tmp"):
        tmp.unlink(missing_ok=True)


def _exit_with_parent(parent: int) -> None:
    """A pool worker whose main process was killed (SIGKILL) would otherwise wait forever."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            remove_partial(_CURRENT_OUTPUT)
            os._exit(1)


def run_job(settings: Settings, job: Job) -> Record:
    """Retarget one file and save its output atomically; every error becomes a failed Record."""
    global _CURRENT_OUTPUT
    started = time.time()
    t0 = time.perf_counter()
    rec = Record(input=job.input, output=job.rel, status="failed", key=job.key, input_sha256=job.input_sha256)
    rec.worker = f"{socket.gethostname()}:{os.getpid()}"
    rec.started = started
    _CURRENT_OUTPUT = job.output
    try:
        _retarget_file(settings, job, rec)
        rec.status = "ok"
    except KinemorphError as exc:
        rec.error, rec.error_type = str(exc), type(exc).__name__
    except Exception as exc:  # an unexpected error is still one file's failure: record it with its traceback
        rec.error, rec.error_type = f"{type(exc).__name__}: {exc}", type(exc).__name__
        rec.traceback = traceback.format_exc()
    finally:
        _CURRENT_OUTPUT = None
    rec.robot_loads = _ROBOT_LOADS
    rec.seconds = time.perf_counter() - t0
    rec.finished = time.time()
    return rec


def _retarget_file(settings: Settings, job: Job, rec: Record) -> None:
    from ..pipeline import Outputs, run_job

    state = worker_state(settings)
    rec.seconds_worker_start = state.seconds_load + state.seconds_warmup
    out = Path(job.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = run_job(state.job(settings, job.input, Outputs((out,), force=True)))
    result, report, times = done.result, done.report, done.times
    rec.seconds_load, rec.seconds_retarget, rec.seconds_evaluate, rec.seconds_save = (
        times.load,
        times.retarget,
        times.evaluate,
        times.save,
    )
    rec.seconds_compile = result.solve_info.seconds_compile
    rec.output_sha256 = file_sha256(out)
    rec.output_bytes = out.stat().st_size
    rec.frames = result.num_frames
    rec.fps = float(result.fps)
    rec.quality = report.to_dict() if report is not None else {}
