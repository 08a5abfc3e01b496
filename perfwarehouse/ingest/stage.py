"""Validate, de-duplicate and land one batch of parsed trials.

A :class:`Batch` is an in-memory DuckDB database holding the parsed records
(``raw_trials``, see ``sql/staging/raw_trials.sql``) and the problems the
parsers found. :func:`land` then, in order:

1. canonicalises settings and checks every rule of ``sql/staging/validate.sql``;
   any problem refuses the batch (or, with ``quarantine``, sets its records aside)
   (:func:`perfwarehouse.ingest.stage_checks.check`);
2. under the warehouse's write lock, compares the batch with what the warehouse
   holds: the same content again changes nothing; a trial already present with
   the same values is skipped; with different values it is a conflict
   (:func:`perfwarehouse.ingest.stage_checks.compare_with_warehouse`);
3. writes the new measurements as Parquet into a staging directory outside
   ``measurements/``, records them, the dimension rows, the trials and the batch
   in **one** catalog transaction
   (:func:`perfwarehouse.warehouse.catalog.record_batch`), and only then renames the
   files into the hive layout (:meth:`Warehouse.publish`). So a process killed at any
   instant leaves the warehouse as before or after the batch, and an engine reading
   ``measurements/`` directly never sees an uncommitted file; a batch committed
   but not yet renamed is finished by the next open, read-only or not
   (:meth:`Warehouse._recover_read_only`).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from perfwarehouse.errors import ConflictError, TrialParseError  # noqa: F401  (callers catch stage.ConflictError)
from perfwarehouse.faults import checkpoint
from perfwarehouse.ingest import latency
from perfwarehouse.ingest.stage_checks import (  # noqa: F401  (_canonicalise_settings, _validate: for tests)
    _canonicalise_settings,
    _validate,
    check,
    compare_with_warehouse,
    unit_notes,
)
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.warehouse import catalog, sqlfiles
from perfwarehouse.warehouse.compact import auto_compact
from perfwarehouse.warehouse.store import (
    DATA,
    Warehouse,
    WriteSession,
    configure,
    fetch_arrow,
    fetch_one,
    fetch_value,
)

MEMORY_LIMIT = "3GB"  # per batch; DuckDB spills beyond it (demo peak <= 4 GB)
# Called inside the catalog transaction that lands a batch, with that connection and the
# batch id (None when the batch adds nothing), so a caller can record its own state (a
# pull cursor) atomically with the batch. Raising rolls the batch back.
OnCommit = Callable[[duckdb.DuckDBPyConnection, "int | None"], None]


@dataclass(frozen=True)
class IngestSummary:
    """What an ingest did. ``outcome``: landed, unchanged (same content again) or nothing-new;
    ``seconds``: the whole ingest of the batch, from reading its first input to landing."""

    source: str
    format: str
    outcome: str
    batch_id: int | None = None
    trials_added: int = 0
    values_added: int = 0
    trials_skipped: int = 0
    quarantined: int = 0
    campaigns: tuple[str, ...] = ()
    seconds: float = 0.0
    problems: tuple[TrialParseError, ...] = field(default=(), repr=False)
    untimed: int = 0  # records of other tools' files stored without a start time
    notes: tuple[str, ...] = ()  # unit conversions into the warehouse's unit


class FileDigest:
    """One file's bytes fed into a batch's content hash chunk by chunk, counting its lines
    (a last line without a newline counts)."""

    def __init__(self, hash_: Any) -> None:
        self._hash = hash_
        self._newlines = 0
        self._last = b"\n"

    def update(self, chunk: bytes) -> None:
        self._hash.update(chunk)
        self._newlines += chunk.count(b"\n")
        self._last = chunk[-1:]

    @property
    def lines(self) -> int:
        return self._newlines + (self._last != b"\n")


class Batch:
    """Parsed records of one ingest command, held in an in-memory DuckDB."""

    def __init__(self, source: str, fmt: str, memory_limit: str = MEMORY_LIMIT) -> None:
        self.source = source
        self.format = fmt
        self.started = time.monotonic()  # IngestSummary.seconds: reading, checks, landing
        # a batch larger than memory_limit spills to a private temporary directory, which
        # DuckDB creates on its first spill and removes on close: an ingest killed before
        # it spilled leaves nothing in the temporary directory
        self.spill = Path(tempfile.gettempdir()) / f"perfwarehouse-batch-{uuid.uuid4().hex}"
        self.con = duckdb.connect(config={"memory_limit": memory_limit,
                                          "temp_directory": str(self.spill)})
        configure(self.con)
        self.con.execute(sqlfiles.load("staging/raw_trials"))
        # sources of other tools whose records may lack a start time (never invented)
        self.con.execute("CREATE TEMP TABLE untimed_sources (source VARCHAR)")
        self.problems: list[TrialParseError] = []
        # sources whose record numbers are not line numbers (parsed documents of other tools)
        self.record_sources: set[str] = set()
        self._hash = hashlib.sha256()

    def hash_bytes(self, name: str, data: bytes) -> None:
        """Feed one input's name and content into the batch's content hash."""
        self._hash.update(name.encode() + b"\0" + len(data).to_bytes(8, "little"))
        self._hash.update(data)

    def hash_file(self, path: Path) -> int:
        """Feed a file into the content hash; returns its number of lines (one pass)."""
        digest = self.file_digest(path)
        with open(path, "rb") as f:
            while chunk := f.read(1 << 23):
                digest.update(chunk)
        return digest.lines

    def file_digest(self, path: Path) -> FileDigest:
        """A digest that feeds ``path``'s chunks, given in order by a reader that passes over
        the bytes anyway, into the content hash, as :meth:`hash_file` does."""
        size = path.stat().st_size
        self._hash.update(path.name.encode() + b"\0" + size.to_bytes(8, "little"))
        return FileDigest(self._hash)

    @property
    def content_hash(self) -> str:
        return self._hash.hexdigest()

    def add_arrow(self, table: pa.Table) -> None:
        """Append parsed records (columns named as in ``raw_trials``)."""
        if table.num_rows:
            self.con.register("_incoming", table)
            self.con.execute("INSERT INTO raw_trials BY NAME SELECT * FROM _incoming")
            self.con.unregister("_incoming")

    def add_problems(self, problems: Iterable[TrialParseError]) -> None:
        self.problems.extend(problems)

    def count(self) -> int:
        return int(fetch_value(self.con, "SELECT count(*) FROM raw_trials"))

    def close(self) -> None:
        self.con.close()
        shutil.rmtree(self.spill, ignore_errors=True)


def land(
    warehouse: Warehouse, batch: Batch, *, quarantine: bool = False,
    reporter: Reporter | None = None, on_commit: OnCommit | None = None,
) -> IngestSummary:
    """Validate ``batch`` and land it in ``warehouse`` atomically (see module docstring).

    ``on_commit`` (optional) runs inside the landing transaction; when the batch adds
    nothing (unchanged or nothing new) it still runs, in a transaction of its own.
    """
    reporter = reporter or SilentReporter()
    started = batch.started
    started_at = datetime.now(timezone.utc)
    con = batch.con
    n_records = batch.count()
    problems = check(con, batch.problems, batch.record_sources, quarantine, reporter)

    checkpoint("validated")
    purpose = f"perfwarehouse ingest {batch.format} {batch.source}"
    with warehouse.writing(purpose) as session:
        with warehouse.catalog() as cat:
            earlier = catalog.find_batch(cat, batch.content_hash, batch.format)
            skipped = 0 if earlier is not None else compare_with_warehouse(con, cat)
            batch_id = catalog.next_batch_id(cat)
        if earlier is not None:
            _on_commit_alone(session, on_commit)
            return IngestSummary(
                batch.source, batch.format, "unchanged", batch_id=earlier,
                trials_skipped=n_records, seconds=time.monotonic() - started)
        added = batch.count()
        if added == 0 and not problems:
            _on_commit_alone(session, on_commit)
            return IngestSummary(batch.source, batch.format, "nothing-new",
                                 trials_skipped=skipped, seconds=time.monotonic() - started)
        try:
            with reporter.task("writing Parquet", total=None, unit="rows"):
                files = _write_parquet(con, warehouse, batch_id)
            checkpoint("parquet-moved")  # (staged: the name is kept for the kill tests)
            values = sum(f["row_count"] for f in files)
            campaigns = tuple(r[0] for r in con.execute(
                "SELECT DISTINCT campaign FROM staged_trials ORDER BY 1").fetchall())
            with reporter.task("committing", total=None, unit="rows"):
                _commit(session, con, batch, batch_id, files, problems, started_at,
                        added, values, skipped, on_commit)
        except BaseException:
            if not _is_committed(warehouse, batch_id):
                # a refusal, a moved cursor, an error: nobody will publish it
                shutil.rmtree(warehouse.batch_staging(batch_id), ignore_errors=True)
            raise
        # many small files in a small partition: compact it now (docs/compaction.md)
        auto_compact(session, [(str(f["campaign"]), str(f["hardware_type"])) for f in files])
    return IngestSummary(
        batch.source, batch.format, "landed", batch_id=batch_id, trials_added=added,
        values_added=values, trials_skipped=skipped, quarantined=len({(p.source, p.line) for p in problems}),
        campaigns=campaigns, seconds=time.monotonic() - started, problems=tuple(problems),
        notes=unit_notes(con),
    )


@dataclass(frozen=True)
class Preview:
    """What a batch would add (``ingest --dry-run``): counts of the valid records."""

    trials: int
    values: int
    configurations: int
    runs: int
    nodes: int
    campaigns: tuple[str, ...]
    already_present: int = 0  # trials the warehouse holds already (skipped on landing)
    quarantined: int = 0
    untimed: int = 0  # records of other tools' files that hold no start time
    notes: tuple[str, ...] = ()  # unit conversions into the warehouse's unit


def preview(warehouse: Warehouse | None, batch: Batch, *, quarantine: bool = False,
            reporter: Reporter | None = None) -> Preview:
    """Validate ``batch`` exactly as :func:`land` does and count what it would add,
    changing nothing (``warehouse`` is only read, and only if it exists)."""
    reporter = reporter or SilentReporter()
    con = batch.con
    problems = check(con, batch.problems, batch.record_sources, quarantine, reporter)
    skipped = 0
    if warehouse is not None and warehouse.exists():
        with warehouse.catalog() as cat:
            skipped = compare_with_warehouse(con, cat)
    row = fetch_one(con, """SELECT count(*), coalesce(sum(len("values")), 0),
                                   count(DISTINCT config_id), count(DISTINCT (campaign, run_id)),
                                   count(DISTINCT node)
                            FROM staged_trials""")
    assert row is not None  # an aggregate without GROUP BY: always one row
    campaigns = tuple(r[0] for r in con.execute(
        "SELECT DISTINCT campaign FROM staged_trials ORDER BY 1").fetchall())
    return Preview(int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]), campaigns,
                   already_present=skipped,
                   quarantined=len({(p.source, p.line) for p in problems}),
                   notes=unit_notes(con))


# ------------------------------------------------------------------- landing
def _write_parquet(
    con: duckdb.DuckDBPyConnection, warehouse: Warehouse, batch_id: int
) -> list[dict[str, Any]]:
    """Write the batch's measurements into its staging directory (outside
    ``measurements/``, so no reader sees them yet); return their records, with the
    paths they will have once published."""
    staging = warehouse.batch_staging(batch_id)
    staging.mkdir(parents=True, exist_ok=True)
    query = sqlfiles.load("queries/measurement_rows")
    con.execute(
        f"COPY ({query}) TO {sqlfiles.quote_literal(str(staging))} (FORMAT parquet, "
        f"COMPRESSION zstd, PARTITION_BY (campaign, hardware_type), "
        f"FILENAME_PATTERN 'b{batch_id:06d}-{{i}}')",
        {"batch_id": batch_id},
    )
    files = []
    for path in sorted(staging.rglob("*.parquet")):
        rel_dir = path.parent.relative_to(staging)
        campaign, hardware_type = (urllib.parse.unquote(p.split("=", 1)[1]) for p in rel_dir.parts)
        content = catalog.file_record(path)  # row count, size, checksum, value bounds
        checkpoint("parquet-staged")
        files.append({"path": str(Path(DATA) / rel_dir / path.name), "batch_id": batch_id,
                      "campaign": campaign, "hardware_type": hardware_type, **content})
    return files


def _commit(
    session: WriteSession, con: duckdb.DuckDBPyConnection, batch: Batch, batch_id: int,
    files: list[dict[str, object]], problems: list[TrialParseError], started_at: datetime,
    added: int, values: int, skipped: int, on_commit: OnCommit | None = None,
) -> None:
    """Record everything of the batch in one transaction, then publish its files."""
    record = catalog.BatchRecord(
        batch_id=batch_id, source=batch.source, format=batch.format,
        content_hash=batch.content_hash, started_at=started_at, trials_added=added,
        values_added=values, trials_skipped=skipped,
        quarantined=len({(p.source, p.line) for p in problems}),
        trials=fetch_arrow(con, sqlfiles.load("staging/trial_rows"), {"batch_id": batch_id}),
        runs=fetch_arrow(con, sqlfiles.load("staging/run_rows"), {"batch_id": batch_id}),
        nodes=fetch_arrow(con, sqlfiles.load("staging/node_rows"), {"batch_id": batch_id}),
        configurations=fetch_arrow(con, "SELECT * FROM _configs"),
        latency=latency.rows(con, batch_id),
        files=pa.Table.from_pylist(files) if files else None,
        quarantine=pa.table({
            "batch_id": pa.array([batch_id] * len(problems), pa.int64()),
            "source": [p.source for p in problems], "line": [p.line for p in problems],
            "rule": [p.rule for p in problems], "detail": [p.detail for p in problems],
            "raw": [getattr(p, "raw", None) for p in problems]}),
    )
    with session.catalog() as cat:
        with catalog.transaction(cat):
            catalog.record_batch(cat, record)
            if on_commit:
                on_commit(cat, batch_id)
            checkpoint("before-commit")
        checkpoint("after-commit")
        # committed: only now do the files appear in measurements/ (readers wait for this
        # open catalog; one killed here is finished by the next open, read-only or not)
        session.warehouse.publish(batch_id, [str(f["path"]) for f in files])
        checkpoint("after-publish")
        session.refresh_views_after_commit(cat)  # they bind to files: after publishing


def _is_committed(warehouse: Warehouse, batch_id: int) -> bool:
    """Whether the catalog holds batch ``batch_id`` (asked after a failure)."""
    try:
        with warehouse.catalog() as cat:
            return catalog.batch_recorded(cat, batch_id)
    except Exception:  # cannot tell: keep the files (the next writer decides)
        return True


def _on_commit_alone(session: WriteSession, on_commit: OnCommit | None) -> None:
    """Run ``on_commit`` for a batch that adds nothing, in its own transaction."""
    if on_commit is None:
        return
    with session.catalog() as cat, catalog.transaction(cat):
        on_commit(cat, None)


