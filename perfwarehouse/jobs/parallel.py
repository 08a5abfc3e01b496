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
import queue
import signal
from collections.abc import Iterator, Sequence
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
    (the caller says what finished). The first job that fails, or Ctrl-C, stops every
    worker (a job stopped mid-way writes nothing: its results are one catalog
    transaction) and the error is raised here.
    """
    workers = job_workers(len(runs), processes, scheduler)
    if workers == 1:
        for job, params in runs:
            yield job, run_job(warehouse, job, params, campaigns=campaigns, reporter=reporter,
                               scheduler=scheduler)
        return
    first = sorted(runs, key=lambda run: -run[0].relative_cost)  # stable: ties keep order
    finished: queue.Queue[tuple[Job, JobResult | BaseException]] = queue.Queue()
    # leaving the block terminates the workers: after the last job, when one fails, or on
    # Ctrl-C (which the workers ignore: this process stops them)
    with multiprocessing.get_context("spawn").Pool(workers, _ignore_interrupts) as pool:
        for job, params in first:
            def arrived(outcome: JobResult | BaseException, job: Job = job) -> None:
                finished.put((job, outcome))

            pool.apply_async(_run_named, (warehouse.root, warehouse.lock_timeout_s, job.name,
                                          params, campaigns),
                             callback=arrived, error_callback=arrived)
        for _ in first:
            job, outcome = finished.get()
            if isinstance(outcome, BaseException):
                raise outcome
            yield job, outcome


def _ignore_interrupts() -> None:
    """A worker's start: Ctrl-C reaches the whole process group; only the parent acts on it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_named(root: Path, lock_timeout_s: float, name: str, params: Any,
               campaigns: Sequence[str] | None) -> JobResult:
    """In a worker process: the registered job ``name`` (a job holds functions that do not
    pickle; its name does)."""
    from perfwarehouse.jobs import get

    return run_job(Warehouse(root, lock_timeout_s=lock_timeout_s), get(name), params,
                   campaigns=campaigns)
