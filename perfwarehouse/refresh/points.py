"""The catalog edge of ``refresh``: refresh points (table ``refreshes``), the findings at a
point, the campaigns and batches newer than a point, and the writing of a new point.

A point is (last_batch_id, last_job_run_id, last_comparison_id): the newest ingest batch,
job run and kept comparison that existed when the refresh finished. Job-run, batch and
comparison ids only grow, so "the latest job run of each (job, campaign) at the point" is
the largest id at most last_job_run_id: the catalog keeps every run
(``<table>_history``), so the findings of any past point can be read again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from perfwarehouse.refresh.findings import ChangePoint, Finding, change_points_of, findings_of
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow, fetch_value, transaction

#: A point before anything: every id is above it.
ORIGIN = (0, 0, 0)
#: A job-run or comparison id above any (the findings "now").
NOW = 2**62


@dataclass(frozen=True)
class Point:
    """A refresh point (None fields: the origin, before any refresh)."""

    refresh_id: int | None
    finished_at: datetime | None
    last_batch_id: int
    last_job_run_id: int
    last_comparison_id: int


def previous_point(warehouse: Warehouse) -> Point:
    """The latest refresh point, else the origin (a first refresh finds everything new)."""
    with warehouse.catalog(views=False) as con:
        rows = fetch_arrow(con, sqlfiles.load("queries/refresh_previous")).to_pylist()
    if not rows:
        return Point(None, None, *ORIGIN)
    r = rows[0]
    return Point(int(r["refresh_id"]), r["finished_at"], int(r["last_batch_id"]),
                 int(r["last_job_run_id"]), int(r["last_comparison_id"]))


def current_ids(warehouse: Warehouse) -> tuple[int, int, int]:
    """(last_batch_id, last_job_run_id, last_comparison_id) now."""
    with warehouse.catalog(views=False) as con:
        r = fetch_arrow(con, sqlfiles.load("queries/refresh_point")).to_pylist()[0]
    return int(r["last_batch_id"]), int(r["last_job_run_id"]), int(r["last_comparison_id"])


def findings_at(warehouse: Warehouse, slug: Any, *, job_run: int = NOW,
                comparison: int = NOW, until: datetime | None = None) -> list[Finding]:
    """The findings of the latest job runs with id <= ``job_run`` (and started before
    ``until``), and of the comparisons with id <= ``comparison`` (created before
    ``until``)."""
    with warehouse.catalog(views=False) as con:
        rows = fetch_arrow(con, sqlfiles.load("queries/refresh_findings"),
                           {"job_run": job_run, "comparison": comparison,
                            "until": until}).to_pylist()
    return findings_of(rows, slug)


def change_points_at(warehouse: Warehouse, *, job_run: int = NOW,
                     until: datetime | None = None) -> list[ChangePoint]:
    """Every change point (any kind) of the latest change-points runs with id <=
    ``job_run`` (and started before ``until``)."""
    with warehouse.catalog(views=False) as con:
        rows = fetch_arrow(con, sqlfiles.load("queries/refresh_change_points"),
                           {"job_run": job_run, "until": until}).to_pylist()
    return change_points_of(rows)


def changed_since(warehouse: Warehouse, point: Point) -> tuple[list[str], list[int]]:
    """The campaigns that received a batch or a job run after ``point``, and the batches
    that landed after it."""
    with warehouse.catalog(views=False) as con:
        campaigns = fetch_arrow(con, sqlfiles.load("queries/refresh_changed_campaigns"),
                                {"batch": point.last_batch_id,
                                 "job_run": point.last_job_run_id}).column(0).to_pylist()
        batches = fetch_arrow(con, sqlfiles.load("queries/refresh_batches"),
                              {"batch": point.last_batch_id}).column(0).to_pylist()
    return [str(c) for c in campaigns], [int(b) for b in batches]


def write_point(warehouse: Warehouse, *, started_at: datetime, finished_at: datetime,
                ids: tuple[int, int, int], batches: Sequence[int],
                job_run_ids: Sequence[int], campaigns: Sequence[str], since: str,
                findings: Sequence[Finding]) -> int:
    """Record a refresh point, in one catalog transaction (the last thing a refresh
    writes); returns its refresh_id."""
    payload = json.dumps([f.as_json() for f in findings], default=str)
    with warehouse.writing("perfwarehouse refresh") as session, session.catalog() as con:
        with transaction(con):
            refresh_id = int(fetch_value(
                con, "SELECT coalesce(max(refresh_id), 0) + 1 FROM refreshes"))
            con.execute("INSERT INTO refreshes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [refresh_id, started_at, finished_at, *ids, list(batches),
                         list(job_run_ids), list(campaigns), since, payload])
    return refresh_id


def history(warehouse: Warehouse, limit: int = 30) -> list[dict[str, Any]]:
    """The latest ``limit`` refreshes, newest first, their findings decoded."""
    with warehouse.catalog(views=False) as con:
        rows = fetch_arrow(con, sqlfiles.load("queries/refresh_history"),
                           {"limit": limit}).to_pylist()
    for r in rows:
        r["findings"] = json.loads(r["findings"])
    return rows
