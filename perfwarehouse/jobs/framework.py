"""Warehouse jobs: query -> pure function -> result tables.

A :class:`Job` names an SQL query (``sql/queries/<name>.sql``) that is run once
per partition of the measurements (campaign x hardware type, or campaign), a
pure ``compute(table, params) -> {output: table}`` applied to each partition's
rows, and an optional ``finalize`` over the concatenated results (for example a
family-wise correction across partitions). :func:`run_job` does the loop, so a
job never opens a connection, and memory is bounded by one partition. A job
whose ``compute`` treats each configuration on its own says so
(``per_configuration=True``); a partition of more than :data:`SLICE_ROWS`
measurements is then computed in slices of whole configurations, so memory stays
bounded however large one hardware type grows (a 23M-trial campaign).

A job that needs a fact about all partitions before computing any of them
(for example the size of a family of comparisons, which sets the confidence
of every CI) names a ``prepare_query`` run once over all the data, and a pure
``prepare(table, params) -> params`` that returns the parameters to use
(typically ``dataclasses.replace`` of an internal field declared with
``param(..., internal=True)``, which the CLI does not expose). When that fact adds up
over pieces (a count of series: each series lies in one piece), the job says
``prepare_by_piece=True``: its ``prepare_query`` is bound with each piece's key and
run on the piece's rows (here, or on the cluster's workers, as the pieces are), and
``prepare`` gets the pieces' rows concatenated, so the client never reads all the
measurements at once.

The pieces come from the warehouse (:mod:`perfwarehouse.warehouse.pieces`); an
executor runs them (:class:`LocalExecutor`, or a Dask
cluster's: :mod:`perfwarehouse.jobs.dask_runner`), given to :func:`run_job`.

Results are written to the job's output tables (each declared with its Arrow schema and
DDL in ``warehouse/contracts.py``) with the ``job_run_id`` of a row
in ``job_runs`` that records the parameters, the input batches, the code version and
the job's own duration.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, Protocol

import pyarrow as pa

from perfwarehouse.errors import AnalysisError
from perfwarehouse.jobs.model import Job as Job
from perfwarehouse.jobs.model import JobParams as JobParams
from perfwarehouse.jobs.model import JobResult as JobResult
from perfwarehouse.jobs.model import Plan as Plan
from perfwarehouse.jobs.model import Tables as Tables
from perfwarehouse.jobs.model import campaigns_of as campaigns_of
from perfwarehouse.jobs.model import param as param
from perfwarehouse.jobs.row_order import in_row_order
from perfwarehouse.jobs.spill import ResultTables, concat
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.catalog import record_job_run
from perfwarehouse.warehouse.pieces import (
    Piece,
    Snapshot,
    query_piece,
    read_ahead,
)
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow, fetch_one

#: The most measurements a per-configuration job computes at once (about 0.6 KB
#: each in the query's result and the kernels' arrays).
SLICE_ROWS = 2_000_000
#: The most configurations a per-configuration job computes at once: a piece's compute
#: costs up to about 9 KB per configuration whatever its rows (detectable-regression's
#: draws and cells, measured at 10^5 one-trial configurations), so a partition of a
#: million one-trial configurations is cut by this, not by its rows: 20 pieces of at most
#: about 0.5 GB each.
SLICE_CONFIGURATIONS = 50_000


def plan_job(
    warehouse: Warehouse, job: Job, params: Any, files: Snapshot | Sequence[Any],
    configurations: pa.Table | None = None, slice_rows: int = SLICE_ROWS,
    catalog_data: Mapping[str, pa.Table] | None = None,
    slice_configurations: int | None = None,
) -> Plan:
    """Cut ``job``'s work into pieces (a :class:`Snapshot`, or its data files) and run
    its ``prepare`` step over all of them, unless it runs by piece: then the plan carries
    its query for :func:`prepare_piece`."""
    if isinstance(files, Snapshot):
        snapshot = files
        configurations = snapshot.configurations if configurations is None else configurations
    else:  # no configurations table known: a partition may hold one per row
        snapshot = Snapshot(list(files), configurations if configurations is not None
                            else pa.table({}))
    sliced = job.per_configuration
    if slice_configurations is None:  # read here, so that a test may make it small
        slice_configurations = SLICE_CONFIGURATIONS
    pieces = snapshot.pieces(job.partition_by, slice_rows=slice_rows if sliced else None,
                             slice_configurations=slice_configurations if sliced else None)
    query = sqlfiles.load(f"queries/{job.query}")
    extra = dict(job.query_params(params)) if job.query_params else {}
    plan = Plan(str(warehouse.root), params, query, extra, pieces, configurations,
                dict(catalog_data or {}))
    if job.prepare_query and job.prepare:
        prepare_sql = sqlfiles.load(f"queries/{job.prepare_query}")
        if job.prepare_by_piece:  # run with the pieces: prepare_piece, then apply_prepare
            return dataclasses.replace(plan, prepare_query=prepare_sql)
        whole = snapshot.whole()
        con = plan.reader(job, whole)
        try:
            params = job.prepare(query_piece(con, whole, prepare_sql, extra), params)
        finally:
            con.close()
        plan = dataclasses.replace(plan, params=params)
    return plan


def _query(job: Job, plan: Plan, piece: Piece, query: str) -> pa.Table:
    """``query`` over one piece's rows, bound with its key and the plan's extra values."""
    con = plan.reader(job, piece)
    try:
        return query_piece(con, piece, query, plan.extra)
    finally:
        con.close()


def read_piece(job: Job, plan: Plan, piece: Piece) -> pa.Table:
    """The rows of one piece that ``compute`` takes, in the job's row order."""
    table = _query(job, plan, piece, plan.query)
    return in_row_order(table, job.row_order) if table.num_rows else table


def compute_rows(job: Job, plan: Plan, table: pa.Table) -> Tables:
    """``compute`` of one piece's rows (:func:`read_piece`); nothing for no rows."""
    return dict(job.compute(table, plan.params)) if table.num_rows else {}


def compute_piece(job: Job, plan: Plan, piece: Piece) -> Tables:
    """The pure function of one piece: query its rows and apply ``compute``. Runs
    wherever the warehouse's files are readable at ``plan.root`` (this process, or a
    Dask worker)."""
    return compute_rows(job, plan, read_piece(job, plan, piece))


def prepare_piece(job: Job, plan: Plan, piece: Piece) -> pa.Table:
    """The rows of the job's per-piece ``prepare_query`` over one piece (a job with
    ``prepare_by_piece``); :func:`apply_prepare` combines them."""
    return _query(job, plan, piece, plan.prepare_query)


def apply_prepare(job: Job, plan: Plan, parts: Sequence[pa.Table]) -> Plan:
    """The plan with the parameters ``prepare`` returns for the pieces' prepare rows (in
    the plan's order)."""
    if job.prepare is None:
        return plan
    return dataclasses.replace(plan, params=job.prepare(concat(list(parts)), plan.params))


class Executor(Protocol):
    """Runs a plan's pieces: the per-piece ``prepare`` step (if the plan has one), then
    every piece's ``compute``, whose results it yields in the plan's order."""

    def prepare(self, job: Job, plan: Plan, reporter: Reporter) -> Plan: ...

    def compute(self, job: Job, plan: Plan, reporter: Reporter) -> Iterator[Tables]: ...


class LocalExecutor:
    """The pieces in this process, one at a time (the next read ahead on a thread)."""

    def prepare(self, job: Job, plan: Plan, reporter: Reporter) -> Plan:
        if not plan.prepare_query:
            return plan
        parts = []
        with reporter.task(f"{job.name}: prepare", total=len(plan.pieces), unit="parts") as task:
            for piece in plan.pieces:
                parts.append(prepare_piece(job, plan, piece))
                task.advance()
        return apply_prepare(job, plan, parts)

    def compute(self, job: Job, plan: Plan, reporter: Reporter) -> Iterator[Tables]:
        with reporter.task(f"{job.name}", total=len(plan.pieces), unit="parts") as task:
            for table in read_ahead(plan.pieces, lambda piece: read_piece(job, plan, piece)):
                yield compute_rows(job, plan, table)
                task.advance()


def run_job(
    warehouse: Warehouse, job: Job, params: Any, *, campaigns: Sequence[str] | None = None,
    reporter: Reporter | None = None, write: bool = True, slice_rows: int = SLICE_ROWS,
    scheduler: Any = None, executor: Executor | None = None,
) -> JobResult:
    """Run ``job`` over the warehouse's measurements (all campaigns unless given).

    The pieces run on ``executor`` (default: here, :class:`LocalExecutor`). With
    ``scheduler`` (a Dask scheduler address such as ``tcp://10.0.0.5:8786``, or a
    ``distributed.Client``) and no executor, on that cluster's workers
    (:class:`~perfwarehouse.jobs.dask_runner.DaskExecutor`), which must see the
    warehouse at the same path; the results are the same tables as a local run, and
    they are written here, by this process, in one catalog transaction.
    """
    reporter = reporter or SilentReporter()
    snapshot = warehouse.snapshot(campaigns)
    if not snapshot.files:
        if campaigns and warehouse.exists():  # a misspelt campaign: name the known ones
            from perfwarehouse.warehouse.lookup import require

            with warehouse.catalog() as con:
                for name in campaigns:
                    require(con, "campaign", name)
        where = f" of campaign(s) {', '.join(campaigns)}" if campaigns else ""
        raise AnalysisError(f"the warehouse {warehouse.root} has no measurements{where} to analyse")
    if executor is None and scheduler is not None:
        from perfwarehouse.jobs.dask_runner import DaskExecutor

        executor = DaskExecutor(
            scheduler, compute_piece, prepare_piece, apply_prepare)
    started_at = datetime.now(timezone.utc)
    start = time.monotonic()
    tables = compute_job(warehouse, job, params, snapshot, reporter, None, slice_rows,
                         _catalog_tables(warehouse, job, snapshot.campaigns),
                         executor=executor)
    duration = time.monotonic() - start
    summary = summarize(job, tables, params)
    if job.over_time(params) if callable(job.over_time) else job.over_time:
        summary += untimed_note(warehouse, job, campaigns)
    if not write:
        return JobResult(0, tables, duration, summary)
    job_run_id = write_results(warehouse, job, params, snapshot, tables, started_at, duration)
    return JobResult(job_run_id, tables, duration, summary)


def untimed_note(warehouse: Warehouse, job: Job, campaigns: Sequence[str] | None) -> list[str]:
    """The summary line of a job over time that left trials out for want of a start time
    (none when every trial has one)."""
    with warehouse.catalog() as con:
        row = fetch_one(con, sqlfiles.load("queries/untimed_trials"),
                        {"campaigns": list(campaigns) if campaigns else None})
    trials, in_campaigns = row if row else (0, 0)
    if not trials:
        return []
    return [f"{job.name}: {trials:,} trials in {in_campaigns:,} campaign(s) have no start time "
            "(their files hold none) and are left out; give it at ingest with --started-at "
            "or --path-pattern '...{started_at:FORMAT}...'"]


def compute_job(
    warehouse: Warehouse, job: Job, params: Any, files: Snapshot | Sequence[Any],
    reporter: Reporter, configurations: pa.Table | None = None, slice_rows: int = SLICE_ROWS,
    catalog_data: Mapping[str, pa.Table] | None = None, *, executor: Executor | None = None,
) -> Mapping[str, pa.Table]:
    """Plan the job's pieces (of a snapshot, or of its data files), compute each on
    ``executor`` (default: here), write each output in the plan's order as the pieces
    complete (:func:`spill`) and ``finalize``. The queries see ``measurements`` and, when
    given, the ``configurations`` table; a per-configuration job sees a partition in
    slices of at most about ``slice_rows`` measurements."""
    runner: Executor = executor or LocalExecutor()
    plan = plan_job(warehouse, job, params, files, configurations, slice_rows, catalog_data)
    plan = runner.prepare(job, plan, reporter)
    return spill(job, plan, runner.compute(job, plan, reporter))


def spill(job: Job, plan: Plan, results: Iterable[Mapping[str, pa.Table]]
          ) -> Mapping[str, pa.Table]:
    """The pieces' outputs written to disk as they come, in the plan's order
    (:class:`~perfwarehouse.jobs.spill.ResultTables`: what :func:`assemble` concatenates in
    memory, with one piece in memory at a time), then ``finalize`` (which gets the whole
    tables, memory-mapped, and returns tables in memory)."""
    tables = ResultTables.create(plan.root, job.outputs)
    try:
        for result in results:
            tables.add(result)
        if not job.finalize:
            return tables
        return job.finalize({name: tables[name] for name in job.outputs}, plan.params)
    except BaseException:
        tables.close()
        raise


def summarize(job: Job, tables: Mapping[str, pa.Table], params: Any) -> list[str]:
    """The job's summary lines of its result ``tables`` (none if it has no ``summarize``)."""
    return job.summarize(dict(tables), params) if job.summarize else []


def assemble(job: Job, plan: Plan, results: Iterable[Mapping[str, pa.Table]]) -> Tables:
    """Concatenate the pieces' outputs in the plan's order and apply ``finalize``."""
    parts: dict[str, list[pa.Table]] = {name: [] for name in job.outputs}
    for result in results:
        for name, table in result.items():
            parts[name].append(table)
    tables = {name: concat(tables) for name, tables in parts.items()}
    if job.finalize:
        tables = job.finalize(tables, plan.params)
    return tables


def _catalog_tables(warehouse: Warehouse, job: Job,
                    campaigns: Sequence[str]) -> dict[str, pa.Table]:
    """The job's ``catalog_tables`` rows of ``campaigns`` (one short read)."""
    if not job.catalog_tables:
        return {}
    out: dict[str, pa.Table] = {}
    with warehouse.catalog() as con:
        present = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        for name in job.catalog_tables:
            if name in present:  # names come from the job registry, never from users
                out[name] = fetch_arrow(
                    con, f"SELECT * FROM {name} WHERE list_contains(?, campaign)", [list(campaigns)])
    return out


def write_results(
    warehouse: Warehouse, job: Job, params: Any, snapshot: Snapshot,
    tables: Mapping[str, pa.Table], started_at: datetime, duration: float,
) -> int:
    """Insert the result tables and their ``job_runs`` row in one transaction (tables on
    disk, :class:`~perfwarehouse.jobs.spill.ResultTables`, read piece by piece into one
    streamed insert per table: :func:`~perfwarehouse.warehouse.catalog.record_job_run`)."""
    from perfwarehouse import __version__

    params_json = json.dumps({f.name: getattr(params, f.name) for f in dataclasses.fields(params)
                              if not f.metadata.get("internal")}, sort_keys=True, default=str)
    with warehouse.writing(f"perfwarehouse analyze {job.name}") as session:
        return record_job_run(
            session, job=job.name, params_json=params_json,
            campaigns=snapshot.campaigns, batches=snapshot.batches, version=__version__,
            started_at=started_at, duration_s=duration,
            tables={name: tables.parts(name) for name in tables}
            if isinstance(tables, ResultTables) else tables)
