"""run_batch: retarget many files into one output folder, resumably, one file's failure never
stopping the others.

The run: find the inputs and check every setting (nothing is written when something is wrong),
lock the output folder, remove leftovers of killed writes, skip the inputs whose output is
recorded in the manifest with the same settings-and-input hash and is intact, run the rest on an
executor (local process pool, or Ray), append each file's Record to the manifest as it finishes,
and at the end (also after Ctrl-C) rewrite the manifest and the summary CSV.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ..errors import ConfigError, KinemorphError, UnknownNameError
from ..mapping.mapping import read_mapping_json
from ..progress import Progress, report
from .inputs import Source, find_inputs, output_rels
from .jobs import Job, Settings, file_sha256, job_key, settings_digest
from .local import Crash, Done, LocalExecutor, default_workers
from .manifest import Manifest, Record, write_summary
from .outdir import locked, remove_partials
from .ray_executor import RayExecutor
from .worker import init_worker, run_job


@dataclass(frozen=True)
class BatchResult:
    """The outcome of one run of a batch.

    Attributes:
        out: the output folder.
        total: inputs matched.
        done: inputs retargeted by this run.
        skipped: inputs whose output was up to date and left as it was.
        failed: inputs that failed in this run (their Records say why).
        records: this run's records, in the order the files finished.
        seconds: wall time of the run [s].
        workers: worker processes (local) or tasks in flight (Ray) used; 0 when nothing was to do.
        executor: "local", "ray" or "none" (nothing to do).
    """

    out: Path
    total: int
    done: int
    skipped: int
    failed: int
    records: tuple[Record, ...]
    seconds: float
    workers: int
    executor: str

    @property
    def manifest(self) -> Path:
        return Manifest(self.out).path

    @property
    def failures(self) -> list[Record]:
        return [r for r in self.records if not r.ok]


def prepare_settings(
    *,
    robot: str | Path,
    engine: str = "auto",
    config: Any = None,
    options: dict[str, Any] | None = None,
    compat: str | None = None,
    source_options: dict[str, Any] | None = None,
    cleanup: str = "auto",
    mapping: str | Path | None = None,
    preset: str = "auto",
    format: str = ".npz",
) -> Settings:
    """Check every setting and load what the digest needs (robot model, mapping content); writes nothing."""
    from ..io import output_suffix
    from ..mapping.mapping import Mapping
    from ..motion.presets import PRESETS
    from ..pipeline import RetargetJob, check_job_settings
    from ..robots import KNOWN_ROBOTS, default_mapping_path, load_robot

    fmt = output_suffix(format)  # ".npz", "holosoma" -> ".holosoma.npz"; unknown names list the valid ones
    options = dict(options or {})
    check_job_settings(
        RetargetJob("", "", engine=engine, config=config, options=options, compat=compat, cleanup=cleanup)
    )
    if preset != "auto" and preset not in PRESETS:
        raise UnknownNameError("preset", preset, ["auto", *PRESETS])
    loaded = load_robot(robot)
    robot_id = str(robot) if str(robot) in KNOWN_ROBOTS else str(Path(robot).resolve())
    shipped: dict[str, dict[str, Any]] = {}
    if mapping is not None:
        data = read_mapping_json(mapping)
        content: dict[str, Any] | None = data
        Mapping.from_dict(data, where=str(mapping)).check_robot(loaded, where=str(mapping))
        source = str(mapping)
    else:
        content = None
        source = f"shipped mapping of {loaded.name}"
        for p in KNOWN_ROBOTS[loaded.name].mappings if loaded.name in KNOWN_ROBOTS else ():
            shipped[p] = read_mapping_json(default_mapping_path(loaded.name, p))
    sources = {k: v for k, v in (source_options or {}).items() if v is not None}
    settings = Settings(robot_id, engine, config, options, compat, sources, cleanup, content, source, preset, fmt)
    digest = settings_digest(settings, robot_model=loaded.path, default_mappings=shipped)
    return dataclasses.replace(settings, digest=digest)


def run_batch(
    inputs: Sequence[str | Path],
    out: str | Path,
    *,
    robot: str | Path,
    engine: str = "auto",
    config: Any = None,
    options: dict[str, Any] | None = None,
    compat: str | None = None,
    source_options: dict[str, Any] | None = None,
    cleanup: str = "auto",
    mapping: str | Path | None = None,
    preset: str = "auto",
    format: str = ".npz",
    workers: int | None = None,
    ray: str | None = None,
    force: bool = False,
    retries: int = 1,
    progress: Progress | None = None,
    on_record: Callable[[Record], None] | None = None,
) -> BatchResult:
    """Retarget every input file into ``out``, one output per input at the same relative path.

    Local workers are started with 'spawn', which imports the calling script again in each
    worker: a script that calls run_batch must do so under ``if __name__ == "__main__":``.

    Args:
        inputs: file paths or glob patterns ("clips/**/*.bvh"); each must match a file.
        out: output folder (created). It holds the outputs, ``manifest.jsonl`` and ``summary.csv``
            and belongs to the batch: outputs are overwritten when redone. At the end the dataset
            report (kinemorph.report: ``report.html``, ``report.json``) is written there.
        robot, engine, config, mapping, preset: as for :func:`kinemorph.retarget`; mapping is a
            JSON file (None: the robot's shipped mapping for each motion's preset); engine "auto"
            picks each clip's engine by its family.
        options, compat, source_options: as kinemorph.pipeline.RetargetJob's (engine options by
            name; a named preset such as "gmr"; how sources are read: unit, up, fps...).
        cleanup: the clean-up stage, "auto", "on" or "off" (kinemorph.pipeline.RetargetJob.cleanup).
        format: output format, a name of kinemorph.io.EXPORT_FORMATS ("npz", "holosoma", ...; ".npz" is accepted).
        workers: local worker processes (default: the usable CPU cores), or with ``ray`` the
            tasks in flight (default: the cluster's CPUs).
        ray: None runs a local process pool; "auto" or a cluster address runs Ray tasks.
        force: redo every input, even those whose output is up to date.
        retries: how many times a file whose worker process died is run again.
        progress: called with (files finished, files to do).
        on_record: called with each file's Record as it finishes.

    Raises:
        KinemorphError: bad settings or inputs (nothing is written then), or another run holding
            the folder. KeyboardInterrupt propagates after the files in progress have finished
            and the manifest is written; a rerun does the rest.
    """
    t0 = time.perf_counter()
    if workers is not None and workers < 1:
        raise ConfigError(f"workers must be at least 1, got {workers}")
    if retries < 0:
        raise ConfigError(f"retries must be >= 0, got {retries}")
    settings = prepare_settings(
        robot=robot,
        engine=engine,
        config=config,
        options=options,
        compat=compat,
        source_options=source_options,
        cleanup=cleanup,
        mapping=mapping,
        preset=preset,
        format=format,
    )
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise KinemorphError(f"{out}: exists and is not a folder")
    sources = find_inputs(inputs, exclude=out)
    rels = output_rels(sources, settings.format)
    if ray is not None:
        from .ray_executor import import_ray

        import_ray()  # a missing Ray is a bad option: say so before writing anything
    out.mkdir(parents=True, exist_ok=True)
    with locked(out):
        remove_partials(out)
        manifest = Manifest(out)
        records = manifest.read()
        if manifest.path.exists():
            manifest.rewrite(records)  # drops a line torn by a killed run before appending
        jobs = _plan(sources, rels, out, settings.digest, records, force=force)
        this_run: list[Record] = []
        n_workers = 0
        kind = "none"
        try:
            if jobs:
                settings = dataclasses.replace(settings, warmup=_smallest(jobs))
                n_workers = min(workers or default_workers(), len(jobs)) if ray is None else (workers or 0)
                kind = "local" if ray is None else "ray"
                executor: Any = LocalExecutor(n_workers, retries) if ray is None else RayExecutor(ray, workers, retries)
                report(progress, 0, len(jobs))
                for done in executor.map(partial(run_job, settings), jobs, initializer=partial(init_worker, settings)):
                    rec = _record(done)
                    records[rec.output] = rec
                    this_run.append(rec)
                    manifest.append(rec)
                    if on_record is not None:
                        on_record(rec)
                    report(progress, len(this_run), len(jobs))
                if isinstance(executor, RayExecutor):
                    n_workers = executor.in_flight
                # a worker killed while writing leaves its temporary file; every worker is done now
                remove_partials(out)
        finally:
            manifest.rewrite(records)
            write_summary(out, records)
        from ..report import write_report

        write_report(out)  # out/report.html and out/report.json against the default thresholds
    failed = sum(not r.ok for r in this_run)
    return BatchResult(
        out=out,
        total=len(sources),
        done=len(this_run) - failed,
        skipped=len(sources) - len(jobs),
        failed=failed,
        records=tuple(this_run),
        seconds=time.perf_counter() - t0,
        workers=n_workers,
        executor=kind,
    )


def _plan(
    sources: Sequence[Source], rels: Sequence[str], out: Path, digest: str, records: dict[str, Record], *, force: bool
) -> list[Job]:
    """A job per input whose output is not up to date (every input with force)."""
    jobs = []
    for src, rel in zip(sources, rels):
        try:
            input_sha = file_sha256(src.path)
        except OSError:
            input_sha = ""  # unreadable: the job reports why
        key = job_key(digest, input_sha) if input_sha else ""
        output = out / rel
        if not force and key and _up_to_date(records.get(rel), key, output):
            continue
        jobs.append(Job(str(src.path), str(output.resolve()), rel, input_sha, key))
    return jobs


def _smallest(jobs: Sequence[Job]) -> str | None:
    """The smallest non-empty input: the cheapest to read for the workers' warm-up."""
    sizes = []
    for job in jobs:
        try:
            size = os.path.getsize(job.input)
        except OSError:
            continue
        if size > 0:
            sizes.append((size, job.input))
    return min(sizes)[1] if sizes else None


def _up_to_date(rec: Record | None, key: str, output: Path) -> bool:
    """The output was made with these settings from this input, and is the file then written."""
    if rec is None or not rec.ok or rec.key != key or not output.is_file():
        return False
    return output.stat().st_size == rec.output_bytes and file_sha256(output) == rec.output_sha256


def _record(done: Done[Job, Record]) -> Record:
    job = done.item
    if isinstance(done.value, Crash):
        return Record(
            input=job.input,
            output=job.rel,
            status="failed",
            error=done.value.message,
            error_type="WorkerCrash",
            attempts=done.value.attempts,
            key=job.key,
            input_sha256=job.input_sha256,
        )
    rec = done.value
    rec.attempts = done.attempts
    return rec
