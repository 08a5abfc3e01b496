"""Run a job's pieces on a Dask distributed cluster.

The client (this process) plans the job from the catalog snapshot
(:func:`perfwarehouse.jobs.framework.plan_job`: the ``prepare`` step, the partitions,
the configuration slices and the exact Parquet files of each piece), checks that every
worker runs the same code and sees the warehouse, then submits one task per piece (a
job whose ``prepare`` step runs by piece, such as ``trends``' family size, first gets
one prepare task per piece, and the client combines their few rows). A
worker runs :func:`perfwarehouse.jobs.framework.compute_piece`, the same pure function
a local run calls: it reads the piece's Parquet files directly (so the warehouse must be
on a file system every worker mounts at the same path) and returns Arrow tables. The
client writes each to disk as it comes, in the plan's order (:mod:`perfwarehouse.jobs.spill`:
it holds only the pieces that finished before one ahead of them), applies ``finalize`` and
writes the result and its ``job_runs`` row in one catalog transaction, exactly as a local
run does: the tables are the same.

A worker that dies mid-piece costs only that piece: the scheduler gives it to another
worker (up to its ``distributed.scheduler.allowed-failures``, 3 by default); a piece
that raises is retried :data:`RETRIES` times. If a piece still fails, the job stops
with one line naming the piece, and nothing is written.

``distributed`` is imported only here, and only when a scheduler is given, so the
package runs every command without it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from perfwarehouse.errors import AnalysisError, PerfwarehouseError
from perfwarehouse.progress import Reporter
from perfwarehouse.warehouse.pieces import Piece

if TYPE_CHECKING:
    from perfwarehouse.jobs.model import Job, Plan, Tables

#: the work of one piece (``compute_piece``, ``prepare_piece`` of the runner): run on
#: a worker, passed in by the runner, which this module does not import
PieceWork = Callable[["Job", "Plan", Piece], Any]

#: How often a piece that raised is tried again (a dead worker is handled by the
#: scheduler: its piece goes to another worker up to ``allowed-failures`` times).
RETRIES = 2
#: Seconds to wait for the scheduler to answer, and for its first worker.
CONNECT_TIMEOUT_S = 20.0
WORKER_TIMEOUT_S = 60.0
#: Libraries whose versions change what the kernels compute or how files are read.
LIBRARIES = ("numba", "numpy", "scipy", "pyarrow", "duckdb", "polars")


@lru_cache(maxsize=1)
def build_fingerprint() -> tuple[tuple[str, str], ...]:
    """This process's perfwarehouse version, a hash of its code (every ``.py`` file of the
    package, kernels included, and the SQL files) and the versions of the libraries the
    pieces run on. Two processes with the same fingerprint compute the same tables."""
    from perfwarehouse import __version__
    from perfwarehouse.config import data_dir

    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    sql = data_dir("sql")
    for base, pattern in ((package, "*.py"), (sql, "*.sql")):
        for path in sorted(base.rglob(pattern)):
            digest.update(str(path.relative_to(base)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    fields = [("perfwarehouse", __version__), ("code", digest.hexdigest()[:16])]
    for name in LIBRARIES:
        try:
            fields.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            fields.append((name, "missing"))
    return tuple(fields)


def describe(fingerprint: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{k} {v}" for k, v in fingerprint)


def worker_check(root: str) -> dict[str, Any]:
    """Run on every worker before any piece: its fingerprint, and whether it sees the
    warehouse's measurement files at ``root``."""
    return {"fingerprint": build_fingerprint(),
            "sees_warehouse": os.path.isdir(os.path.join(root, "measurements"))}


def run_piece(expected: tuple[tuple[str, str], ...], work: PieceWork, job: Job, plan: Plan,
              piece: Piece) -> Any:
    """The task of one piece on a worker: ``work`` (the runner's ``compute_piece`` or
    ``prepare_piece``), after checking that this worker (perhaps one that joined after
    the check) runs the client's code."""
    mine = build_fingerprint()
    if mine != expected:
        raise AnalysisError(f"this worker runs {describe(_differences(mine, expected))}, "
                            f"the client {describe(_differences(expected, mine))}")
    return work(job, plan, piece)


def _differences(a: tuple[tuple[str, str], ...],
                 b: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    other = dict(b)
    return tuple((k, v) for k, v in a if other.get(k) != v) or a


def connect(scheduler: Any) -> tuple[Any, bool]:
    """A ``distributed.Client`` for ``scheduler`` (an address, or a client already made)
    and whether we made it (and so must close it)."""
    try:
        from distributed import Client
    except ImportError:
        raise AnalysisError("running on a Dask scheduler needs the `distributed` package "
                            "(pinned in .ci/requirements.lock): pip install distributed") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    address = str(scheduler)
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise AnalysisError(
            f"cannot reach the Dask scheduler at {address} ({reason}); start one with "
            "`perfwarehouse cluster local` or `dask scheduler`, or run without --scheduler"
        ) from None
    try:
        client.wait_for_workers(1, timeout=WORKER_TIMEOUT_S)
    except TimeoutError:
        client.close()
        raise AnalysisError(
            f"the Dask scheduler at {address} has no workers after {WORKER_TIMEOUT_S:.0f} s; "
            f"start some with `dask worker {address}`") from None
    return client, True


def check_workers(client: Any, root: str) -> int:
    """Refuse a cluster whose workers run other code or do not see the warehouse, before
    any piece runs. Returns the number of workers."""
    try:
        answers: Mapping[str, dict[str, Any]] = client.run(worker_check, root)
    except (ImportError, AttributeError) as exc:
        raise AnalysisError(
            f"a Dask worker cannot run perfwarehouse ({type(exc).__name__}: {exc}); install "
            "the same perfwarehouse and dependencies on every worker") from None
    mine = build_fingerprint()
    for address, answer in sorted(answers.items()):
        theirs = tuple(tuple(x) for x in answer["fingerprint"])
        if theirs != mine:
            raise AnalysisError(
                f"refusing the Dask cluster: worker {address} runs "
                f"{describe(_differences(theirs, mine))}, this client "
                f"{describe(_differences(mine, theirs))}; install the same perfwarehouse "
                "and dependencies on every worker (nothing was computed)")
        if not answer["sees_warehouse"]:
            raise AnalysisError(
                f"Dask worker {address} does not see the warehouse at {root}; put it on a "
                "file system every worker mounts at the same path (nothing was computed)")
    if not answers:
        raise AnalysisError("the Dask cluster has no workers")
    return len(answers)


def dashboard_link(client: Any) -> str | None:
    """The scheduler's dashboard URL, if it serves one (it needs bokeh)."""
    try:
        if "dashboard" not in client.scheduler_info().get("services", {}):
            return None
        return str(client.dashboard_link)
    except Exception:  # no dashboard, or a scheduler that does not say
        return None


class DaskExecutor:
    """The :class:`~perfwarehouse.jobs.pieces.Executor` of a Dask cluster (a scheduler
    address, or a ``distributed.Client``): :meth:`prepare` connects, checks the workers
    and runs the per-piece prepare step there (if the job has one); :meth:`compute` runs
    one task per piece and yields the results in the plan's order, then lets go of the
    cluster."""

    def __init__(self, scheduler: Any, compute: PieceWork, prepare: PieceWork,
                 combine: Callable[[Job, Plan, Sequence[Any]], Plan]) -> None:
        self.scheduler = scheduler
        self.work = {"compute": compute, "prepare": prepare}
        self.combine = combine
        self._client: Any = None
        self._owned = False
        self._workers = 0
        self._run = ""

    def prepare(self, job: Job, plan: Plan, reporter: Reporter) -> Plan:
        self._client, self._owned = connect(self.scheduler)
        try:
            self._workers = check_workers(self._client, plan.root)
            link = dashboard_link(self._client)
            reporter.note(f"{job.name}: {len(plan.pieces)} pieces on {self._workers} Dask "
                          "workers" + (f" (dashboard {link})" if link else ""))
            self._run = uuid.uuid4().hex[:8]
            if plan.prepare_query:
                parts = list(_run_pieces(self._client, job, plan, "prepare",
                                         self.work["prepare"], self._run, self._workers,
                                         reporter))
                plan = self.combine(job, plan, [p for p in parts if isinstance(p, pa.Table)])
        except BaseException:
            self._close()
            raise
        return plan

    def compute(self, job: Job, plan: Plan, reporter: Reporter) -> Iterator[Tables]:
        if self._client is None:
            plan = self.prepare(job, plan, reporter)
        try:  # each piece's result as soon as the ones before it came (spilled by the runner)
            for result in _run_pieces(self._client, job, plan, "compute", self.work["compute"],
                                      self._run, self._workers, reporter):
                yield result if isinstance(result, dict) else {}
        finally:
            self._close()

    def _close(self) -> None:
        if self._owned and self._client is not None:
            self._client.close()
        self._client, self._owned = None, False


def _run_pieces(client: Any, job: Job, plan: Plan, step: str, work: PieceWork, run: str,
                workers: int, reporter: Reporter) -> Iterator[Any]:
    """One task per piece of ``plan`` (``step`` compute or prepare); their results in the
    plan's order, each as soon as it and the ones before it are done (the client holds only
    those that came early). The first piece that fails stops them with one line naming
    it."""
    from distributed import KilledWorker, as_completed

    lean = dataclasses.replace(plan, pieces=(), catalog_data={})
    expected = build_fingerprint()
    # a compute task keeps the key it always had (the benchmarks read the task stream)
    name = job.name if step == "compute" else f"{job.name}-{step}"
    futures = [client.submit(run_piece, expected, work, job, lean, piece, pure=False,
                             retries=RETRIES, key=f"{name}-{run}-piece-{piece.index}")
               for piece in plan.pieces]
    by_key = {f.key: piece for f, piece in zip(futures, plan.pieces)}
    early: dict[int, Any] = {}
    following = 0
    label = job.name if step == "compute" else f"{job.name}: {step}"
    try:
        with reporter.task(f"{label} on {workers} workers", total=len(futures),
                           unit="parts") as task:
            for future in as_completed(futures, loop=client.loop):
                piece = by_key[future.key]
                try:
                    early[piece.index] = future.result()
                except PerfwarehouseError as exc:
                    raise AnalysisError(f"piece {piece.label} of {job.name}: {exc}") from None
                except KilledWorker:
                    raise AnalysisError(
                        f"piece {piece.label} of {job.name} failed: the workers that ran "
                        "it died (out of memory?); nothing was written") from None
                except Exception as exc:
                    first = (str(exc).strip().splitlines() or [""])[0]
                    raise AnalysisError(
                        f"piece {piece.label} of {job.name} failed on the cluster: "
                        f"{type(exc).__name__}: {first}; nothing was written") from None
                future.release()
                task.advance()
                while following in early:
                    yield early.pop(following)
                    following += 1
    finally:
        client.cancel([f for f in futures if not f.done()])
