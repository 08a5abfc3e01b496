"""Every write to the catalog: batches of measurements, job runs, comparisons, pull
cursors and the typed empty file behind the views. Other packages call these functions
instead of writing SQL against the catalog themselves. The caller holds the write lock
(:meth:`Warehouse.writing`) and, where several writes must commit together (a batch and
its pull cursor), runs them inside one :func:`transaction`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa

from perfwarehouse.faults import checkpoint
from perfwarehouse.warehouse.connection import (  # noqa: F401 (used as catalog.transaction)
    fetch_one,
    fetch_value,
    transaction,
)
from perfwarehouse.warehouse.contracts import COMPARISONS, contract
from perfwarehouse.warehouse.layout import write_empty_schema_file  # noqa: F401 (its old home)

if TYPE_CHECKING:
    from perfwarehouse.warehouse.store import WriteSession


# ------------------------------------------------------------------ batches
def find_batch(con: duckdb.DuckDBPyConnection, content_hash: str, fmt: str) -> int | None:
    """The batch_id of a landed batch with this content and format, or None."""
    row = fetch_one(con, "SELECT batch_id FROM ingest_batches WHERE content_hash = ? "
                         "AND format = ?", [content_hash, fmt])
    return int(row[0]) if row else None


def next_batch_id(con: duckdb.DuckDBPyConnection) -> int:
    """The id the next batch gets (one more than the largest recorded)."""
    return int(fetch_value(con, "SELECT coalesce(max(batch_id), 0) + 1 FROM ingest_batches"))


def batch_recorded(con: duckdb.DuckDBPyConnection, batch_id: int) -> bool:
    """Whether the catalog holds batch ``batch_id``."""
    return bool(fetch_value(con, "SELECT count(*) FROM ingest_batches WHERE batch_id = ?",
                            [batch_id]))


@dataclass(frozen=True)
class BatchRecord:
    """The catalog rows of one batch (see ``sql/staging/*_rows.sql`` for their columns)."""

    batch_id: int
    source: str
    format: str
    content_hash: str
    started_at: datetime
    trials_added: int
    values_added: int
    trials_skipped: int
    quarantined: int  # records set aside (distinct source lines)
    trials: pa.Table
    runs: pa.Table
    nodes: pa.Table
    configurations: pa.Table
    quarantine: pa.Table
    latency: pa.Table | None = None
    files: pa.Table | None = None  # the batch's Parquet files (data_files rows)


def record_batch(con: duckdb.DuckDBPyConnection, batch: BatchRecord) -> None:
    """Insert everything of ``batch`` - new campaigns, nodes, configurations and runs, its
    trials, latency histograms, data files, quarantined records and its
    ``ingest_batches`` row - inside the caller's :func:`transaction` (nothing commits
    here, so the caller's own writes commit or roll back with the batch)."""
    tables = {"_runs": batch.runs, "_nodes": batch.nodes, "_configs": batch.configurations,
              "_trials": batch.trials, "_latency_rows": batch.latency, "_files": batch.files,
              "_quarantine": batch.quarantine}
    for name, table in tables.items():
        if table is not None:
            con.register(name, table)
    now = datetime.now(timezone.utc)
    con.execute("""INSERT INTO campaigns
        SELECT DISTINCT campaign, ?::TIMESTAMPTZ, ? FROM _runs
        ON CONFLICT DO NOTHING""", [now, batch.batch_id])
    con.execute("INSERT INTO nodes BY NAME SELECT * FROM _nodes ON CONFLICT DO NOTHING")
    con.execute("INSERT INTO configurations BY NAME SELECT * FROM _configs "
                "ON CONFLICT DO NOTHING")
    con.execute("INSERT INTO runs BY NAME SELECT * FROM _runs ON CONFLICT DO NOTHING")
    con.execute("INSERT INTO valueless_trials BY NAME SELECT * FROM _trials")
    if batch.latency is not None:
        con.execute("INSERT INTO latency_histograms BY NAME SELECT * FROM _latency_rows "
                    "ON CONFLICT DO NOTHING")
    if batch.files is not None:
        con.execute("INSERT INTO data_files BY NAME SELECT * FROM _files")
    con.execute("INSERT INTO quarantine BY NAME SELECT * FROM _quarantine")
    con.execute(
        "INSERT INTO ingest_batches VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'landed', ?, ?)",
        [batch.batch_id, batch.source, batch.format, batch.content_hash, batch.trials_added,
         batch.values_added, batch.trials_skipped, batch.quarantined, batch.started_at, now])


def file_record(path: Path) -> dict[str, Any]:
    """The ``data_files`` columns of the Parquet file just written at ``path`` (its row
    count, size, checksum, value bounds and time: :func:`~perfwarehouse.warehouse.
    integrity.content_record`), recorded with its batch."""
    from perfwarehouse.warehouse.integrity import content_record

    return content_record(path)


# ----------------------------------------------------------------- job runs
def record_job_run(
    session: WriteSession, *, job: str, params_json: str, campaigns: Sequence[str],
    batches: Sequence[int], version: str, started_at: datetime, duration_s: float,
    tables: Mapping[str, pa.Table | Iterable[pa.Table]],
) -> int:
    """Insert a job's result ``tables`` (each conformed to its contract,
    :mod:`perfwarehouse.warehouse.contracts`, and given ``job_run_id``) into their
    ``<name>_history`` tables and its ``job_runs`` row in one transaction; returns the new
    ``job_run_id``. The name ``<name>`` is a view of the latest run per campaign. A table
    may come in parts (an iterable of tables, read one after another: one part in memory
    at a time).

    Each table is inserted by one statement that streams its parts
    (:func:`_insert_streamed`): DuckDB then writes the transaction's full row groups
    (122,880 rows) to free blocks of the catalog file as they fill, instead of holding
    the uncommitted rows in memory (about 140-250 bytes a row with an insert per part:
    8M result rows took a job from 0.5 to 2.5 GB). The blocks become the table's at the
    commit; a process killed before it leaves them free, and the catalog as it was."""
    with session.catalog() as cat:
        job_run_id = int(fetch_value(cat, "SELECT coalesce(max(job_run_id), 0) + 1 FROM job_runs"))
        with transaction(cat):
            rows = 0
            for name, value in tables.items():
                parts = [value] if isinstance(value, pa.Table) else value
                rows += _insert_streamed(cat, name, parts, job_run_id)
            checkpoint("job-rows-inserted")
            cat.execute("INSERT INTO job_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [job_run_id, job, params_json, list(campaigns), list(batches), version,
                         started_at, duration_s, rows])
            # the persistent views (<name> = the latest run per campaign) for users of
            # the raw DuckDB file; perfwarehouse's own readers make temporary ones
            session.refresh_views(cat)
    checkpoint("job-committed")
    return job_run_id


def _insert_streamed(cat: duckdb.DuckDBPyConnection, name: str, parts: Iterable[pa.Table],
                     job_run_id: int) -> int:
    """Insert the rows of ``parts`` (conformed to contract ``name``, with ``job_run_id``)
    into its stored table by one ``INSERT ... SELECT`` over an Arrow stream that reads the
    parts as DuckDB asks for them; returns the number of rows. An error raised while
    reading a part (a row that does not fit the contract) is raised as it is, not as
    DuckDB's report of a failed stream."""
    result = contract(name)
    schema = result.schema.append(pa.field("job_run_id", pa.int64()))
    failed: list[BaseException] = []

    def batches() -> Iterator[pa.RecordBatch]:
        try:
            for table in parts:
                if table.num_rows == 0:
                    continue
                table = result.conform(table).append_column(
                    "job_run_id", pa.repeat(pa.scalar(job_run_id, pa.int64()), table.num_rows))
                yield from table.to_batches()
                del table
        except BaseException as exc:
            failed.append(exc)
            raise

    stream = pa.RecordBatchReader.from_batches(schema, batches())
    cat.register("_result", stream)
    try:
        row = cat.execute(f"INSERT INTO {result.stored_as} BY NAME SELECT * FROM _result"
                          ).fetchone()
    except duckdb.Error:  # the transaction is aborted: the caller rolls back and closes
        if failed:
            raise failed[0] from None
        raise
    cat.unregister("_result")
    if failed:  # a stream that ended early without DuckDB noticing: never commit it
        raise failed[0]
    return int(row[0]) if row else 0


# -------------------------------------------------------------- comparisons
def record_comparison(session: WriteSession, rows: pa.Table) -> int:
    """Insert the rows of one ``perfwarehouse compare`` into ``comparisons`` under a new
    ``comparison_id`` (and ``created_at``, now), both added in front; returns the id.
    ``rows`` has the columns of :data:`~perfwarehouse.warehouse.contracts.COMPARISONS`."""
    rows = COMPARISONS.conform(rows)
    with session.catalog() as cat:
        cid = int(fetch_value(cat, "SELECT coalesce(max(comparison_id), 0) + 1 "
                                   "FROM comparisons"))
        n = rows.num_rows
        full = rows.add_column(0, "created_at", pa.array(
            [datetime.now(timezone.utc)] * n, pa.timestamp("us", tz="UTC")))
        full = full.add_column(0, "comparison_id", pa.array([cid] * n, pa.int64()))
        cat.register("_comparison", full)
        cat.execute(f"INSERT INTO {COMPARISONS.stored_as} BY NAME SELECT * FROM _comparison")
        cat.unregister("_comparison")
    return cid


# -------------------------------------------------------------- pull cursors
def read_pull_cursors(con: duckdb.DuckDBPyConnection, agent: str) -> list[tuple[Any, ...]]:
    """``(segment, byte_offset, line_count, last_line_offset, last_line_sha256)`` of every
    segment of ``agent`` (none in a warehouse that never pulled)."""
    if not fetch_value(con, "SELECT count(*) FROM duckdb_tables() "
                            "WHERE table_name = 'pull_cursors'"):
        return []
    return con.execute(
        "SELECT segment, byte_offset, line_count, last_line_offset, last_line_sha256 "
        "FROM pull_cursors WHERE agent = ?", [agent]).fetchall()


def advance_pull_cursor(
    con: duckdb.DuckDBPyConnection, agent: str, segment: str, *, expected_offset: int,
    new: tuple[int, int, int, str | None], added: int, batch_id: int | None,
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
