"""Local executor: a process pool on this machine (concurrent.futures, 'spawn' start method).

Workers are started with 'spawn' (MuJoCo and numba are not safe to fork once threads exist) and
load numba's compiled kernels from its on-disk cache. At most one job per worker is in flight, so
that when a worker dies (SIGKILL, os._exit, out of memory) the pool breaks with few jobs in doubt:
the pool is rebuilt, every job that was in flight is retried once *on its own* (nothing else runs
meanwhile, so a second crash is the file's own doing), and a job that crashes its worker twice is
reported as a :class:`Crash`. Ctrl-C (KeyboardInterrupt in the main process) cancels what has not
started, lets the files in progress finish (their outputs are complete) and re-raises.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

START_METHOD = "spawn"


@dataclass(frozen=True)
class Done(Generic[T, R]):
    """A finished job.

    Attributes:
        item: the job.
        value: fn(item), or a Crash when its worker died at every attempt.
        attempts: how many times it was run (more than 1 after a worker crash).
    """

    item: T
    value: R | Crash
    attempts: int = 1


@dataclass(frozen=True)
class Crash:
    """A job whose worker process died (every attempt).

    Attributes:
        message: what happened, for the manifest.
        attempts: how many times the job was run.
    """

    message: str
    attempts: int


def default_workers() -> int:
    """The CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass
class LocalExecutor(Generic[T, R]):
    """Run ``fn(item)`` for many items in a pool of worker processes.

    Attributes:
        workers: number of worker processes.
        retries: how many times a job whose worker died is run again.
    """

    workers: int
    retries: int = 1

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, initializer: Callable[[], None] | None = None
    ) -> Iterator[Done[T, R]]:
        """Yield a Done per item, in completion order. fn and initializer must be picklable
        (module-level functions or functools.partial of them); fn should return its own errors."""
        todo = deque(range(len(items)))
        retry: deque[int] = deque()
        crashes = dict.fromkeys(range(len(items)), 0)
        running: dict[Future[R], int] = {}
        pool = self._pool(initializer, len(items))
        try:
            while todo or retry or running:
                if retry:
                    if not running:
                        i = retry.popleft()
                        running[pool.submit(fn, items[i])] = i
                else:
                    while todo and len(running) < self.workers:
                        i = todo.popleft()
                        running[pool.submit(fn, items[i])] = i
                try:
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                except KeyboardInterrupt:
                    yield from self._drain(pool, running, items, crashes)
                    raise
                suspects = []
                for fut in done:
                    i = running.pop(fut)
                    try:
                        yield Done(items[i], fut.result(), crashes[i] + 1)
                    except BrokenProcessPool:
                        suspects.append(i)
                if not suspects:
                    continue
                # The pool is broken: every job still in flight fails with it, at once.
                for fut in list(running):
                    suspects.append(running.pop(fut))
                pool.shutdown(wait=True)
                pool = self._pool(initializer, len(todo) + len(retry) + len(suspects))
                for i in sorted(suspects):
                    crashes[i] += 1
                    if crashes[i] > self.retries:
                        yield Done(items[i], Crash(_crash_message(crashes[i]), crashes[i]), crashes[i])
                    else:
                        retry.append(i)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _pool(self, initializer: Callable[[], None] | None, jobs: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=max(1, min(self.workers, jobs)),
            mp_context=multiprocessing.get_context(START_METHOD),
            initializer=initializer,
        )

    @staticmethod
    def _drain(
        pool: ProcessPoolExecutor, running: dict[Future[R], int], items: Sequence[T], crashes: dict[int, int]
    ) -> Iterator[Done[T, R]]:
        """After Ctrl-C: cancel jobs not started, yield those that finish. A second Ctrl-C
        terminates the workers (SIGTERM: each removes the output it was writing)."""
        for fut in running:
            fut.cancel()
        try:
            for fut in list(running):
                if fut.cancelled():
                    continue
                try:
                    result = fut.result()
                except BrokenProcessPool:
                    continue
                i = running[fut]
                yield Done(items[i], result, crashes[i] + 1)
        except KeyboardInterrupt:
            for proc in list(getattr(pool, "_processes", {}).values()):  # the pool has no public handle
                proc.terminate()
            raise
        finally:
            running.clear()


def _crash_message(attempts: int) -> str:
    return (
        f"the worker process died while retargeting this file, {attempts} times (killed by a signal, "
        "out of memory, or a crash in native code); the file was retried alone after the first time"
    )
