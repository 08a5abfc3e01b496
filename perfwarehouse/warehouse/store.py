"""The warehouse directory: a DuckDB catalog plus Parquet measurement files.

Layout::

    <root>/catalog.duckdb                     dimension, batch, job and result tables
    <root>/measurements/campaign=C/hardware_type=H/b000012-0.parquet
    <root>/_schema/...                        an empty file giving the view its types
    <root>/_staging/bNNNNNN/campaign=C/...     a batch's files before they are published
    <root>/.write.lock                        the single-writer lock (names its holder)

A batch's Parquet files are written under ``_staging/`` (outside ``measurements/``),
recorded in the catalog in one transaction, and only **then** renamed into
``measurements/`` (:meth:`Warehouse.publish`). So an engine reading
``measurements/`` directly never sees a file the catalog does not list. A writer
killed between its commit and the renames leaves a committed batch in
``_staging/``: every open of the warehouse, read-only ones too, finishes it
(:meth:`Warehouse._finish_committed`). A batch that never committed is removed,
with any file of ``measurements/`` the catalog does not list and empty partition
directories, by whoever next holds the write lock (a writer, or a reader that
finds the lock free: :meth:`Warehouse._undo_uncommitted`); a reader never removes
anything while a live writer holds the lock.

This module is the only place that calls ``duckdb.connect`` on the catalog.
Readers open the catalog read-only; writers take the write lock first and keep
the catalog open read-write only while they commit, so queries are blocked for
the commit, not for the whole ingest or job.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from perfwarehouse.errors import WarehouseBusy, WarehouseError
from perfwarehouse.faults import checkpoint
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.lock import retry_while_locked, write_lock

SCHEMA_VERSION = 2  # 2: revision, revision_time, attributes (runs, trials, measurement files)
CATALOG = "catalog.duckdb"
DATA = "measurements"
STAGING = "_staging"
RETIRE = "retire-"  # _staging/retire-TOKEN: files `compact --grace 0` moved out (move_out)
EMPTY_FILE = "_schema/campaign=_/hardware_type=_/empty.parquet"
#: the warehouses this process has read (a failed query that names no file is explained
#: by examining theirs: :func:`perfwarehouse.warehouse.damage.damaged_file_line`)
OPENED: set[Path] = set()
_VIEW_COLUMNS: dict[str, list[tuple[str, str]]] = {}  # root -> the view's (name, type)


def configure(con: duckdb.DuckDBPyConnection) -> None:
    """Settings every connection gets: UTC timestamps, no DuckDB progress bar on stdout."""
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET enable_progress_bar = false")


_memory_database: tuple[int, duckdb.DuckDBPyConnection] | None = None
_memory_database_lock = threading.Lock()


def memory_connection() -> duckdb.DuckDBPyConnection:
    """A new connection to this process's in-memory DuckDB database, configured.

    Opening a database costs about 16 ms, a connection to an open one 5 us: a job
    reads each of its pieces through a connection of its own (hundreds in the demo),
    so the database is opened once per process (again in a forked child). Temporary
    views and registered tables belong to their connection; a plain ``CREATE`` would
    be seen by every connection of the process, so readers create only temporary ones.
    """
    global _memory_database
    with _memory_database_lock:
        if _memory_database is None or _memory_database[0] != os.getpid():
            _memory_database = (os.getpid(), duckdb.connect())
        con = _memory_database[1].cursor()
    configure(con)
    return con


def fetch_arrow(
    con: duckdb.DuckDBPyConnection, query: str, params: object = None
) -> pa.Table:
    """Run a SELECT and return its rows as an Arrow table (without DB-API copies)."""
    return con.sql(query, params=params).to_arrow_table()


def fetch_one(con: duckdb.DuckDBPyConnection, query: str, params: object = None) -> tuple | None:
    """The first row of a query, or None (consumes the result, as DuckDB requires)."""
    rows = con.execute(query, params).fetchall()
    return rows[0] if rows else None


def fetch_value(con: duckdb.DuckDBPyConnection, query: str, params: object = None) -> Any:
    """The first value of a query that always returns one row: an aggregate without
    GROUP BY (``count(*)``, ``max(...)``) or DuckDB's row count of an UPDATE/DELETE."""
    row = fetch_one(con, query, params)
    assert row is not None, "an aggregate or a row count returns one row"
    return row[0]


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``BEGIN`` … ``COMMIT``, or ``ROLLBACK`` on any exception (re-raised).

    A ``COMMIT`` that fails (a full disk: ``Could not write file ...: No space left on
    device``) has already ended the transaction in DuckDB; the ``ROLLBACK`` then fails
    too (``cannot rollback - no transaction is active``) and must not hide the reason:
    the first exception is the one raised."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        con.execute("COMMIT")
    except BaseException:
        try:
            con.execute("ROLLBACK")
        except duckdb.Error:
            pass  # the transaction was aborted already (a failed COMMIT)
        raise


def _is_lock_error(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


@dataclass(frozen=True)
class DataFile:
    """One Parquet file of measurements, as recorded in ``data_files``."""

    path: str  # relative to the warehouse root
    batch_id: int
    campaign: str
    hardware_type: str
    row_count: int
    file_version: int = 2  # 1: written before the revision columns existed
    # what it held when it landed (perfwarehouse.warehouse.integrity); None: not recorded
    bytes: int | None = None
    sha256: str | None = None
    mtime_ns: int | None = None


@dataclass(frozen=True)
class Snapshot:
    """The data files and the (small) configurations table, as of one moment."""

    files: list[DataFile]
    configurations: pa.Table


class Warehouse:
    """A warehouse directory. Cheap to construct; nothing is opened until asked."""

    def __init__(
        self, root: Path, *, lock_timeout_s: float = 30.0,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.root = Path(root).absolute()
        self.lock_timeout_s = lock_timeout_s
        self.on_wait = on_wait

    # ----------------------------------------------------------------- paths
    @property
    def catalog_path(self) -> Path:
        return self.root / CATALOG

    @property
    def data_path(self) -> Path:
        return self.root / DATA

    @property
    def staging_path(self) -> Path:
        return self.root / STAGING

    def exists(self) -> bool:
        return self.catalog_path.is_file()

    def require(self) -> None:
        if not self.exists():
            raise WarehouseError(
                f"no warehouse at {self.root} (give --warehouse DIR or set PERFWAREHOUSE_HOME, "
                "or create one with `perfwarehouse init` or an ingest)"
            )

    # ------------------------------------------------------------ connections
    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        what = "reading" if read_only else "writing"
        con = retry_while_locked(
            lambda: duckdb.connect(str(self.catalog_path), read_only=read_only),
            f"{what} {self.catalog_path}", self.lock_timeout_s, _is_lock_error, self.on_wait,
        )
        configure(con)
        return con

    @contextmanager
    def catalog(self, *, views: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-only connection to the catalog, with the ``measurements`` view (unless
        ``views`` is false: ``perfwarehouse check`` reads the catalog of a warehouse
        whose files may be damaged, and creating the views reads them)."""
        self.require()
        con = self._connect(read_only=True)
        try:
            _check_version(con, self.root)
            self._recover_read_only(con)
            if views:
                files = _data_files(con)
                try:
                    self.create_views(con, files, temporary=True)
                except (duckdb.Error, UnicodeDecodeError) as exc:
                    raise _damaged(exc, self.root, files) from None
            yield con
        finally:
            con.close()

    def data_files(self, campaigns: Sequence[str] | None = None) -> list[DataFile]:
        """The current data files (optionally of some campaigns), read from the catalog."""
        with self.catalog() as con:
            return _data_files(con, campaigns)

    def snapshot(self, campaigns: Sequence[str] | None = None) -> Snapshot:
        """What a job reads, taken in one short read of the catalog."""
        with self.catalog() as con:
            return Snapshot(_data_files(con, campaigns),
                            fetch_arrow(con, "SELECT * FROM configurations"))

    def reader(self, files: Sequence[DataFile],
               configurations: pa.Table | None = None) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB connection (:func:`memory_connection`) whose temporary
        ``measurements`` view reads ``files`` (and with a ``configurations`` table, when
        given, e.g. from a :class:`Snapshot`).

        It holds no lock on the catalog, so a long job never blocks a writer.
        """
        con = memory_connection()
        con.execute(f"CREATE TEMP VIEW measurements AS {self.measurements_sql(files)}")
        if configurations is not None:
            con.register("configurations", configurations)
        return con

    def measurements_sql(
        self, files: Sequence[DataFile], config_slice: tuple[int, int] | None = None, *,
        verify: bool = True,
    ) -> str:
        """The ``measurements`` view over ``files`` (an empty typed view if there are none).

        ``config_slice=(i, k)`` keeps only the configurations with ``config_id mod k
        = i``: one of k slices of whole configurations (config ids are hashes, so the
        slices are about equal), for jobs that split a large partition.

        With ``verify`` (readers), each file is verified first
        (:func:`~perfwarehouse.warehouse.integrity.damaged_for_reading`: a ``stat``, a
        hash when its time changed); a damaged one is never opened: in its place the
        view holds one row of its campaign and hardware type (the other columns NULL)
        whose filter raises DuckDB's ``error()`` with the one line naming the file. A query that would read the file
        fails with that line; one that filters its partition out (or reads only the
        catalog's tables) answers.
        """
        damaged: dict[str, str] = {}
        if verify:
            from perfwarehouse.warehouse.integrity import damaged_for_reading

            damaged = damaged_for_reading(self.root, files)
            OPENED.add(self.root)
        sql = self._parquet_sql([f for f in files if f.path not in damaged])
        if config_slice is not None:
            i, k = (int(x) for x in config_slice)
            sql = f"SELECT * FROM (\n{sql}\n) WHERE config_id % {k} = {i}"
        for f in files:
            if f.path in damaged:
                sql += "\nUNION ALL BY NAME " + self._refusal_sql(f, damaged[f.path])
        return sql

    def _refusal_sql(self, f: DataFile, line: str) -> str:
        """One row in place of the damaged file ``f``: its campaign and hardware type (so
        a query filtering its partition out answers), every other column an expression
        that raises ``line`` (so no filter on a column can be folded away before it is
        evaluated), and a filter that raises it too (for ``count(*)``)."""
        quote = sqlfiles.quote_literal
        raised = f"error({quote(line)})"
        columns = [f"{quote(f.campaign)} AS campaign", f"{quote(f.hardware_type)} AS hardware_type"]
        columns += [f"{raised}::{kind} AS {name}" for name, kind in self._view_columns()
                    if name not in ("campaign", "hardware_type")]
        return f"SELECT {', '.join(columns)} FROM range(1) WHERE {raised} IS NULL"

    def _view_columns(self) -> list[tuple[str, str]]:
        """(name, type) of the ``measurements`` view's columns (from the empty file)."""
        key = str(self.root)
        if key not in _VIEW_COLUMNS:
            con = memory_connection()
            try:
                _VIEW_COLUMNS[key] = [(r[0], r[1]) for r in con.execute(
                    f"DESCRIBE {self._parquet_sql([])}").fetchall()]
            finally:
                con.close()
        return _VIEW_COLUMNS[key]

    def _parquet_sql(self, files: Sequence[DataFile]) -> str:
        """The ``measurements`` view's SQL reading ``files`` as they are."""
        paths = [self.root / f.path for f in files] or [self.root / EMPTY_FILE]
        old_layout = any(f.file_version < 2 for f in files)
        if old_layout:  # the empty file gives the newer columns; older files read them as NULL
            paths.insert(0, self.root / EMPTY_FILE)
        literal = "[" + ", ".join(sqlfiles.quote_literal(str(p)) for p in paths) + "]"
        return (sqlfiles.load("views/measurements").replace("{parquet_files}", literal)
                .replace("{union_by_name}", ", union_by_name = true" if old_layout else ""))

    def create_views(
        self, con: duckdb.DuckDBPyConnection, files: Sequence[DataFile], *, temporary: bool
    ) -> None:
        """``measurements`` over ``files`` and the views built on it (``sql/views``).

        perfwarehouse's own connections use temporary views (so a moved warehouse
        works); writers also refresh persistent copies for users of the raw DuckDB file.
        Temporary views are for reading: their files are verified
        (:meth:`measurements_sql`).
        """
        kind = "TEMP VIEW" if temporary else "VIEW"
        con.execute(f"CREATE OR REPLACE {kind} measurements AS "
                    f"{self.measurements_sql(files, verify=temporary)}")
        con.execute(f"CREATE OR REPLACE {kind} trials AS {sqlfiles.load('views/trials')}")
        con.execute(f"CREATE OR REPLACE {kind} latest_job_runs AS "
                    f"{sqlfiles.load('views/latest_job_runs')}")
        for table in result_tables(con):
            con.execute(f"CREATE OR REPLACE {kind} {table} AS "
                        + sqlfiles.load("views/latest_results").replace("{table}", table))

    # ---------------------------------------------------------------- writing
    @contextmanager
    def writing(self, purpose: str) -> Iterator[WriteSession]:
        """Hold the write lock; create, migrate and recover the warehouse first."""
        self.root.mkdir(parents=True, exist_ok=True)
        with write_lock(self.root, purpose, self.lock_timeout_s, self.on_wait):
            # readers need the empty schema file as soon as the catalog exists
            self._ensure_empty_file()
            if not self.exists():
                self._create_catalog()
            session = WriteSession(self)
            with session.catalog() as con:
                if _migrate(con):
                    session.refresh_views(con)
                _check_version(con, self.root)
                if self._recover(con):
                    session.refresh_views(con)
            yield session

    def _create_catalog(self) -> None:
        """Build a new catalog under a temporary name and rename it into place, so a
        process killed while creating it leaves no half-made warehouse behind."""
        tmp = self.catalog_path.with_name(CATALOG + ".new")
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
        con = duckdb.connect(str(tmp))
        try:
            configure(con)
            _migrate(con)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        checkpoint("catalog-built")
        os.replace(tmp, self.catalog_path)
        checkpoint("catalog-created")

    def _ensure_empty_file(self) -> None:
        from perfwarehouse.warehouse.catalog import write_empty_schema_file

        path = self.root / EMPTY_FILE
        if not path.exists() or "attributes" not in _parquet_columns(path):
            write_empty_schema_file(path)  # new, or of the layout before schema version 2

    # --------------------------------------------------------------- recovery
    def batch_staging(self, batch_id: int) -> Path:
        """Where batch ``batch_id`` writes its files before they are published."""
        return self.staging_path / f"b{batch_id:06d}"

    def publish(self, batch_id: int, paths: Sequence[str]) -> None:
        """Rename a committed batch's staged files into ``measurements/`` (idempotent:
        a concurrent finisher may have moved some already), then drop its staging dir."""
        self.publish_staged(self.batch_staging(batch_id), paths)

    def publish_staged(self, staging: Path, paths: Sequence[str]) -> None:
        """Rename the committed files ``paths`` (relative to the root, under
        ``measurements/``) from ``staging`` (which mirrors ``measurements/``) into place,
        then drop ``staging``. Used by ingest (a batch) and compaction (its new files)."""
        for number, rel in enumerate(paths):
            target = self.root / rel
            source = staging / Path(rel).relative_to(DATA)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(source, target)
            except FileNotFoundError:
                if not target.exists():
                    raise
            if number == 0:
                checkpoint("published-one")
        shutil.rmtree(staging, ignore_errors=True)

    def move_out(self, paths: Sequence[str], retire: Path) -> None:
        """Move the listed files ``paths`` (relative to the root, under ``measurements/``)
        into ``retire`` (``_staging/retire-TOKEN``, mirroring ``measurements/``), before
        a transaction that drops them from ``data_files`` (``compact --grace 0``). Until
        it commits they stay listed: recovery moves them back (:meth:`move_back`); after
        it, they are unlisted and deleted (:meth:`_finish_committed`)."""
        for number, rel in enumerate(paths):
            target = retire / Path(rel).relative_to(DATA)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.root / rel, target)
            if number == 0:
                checkpoint("retired-one")

    def move_back(self, retire: Path) -> None:
        """Undo :meth:`move_out` (the transaction did not commit): every file of
        ``retire`` back into ``measurements/``; then ``retire`` is removed. Under the
        write lock only (a live writer may be between its moves and its commit)."""
        for source in sorted(retire.rglob("*.parquet")) if retire.is_dir() else []:
            target = self.data_path / source.relative_to(retire)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        shutil.rmtree(retire, ignore_errors=True)

    def _staged_dirs(self) -> list[Path]:
        """The directories in ``_staging/``: a batch's (``bNNNNNN``) or a compaction's
        (``compact-TOKEN``) files, laid out as in ``measurements/``; others are leftovers."""
        if not self.staging_path.is_dir():
            return []
        with os.scandir(self.staging_path) as entries:
            return sorted(Path(entry.path) for entry in entries)

    def _finish_committed(self, con: duckdb.DuckDBPyConnection) -> list[Path]:
        """Publish the staged files the catalog lists (``data_files``: their batch or
        compaction committed); the staging dirs it does not list (not committed: left
        for :meth:`_undo_uncommitted`). A batch or compaction commits all its files in
        one transaction, so a staged dir is listed wholly or not at all.

        A ``retire-TOKEN`` dir holds files moved out by :meth:`move_out`: unlisted, its
        compaction committed and they are deleted; listed (or none yet), it is left for
        :meth:`_undo_uncommitted`, which moves them back."""
        uncommitted = []
        for staging in self._staged_dirs():
            rels = sorted(str(Path(DATA) / p.relative_to(staging))
                          for p in staging.rglob("*.parquet")) if staging.is_dir() else []
            listed = [r[0] for r in con.execute(
                "SELECT path FROM data_files WHERE list_contains(?, path) ORDER BY path",
                [rels]).fetchall()] if rels else []
            if staging.name.startswith(RETIRE):
                if rels and not listed:
                    shutil.rmtree(staging, ignore_errors=True)
                else:
                    uncommitted.append(staging)
                continue
            if not listed and staging.name[:1] == "b" and staging.name[1:].isdigit():
                # a batch whose files were all renamed already: committed, finished
                batch = int(staging.name[1:])
                if fetch_value(con, "SELECT count(*) FROM ingest_batches WHERE batch_id = ?",
                               [batch]):
                    shutil.rmtree(staging, ignore_errors=True)
                    continue
            if listed:
                self.publish_staged(staging, listed)
            else:
                uncommitted.append(staging)
        return uncommitted

    def _undo_uncommitted(self, con: duckdb.DuckDBPyConnection) -> None:
        """With the write lock held: remove uncommitted staging, files of ``measurements/``
        the catalog does not list (left by older versions) and empty directories."""
        for staging in self._staged_dirs():
            if staging.name.startswith(RETIRE):  # a compaction that did not commit
                self.move_back(staging)
        if self.staging_path.exists():
            shutil.rmtree(self.staging_path)
        if not self.data_path.exists():
            return
        known = {row[0] for row in con.execute(  # retired files: kept for readers (compact.py)
            "SELECT path FROM data_files UNION ALL SELECT path FROM retired_files").fetchall()}
        for dirpath, _dirs, names in os.walk(self.data_path, topdown=False):
            for name in names:
                rel = os.path.relpath(os.path.join(dirpath, name), self.root)
                if rel not in known:
                    os.remove(os.path.join(dirpath, name))
            if dirpath != str(self.data_path) and not os.listdir(dirpath):
                os.rmdir(dirpath)

    def _recover(self, con: duckdb.DuckDBPyConnection) -> bool:
        """Under the write lock: finish committed batches, undo everything else; whether
        a committed batch was finished (its persistent views then need refreshing)."""
        staged = set(self._staged_dirs())
        finished = bool(staged - set(self._finish_committed(con)))
        self._undo_uncommitted(con)
        return finished

    def _recover_read_only(self, con: duckdb.DuckDBPyConnection) -> None:
        """On a read-only open: finish committed batches (safe without the lock: the
        catalog holds them and renames are idempotent); undo uncommitted ones only if the
        write lock is free right now (else a live writer may be about to commit them)."""
        if not self.staging_path.is_dir():
            return
        try:
            if not self._finish_committed(con):
                return
            with write_lock(self.root, "perfwarehouse recovery (read-only open)", 0):
                self._undo_uncommitted(con)
        except (OSError, WarehouseBusy):
            return  # read-only file system, or a writer is at work: it recovers itself


class WriteSession:
    """What a writer can do while it holds the write lock."""

    def __init__(self, warehouse: Warehouse) -> None:
        self.warehouse = warehouse

    @contextmanager
    def catalog(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-write catalog connection; keep it short (it blocks readers)."""
        con = self.warehouse._connect(read_only=False)
        try:
            yield con
        finally:
            con.close()

    def refresh_views(self, con: duckdb.DuckDBPyConnection) -> None:
        """Re-create the persistent views; call inside the transaction that changes ``data_files``."""
        self.warehouse.create_views(con, _data_files(con), temporary=False)

    def refresh_views_after_commit(self, con: duckdb.DuckDBPyConnection) -> None:
        """:meth:`refresh_views` once a batch or compaction has committed and published:
        a failure here (a full disk) must not say that it failed, since it landed. It is
        a warning; the persistent views (for users of the raw DuckDB file, not for
        perfwarehouse's own readers) are brought up to date by the next write."""
        import warnings

        try:
            self.refresh_views(con)
        except (duckdb.Error, OSError) as exc:
            warnings.warn(f"landed, but the persistent views were not refreshed "
                          f"({str(exc).strip().splitlines()[0]}); the next write refreshes "
                          "them", stacklevel=2)


# Schema version 1 -> 2: the revision key and the attributes of a trial. Measurement
# files written before stay as they are (file_version 1); the measurements view reads
# the new columns of those files as NULL.
_MIGRATE_1_TO_2 = (
    "ALTER TABLE runs ADD COLUMN IF NOT EXISTS revision VARCHAR",
    "ALTER TABLE runs ADD COLUMN IF NOT EXISTS revision_time TIMESTAMPTZ",
    "ALTER TABLE valueless_trials ADD COLUMN IF NOT EXISTS revision VARCHAR",
    "ALTER TABLE valueless_trials ADD COLUMN IF NOT EXISTS revision_time TIMESTAMPTZ",
    "ALTER TABLE valueless_trials ADD COLUMN IF NOT EXISTS attributes JSON",
    "ALTER TABLE data_files ADD COLUMN IF NOT EXISTS file_version INTEGER DEFAULT 1",
    "ALTER TABLE data_files ALTER COLUMN file_version SET DEFAULT 2",
    "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
)


HISTORY = "_history"


def result_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The analysis tables by name (``order_effects`` ...): each a view over the latest
    job run per campaign of its physical table ``<name>_history``."""
    rows = con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
                       "AND suffix(table_name, ?) ORDER BY 1", [HISTORY]).fetchall()
    return [r[0][: -len(HISTORY)] for r in rows]


def _migrate(con: duckdb.DuckDBPyConnection) -> bool:
    """Create missing tables and upgrade an older catalog; True if it was upgraded."""
    old = None
    if fetch_one(con, "SELECT 1 FROM duckdb_tables() WHERE table_name = 'meta'"):
        row = fetch_one(con, "SELECT value FROM meta WHERE key = 'schema_version'")
        old = int(row[0]) if row else None
    # result tables of catalogs written before the views: <name> becomes <name>_history
    existing = {r[0]: r[1] for r in con.execute(
        "SELECT table_name, 'table' FROM duckdb_tables() WHERE schema_name = 'main' UNION ALL "
        "SELECT view_name, 'view' FROM duckdb_views() WHERE NOT internal "
        "AND schema_name = 'main'").fetchall()}
    renamed = False
    for _name, statement in sqlfiles.schema_statements():
        head = statement[statement.find("CREATE TABLE IF NOT EXISTS"):].split("(")[0].split()
        table = head[-1] if len(head) == 6 else ""
        if table.endswith(HISTORY):
            previous = table[: -len(HISTORY)]
            if existing.get(previous) == "table" and table not in existing:
                con.execute(f"ALTER TABLE {previous} RENAME TO {table}")
                renamed = True
    for _name, statement in sqlfiles.schema_statements():
        con.execute(statement)
    from perfwarehouse.warehouse.integrity import CONTENT_COLUMNS

    for column, kind in CONTENT_COLUMNS:  # files landed before checksums: NULL (unknown)
        con.execute(f"ALTER TABLE data_files ADD COLUMN IF NOT EXISTS {column} {kind}")
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    con.execute(
        "INSERT INTO meta VALUES ('schema_version', ?), ('created_at', ?) ON CONFLICT DO NOTHING",
        [str(SCHEMA_VERSION), now],
    )
    if old != 1:
        return renamed
    with transaction(con):
        for statement in _MIGRATE_1_TO_2:
            con.execute(statement)
    return True


def _parquet_columns(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    return pq.read_schema(path).names


def _check_version(con: duckdb.DuckDBPyConnection, root: Path) -> None:
    row = fetch_one(con, "SELECT value FROM meta WHERE key = 'schema_version'")
    version = int(row[0]) if row else None
    if version is not None and version < SCHEMA_VERSION:
        raise WarehouseError(
            f"{root} has warehouse schema version {version}, this perfwarehouse reads "
            f"version {SCHEMA_VERSION}; upgrade it in place with `perfwarehouse --warehouse "
            f"{root} init` (any ingest does it too)")
    if version != SCHEMA_VERSION:
        raise WarehouseError(
            f"{root} has warehouse schema version {version}, this perfwarehouse reads "
            f"version {SCHEMA_VERSION}; use the perfwarehouse release that created it"
        )


def _damaged(exc: Exception, root: Path, files: Sequence[DataFile]) -> Exception:
    """A damaged data file as a one-line :class:`WarehouseError`, any other error as it
    is. DuckDB does not always name the file (a damaged footer: ``TProtocolException:
    Invalid data``; a file of other columns: ``Binder Error``): then the files are
    examined (:func:`diagnose`) to name it."""
    from perfwarehouse.warehouse.damage import damage_message, diagnose

    message = damage_message(exc, root) or diagnose(root, files)
    return WarehouseError(message) if message else exc


def _data_files(
    con: duckdb.DuckDBPyConnection, campaigns: Sequence[str] | None = None
) -> list[DataFile]:
    content = ", sha256, mtime_ns" if _has_checksums(con) else ""
    query = ("SELECT path, batch_id, campaign, hardware_type, row_count, file_version, bytes"
             f"{content} FROM data_files")
    params: list[object] = []
    if campaigns is not None:
        query += " WHERE list_contains(?, campaign)"
        params.append(list(campaigns))
    rows = con.execute(query + " ORDER BY path", params).fetchall()
    return [DataFile(*row) for row in rows]


def _has_checksums(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether ``data_files`` has the content columns (a catalog last written by an
    older release has not: a reader does not migrate, the next writer does)."""
    return bool(fetch_value(con, "SELECT count(*) FROM duckdb_columns() WHERE table_name = "
                                 "'data_files' AND column_name = 'sha256'"))
