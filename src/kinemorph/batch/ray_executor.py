"""Ray executor: the same jobs as the local pool, as Ray tasks on a cluster (``pip install
kinemorph[ray]``).

Each job is one task needing one CPU. Ray reuses its worker processes, and kinemorph's worker
keeps the loaded robot and mapping in a per-process cache, so they are loaded once per worker
process, not per file. A task whose worker process dies is retried ``retries`` times by Ray
itself (``max_retries``); errors of a file are returned by the task as a failed record and are
not retried. Every node must see the input and output paths (a shared filesystem) and have
kinemorph installed; MENAGERIE_ROOT and KINEMORPH_DATA are passed on when set here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import KinemorphError
from .local import Crash, Done

T = TypeVar("T")
R = TypeVar("R")

PASSED_ENV = ("MENAGERIE_ROOT", "KINEMORPH_DATA")


def import_ray() -> Any:
    """The ray module, or a KinemorphError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise KinemorphError(
            "--ray needs Ray, which is not installed: pip install 'kinemorph[ray]' (or pip install ray)"
        ) from None
    return ray


def _call(fn: Callable[[Any], Any], item: Any) -> Any:
    return fn(item)


@dataclass
class RayExecutor:
    """Run ``fn(item)`` for many items as Ray tasks.

    Attributes:
        address: "auto" (the cluster in RAY_ADDRESS or one started on this machine with
            ``ray start``, else a new local Ray) or a cluster address ("HOST:6379"; a Ray Client
            address "ray://HOST:10001" needs ``ray[client]``). Ignored when Ray is already
            initialised in this process.
        workers: tasks in flight at most; None: the cluster's CPU count.
        retries: how many times a task whose worker process died is run again.
    """

    address: str = "auto"
    workers: int | None = None
    retries: int = 1
    in_flight: int = field(default=0, init=False)
    """the tasks in flight at most in the last map (the cluster's CPUs when workers is None)"""

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, initializer: Callable[[], None] | None = None
    ) -> Iterator[Done[T, R]]:
        """Yield a Done per item, in completion order (attempts is 1: Ray retries out of sight).
        ``initializer`` is not used: Ray reuses worker processes and fn caches what it loads."""
        ray = import_ray()
        started = False
        if not ray.is_initialized():
            env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
            ray.init(
                address=None if self.address == "auto" else self.address,
                runtime_env={"env_vars": env} if env else None,
                log_to_driver=False,
                configure_logging=False,
            )
            started = True
        remote = ray.remote(num_cpus=1, max_retries=self.retries, retry_exceptions=False)(_call)
        fn_ref = ray.put(fn)
        cap = self.in_flight = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        pending: dict[Any, int] = {}
        todo = iter(range(len(items)))
        try:
            while True:
                for i in todo:
                    pending[remote.remote(fn_ref, items[i])] = i
                    if len(pending) >= cap:
                        break
                if not pending:
                    break
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    i = pending.pop(ref)
                    attempts = 1
                    try:
                        value = ray.get(ref)
                    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
                        attempts = self.retries + 1
                        value = Crash(f"the Ray worker died {attempts} times: {exc}", attempts)
                    except ray.exceptions.RayError as exc:
                        value = Crash(f"Ray could not run the task: {exc}", 1)
                    yield Done(items[i], value, attempts)
        finally:
            for ref in pending:
                ray.cancel(ref)
            if started:
                ray.shutdown()
