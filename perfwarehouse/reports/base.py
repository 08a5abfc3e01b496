"""What every report shares: reading its tables, the options it needs (as data), writing it.

A report's data access is a few named queries, ``sql/queries/report_*.sql``, run on
the read-only catalog with their parameters bound; each reads the rows of the
latest ``job_run`` of its job for each campaign, so a rerun replaces the numbers
of a report instead of adding to them. An analysis table that does not exist or
has no rows yet is not an error: the page says which command fills it (and so does
stderr), and shows what it can.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import duckdb
import pyarrow as pa

from perfwarehouse.errors import UsageError
from perfwarehouse.options import Option
from perfwarehouse.reports.page import Missing, Page
from perfwarehouse.reports.render import write_report
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow, fetch_one


@dataclass(frozen=True)
class Request:
    """What the user asked for: one campaign (None: all) and, for the fleet report,
    the period [since, until) in UTC (None: chosen from the data); ``options``: the
    report's own options (the configuration report's selection), as (name, value)."""

    campaign: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    options: tuple[tuple[str, Any], ...] = ()

    def option(self, name: str, default: Any = None) -> Any:
        return dict(self.options).get(name, default)


class ReportData:
    """The read side of a report: named queries over one read-only catalog connection."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self._tables: set[str] | None = None

    def has_table(self, name: str) -> bool:
        if self._tables is None:
            rows = fetch_arrow(self.con, "SELECT table_name FROM duckdb_tables() UNION ALL "
                                         "SELECT view_name FROM duckdb_views() WHERE NOT internal")
            self._tables = set(rows.column("table_name").to_pylist())
        return name in self._tables

    def query(self, name: str, **params: Any) -> pa.Table:
        """Run ``sql/queries/report_<name>.sql`` with the parameters it uses bound."""
        sql = sqlfiles.load(f"queries/report_{name}")
        used = {k: v for k, v in params.items() if f"${k}" in sql}
        return fetch_arrow(self.con, sql, used or None)

    def query_of(self, name: str, config_ids: pa.Array, order: str, **params: Any) -> pa.Table:
        """:meth:`query` for the configurations ``config_ids`` only (a semi join on them,
        registered as an Arrow table for the query's time), its rows ordered by ``order``
        (the query's own ``ORDER BY`` columns: a join does not keep the order)."""
        sql = sqlfiles.load(f"queries/report_{name}")
        used = {k: v for k, v in params.items() if f"${k}" in sql}
        self.con.register("pw_report_keep", pa.table({"config_id": config_ids}))
        try:
            return fetch_arrow(self.con, f"SELECT * FROM ({sql}\n) AS q WHERE config_id IN "
                               f"(SELECT config_id FROM pw_report_keep) ORDER BY {order}",
                               used or None)
        finally:
            self.con.unregister("pw_report_keep")

    def scalar(self, sql: str, params: list[Any] | None = None) -> Any:
        row = fetch_one(self.con, sql, params)
        return row[0] if row else None

    def results(self, table: str, query: str, command: str, request: Request,
                **params: Any) -> pa.Table | Missing:
        """The rows of ``query`` from the analysis table ``table``, or a
        :class:`Missing` naming the ``command`` that produces them."""
        detail = f" for campaign {request.campaign}" if request.campaign else ""
        if not self.has_table(table):
            return Missing(table, command, detail)
        rows = self.query(query, campaign=request.campaign, **params)
        return rows if rows.num_rows else Missing(table, command, detail)

    def job_runs(self, job: str, request: Request) -> pa.Table:
        """The latest run of ``job`` for each campaign (id, campaign, start, parameters)."""
        return self.query("job_runs", job=job, campaign=request.campaign)


def provenance(runs: pa.Table, job: str) -> list[str]:
    """One line per campaign saying which job run the numbers come from."""
    lines = []
    for row in runs.to_pylist():
        started = row["started_at"]
        when = started.strftime("%Y-%m-%d %H:%M UTC") if isinstance(started, datetime) else started
        lines.append(f"{job}: job_run_id {row['job_run_id']} for campaign {row['campaign']} "
                     f"({when}, code {row['code_version']}), parameters {row['params']}")
    return lines


# ------------------------------------------------------------------ options
# what the pages need, as data (perfwarehouse.options); the CLI makes click options of them
OUT = Option(("--out",), kind="file",
             help="The HTML file to write.  [default: reports/NAME.html; one "
                  "reports/CAMPAIGN/NAME.html each when the page applies to several "
                  "campaigns]")
CAMPAIGN = Option(("--campaign",),
                  help="The campaign to report on (any kind).  [default: each campaign "
                       "of a kind the page applies to, one page each, never pooled]")
PNG = Option(("--png", "png"), kind="dir",
             help="Also write every chart as a PNG into this directory.")
SINCE = Option(("--since",), kind="utc", help="Start of the period (UTC, inclusive).  "
               "[default: 90 days before --until]")
UNTIL = Option(("--until",), kind="utc", help="End of the period (UTC, exclusive).  "
               "[default: the day after the newest trial]")


Builder = Callable[[ReportData, Request], Page]


@dataclass(frozen=True)
class Report:
    """One report, exposed as ``perfwarehouse report <name>`` and written by the demo."""

    name: str
    help: str
    build: Builder
    options: tuple[Option, ...] = field(default=(OUT, CAMPAIGN, PNG))
    in_all: bool = True
    """Written by ``report all`` and the demo (False: the page needs a selection)."""

    def page(self, warehouse: Warehouse, request: Request) -> Page:
        from perfwarehouse.warehouse.lookup import require

        with warehouse.catalog() as con:
            require(con, "campaign", request.campaign)
            return self.build(ReportData(con), request)

    def write(self, warehouse: Warehouse, *, out: Path | None = None,
              campaign: str | None = None,
              since: datetime | None = None, until: datetime | None = None,
              png: Path | None = None, stderr: TextIO | None = None, **options: Any) -> Path:
        """Build the page from the warehouse and write it to ``out`` (default
        ``reports/<page name>.html``; and PNGs to ``png``); ``options``: the report's own.

        Analyses that have not been run are named in the page and on ``stderr``.
        """
        return self.write_page(warehouse, out=out, campaign=campaign, since=since, until=until,
                               png=png, stderr=stderr, **options)[0]

    def write_page(self, warehouse: Warehouse, *, out: Path | None = None,
                   campaign: str | None = None, since: datetime | None = None,
                   until: datetime | None = None, png: Path | None = None,
                   stderr: TextIO | None = None, **options: Any) -> tuple[Path, Page]:
        """:meth:`write`, returning the page too (its verdict goes into the index)."""
        check_period(since, until)
        page = self.page(warehouse, Request(campaign, since, until, tuple(options.items())))
        if out is None:  # the page's name: the report's, or the configuration's own
            out = Path("reports") / f"{page.name}.html"
        return self.emit(page, Path(out), png, stderr), page

    def emit(self, page: Page, out: Path, png: Path | None = None,
             stderr: TextIO | None = None) -> Path:
        """Write a built ``page`` to ``out`` (and its PNGs), naming on ``stderr`` the
        analyses it lacks."""
        stream = stderr if stderr is not None else sys.stderr
        for notice in page.notices("missing"):
            print(f"report {self.name}: {notice.text}", file=stream)
        return write_report(page, Path(out), png)


def check_period(since: datetime | None, until: datetime | None) -> None:
    """Refuse an empty period [since, until) in one line."""
    if since and until and since >= until:
        raise UsageError(f"--since {since:%Y-%m-%d %H:%M} is not before --until "
                         f"{until:%Y-%m-%d %H:%M}; give a non-empty period")
