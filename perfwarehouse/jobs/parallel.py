"""Several analysis jobs at once, one worker process per core (``analyze all``, the demo).

The jobs are independent: each reads its own snapshot of the measurements and writes its
own tables in its own catalog transaction under the warehouse's write lock, which the
others wait for (``--lock-timeout``). Much of a job's time holds the interpreter lock
(numba compiling its kernels on a cold cache, per-series Python between the kernels), so
threads would not overlap them: the jobs run in ``spawn``-ed processes (never ``fork``-ed:
DuckDB and numba keep threads), each writes its own results and sends back its
:class:`~perfwarehouse.jobs.framework.JobResult`. The costliest jobs start first
(:attr:`Job.relative_cost`), so that no long job is left running alone at the end.

The workers are this module's own (a pipe each, and the process's sentinel), not a
``multiprocessing.Pool``: a Pool replaces a worker killed from outside (the out-of-memory
killer, ``kill -9``) and never reports the job it was running, so its caller waited for
ever; here the parent waits on the pipes *and* the sentinels, and a worker's death is an
error that names the job.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from perfwarehouse.errors import AnalysisError
from perfwarehouse.jobs.framework import Job, JobResult, run_job
from perfwarehouse.progress import Reporter
from perfwarehouse.warehouse.store import Warehouse


def job_workers(jobs: int, processes: int | None = None, scheduler: Any = None) -> int:
    """How many jobs :func:`run_jobs` runs at a time: one per core (or ``processes``), at
    most ``jobs``; one with a Dask ``scheduler`` (its cluster runs each job's pieces)."""
    if scheduler is not None:
        return 1
    return max(1, min(jobs, processes or os.cpu_count() or 1))


#: A job to run: (job, params), or (job, params, campaigns) over those campaigns alone.
JobRun = tuple[Job, Any] | tuple[Job, Any, Sequence[str] | None]


def run_jobs(
    warehouse: Warehouse, runs: Sequence[JobRun], *,
    campaigns: Sequence[str] | None = None, processes: int | None = None,
    reporter: Reporter | None = None, scheduler: Any = None, incremental: bool = False,
) -> Iterator[tuple[Job, JobResult]]:
    """Run each (job, params) of ``runs`` and yield (job, result) as each finishes; a run
    given as (job, params, campaigns) reads those campaigns, the others ``campaigns``.

    With one worker (:func:`job_workers`) the jobs run here, one after another, in the
    given order, with ``reporter``'s progress bars; worker processes report no progress
    (the caller says what finished). The first job that fails, a worker process that dies
    (:class:`AnalysisError` naming its job and signal), or Ctrl-C stops every worker (a
    job stopped mid-way writes nothing: its results are one catalog transaction) and the
    error is raised here. With ``incremental`` a run over one campaign starts from the
    job's previous run there where it can (:func:`run_one`).
    """
    n_workers = job_workers(len(runs), processes, scheduler)
    tasks = [(run[0], run[1], run[2] if len(run) > 2 else campaigns)
             for run in runs]
    if n_workers == 1:
        for job, params, scope in tasks:
            yield job, run_one(warehouse, job, params, scope, reporter=reporter,
                               scheduler=scheduler, incremental=incremental)
        return
    # costliest first; sorted is stable, so ties keep the given order
    waiting = deque(sorted(tasks, key=lambda task: -task[0].relative_cost))
    context = multiprocessing.get_context("spawn")
    workers = [_Worker(context) for _ in range(n_workers)]
    running: dict[_Worker, Job] = {}
    try:
        while waiting or running:
            for worker in workers:
                if waiting and worker not in running:
                    job, params, scope = waiting.popleft()
                    worker.connection.send((warehouse.root, warehouse.lock_timeout_s, job.name,
                                            params, scope, incremental))
                    running[worker] = job
            ready = wait([w.connection for w in workers] + [w.process.sentinel for w in workers])
            for worker in workers:
                if worker.connection not in ready and worker.process.sentinel not in ready:
                    continue
                job_or_none = running.pop(worker, None)
                outcome = worker.receive(job_or_none)
                if isinstance(outcome, BaseException):
                    raise outcome
                if job_or_none is not None:
                    yield job_or_none, outcome
    finally:  # after the last job, when one fails, on Ctrl-C (which the workers ignore)
        for worker in workers:
            worker.stop()


class _Worker:
    """One spawned worker process and its end of a duplex pipe."""

    def __init__(self, context: Any) -> None:
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs,), daemon=True,
                                       name="perfwarehouse-job-worker")
        with _sigint_ignored():  # the worker ignores Ctrl-C from birth, not after its imports
            self.process.start()
        theirs.close()

    def receive(self, job: Job | None) -> JobResult | BaseException:
        """The outcome the worker sent for ``job``, or the error of its death."""
        try:
            if self.connection.poll():
                return self.connection.recv()
        except (EOFError, OSError):
            pass
        self.process.join(5)
        code = self.process.exitcode
        how = (f"was killed by {signal.Signals(-code).name}" if code is not None and code < 0
               and -code in signal.valid_signals() else f"exited with code {code}")
        hint = " (the out-of-memory killer?)" if code == -signal.SIGKILL else ""
        if job is None:
            return AnalysisError(f"a job worker process {how} between jobs{hint}")
        return AnalysisError(f"a job worker process {how} while running {job.name}{hint}; "
                             "nothing of that job was written")

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.terminate()
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while a worker is spawned: an ignored signal stays ignored across
    exec, and Python installs its KeyboardInterrupt handler only where SIGINT was not
    ignored, so a Ctrl-C during the worker's start-up (unpickling, importing: a second or
    more on a busy machine) cannot print a traceback from it. Only the main thread may
    change a handler; elsewhere the worker relies on :func:`_serve` alone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _serve(connection: Connection) -> None:
    """A worker's life: run each job the parent sends, send back its result or its error.
    Ctrl-C reaches the whole process group; only the parent acts on it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = connection.recv()
        except EOFError:  # the parent is gone
            return
        try:
            outcome: JobResult | BaseException = _run_named(*task)
        except Exception as error:  # sent to the parent, which raises it
            outcome = error
        try:
            connection.send(outcome)
        except Exception:  # an exception that does not pickle: its text does
            connection.send(AnalysisError(f"{type(outcome).__name__} in a job worker: "
                                          f"{outcome!s}"))


def _run_named(root: Path, lock_timeout_s: float, name: str, params: Any,
               campaigns: Sequence[str] | None, incremental: bool = False) -> JobResult:
    """In a worker process: the registered job ``name`` (a job holds functions that do not
    pickle; its name does)."""
    from perfwarehouse.jobs import get

    return run_one(Warehouse(root, lock_timeout_s=lock_timeout_s), get(name), params,
                   campaigns, incremental=incremental)


def run_one(warehouse: Warehouse, job: Job, params: Any, campaigns: Sequence[str] | None,
            *, reporter: Reporter | None = None, scheduler: Any = None,
            incremental: bool = False) -> JobResult:
    """``run_job``; with ``incremental`` and one campaign, from the job's previous run
    there when it can be used (:func:`perfwarehouse.jobs.incremental.run_incremental`)."""
    if incremental and scheduler is None and campaigns is not None and len(campaigns) == 1:
        from perfwarehouse.jobs.incremental import run_incremental

        result = run_incremental(warehouse, job, params, campaigns[0], reporter=reporter)
        if result is not None:
            return result
    return run_job(warehouse, job, params, campaigns=campaigns, reporter=reporter,
                   scheduler=scheduler)
