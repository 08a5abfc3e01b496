"""Verify the data files the catalog lists: each exists, has the size recorded, a readable
Parquet footer and the row count recorded. ``perfwarehouse check`` prints the result;
commands that meet a damaged file turn DuckDB's error into one line naming it
(:func:`perfwarehouse.warehouse.damage.damage_message`).

A file is checked from its footer only (the last bytes: magic, metadata with the row
count): a warehouse of thousands of files is verified in about a second per thousand
files, without reading the values. Damage inside a column chunk whose footer is intact
is found by the query that reads it, which then names the file (:func:`perfwarehouse.warehouse.damage.damage_message`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from perfwarehouse.warehouse.store import DATA, DataFile, Warehouse, transaction

DAMAGED = "_damaged"  # where `check --forget-damaged` moves the files it drops


@dataclass(frozen=True, kw_only=True)
class ListedFile(DataFile):
    """A ``data_files`` row (:class:`~perfwarehouse.warehouse.store.DataFile`) with its
    recorded size and the batch it came from (``ingest_batches.source``)."""

    bytes: int
    source: str | None


@dataclass(frozen=True)
class Damage:
    """One listed file that is not as the catalog records it."""

    file: ListedFile
    problem: str  # "missing", "size 100 bytes, the catalog says 13,390", ...


@dataclass(frozen=True)
class CheckResult:
    files: int
    rows: int
    damaged: tuple[Damage, ...]


def listed_files(warehouse: Warehouse) -> list[ListedFile]:
    """Every ``data_files`` row, read without creating the views (which read the files)."""
    with warehouse.catalog(views=False) as con:
        rows = con.execute(
            "SELECT f.path, f.batch_id, f.campaign, f.hardware_type, f.row_count, "
            "f.file_version, f.bytes, b.source FROM data_files f "
            "LEFT JOIN ingest_batches b USING (batch_id) ORDER BY f.path").fetchall()
    return [ListedFile(*row[:6], bytes=row[6], source=row[7]) for row in rows]


def file_problem(path: Path, listed: ListedFile) -> str | None:
    """What is wrong with the file at ``path`` compared with its catalog row, or None."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if size != listed.bytes:
        return f"size {size:,} bytes, the catalog says {listed.bytes:,}"
    try:
        rows = pq.ParquetFile(path).metadata.num_rows
    except (OSError, pa.ArrowException) as exc:
        return f"footer unreadable ({str(exc).strip().splitlines()[0]})"
    if rows != listed.row_count:
        return f"{rows:,} rows, the catalog says {listed.row_count:,}"
    return None


def check(warehouse: Warehouse,
          progress: Callable[[int, int], None] | None = None) -> CheckResult:
    """Verify every listed file (:func:`file_problem`)."""
    files = listed_files(warehouse)
    damaged = []
    for number, f in enumerate(files):
        problem = file_problem(warehouse.root / f.path, f)
        if problem is not None:
            damaged.append(Damage(f, problem))
        if progress is not None:
            progress(number + 1, len(files))
    return CheckResult(len(files), sum(f.row_count for f in files), tuple(damaged))


def recovery_lines(result: CheckResult, root: Path) -> list[str]:
    """What ``perfwarehouse check`` prints: a verdict, then each damaged file with what
    is wrong and how to recover."""
    if not result.damaged:
        return [f"ok: {result.files:,} data files, {result.rows:,} measurements, "
                "every file present with its recorded size, footer and row count"]
    lost = sum(d.file.row_count for d in result.damaged)
    lines = [f"DAMAGED: {len(result.damaged):,} of {result.files:,} data files "
             f"({lost:,} of {result.rows:,} measurements)"]
    for d in result.damaged:
        f = d.file
        lines.append(f"  {f.path}: {d.problem}")
        lines.append(f"    {f.row_count:,} measurements of {f.campaign} / {f.hardware_type}, "
                     f"batch {f.batch_id}" + (f" from {f.source}" if f.source else ""))
    lines += [
        "to recover:",
        f"  1. copy each file back from a backup of {root} (same path), then run "
        "`perfwarehouse check` again;",
        "  2. without a backup: `perfwarehouse check --forget-damaged` drops the damaged "
        f"files from the catalog (their measurements are lost, the rest readable again; "
        f"the files are kept in {DAMAGED}/); re-ingest their sources into a new warehouse "
        "to get those measurements back.",
    ]
    return lines


def forget_damaged(warehouse: Warehouse) -> CheckResult:
    """Under the write lock: verify, then drop the damaged files from ``data_files`` in
    one transaction and move those still present to ``_damaged/`` (never read again,
    kept for inspection). Returns what was found (and dropped)."""
    import pyarrow as pa

    with warehouse.writing("perfwarehouse check --forget-damaged") as session:
        result = check(warehouse)
        if not result.damaged:
            return result
        paths = [d.file.path for d in result.damaged]
        with session.catalog() as cat:
            cat.register("_damaged", pa.table({"path": pa.array(paths, pa.string())}))
            with transaction(cat):
                cat.execute("DELETE FROM data_files WHERE path IN (SELECT path FROM _damaged)")
                session.refresh_views(cat)
        for rel in paths:
            source = warehouse.root / rel
            if source.exists():
                target = warehouse.root / DAMAGED / Path(rel).relative_to(DATA)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(source, target)
    return result

