"""What a job is: :class:`Job` (its query, its pure ``compute`` and its outputs), the
parameters every job accepts (:class:`JobParams`), a :class:`Plan` (the pieces one run
computes) and a run's :class:`JobResult`. Definitions only, so that the runner
(:mod:`perfwarehouse.jobs.framework`) and the executors
(:mod:`perfwarehouse.jobs.dask_runner`) both import them and not each other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from perfwarehouse.warehouse.pieces import Piece, Reader, catalog_table_ddl, open_piece

Tables = dict[str, pa.Table]


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

    def reader(self, job: Job, piece: Piece) -> Reader:
        """A reader of ``piece`` that also sees the job's catalog tables."""
        con = open_piece(self.root, piece, self.configurations)
        for name in job.catalog_tables:
            if name in self.catalog_data:
                con.register(name, self.catalog_data[name])
            else:  # temporary: the reader's database is shared by the process's readers
                con.execute(catalog_table_ddl(name).replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
        return con


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
    """A job run: its id in ``job_runs`` (0 when not written), its output tables (on disk
    while the result lives: :class:`~perfwarehouse.jobs.spill.ResultTables`, unless the
    job has a ``finalize``), its duration and its summary lines."""

    job_run_id: int
    tables: Mapping[str, pa.Table]
    duration_s: float
    summary: list[str]
