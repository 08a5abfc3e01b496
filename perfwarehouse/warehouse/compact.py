"""Compaction: rewrite a partition's many small Parquet files into few large, clustered ones.

Every ingest batch (and every pull chunk) adds a file per partition; a warehouse
fed hourly holds thousands, and every query pays for opening them. ``compact``
rewrites the small files of each (campaign, hardware type) into files of up to
:attr:`Policy.max_file_rows` rows, sorted by configuration, start time, run and
iteration (:data:`SORT_KEY`: the jobs that read series then sort nothing), in row
groups of about 120,000 rows (min/max statistics on ``config_id`` let a reader of a
configuration range skip the other groups).

Atomic and crash-safe as ingest is. Under the write lock:

1. expired retired files (below) are deleted: first the files are unlinked, then
   their rows leave ``retired_files`` in one transaction (a kill in between leaves
   rows naming files that are gone, which the next purge drops): at every moment
   each file of ``measurements/`` is listed by ``data_files`` or ``retired_files``;
2. the new files are written into ``_staging/compact-TOKEN/`` (outside
   ``measurements/``, laid out as it is) and checked (row count); a killed
   compaction leaves them there, unknown to the catalog: the next writer removes
   them (:meth:`Warehouse._recover`);
3. **one** catalog transaction swaps the files: the old ones leave ``data_files``
   and enter ``retired_files``, the new ones enter ``data_files``. A reader of the
   catalog sees the old set or the new set, never both, never neither;
4. only then are the new files renamed into ``measurements/``
   (:meth:`Warehouse.publish_staged`), as ingest publishes a batch: an engine reading
   ``measurements/`` directly never sees a compacted file before the commit that
   lists it. A compaction killed between its commit and the renames is finished by
   the next open of the warehouse, read-only or not (:meth:`Warehouse._recover`).
   The persistent views are refreshed after the renames.

Readers are never blocked (the catalog is open read-write only for the swap) and a
job that took its snapshot before the swap finishes on the old files: they stay on
disk for a grace period (:attr:`Policy.grace_s`, one hour by default; recovery
keeps them) and are deleted by the first compaction after it. A reader that reads
one snapshot for longer than the grace period may find its files gone and must be
rerun. During the grace period the retired files are still in ``measurements/``
(with the new files holding the same rows): an engine reading that directory on its
own must skip the paths of ``retired_files`` (docs/concepts.md).

With a grace period of 0 (``compact --grace 0``) nothing is kept for readers: the
old files are moved out of ``measurements/`` into ``_staging/retire-TOKEN/`` before
the swap, and the swap drops them from ``data_files`` without retiring them; after
the commit the new files are published and the moved ones deleted. An engine
reading ``measurements/`` directly then lags (the partition's old files are gone,
the new not yet renamed) but never leads, and after the next open (which finishes
or undoes the compaction, :meth:`Warehouse._recover`) it counts what the catalog
lists, at every kill point. A job reading during such a compaction may fail and
must be rerun. Compaction is idempotent: a compacted partition plans nothing.
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa

from perfwarehouse.errors import WarehouseError
from perfwarehouse.faults import checkpoint
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.compact_plan import (
    SORT_KEY,
    Policy,
    auto_compact_wanted,
    config_ranges,
    expired,
    files_to_rewrite,
)
from perfwarehouse.warehouse.lookup import require_known
from perfwarehouse.warehouse.store import (
    DATA,
    DataFile,
    Warehouse,
    WriteSession,
    _data_files,
    configure,
    fetch_value,
    transaction,
)

MEMORY_LIMIT = "2GB"


@dataclass(frozen=True)
class PartitionCompaction:
    """What compaction did to one partition."""

    campaign: str
    hardware_type: str
    files_before: int
    files_after: int
    rows: int


@dataclass(frozen=True)
class CompactSummary:
    partitions: tuple[PartitionCompaction, ...]
    files_deleted: int  # retired files whose grace period was over
    seconds: float


def compact(warehouse: Warehouse, campaign: str | None = None,
            hardware_type: str | None = None, policy: Policy | None = None) -> CompactSummary:
    """Compact every partition (or those of ``campaign`` / ``hardware_type``)."""
    policy = policy or Policy()
    started = time.monotonic()
    warehouse.require()
    what = " ".join(x for x in (campaign, hardware_type) if x) or "all"
    with warehouse.writing(f"perfwarehouse compact {what}") as session:
        deleted = delete_expired(session, policy.grace_s)
        files = _current_files(warehouse)
        # an unknown name: one line with the known ones and the closest match
        require_known("campaign", campaign, sorted({f.campaign for f in files}))
        require_known("hardware type", hardware_type,
                      sorted({f.hardware_type for f in files
                              if campaign is None or f.campaign == campaign}))
        parts = [part for (c, h), part in sorted(_partitions(files).items())
                 if campaign in (None, c) and hardware_type in (None, h)]
        done = compact_partitions(session, parts, policy)
    return CompactSummary(tuple(done), deleted, time.monotonic() - started)


def auto_compact(session: WriteSession, partitions: Sequence[tuple[str, str]],
                 policy: Policy | None = None) -> list[PartitionCompaction]:
    """Compact the given partitions where :func:`auto_compact_wanted` says it is cheap
    (called by ingest after a batch landed, under the same write lock).

    The batch has landed by then, so a failure here (a full disk) must not say the
    ingest failed: it is reported as a warning and the partition stays as it was
    (the swap is atomic; the next writer cleans up).
    """
    import warnings

    import duckdb

    try:
        return _auto_compact(session, partitions, policy or Policy())
    except (OSError, duckdb.Error, WarehouseError) as exc:  # WarehouseError: a damaged file
        warnings.warn(f"automatic compaction skipped: {exc}", stacklevel=2)
        return []


def _auto_compact(session: WriteSession, partitions: Sequence[tuple[str, str]],
                  policy: Policy) -> list[PartitionCompaction]:
    by_partition = _partitions(_current_files(session.warehouse))
    wanted = [by_partition[key] for key in sorted(set(partitions))
              if key in by_partition and auto_compact_wanted(by_partition[key], policy)]
    return compact_partitions(session, wanted, policy)


def compact_partitions(session: WriteSession, partitions: Sequence[Sequence[DataFile]],
                       policy: Policy) -> list[PartitionCompaction]:
    """Rewrite the small files of each partition, then swap them all in one transaction
    (with ``policy.grace_s == 0`` the replaced files are deleted at once, not retired)."""
    old: list[str] = []
    new: list[dict[str, object]] = []
    done = []
    staging_dirs: list[Path] = []
    staged_records: list[list[dict[str, object]]] = []
    for files in partitions:
        todo = files_to_rewrite(files, policy)
        if not todo:
            continue
        staging, records = _rewrite(session.warehouse, todo, policy)
        staging_dirs.append(staging)
        staged_records.append(records)
        old += [f.path for f in todo]
        new += records
        done.append(PartitionCompaction(todo[0].campaign, todo[0].hardware_type, len(files),
                                        len(files) - len(todo) + len(records),
                                        sum(f.row_count for f in todo)))
    if not done:
        return []
    warehouse = session.warehouse
    at_once = policy.grace_s <= 0
    retire = warehouse.staging_path / f"retire-{uuid.uuid4().hex[:8]}" if at_once else None
    try:
        if retire is not None:  # out of measurements/ before the swap: lag, never lead
            warehouse.move_out(old, retire)
        checkpoint("compact-moved")  # (staged: the name is kept for the kill tests)
        _swap(session, old, new, retire=retire is None)
    except BaseException:
        if not _is_committed(warehouse, new):
            if retire is not None:
                warehouse.move_back(retire)
            for staging in staging_dirs:  # nobody will publish them
                shutil.rmtree(staging, ignore_errors=True)
        raise
    # committed: only now do the new files appear in measurements/
    for staging, records in zip(staging_dirs, staged_records):
        warehouse.publish_staged(staging, [str(r["path"]) for r in records])
    checkpoint("compact-after-publish")
    if retire is not None:
        shutil.rmtree(retire, ignore_errors=True)
    with session.catalog() as cat:
        session.refresh_views_after_commit(cat)  # they bind to files: after publishing
    return done


def _is_committed(warehouse: Warehouse, new: list[dict[str, object]]) -> bool:
    """Whether the catalog lists the new files (asked after a failure of the swap)."""
    try:
        with warehouse.catalog() as cat:
            return bool(fetch_value(cat, "SELECT count(*) FROM data_files WHERE path = ?",
                                    [str(new[0]["path"])]))
    except Exception:  # cannot tell: keep the files (the next writer decides)
        return True


def _rewrite(warehouse: Warehouse, todo: Sequence[DataFile],
             policy: Policy) -> tuple[Path, list[dict[str, object]]]:
    """Write the clustered files of one partition into a staging directory (outside
    ``measurements/``: invisible until published after the swap). Returns the staging
    dir and the records (with the paths the files will have once published)."""
    import duckdb

    from perfwarehouse.warehouse.integrity import content_record, damaged_line
    from perfwarehouse.warehouse.verify import file_problem

    for f in todo:  # never carry a damaged file's content into a new checksum
        problem = file_problem(warehouse.root / f.path, f)
        if problem is not None:
            raise WarehouseError(damaged_line(f.path, f"damaged ({problem}); compaction "
                                                     "refused"))
    campaign, hardware_type = todo[0].campaign, todo[0].hardware_type
    rows = sum(f.row_count for f in todo)
    token = uuid.uuid4().hex[:8]
    stem = f"c{max(f.batch_id for f in todo):06d}-{token}"
    staging = warehouse.staging_path / f"compact-{token}"
    staging.mkdir(parents=True, exist_ok=True)
    partition_dir = Path(todo[0].path).parent  # relative, hive-encoded as ingest wrote it
    sources = "[" + ", ".join(sqlfiles.quote_literal(str(warehouse.root / f.path))
                              for f in todo) + "]"
    scan = f"read_parquet({sources}, hive_partitioning = false)"
    con = duckdb.connect()
    written: list[tuple[Path, dict[str, Any]]] = []  # row_count: an int
    try:
        configure(con)
        con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        spill = sqlfiles.quote_literal(str(staging / "spill"))
        con.execute(f"SET temp_directory = {spill}")  # sorting more than fits spills here
        counts = con.execute(f"SELECT config_id, count(*) FROM {scan} GROUP BY 1 ORDER BY 1"
                             ).fetchall()
        checkpoint("compact-planned")
        for k, (lo, hi) in enumerate(config_ranges(counts, policy.max_file_rows)):
            name = f"{stem}-{k}.parquet"
            path = staging / partition_dir.relative_to(DATA) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            con.execute(
                f"COPY (SELECT * FROM {scan} WHERE config_id BETWEEN {int(lo)} AND {int(hi)} "
                f"ORDER BY {', '.join(SORT_KEY)}) TO {sqlfiles.quote_literal(str(path))} "
                f"(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE {int(policy.row_group_rows)})")
            n = con.execute(f"SELECT count(*) FROM read_parquet({sqlfiles.quote_literal(str(path))})"
                            ).fetchall()[0][0]
            content = content_record(path)  # size, checksum, value bounds (integrity.py)
            written.append((path, {
                "path": str(partition_dir / name), "batch_id": max(f.batch_id for f in todo),
                "campaign": campaign, "hardware_type": hardware_type, **content,
                "row_count": int(n)}))
    finally:
        con.close()
    if sum(int(r["row_count"]) for _, r in written) != rows:  # pragma: no cover (a DuckDB bug)
        shutil.rmtree(staging)
        raise RuntimeError(f"compaction of {campaign}/{hardware_type} lost rows; nothing changed")
    checkpoint("compact-written")
    return staging, [r for _, r in written]


def _swap(session: WriteSession, old: list[str], new: list[dict[str, object]], *,
          retire: bool = True) -> None:
    """The old files leave data_files (for retired_files unless ``retire`` is false:
    deleted at once), the new enter: one transaction."""
    now = datetime.now(timezone.utc)
    with session.catalog() as cat:
        cat.register("_new_files", pa.Table.from_pylist(new))
        cat.register("_old_files", pa.table({"path": pa.array(old, pa.string())}))
        with transaction(cat):
            cat.execute("DELETE FROM data_files WHERE path IN (SELECT path FROM _old_files)")
            cat.execute("INSERT INTO data_files BY NAME SELECT * FROM _new_files")
            if retire:
                cat.execute("INSERT INTO retired_files SELECT path, ?::TIMESTAMPTZ "
                            "FROM _old_files ON CONFLICT DO NOTHING", [now])
            checkpoint("compact-before-commit")
        checkpoint("compact-after-commit")


def delete_expired(session: WriteSession, grace_s: float) -> int:
    """Delete the retired files whose grace period is over; how many.

    The files first, then their rows: a kill in between leaves rows naming files that
    are gone (harmless: the next purge drops them), never a file that no table lists.
    """
    with session.catalog() as cat:
        retired = cat.execute("SELECT path, retired_at FROM retired_files").fetchall()
    gone = expired(retired, datetime.now(timezone.utc), grace_s)
    if not gone:
        return 0
    for number, path in enumerate(gone):
        (session.warehouse.root / path).unlink(missing_ok=True)
        if number == 0:
            checkpoint("compact-purge-one")
    checkpoint("compact-purge-unlinked")
    with session.catalog() as cat:
        cat.register("_gone", pa.table({"path": pa.array(gone, pa.string())}))
        cat.execute("DELETE FROM retired_files WHERE path IN (SELECT path FROM _gone)")
    checkpoint("compact-purge-committed")
    return len(gone)


def _current_files(warehouse: Warehouse) -> list[DataFile]:
    with warehouse.catalog(views=False) as con:
        return _data_files(con)


def _partitions(files: Sequence[DataFile]) -> dict[tuple[str, str], list[DataFile]]:
    out: dict[tuple[str, str], list[DataFile]] = {}
    for f in files:
        out.setdefault((f.campaign, f.hardware_type), []).append(f)
    return out
