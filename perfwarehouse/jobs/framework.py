"""Warehouse jobs: query -> pure function -> result tables (SPEC 5).

A :class:`Job` names an SQL query (``sql/queries/<name>.sql``) that is run once
per partition of the measurements (campaign x hardware type, or campaign), a
pure ``compute(table, params) -> {output: table}`` applied to each partition's
rows, and an optional ``finalize`` over the concatenated results (for example a
family-wise correction across partitions). :func:`run_job` does the loop, so a
job never opens a connection, and memory is bounded by one partition. A job
whose ``compute`` treats each configuration on its own says so
(``per_configuration=True``); a partition of more than :data:`SLICE_ROWS`
measurements is then computed in slices of whole configurations, so memory stays
bounded however large one hardware type grows (SPEC 10: a 23M-trial campaign).

A job that needs a fact about all partitions before computing any of them
(for example the size of a family of comparisons, which sets the confidence
of every CI) names a ``prepare_query`` run once over all the data, and a pure
``prepare(table, params) -> params`` that returns the parameters to use
(typically ``dataclasses.replace`` of an internal field declared with
``param(..., internal=True)``, which the CLI does not expose).

Results are written to the job's output tables (DDL in ``sql/schema/``) with the
``job_run_id`` of a row in ``job_runs`` that records the parameters, the input
batches, the code version and the job's own duration.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from perfwarehouse.errors import AnalysisError
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.catalog import record_job_run
from perfwarehouse.warehouse.store import DataFile, Warehouse, fetch_arrow

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
class Job:
    """One analysis, exposed as ``perfwarehouse analyze <name>``."""

    name: str
    help: str
    params: type
    query: str
    compute: Callable[[pa.Table, Any], Tables]
    outputs: tuple[str, ...]
    finalize: Callable[[Tables, Any], Tables] | None = None
    summarize: Callable[[Tables, Any], list[str]] | None = None
    partition_by: tuple[str, ...] = ("campaign", "hardware_type")
    query_params: Callable[[Any], Mapping[str, Any]] | None = None
    prepare_query: str | None = None
    prepare: Callable[[pa.Table, Any], Any] | None = None
    per_configuration: bool = False
    # catalog tables (with a campaign column) the query joins, read with the snapshot and
    # registered in the reader under their own names (created empty when missing)
    catalog_tables: tuple[str, ...] = ()


@dataclass(frozen=True)
class JobResult:
    job_run_id: int
    tables: Tables
    duration_s: float
    summary: list[str]


def run_job(
    warehouse: Warehouse, job: Job, params: Any, *, campaigns: Sequence[str] | None = None,
    reporter: Reporter | None = None, write: bool = True, slice_rows: int = SLICE_ROWS,
) -> JobResult:
    """Run ``job`` over the warehouse's measurements (all campaigns unless given)."""
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
    catalog_data = _catalog_tables(warehouse, job, files)
    tables = compute_job(warehouse, job, params, files, reporter, snapshot.configurations,
                         slice_rows, catalog_data)
    duration = time.monotonic() - start
    summary = job.summarize(tables, params) if job.summarize else []
    if not write:
        return JobResult(0, tables, duration, summary)
    job_run_id = write_results(warehouse, job, params, files, tables, started_at, duration)
    return JobResult(job_run_id, tables, duration, summary)


def compute_job(
    warehouse: Warehouse, job: Job, params: Any, files: Sequence[DataFile], reporter: Reporter,
    configurations: pa.Table | None = None, slice_rows: int = SLICE_ROWS,
    catalog_data: Mapping[str, pa.Table] | None = None,
) -> Tables:
    """Query each partition of ``files`` and apply the job's pure functions. The queries
    see ``measurements`` and, when given, the ``configurations`` table; a
    per-configuration job sees a partition in slices of at most about ``slice_rows``
    measurements."""
    rows: dict[tuple[str, ...], int] = {}
    for f in files:
        key = tuple(getattr(f, k) for k in job.partition_by)
        rows[key] = rows.get(key, 0) + f.row_count
    partitions = sorted(rows)
    slices = {key: -(-n // max(1, slice_rows)) if job.per_configuration else 1
              for key, n in rows.items()}
    query = sqlfiles.load(f"queries/{job.query}")
    extra = dict(job.query_params(params)) if job.query_params else {}
    pieces: dict[str, list[pa.Table]] = {name: [] for name in job.outputs}
    con = warehouse.reader(files, configurations)
    try:
        for name in job.catalog_tables:
            if catalog_data and name in catalog_data:
                con.register(name, catalog_data[name])
            else:
                con.execute(_schema_of(name))
        if job.prepare_query and job.prepare:
            prepare_sql = sqlfiles.load(f"queries/{job.prepare_query}")
            params = job.prepare(fetch_arrow(con, prepare_sql, _used(prepare_sql, extra)), params)
        with reporter.task(f"{job.name}", total=sum(slices.values()), unit="parts") as task:
            for key in partitions:
                bound = dict(zip(job.partition_by, key)) | extra
                for i in range(slices[key]):
                    if slices[key] > 1:
                        _view_measurements(con, warehouse, files, (i, slices[key]))
                    table = fetch_arrow(con, query, _used(query, bound))
                    if table.num_rows:
                        for name, result in job.compute(table, params).items():
                            pieces[name].append(result)
                    task.advance()
                if slices[key] > 1:
                    _view_measurements(con, warehouse, files, None)
    finally:
        con.close()
    tables = {name: _concat(parts) for name, parts in pieces.items()}
    if job.finalize:
        tables = job.finalize(tables, params)
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
                out[name] = fetch_arrow(con, f"SELECT * FROM {name} WHERE list_contains(?, campaign)",
                                        [campaigns])
    return out


def _schema_of(table: str) -> str:
    """The DDL of a catalog table (``sql/schema/NNN_<table>.sql``)."""
    for name, statement in sqlfiles.schema_statements():
        if name.split("_", 1)[1] == table:
            return statement
    raise KeyError(table)


def _view_measurements(con: duckdb.DuckDBPyConnection, warehouse: Warehouse, files: Sequence[DataFile],
                       config_slice: tuple[int, int] | None) -> None:
    """Point the reader's ``measurements`` view at one slice of configurations (or all)."""
    con.execute("CREATE OR REPLACE VIEW measurements AS "
                + warehouse.measurements_sql(files, config_slice))


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
