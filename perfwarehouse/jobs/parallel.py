"""Several analysis jobs at once, one worker process per core (``analyze all``, the demo).

The jobs are independent: each reads its own snapshot of the measurements and writes its
own tables in its own catalog transaction under the warehouse's write lock, which the
others wait for (``--lock-timeout``). Much of a job's time holds the interpreter lock
(numba compiling its kernels on a cold cache, per-series Python between the kernels), so
threads would not overlap them: the jobs run in ``spawn``-ed processes (never ``fork``-ed:
DuckDB and numba keep threads), each writes its own results and sends back its
:class:`~perfwarehouse.jobs.framework.JobResult`. The costliest jobs start first
(:attr:`Job.relative_cost`), so that no long job is left running alone at the end.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from perfwarehouse.jobs.framework import Job, JobResult, run_job
from perfwarehouse.progress import Reporter
from perfwarehouse.warehouse.store import Warehouse


def job_workers(jobs: int, processes: int | None = None, scheduler: Any = None) -> int:
    """How many jobs :func:`run_jobs` runs at a time: one per core (or ``processes``), at
    most ``jobs``; one with a Dask ``scheduler`` (its cluster runs each job's pieces)."""
    if scheduler is not None:
        return 1
    return max(1, min(jobs, processes or os.cpu_count() or 1))


def run_jobs(
    warehouse: Warehouse, runs: Sequence[tuple[Job, Any]], *,
    campaigns: Sequence[str] | None = None, processes: int | None = None,
    reporter: Reporter | None = None, scheduler: Any = None,
) -> Iterator[tuple[Job, JobResult]]:
    """Run each (job, params) of ``runs`` and yield (job, result) as each finishes.

    With one worker (:func:`job_workers`) the jobs run here, one after another, in the
    given order, with ``reporter``'s progress bars; worker processes report no progress
    (the caller says what finished). The first job that fails stops the jobs not yet
    started and its error is raised here.
    """
    workers = job_workers(len(runs), processes, scheduler)
    if workers == 1:
        for job, params in runs:
            yield job, run_job(warehouse, job, params, campaigns=campaigns, reporter=reporter,
                               scheduler=scheduler)
        return
    first = sorted(runs, key=lambda run: -run[0].relative_cost)  # stable: ties keep order
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures: dict[Future[JobResult], Job] = {
            pool.submit(_run_named, warehouse.root, warehouse.lock_timeout_s, job.name, params,
                        campaigns): job
            for job, params in first}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            for future in futures:
                future.cancel()


def _run_named(root: Path, lock_timeout_s: float, name: str, params: Any,
               campaigns: Sequence[str] | None) -> JobResult:
    """In a worker process: the registered job ``name`` (a job holds functions that do not
    pickle; its name does)."""
    from perfwarehouse.jobs import get

    return run_job(Warehouse(root, lock_timeout_s=lock_timeout_s), get(name), params,
                   campaigns=campaigns)
