"""The warehouse directory: a DuckDB catalog plus Parquet measurement files.

:class:`Warehouse` opens it: readers get a read-only catalog connection with the views
(:meth:`Warehouse.catalog`) or a :class:`~perfwarehouse.warehouse.pieces.Snapshot` to
cut into pieces; writers take the write lock (:meth:`Warehouse.writing`) and keep the
catalog open read-write only while they commit, so queries are blocked for the commit,
not for the whole ingest or job. The directory's files, staging, publishing and
recovery are :mod:`perfwarehouse.warehouse.layout`'s; the views
:mod:`~perfwarehouse.warehouse.views`'; the schema version
:mod:`~perfwarehouse.warehouse.migrate`'.

This module is the only place that calls ``duckdb.connect`` on the catalog.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow as pa

from perfwarehouse.errors import WarehouseError
from perfwarehouse.faults import checkpoint
from perfwarehouse.warehouse import layout, sqlfiles, views
from perfwarehouse.warehouse.connection import (  # noqa: F401 (imported from here elsewhere)
    configure,
    fetch_arrow,
    fetch_one,
    fetch_value,
    is_lock_error,
    memory_connection,
    transaction,
)
from perfwarehouse.warehouse.layout import (  # noqa: F401 (imported from here elsewhere)
    CATALOG,
    DATA,
    EMPTY_FILE,
    RETIRE,
    STAGING,
    DataFile,
)
from perfwarehouse.warehouse.lock import retry_while_locked, write_lock
from perfwarehouse.warehouse.migrate import SCHEMA_VERSION, check_version, migrate  # noqa: F401
from perfwarehouse.warehouse.pieces import Snapshot
from perfwarehouse.warehouse.views import HISTORY, OPENED, result_tables  # noqa: F401

_data_files = layout.listed_files  # the catalog's list of data files (used as such elsewhere)
_ATTACHED = itertools.count()  # the names of the catalogs attached to the in-memory database


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
            f"{what} {self.catalog_path}", self.lock_timeout_s, is_lock_error, self.on_wait,
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
            check_version(con, self.root)
            layout.recover_read_only(self.root, con)
            if views:
                files = layout.listed_files(con)
                try:
                    self.create_views(con, files, temporary=True)
                except (duckdb.Error, UnicodeDecodeError) as exc:
                    raise _damaged(exc, self.root, files) from None
            yield con
        finally:
            con.close()

    def data_files(self, campaigns: Sequence[str] | None = None) -> list[DataFile]:
        """The current data files (optionally of some campaigns), read from the catalog
        (without its views: creating them would read every file's footer; a reader of the
        files verifies them, :meth:`reader`)."""
        with self._attached() as con:
            return layout.listed_files(con, campaigns)

    @contextmanager
    def _attached(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A short read of the catalog without views: the catalog attached read-only (and
        in use) to a connection of this process's in-memory database, which its readers
        use too (:func:`memory_connection`), so a command that lists files then reads
        them starts one DuckDB instance, not two (15-20 ms of CPU each); detached on exit,
        so the reading that follows holds no lock on the catalog."""
        self.require()
        name = f"catalog_{os.getpid()}_{next(_ATTACHED)}"  # the name is the instance's
        path = sqlfiles.quote_literal(str(self.catalog_path))
        con = memory_connection()
        try:
            retry_while_locked(lambda: con.execute(f"ATTACH {path} AS {name} (READ_ONLY)"),
                               f"reading {self.catalog_path}", self.lock_timeout_s,
                               is_lock_error, self.on_wait)
            try:
                con.execute(f"USE {name}")
                check_version(con, self.root)
                layout.recover_read_only(self.root, con)
                yield con
            finally:
                con.execute("USE memory")
                con.execute(f"DETACH {name}")
        finally:
            con.close()

    def snapshot(self, campaigns: Sequence[str] | None = None) -> Snapshot:
        """What a job reads, taken in one short read of the catalog (without its views,
        which would read every file's footer: the job's readers verify its files)."""
        with self._attached() as con:
            return Snapshot(layout.listed_files(con, campaigns),
                            fetch_arrow(con, "SELECT * FROM configurations"))

    def reader(self, files: Sequence[DataFile],
               configurations: pa.Table | None = None) -> duckdb.DuckDBPyConnection:
        """An in-memory reader whose ``measurements`` view reads ``files``
        (:func:`perfwarehouse.warehouse.views.reader`)."""
        return views.reader(self.root, files, configurations)

    def measurements_sql(
        self, files: Sequence[DataFile], config_slice: tuple[int, int] | None = None, *,
        verify: bool = True,
    ) -> str:
        """:func:`perfwarehouse.warehouse.views.measurements_sql` of this warehouse."""
        return views.measurements_sql(self.root, files, config_slice, verify=verify)

    def create_views(
        self, con: duckdb.DuckDBPyConnection, files: Sequence[DataFile], *, temporary: bool
    ) -> None:
        """:func:`perfwarehouse.warehouse.views.create_views` of this warehouse."""
        views.create_views(self.root, con, files, temporary=temporary)

    # ---------------------------------------------------------------- writing
    @contextmanager
    def writing(self, purpose: str) -> Iterator[WriteSession]:
        """Hold the write lock; create, migrate and recover the warehouse first."""
        self.root.mkdir(parents=True, exist_ok=True)
        with write_lock(self.root, purpose, self.lock_timeout_s, self.on_wait):
            # readers need the empty schema file as soon as the catalog exists
            layout.ensure_empty_file(self.root)
            if not self.exists():
                self._create_catalog()
            session = WriteSession(self)
            with session.catalog() as con:
                if migrate(con):
                    session.refresh_views(con)
                check_version(con, self.root)
                if layout.recover(self.root, con):
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
            migrate(con)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        checkpoint("catalog-built")
        os.replace(tmp, self.catalog_path)
        checkpoint("catalog-created")

    # ------------------------------------------------- staging and publishing
    def batch_staging(self, batch_id: int) -> Path:
        """Where batch ``batch_id`` writes its files before they are published."""
        return layout.batch_staging(self.root, batch_id)

    def publish(self, batch_id: int, paths: Sequence[str]) -> None:
        """Rename a committed batch's staged files into ``measurements/``
        (:func:`~perfwarehouse.warehouse.layout.publish_staged`)."""
        layout.publish_staged(self.root, self.batch_staging(batch_id), paths)

    def publish_staged(self, staging: Path, paths: Sequence[str]) -> None:
        """:func:`perfwarehouse.warehouse.layout.publish_staged` in this warehouse."""
        layout.publish_staged(self.root, staging, paths)

    def move_out(self, paths: Sequence[str], retire: Path) -> None:
        """:func:`perfwarehouse.warehouse.layout.move_out` in this warehouse."""
        layout.move_out(self.root, paths, retire)

    def move_back(self, retire: Path) -> None:
        """:func:`perfwarehouse.warehouse.layout.move_back` in this warehouse."""
        layout.move_back(self.root, retire)


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
        self.warehouse.create_views(con, layout.listed_files(con), temporary=False)

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


def _damaged(exc: Exception, root: Path, files: Sequence[DataFile]) -> Exception:
    """A damaged data file as a one-line :class:`WarehouseError`, any other error as it
    is. DuckDB does not always name the file (a damaged footer: ``TProtocolException:
    Invalid data``; a file of other columns: ``Binder Error``): then the files are
    examined (:func:`diagnose`) to name it."""
    from perfwarehouse.warehouse.damage import damage_message, diagnose

    message = damage_message(exc, root) or diagnose(root, files)
    return WarehouseError(message) if message else exc
