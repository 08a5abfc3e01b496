"""Every write to the catalog that is not a batch of measurements: job runs, pull
cursors and the typed empty file behind the views. Other packages call these functions
instead of writing SQL against the catalog themselves (batches are recorded by
:mod:`perfwarehouse.ingest.stage`, inside the same transaction as their cursor).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.store import HISTORY, WriteSession, configure, fetch_one


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``BEGIN`` … ``COMMIT``, or ``ROLLBACK`` on any exception (re-raised)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def record_job_run(
    session: WriteSession, *, job: str, params_json: str, campaigns: Sequence[str],
    batches: Sequence[int], version: str, started_at: datetime, duration_s: float,
    tables: Mapping[str, pa.Table],
) -> int:
    """Insert a job's result ``tables`` (each gains ``job_run_id``) into their
    ``<name>_history`` tables and its ``job_runs`` row in one transaction; returns the new
    ``job_run_id``. The name ``<name>`` is a view of the latest run per campaign."""
    with session.catalog() as cat:
        job_run_id = int(fetch_one(cat, "SELECT coalesce(max(job_run_id), 0) + 1 FROM job_runs")[0])
        with transaction(cat):
            rows = 0
            for name, table in tables.items():
                if table.num_rows == 0:
                    continue
                table = table.append_column(
                    "job_run_id", pa.array([job_run_id] * table.num_rows, pa.int64()))
                cat.register("_result", table)
                cat.execute(f"INSERT INTO {name}{HISTORY} BY NAME SELECT * FROM _result")
                cat.unregister("_result")
                rows += table.num_rows
            cat.execute("INSERT INTO job_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [job_run_id, job, params_json, list(campaigns), list(batches), version,
                         started_at, duration_s, rows])
            # the persistent views (<name> = the latest run per campaign) for users of
            # the raw DuckDB file; perfwarehouse's own readers make temporary ones
            session.refresh_views(cat)
    return job_run_id


def read_pull_cursors(con: duckdb.DuckDBPyConnection, agent: str) -> list[tuple[Any, ...]]:
    """``(segment, byte_offset, line_count, last_line_offset, last_line_sha256)`` of every
    segment of ``agent`` (none in a warehouse that never pulled)."""
    if not fetch_one(con, "SELECT count(*) FROM duckdb_tables() "
                          "WHERE table_name = 'pull_cursors'")[0]:
        return []
    return con.execute(
        "SELECT segment, byte_offset, line_count, last_line_offset, last_line_sha256 "
        "FROM pull_cursors WHERE agent = ?", [agent]).fetchall()


def advance_pull_cursor(
    con: duckdb.DuckDBPyConnection, agent: str, segment: str, *, expected_offset: int,
    new: tuple[int, int, int, str], added: int, batch_id: int | None,
) -> int | None:
    """Move a segment's cursor to ``new`` = (byte offset, line count, last line offset,
    last line sha256), inside the caller's transaction. Returns the byte offset found
    when it is not ``expected_offset`` (another pull moved it; nothing is written),
    else None."""
    row = fetch_one(con, "SELECT byte_offset, trials_added, batch_id FROM pull_cursors "
                         "WHERE agent = ? AND segment = ?", [agent, segment])
    current, trials_before, last_batch = row if row else (0, 0, None)
    if current != expected_offset:
        return int(current)
    con.execute("INSERT OR REPLACE INTO pull_cursors VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [agent, segment, *new, trials_before + added,
                 batch_id if batch_id is not None else last_batch, datetime.now(timezone.utc)])
    return None


def write_empty_schema_file(path: Path) -> None:
    """A zero-row Parquet file with the measurement columns (the types of an empty
    warehouse's views), written under a temporary name and renamed into place (never
    seen half-written). The columns come from the same SQL that writes a batch."""
    tmp = path.with_name(path.name + ".new")
    con = duckdb.connect()
    try:
        configure(con)
        con.execute(sqlfiles.load("staging/raw_trials"))
        con.execute(sqlfiles.load("staging/configs"))
        con.execute(sqlfiles.load("staging/staged_trials"))
        path.parent.mkdir(parents=True, exist_ok=True)
        query = sqlfiles.load("queries/measurement_rows")
        con.execute(
            f"COPY (SELECT * EXCLUDE (campaign, hardware_type) FROM ({query})) "
            f"TO {sqlfiles.quote_literal(str(tmp))} (FORMAT parquet)", {"batch_id": 0})
    finally:
        con.close()
    os.replace(tmp, path)
