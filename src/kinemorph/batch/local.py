"""Local executor: a process pool on this machine (concurrent.futures, 'spawn' start method).

Workers are started with 'spawn' (MuJoCo and numba are not safe to fork once threads exist) and
load numba's compiled kernels from its on-disk cache. At most one job per worker is in flight.
When a worker dies (SIGKILL, os._exit, out of memory) the pool breaks and every job in flight
fails with it: the pool is rebuilt, jobs that had not started yet (each worker flags the job it
starts in shared memory) are queued again as they were, and jobs that had started are retried
once *on their own* (nothing else runs meanwhile, so a second crash is the file's own doing); a
job that crashes its worker twice is reported as a :class:`Crash`. Ctrl-C (KeyboardInterrupt in
the main process) cancels what has not started, lets the files in progress finish (their outputs
are complete) and re-raises.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

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
class LocalExecutor:
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
        ctx = multiprocessing.get_context(START_METHOD)
        started = ctx.RawArray("b", len(items))  # set by a worker when it starts job i
        pool = self._pool(ctx, started, initializer, len(items))
        try:
            while todo or retry or running:
                broken = False
                try:
                    if retry and not running:  # a job retried after a crash runs alone
                        fut = pool.submit(_call, fn, retry[0], items[retry[0]])
                        running[fut] = retry.popleft()
                    while todo and not retry and len(running) < self.workers:
                        fut = pool.submit(_call, fn, todo[0], items[todo[0]])
                        running[fut] = todo.popleft()
                except BrokenProcessPool:  # a worker died while idle
                    broken = True
                suspects = []
                if running:
                    try:
                        done, _ = wait(running, return_when=FIRST_COMPLETED)
                    except KeyboardInterrupt:
                        yield from self._drain(pool, running, items, crashes)
                        raise
                    for fut in done:
                        i = running.pop(fut)
                        if isinstance(fut.exception(), BrokenProcessPool):
                            suspects.append(i)
                            broken = True
                        else:
                            yield Done(items[i], fut.result(), crashes[i] + 1)
                if not broken:
                    continue
                # The pool is broken: the jobs still in flight fail with it (unless they just finished).
                pool.shutdown(wait=True)
                for fut, i in list(running.items()):
                    del running[fut]
                    if isinstance(fut.exception(), BrokenProcessPool):
                        suspects.append(i)
                    else:
                        yield Done(items[i], fut.result(), crashes[i] + 1)
                pool = self._pool(ctx, started, initializer, len(todo) + len(retry) + len(suspects))
                for i in sorted(suspects, reverse=True):
                    if not started[i]:  # still queued when the pool broke: not this job's doing
                        todo.appendleft(i)
                        continue
                    started[i] = 0
                    crashes[i] += 1
                    if crashes[i] > self.retries:
                        yield Done(items[i], Crash(_crash_message(crashes[i]), crashes[i]), crashes[i])
                    else:
                        retry.appendleft(i)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _pool(self, ctx: Any, started: Any, initializer: Callable[[], None] | None, jobs: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=max(1, min(self.workers, jobs)),
            mp_context=ctx,
            initializer=_init,
            initargs=(started, initializer),
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


_STARTED: Any = None  # in a worker: the executor's shared "job started" flags


def _init(started: Any, initializer: Callable[[], None] | None) -> None:
    global _STARTED
    _STARTED = started
    if initializer is not None:
        initializer()


def _call(fn: Callable[[T], R], index: int, item: T) -> R:
    _STARTED[index] = 1
    return fn(item)


def _crash_message(attempts: int) -> str:
    return (
        f"the worker process died while retargeting this file, {attempts} times (killed by a signal, "
        "out of memory, or a crash in native code); the file was retried alone after the first time"
    )
