"""Verify the data files the catalog lists. ``perfwarehouse check`` prints the result;
commands that meet a damaged file say so in one line
(:func:`perfwarehouse.warehouse.integrity.damaged_for_reading` before they read,
:func:`perfwarehouse.warehouse.damage.damage_message` and
:func:`perfwarehouse.warehouse.damage.diagnose` when a read fails).

A full check reads every byte: each file exists, is a regular file of its recorded size,
has a readable Parquet footer with the recorded row count and the measurement columns,
and its bytes hash to the SHA-256 recorded when it landed (about 1.3 GB/s). ``--quick``
reads footers only (about a second per thousand files), so it cannot see damage inside
a column chunk or a file replaced by another of the same size and row count.

A file landed before checksums were recorded (a warehouse of an older release) is read
in full (every column decoded) by the first full check and, if readable, its checksum,
value bounds and time are recorded then (under the write lock): damage it took before
cannot be told from its content, and the report says how many files were adopted so.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from perfwarehouse.errors import WarehouseBusy, WarehouseError
from perfwarehouse.warehouse.connection import fetch_value, transaction
from perfwarehouse.warehouse.integrity import (
    CONTENT_COLUMNS,
    Adopted,
    damaged_line,
    sha256_of,
    stat_problem,
    value_bounds,
)
from perfwarehouse.warehouse.layout import DATA, DataFile

if TYPE_CHECKING:
    from perfwarehouse.warehouse.store import Warehouse

DAMAGED = "_damaged"  # where `check --forget-damaged` moves the files it drops
#: columns every measurement file has (a Parquet file of other columns is not one)
REQUIRED_COLUMNS = ("config_id", "run_id", "iteration", "value", "batch_id")


@dataclass(frozen=True, kw_only=True)
class ListedFile(DataFile):
    """A ``data_files`` row (:class:`~perfwarehouse.warehouse.store.DataFile`) with the
    batch it came from (``ingest_batches.source``) and its recorded value bounds."""

    source: str | None = None
    min_value: float | None = None
    max_value: float | None = None


@dataclass(frozen=True)
class Damage:
    """One listed file that is not as the catalog records it."""

    file: DataFile
    problem: str  # "missing", "size 100 bytes, the catalog says 13,390", ...
    moved_to: str | None = None  # where --forget-damaged moved it (relative to the root)


@dataclass(frozen=True)
class CheckResult:
    files: int
    rows: int
    damaged: tuple[Damage, ...]
    quick: bool = False
    unverified: int = 0  # files without a recorded checksum (landed by an older release)
    adopted: tuple[Adopted, ...] = ()  # checksums (or times) to record
    recorded: str | None = None  # what became of ``adopted``: None (nothing), or a sentence


def listed_files(warehouse: Warehouse) -> list[ListedFile]:
    """Every ``data_files`` row, read without creating the views (which read the files)."""
    with warehouse.catalog(views=False) as con:
        content = bool(fetch_value(con, "SELECT count(*) FROM duckdb_columns() WHERE "
                                        "table_name = 'data_files' AND column_name = 'sha256'"))
        extra = "f.sha256, f.mtime_ns, f.min_value, f.max_value" if content else \
            "NULL, NULL, NULL, NULL"
        rows = con.execute(
            "SELECT f.path, f.batch_id, f.campaign, f.hardware_type, f.row_count, "
            f"f.file_version, f.bytes, {extra}, b.source FROM data_files f "
            "LEFT JOIN ingest_batches b USING (batch_id) ORDER BY f.path").fetchall()
    return [ListedFile(*row[:9], min_value=row[9], max_value=row[10], source=row[11])
            for row in rows]


def _bounds(value: float | None) -> str:
    return "?" if value is None else f"{value:.6g}"


def _content_note(path: Path, listed: DataFile) -> str:
    """What differs in a file whose checksum does not match: its values' bounds (read
    in full) against the recorded ones, or that its columns cannot be decoded."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        values = pq.read_table(path, columns=["value"]).column("value")
        low, high = pc.min(values).as_py(), pc.max(values).as_py()
    except (OSError, pa.ArrowException, ValueError, KeyError) as exc:
        return f"its column data is unreadable ({str(exc).strip().splitlines()[0][:120]})"
    recorded = (getattr(listed, "min_value", None), getattr(listed, "max_value", None))
    said = f"values {_bounds(low)} to {_bounds(high)}"
    if recorded != (None, None):
        said += f", the catalog records {_bounds(recorded[0])} to {_bounds(recorded[1])}"
    return said


def file_problem(path: Path, listed: DataFile, *, quick: bool = False) -> str | None:
    """What is wrong with the file at ``path`` compared with its catalog row, or None.
    ``quick``: from ``stat`` and the footer only; else every byte is read too (hashed,
    or decoded when no checksum is recorded)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    problem, _st = stat_problem(path, listed.bytes)
    if problem is not None:
        return problem
    try:
        metadata = pq.ParquetFile(path).metadata
    except (OSError, pa.ArrowException, ValueError) as exc:  # ValueError: bad UTF-8 in it
        return f"footer unreadable ({str(exc).strip().splitlines()[0]})"
    if metadata.num_rows != listed.row_count:
        return f"{metadata.num_rows:,} rows, the catalog says {listed.row_count:,}"
    if quick:
        return None
    if listed.sha256 is not None:
        try:
            digest = sha256_of(path)
        except OSError as exc:
            return f"unreadable ({exc.strerror or exc})"
        if digest != listed.sha256:
            return ("content changed since it landed (checksum differs; "
                    f"{_content_note(path, listed)})")
        return None
    try:  # no checksum to compare: decode every column
        pq.read_table(path)
    except (OSError, pa.ArrowException, ValueError) as exc:
        return f"column data unreadable ({str(exc).strip().splitlines()[0][:160]})"
    return None


def column_problem(path: Path) -> str | None:
    """Whether the (readable) Parquet file at ``path`` lacks a column every measurement
    file has (:data:`REQUIRED_COLUMNS`): a Parquet file of another kind put in its place."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
    except (OSError, pa.ArrowException, ValueError) as exc:
        return f"footer unreadable ({str(exc).strip().splitlines()[0]})"
    missing = [c for c in REQUIRED_COLUMNS if c not in names]
    return f"not a measurement file (no column {', '.join(missing)})" if missing else None


def measurement_file_problem(path: Path, listed: DataFile, *, quick: bool = False) -> str | None:
    """:func:`file_problem`, then :func:`column_problem`: what ``check`` asks of a file."""
    return file_problem(path, listed, quick=quick) or column_problem(path)


def _adoption(path: Path, listed: DataFile) -> Adopted | None:
    """The checksum and time to record for an intact file that lacks them (landed by an
    older release) or whose time changed (a copied warehouse), else None."""
    import pyarrow.parquet as pq

    st = os.stat(path)
    if listed.sha256 is not None and listed.mtime_ns == st.st_mtime_ns:
        return None
    digest = listed.sha256 or sha256_of(path)
    low, high = value_bounds(pq.read_metadata(path))
    return Adopted(listed.path, st.st_size, digest, low, high, st.st_mtime_ns)


def examine(warehouse: Warehouse, files: Sequence[DataFile], *, quick: bool = False,
            progress: Callable[[int, int], None] | None = None) -> CheckResult:
    """Verify ``files`` (:func:`file_problem`); nothing is written."""
    damaged, adopted = [], []
    for number, f in enumerate(files):
        path = warehouse.root / f.path
        problem = measurement_file_problem(path, f, quick=quick)
        if problem is not None:
            damaged.append(Damage(f, problem))
        elif not quick:
            adoption = _adoption(path, f)
            if adoption is not None:
                adopted.append(adoption)
        if progress is not None:
            progress(number + 1, len(files))
    return CheckResult(len(files), sum(f.row_count for f in files), tuple(damaged), quick,
                       sum(f.sha256 is None for f in files), tuple(adopted))


def check(warehouse: Warehouse, progress: Callable[[int, int], None] | None = None, *,
          quick: bool = False) -> CheckResult:
    """Verify every listed file; a full check then records the checksums it computed
    (files landed before checksums existed) under the write lock, if it can get it."""
    result = examine(warehouse, listed_files(warehouse), quick=quick, progress=progress)
    if not result.adopted:
        return result
    try:
        with warehouse.writing("perfwarehouse check (recording checksums)") as session:
            with session.catalog() as cat, transaction(cat):
                record_adopted(cat, result.adopted)
    except (OSError, WarehouseBusy, WarehouseError) as exc:
        return replace(result, recorded=f"not recorded ({str(exc).splitlines()[0]})")
    return replace(result, recorded="recorded")


def record_adopted(cat: object, adopted: Sequence[Adopted]) -> None:
    """Write the checksums, bounds and times of ``adopted`` into ``data_files`` (inside
    the caller's transaction; a row whose size changed meanwhile is left as it is)."""
    import pyarrow as pa

    columns = [name for name, _ in CONTENT_COLUMNS]
    table = pa.table({"path": [a.path for a in adopted], "bytes": [a.bytes for a in adopted],
                      **{c: [getattr(a, c) for a in adopted] for c in columns}})
    cat.register("_adopted", table)  # type: ignore[attr-defined]
    cat.execute("UPDATE data_files f SET " + ", ".join(f"{c} = a.{c}" for c in columns)  # type: ignore[attr-defined]
                + " FROM _adopted a WHERE f.path = a.path AND f.bytes = a.bytes")
    cat.unregister("_adopted")  # type: ignore[attr-defined]


def first_damage(root: Path, files: Sequence[DataFile]) -> str | None:
    """One line naming the first damaged file of ``files`` (footers first, then
    checksums), or None: what a command says when a read failed without naming it."""
    for quick in (True, False):
        for f in files:
            if not quick and f.sha256 is None:
                continue
            problem = measurement_file_problem(root / f.path, f, quick=quick)
            if problem is not None:
                return damaged_line(f.path, problem if problem == "missing"
                                    else f"damaged ({problem})")
    return None


def recovery_lines(result: CheckResult, root: Path) -> list[str]:
    """What ``perfwarehouse check`` prints: a verdict, then each damaged file with what
    is wrong and how to recover."""
    lines = []
    if not result.damaged:
        what = ("present with its recorded size, footer and row count (quick: content not "
                "read; `perfwarehouse check` without --quick hashes every file)"
                if result.quick else
                "present with its recorded size, footer, row count and content checksum")
        lines.append(f"ok: {result.files:,} data files, {result.rows:,} measurements, "
                     f"every file {what}")
    else:
        lost = sum(d.file.row_count for d in result.damaged)
        lines.append(f"DAMAGED: {len(result.damaged):,} of {result.files:,} data files "
                     f"({lost:,} of {result.rows:,} measurements)")
        for d in result.damaged:
            f = d.file
            source = getattr(f, "source", None)
            lines.append(f"  {f.path}: {d.problem}")
            lines.append(f"    {f.row_count:,} measurements of {f.campaign} / "
                         f"{f.hardware_type}, batch {f.batch_id}"
                         + (f" from {source}" if source else ""))
    lines += _unverified_lines(result)
    if result.damaged:
        lines += [
            "to recover:",
            f"  1. copy each file back from a backup of {root} (same path), then run "
            "`perfwarehouse check` again;",
            "  2. without a backup: `perfwarehouse check --forget-damaged` drops the damaged "
            f"files from the catalog (their measurements are lost, the rest readable again; "
            f"the files are moved into {DAMAGED}/); re-ingest their sources into a new "
            "warehouse to get those measurements back.",
        ]
    return lines


def _unverified_lines(result: CheckResult) -> list[str]:
    """What the report says of files without a checksum (and of checksums recorded)."""
    new = [a for a in result.adopted if a.path]
    if result.quick or not new or result.recorded is None:
        if result.unverified and result.quick:
            return [f"note: {result.unverified:,} files have no recorded checksum (landed by "
                    "an older release); a full `perfwarehouse check` reads and records them"]
        return []
    if result.unverified:
        return [f"note: {result.unverified:,} files had no recorded checksum (landed by an "
                "older release): read in full and found readable; their checksums are "
                f"{result.recorded} now (damage they took before cannot be told)"]
    return [f"note: {len(new):,} files were rewritten or copied with new times but hold "
            f"their landed content; their times are {result.recorded} now"]


def _free_name(path: Path) -> Path:
    """``path``, or ``path-2``, ``path-3`` ... : the first name nothing holds."""
    candidate, n = path, 1
    while os.path.lexists(candidate):
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate


def move_aside(root: Path, rels: Sequence[str]) -> dict[str, str]:
    """Move the files ``rels`` (relative to the root, under ``measurements/``) into
    ``_damaged/`` (or ``_damaged-2/`` ... when that name is taken by something that is
    not a directory), each under a free name; {rel: where it went, relative to the root}.
    Missing files are skipped. On a failure the files moved so far are moved back."""
    folder = root / DAMAGED
    if os.path.lexists(folder) and not folder.is_dir():
        folder = _free_name(folder)
    moved: dict[str, str] = {}
    try:
        for rel in rels:
            source = root / rel
            if not os.path.lexists(source):
                continue
            target = _free_name(folder / Path(rel).relative_to(DATA))
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(source, target)
            moved[rel] = str(target.relative_to(root))
    except OSError:
        move_back(root, moved)
        raise
    return moved


def move_back(root: Path, moved: dict[str, str]) -> None:
    """Undo :func:`move_aside`."""
    for rel, where in moved.items():
        os.rename(root / where, root / rel)


def forget_damaged(warehouse: Warehouse, *, quick: bool = False) -> CheckResult:
    """Under the write lock: verify; move the damaged files still present out of
    ``measurements/`` (:func:`move_aside`: never read again, kept for inspection); then
    drop them from ``data_files`` in one transaction (with the checksums a full check
    computed). A failure of the move changes nothing; a failure of the transaction moves
    the files back. Returns what was found, with where each file went."""
    import pyarrow as pa

    with warehouse.writing("perfwarehouse check --forget-damaged") as session:
        result = examine(warehouse, listed_files(warehouse), quick=quick)
        if not result.damaged and not result.adopted:
            return result
        paths = [d.file.path for d in result.damaged]
        moved = move_aside(warehouse.root, paths)
        try:
            with session.catalog() as cat:
                cat.register("_forget", pa.table({"path": pa.array(paths, pa.string())}))
                with transaction(cat):
                    cat.execute("DELETE FROM data_files WHERE path IN (SELECT path FROM _forget)")
                    if result.adopted:
                        record_adopted(cat, result.adopted)
                    session.refresh_views(cat)
        except BaseException:
            move_back(warehouse.root, moved)
            raise
    damaged = tuple(replace(d, moved_to=moved.get(d.file.path)) for d in result.damaged)
    return replace(result, damaged=damaged, recorded="recorded" if result.adopted else None)

