"""The files of a warehouse directory: where they live, the typed empty file behind the
views, and how a batch's files move from staging into place (and back, on recovery).

Layout::

    <root>/catalog.duckdb                     dimension, batch, job and result tables
    <root>/measurements/campaign=C/hardware_type=H/b000012-0.parquet
    <root>/_schema/...                        an empty file giving the view its types
    <root>/_staging/bNNNNNN/campaign=C/...     a batch's files before they are published
    <root>/.write.lock                        the single-writer lock (names its holder)

A batch's Parquet files are written under ``_staging/`` (outside ``measurements/``),
recorded in the catalog in one transaction, and only **then** renamed into
``measurements/`` (:func:`publish_staged`). So an engine reading ``measurements/``
directly never sees a file the catalog does not list. A writer killed between its
commit and the renames leaves a committed batch in ``_staging/``: every open of the
warehouse, read-only ones too, finishes it (:func:`finish_committed`). A batch that
never committed is removed, with any file of ``measurements/`` the catalog does not
list and empty partition directories, by whoever next holds the write lock (a writer,
or a reader that finds the lock free: :func:`undo_uncommitted`); a reader never removes
anything while a live writer holds the lock.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from perfwarehouse.errors import WarehouseBusy
from perfwarehouse.faults import checkpoint
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.connection import configure, fetch_value
from perfwarehouse.warehouse.lock import write_lock

CATALOG = "catalog.duckdb"
DATA = "measurements"
STAGING = "_staging"
RETIRE = "retire-"  # _staging/retire-TOKEN: files `compact --grace 0` moved out (move_out)
EMPTY_FILE = "_schema/campaign=_/hardware_type=_/empty.parquet"


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


def listed_files(
    con: duckdb.DuckDBPyConnection, campaigns: Sequence[str] | None = None
) -> list[DataFile]:
    """The data files the catalog (``con``) lists, of ``campaigns`` if given, by path."""
    content = ", sha256, mtime_ns" if has_checksums(con) else ""
    query = ("SELECT path, batch_id, campaign, hardware_type, row_count, file_version, bytes"
             f"{content} FROM data_files")
    params: list[object] = []
    if campaigns is not None:
        query += " WHERE list_contains(?, campaign)"
        params.append(list(campaigns))
    rows = con.execute(query + " ORDER BY path", params).fetchall()
    return [DataFile(*row) for row in rows]


def has_checksums(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether ``data_files`` has the content columns (a catalog last written by an
    older release has not: a reader does not migrate, the next writer does). Read from
    an empty result's column names: ``duckdb_columns()`` costs 10-100 ms on a fresh
    connection, more than the rest of a small ``perfwarehouse compare``."""
    description = con.execute("SELECT * FROM data_files LIMIT 0").description or []
    return any(column[0] == "sha256" for column in description)


# ------------------------------------------------------------ the empty file
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


def ensure_empty_file(root: Path) -> None:
    """Write the empty file when missing, or of the layout before schema version 2."""
    import pyarrow.parquet as pq

    path = root / EMPTY_FILE
    if not path.exists() or "attributes" not in pq.read_schema(path).names:
        write_empty_schema_file(path)


# ------------------------------------------------------ staging and publishing
def batch_staging(root: Path, batch_id: int) -> Path:
    """Where batch ``batch_id`` writes its files before they are published."""
    return root / STAGING / f"b{batch_id:06d}"


def publish_staged(root: Path, staging: Path, paths: Sequence[str]) -> None:
    """Rename the committed files ``paths`` (relative to the root, under
    ``measurements/``) from ``staging`` (which mirrors ``measurements/``) into place,
    then drop ``staging`` (idempotent: a concurrent finisher may have moved some
    already). Used by ingest (a batch) and compaction (its new files)."""
    for number, rel in enumerate(paths):
        target = root / rel
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


def move_out(root: Path, paths: Sequence[str], retire: Path) -> None:
    """Move the listed files ``paths`` (relative to the root, under ``measurements/``)
    into ``retire`` (``_staging/retire-TOKEN``, mirroring ``measurements/``), before
    a transaction that drops them from ``data_files`` (``compact --grace 0``). Until
    it commits they stay listed: recovery moves them back (:func:`move_back`); after
    it, they are unlisted and deleted (:func:`finish_committed`)."""
    for number, rel in enumerate(paths):
        target = retire / Path(rel).relative_to(DATA)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(root / rel, target)
        if number == 0:
            checkpoint("retired-one")


def move_back(root: Path, retire: Path) -> None:
    """Undo :func:`move_out` (the transaction did not commit): every file of
    ``retire`` back into ``measurements/``; then ``retire`` is removed. Under the
    write lock only (a live writer may be between its moves and its commit)."""
    for source in sorted(retire.rglob("*.parquet")) if retire.is_dir() else []:
        target = root / DATA / source.relative_to(retire)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)
    shutil.rmtree(retire, ignore_errors=True)


# --------------------------------------------------------------- recovery
def staged_dirs(root: Path) -> list[Path]:
    """The directories in ``_staging/``: a batch's (``bNNNNNN``) or a compaction's
    (``compact-TOKEN``) files, laid out as in ``measurements/``; others are leftovers."""
    staging = root / STAGING
    if not staging.is_dir():
        return []
    with os.scandir(staging) as entries:
        return sorted(Path(entry.path) for entry in entries)


def finish_committed(root: Path, con: duckdb.DuckDBPyConnection) -> list[Path]:
    """Publish the staged files the catalog lists (``data_files``: their batch or
    compaction committed); the staging dirs it does not list (not committed: left
    for :func:`undo_uncommitted`). A batch or compaction commits all its files in
    one transaction, so a staged dir is listed wholly or not at all.

    A ``retire-TOKEN`` dir holds files moved out by :func:`move_out`: unlisted, its
    compaction committed and they are deleted; listed (or none yet), it is left for
    :func:`undo_uncommitted`, which moves them back."""
    uncommitted = []
    for staging in staged_dirs(root):
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
            publish_staged(root, staging, listed)
        else:
            uncommitted.append(staging)
    return uncommitted


def undo_uncommitted(root: Path, con: duckdb.DuckDBPyConnection) -> None:
    """With the write lock held: remove uncommitted staging, files of ``measurements/``
    the catalog does not list (left by older versions) and empty directories."""
    for staging in staged_dirs(root):
        if staging.name.startswith(RETIRE):  # a compaction that did not commit
            move_back(root, staging)
    if (root / STAGING).exists():
        shutil.rmtree(root / STAGING)
    data = root / DATA
    if not data.exists():
        return
    known = {row[0] for row in con.execute(  # retired files: kept for readers (compact.py)
        "SELECT path FROM data_files UNION ALL SELECT path FROM retired_files").fetchall()}
    for dirpath, _dirs, names in os.walk(data, topdown=False):
        for name in names:
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            if rel not in known:
                os.remove(os.path.join(dirpath, name))
        if dirpath != str(data) and not os.listdir(dirpath):
            os.rmdir(dirpath)


def recover(root: Path, con: duckdb.DuckDBPyConnection) -> bool:
    """Under the write lock: finish committed batches, undo everything else; whether
    a committed batch was finished (its persistent views then need refreshing)."""
    staged = set(staged_dirs(root))
    finished = bool(staged - set(finish_committed(root, con)))
    undo_uncommitted(root, con)
    return finished


def recover_read_only(root: Path, con: duckdb.DuckDBPyConnection) -> None:
    """On a read-only open: finish committed batches (safe without the lock: the
    catalog holds them and renames are idempotent); undo uncommitted ones only if the
    write lock is free right now (else a live writer may be about to commit them)."""
    if not (root / STAGING).is_dir():
        return
    try:
        if not finish_committed(root, con):
            return
        with write_lock(root, "perfwarehouse recovery (read-only open)", 0):
            undo_uncommitted(root, con)
    except (OSError, WarehouseBusy):
        return  # read-only file system, or a writer is at work: it recovers itself
