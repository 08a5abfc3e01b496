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

Results are written to the job's output tables (each declared with its Arrow schema and
DDL in ``warehouse/contracts.py``) with the ``job_run_id`` of a row
in ``job_runs`` that records the parameters, the input batches, the code version and
the job's own duration.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from perfwarehouse.errors import AnalysisError
from perfwarehouse.jobs.row_order import in_row_order
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.catalog import record_job_run
from perfwarehouse.warehouse.store import DataFile, Warehouse, fetch_arrow, fetch_one

if TYPE_CHECKING:
    import duckdb

Tables = dict[str, pa.Table]

#: The most measurements a per-configuration job computes at once (about 0.6 KB
#: each in the query's result and the kernels' arrays).
SLICE_ROWS = 2_000_000


def param(default: Any, help: str, **extra: Any) -> Any:
    """A job parameter with its ``--help`` text.

    Optional ``choices`` (a closed set), ``cli`` (the option name) and
    ``internal=True`` (set by ``prepare``, not a CLI option).
    """
    return field(default=default, metadata={"help": help, **extra})


@dataclass(frozen=True)
class JobParams:
    """The parameters every job accepts; each job's parameter dataclass extends it
    (``@dataclass(frozen=True) class MyParams(JobParams)``), so they are declared once.

    ``campaign`` scopes the run: the command line passes it to :func:`run_job` as
    ``campaigns=[campaign]`` (see :func:`campaigns_of`).
    """

    campaign: str | None = param(None, "Only this campaign.  [default: every campaign]")


def campaigns_of(params: JobParams) -> list[str] | None:
    """The ``campaigns`` argument of :func:`run_job` that ``params.campaign`` asks for."""
    return [params.campaign] if params.campaign else None


@dataclass(frozen=True)
class Job:
    """One analysis, exposed as ``perfwarehouse analyze <name>``."""

    name: str
    help: str
    params: type[JobParams]
    query: str
    compute: Callable[[pa.Table, Any], Tables]
    outputs: tuple[str, ...]
    finalize: Callable[[Tables, Any], Tables] | None = None
    summarize: Callable[[Tables, Any], list[str]] | None = None
    partition_by: tuple[str, ...] = ("campaign", "hardware_type")
    query_params: Callable[[Any], Mapping[str, Any]] | None = None
    prepare_query: str | None = None
    prepare: Callable[[pa.Table, Any], Any] | None = None
    # run prepare_query on each piece (bound with its key) instead of once over all data
    prepare_by_piece: bool = False
    per_configuration: bool = False
    # the order compute needs the rows in (the query has no ORDER BY): rows come in the
    # files' order and are sorted only when that is not it (jobs/row_order.py)
    row_order: tuple[str, ...] = ()
    # catalog tables (with a campaign column) the query joins, read with the snapshot and
    # registered in the reader under their own names (created empty when missing)
    catalog_tables: tuple[str, ...] = ()
    # how long the job takes relative to the others on the same data (about 1 = a few
    # seconds on the demo's 2.3M measurements): the costliest start first when several jobs
    # run at once (jobs/parallel.py); it changes the order, never a result
    relative_cost: float = 1.0
    # the job takes the trials' start times as its axis: a trial without one (its file held
    # none) is left out by compute, and the summary says how many (untimed_note); or a
    # function of the job's parameters saying whether it does (change-points: --by time)
    over_time: bool | Callable[[Any], bool] = False


@dataclass(frozen=True)
class JobResult:
    job_run_id: int
    tables: Tables
    duration_s: float
    summary: list[str]


def run_job(
    warehouse: Warehouse, job: Job, params: Any, *, campaigns: Sequence[str] | None = None,
    reporter: Reporter | None = None, write: bool = True, slice_rows: int = SLICE_ROWS,
    scheduler: Any = None,
) -> JobResult:
    """Run ``job`` over the warehouse's measurements (all campaigns unless given).

    With ``scheduler`` (a Dask scheduler address such as ``tcp://10.0.0.5:8786``, or a
    ``distributed.Client``) the pieces run on that cluster's workers, which must see the
    warehouse at the same path; the results are the same tables as a local run, and
    they are written here, by this process, in one catalog transaction.
    """
    reporter = reporter or SilentReporter()
    snapshot = warehouse.snapshot(campaigns)
    files = snapshot.files
    if not files:
        if campaigns and warehouse.exists():  # a misspelt campaign: name the known ones
            from perfwarehouse.warehouse.lookup import require

            with warehouse.catalog() as con:
                for name in campaigns:
                    require(con, "campaign", name)
        where = f" of campaign(s) {', '.join(campaigns)}" if campaigns else ""
        raise AnalysisError(f"the warehouse {warehouse.root} has no measurements{where} to analyse")
    started_at = datetime.now(timezone.utc)
    start = time.monotonic()
    tables = compute_job(warehouse, job, params, files, reporter, snapshot.configurations,
                         slice_rows, _catalog_tables(warehouse, job, files), scheduler=scheduler)
    duration = time.monotonic() - start
    summary = job.summarize(tables, params) if job.summarize else []
    if job.over_time(params) if callable(job.over_time) else job.over_time:
        summary += untimed_note(warehouse, job, campaigns)
    if not write:
        return JobResult(0, tables, duration, summary)
    job_run_id = write_results(warehouse, job, params, files, tables, started_at, duration)
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


@dataclass(frozen=True)
class Piece:
    """One unit of a job's work: a partition (campaign x hardware type, or campaign), or
    one slice ``config_id mod k = i`` of its configurations, and the exact Parquet files
    (of the snapshot) that hold the partition. Its result is a pure function of the
    files, the key, the slice and the job's parameters: computed here or on a worker,
    the tables are the same."""

    index: int
    partition_by: tuple[str, ...]
    key: tuple[str, ...]
    config_slice: tuple[int, int] | None
    files: tuple[DataFile, ...]

    @property
    def label(self) -> str:
        """``campaign=C hardware_type=H slice 2/5``: how errors and logs name the piece."""
        text = " ".join(f"{k}={v}" for k, v in zip(self.partition_by, self.key))
        if self.config_slice is not None:
            text += f" slice {self.config_slice[0] + 1}/{self.config_slice[1]}"
        return text

    @property
    def file_rows(self) -> int:
        """Measurements in the piece's files (all slices of the partition)."""
        return sum(f.row_count for f in self.files)


@dataclass(frozen=True)
class Plan:
    """What a job will compute: the parameters after ``prepare``, the SQL text of its
    per-piece query with the values it binds besides the partition key, and the pieces in
    the order their results are concatenated (sorted partitions, then slices)."""

    root: str
    params: Any
    query: str
    extra: Mapping[str, Any]
    pieces: tuple[Piece, ...]
    configurations: pa.Table | None
    catalog_data: Mapping[str, pa.Table] = field(default_factory=dict)
    # the SQL text of the job's prepare_query when it runs per piece (prepare_by_piece)
    prepare_query: str = ""

    def reader(self, job: Job, files: Sequence[DataFile]) -> duckdb.DuckDBPyConnection:
        """A reader of ``files`` that also sees the job's catalog tables."""
        con = Warehouse(Path(self.root)).reader(files, self.configurations)
        for name in job.catalog_tables:
            if name in self.catalog_data:
                con.register(name, self.catalog_data[name])
            else:  # temporary: the reader's database is shared by the process's readers
                con.execute(_schema_of(name).replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
        return con


def plan_job(
    warehouse: Warehouse, job: Job, params: Any, files: Sequence[DataFile],
    configurations: pa.Table | None = None, slice_rows: int = SLICE_ROWS,
    catalog_data: Mapping[str, pa.Table] | None = None,
) -> Plan:
    """Split ``job`` into pieces (and run its ``prepare`` step over all ``files``, unless
    it runs by piece: then the plan carries its query for :func:`prepare_piece`)."""
    by_key: dict[tuple[str, ...], list[DataFile]] = {}
    for f in files:
        by_key.setdefault(tuple(getattr(f, k) for k in job.partition_by), []).append(f)
    pieces: list[Piece] = []
    for key in sorted(by_key):
        part = tuple(by_key[key])
        rows = sum(f.row_count for f in part)
        k = -(-rows // max(1, slice_rows)) if job.per_configuration else 1
        for i in range(k):
            pieces.append(Piece(len(pieces), job.partition_by, key,
                                (i, k) if k > 1 else None, part))
    query = sqlfiles.load(f"queries/{job.query}")
    extra = dict(job.query_params(params)) if job.query_params else {}
    plan = Plan(str(warehouse.root), params, query, extra, tuple(pieces), configurations,
                dict(catalog_data or {}))
    if job.prepare_query and job.prepare:
        prepare_sql = sqlfiles.load(f"queries/{job.prepare_query}")
        if job.prepare_by_piece:  # run with the pieces: prepare_piece, then apply_prepare
            return dataclasses.replace(plan, prepare_query=prepare_sql)
        con = plan.reader(job, files)
        try:
            params = job.prepare(fetch_arrow(con, prepare_sql, _used(prepare_sql, extra)), params)
        finally:
            con.close()
        plan = dataclasses.replace(plan, params=params)
    return plan


def _query_piece(job: Job, plan: Plan, piece: Piece, query: str) -> pa.Table:
    """``query`` over one piece's rows (its configuration slice, if any), bound with the
    piece's key and the plan's extra values."""
    warehouse = Warehouse(Path(plan.root))
    con = plan.reader(job, piece.files)
    try:
        if piece.config_slice is not None:
            con.execute("CREATE OR REPLACE TEMP VIEW measurements AS "
                        + warehouse.measurements_sql(piece.files, piece.config_slice))
        bound = dict(zip(piece.partition_by, piece.key)) | dict(plan.extra)
        return fetch_arrow(con, query, _used(query, bound))
    finally:
        con.close()


def compute_piece(job: Job, plan: Plan, piece: Piece) -> Tables:
    """The pure function of one piece: query the piece's files (only its
    configuration slice, if any) and apply ``compute``. Runs wherever the warehouse's
    files are readable at ``plan.root`` (this process, or a Dask worker)."""
    return compute_rows(job, plan, read_piece(job, plan, piece))


def read_piece(job: Job, plan: Plan, piece: Piece) -> pa.Table:
    """The rows of one piece that ``compute`` takes, in the job's row order."""
    table = _query_piece(job, plan, piece, plan.query)
    return in_row_order(table, job.row_order) if table.num_rows else table


def compute_rows(job: Job, plan: Plan, table: pa.Table) -> Tables:
    """``compute`` of one piece's rows (:func:`read_piece`); nothing for no rows."""
    return dict(job.compute(table, plan.params)) if table.num_rows else {}


def prepare_piece(job: Job, plan: Plan, piece: Piece) -> pa.Table:
    """The rows of the job's per-piece ``prepare_query`` over one piece (a job with
    ``prepare_by_piece``); :func:`apply_prepare` combines them. Runs where
    :func:`compute_piece` runs."""
    return _query_piece(job, plan, piece, plan.prepare_query)


def apply_prepare(job: Job, plan: Plan, parts: Sequence[pa.Table]) -> Plan:
    """The plan with the parameters ``prepare`` returns for the pieces' prepare rows (in
    the plan's order)."""
    if job.prepare is None:
        return plan
    return dataclasses.replace(plan, params=job.prepare(_concat(list(parts)), plan.params))


def compute_job(
    warehouse: Warehouse, job: Job, params: Any, files: Sequence[DataFile], reporter: Reporter,
    configurations: pa.Table | None = None, slice_rows: int = SLICE_ROWS,
    catalog_data: Mapping[str, pa.Table] | None = None, *, scheduler: Any = None,
) -> Tables:
    """Plan the job's pieces, compute each (here, or on the Dask cluster at
    ``scheduler``), concatenate each output in the plan's order and ``finalize``.
    The queries see ``measurements`` and, when given, the ``configurations`` table; a
    per-configuration job sees a partition in slices of at most about ``slice_rows``
    measurements."""
    plan = plan_job(warehouse, job, params, files, configurations, slice_rows, catalog_data)
    if scheduler is not None:
        from perfwarehouse.jobs.dask_runner import compute_pieces_on_cluster

        plan, results = compute_pieces_on_cluster(scheduler, job, plan, reporter)
    else:
        if plan.prepare_query:
            with reporter.task(f"{job.name}: prepare", total=len(plan.pieces),
                               unit="parts") as task:
                parts = []
                for piece in plan.pieces:
                    parts.append(prepare_piece(job, plan, piece))
                    task.advance()
            plan = apply_prepare(job, plan, parts)
        results = []
        with reporter.task(f"{job.name}", total=len(plan.pieces), unit="parts") as task:
            for table in _read_ahead(job, plan):
                results.append(compute_rows(job, plan, table))
                task.advance()
    return assemble(job, plan, results)


def _read_ahead(job: Job, plan: Plan) -> Iterator[pa.Table]:
    """Each piece's rows (:func:`read_piece`) in the plan's order, the next piece read on
    a thread while the caller computes this one: the reads (DuckDB, 6 % of
    ``change-points`` on the 10x campaign) overlap the statistics, and at most two
    pieces are held at once."""
    with ThreadPoolExecutor(max_workers=1) as reader:
        pending = None
        for piece in plan.pieces:
            following = reader.submit(read_piece, job, plan, piece)
            if pending is not None:
                yield pending.result()
            pending = following
        if pending is not None:
            yield pending.result()


def assemble(job: Job, plan: Plan, results: Sequence[Mapping[str, pa.Table]]) -> Tables:
    """Concatenate the pieces' outputs in the plan's order and apply ``finalize``."""
    parts: dict[str, list[pa.Table]] = {name: [] for name in job.outputs}
    for result in results:
        for name, table in result.items():
            parts[name].append(table)
    tables = {name: _concat(tables) for name, tables in parts.items()}
    if job.finalize:
        tables = job.finalize(tables, plan.params)
    return tables


def _catalog_tables(warehouse: Warehouse, job: Job,
                    files: Sequence[DataFile]) -> dict[str, pa.Table]:
    """The job's ``catalog_tables`` rows of the campaigns of ``files`` (one short read)."""
    if not job.catalog_tables:
        return {}
    campaigns = sorted({f.campaign for f in files})
    out: dict[str, pa.Table] = {}
    with warehouse.catalog() as con:
        present = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        for name in job.catalog_tables:
            if name in present:  # names come from the job registry, never from users
                out[name] = fetch_arrow(
                    con, f"SELECT * FROM {name} WHERE list_contains(?, campaign)", [campaigns])
    return out


def _schema_of(table: str) -> str:
    """The DDL of a catalog table (``sql/schema/NNN_<table>.sql``, or a result table's
    contract)."""
    for name, statement in sqlfiles.schema_statements():
        if name.split("_", 1)[1] == table:
            return statement
    raise KeyError(table)


def _used(query: str, values: Mapping[str, Any]) -> dict[str, Any] | None:
    """The named parameters ``query`` actually uses (DuckDB refuses unused ones)."""
    used = {k: v for k, v in values.items() if f"${k}" in query}
    return used or None


def _concat(parts: list[pa.Table]) -> pa.Table:
    if not parts:
        return pa.table({})
    return pa.concat_tables(parts, promote_options="permissive")


def write_results(
    warehouse: Warehouse, job: Job, params: Any, files: Sequence[DataFile], tables: Tables,
    started_at: datetime, duration: float,
) -> int:
    """Insert the result tables and their ``job_runs`` row in one transaction."""
    from perfwarehouse import __version__

    params_json = json.dumps({f.name: getattr(params, f.name) for f in dataclasses.fields(params)
                              if not f.metadata.get("internal")}, sort_keys=True, default=str)
    with warehouse.writing(f"perfwarehouse analyze {job.name}") as session:
        return record_job_run(
            session, job=job.name, params_json=params_json,
            campaigns=sorted({f.campaign for f in files}),
            batches=sorted({f.batch_id for f in files}), version=__version__,
            started_at=started_at, duration_s=duration, tables=tables)
