"""Ingest commands: read inputs (the edge), parse (pure), land (atomic).

Each call is one batch: every input of the call lands together or not at all.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import duckdb

from perfwarehouse.errors import UsageError
from perfwarehouse.ingest import stage
from perfwarehouse.ingest.formats import jsonl, ordersage
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.hardware import load_rules
from perfwarehouse.ingest.importing import ingest_import, stage_inputs  # noqa: F401  (callers)
from perfwarehouse.ingest.inputs import (  # noqa: F401  (the names callers import from here)
    GZIP_MAGIC,
    PREAMBLE_LINES,
    ImportFile,
    Skipped,
    asv_trees,
    claims,
    collect_inputs,
    detect_format,
    read_head,
    read_input,
    without_preamble,
)
from perfwarehouse.progress import Reporter, SilentReporter, Task
from perfwarehouse.warehouse.store import Warehouse


def ingest_ordersage(
    warehouse: Warehouse, directories: Sequence[Path], *, campaign: str | None = None,
    hardware_type: str | None = None, hardware_map: Path | None = None,
    quarantine: bool = False, reporter: Reporter | None = None,
) -> stage.IngestSummary:
    """Ingest OrderSage results directories; the campaign defaults to each directory's name."""
    reporter = reporter or SilentReporter()
    rules = load_rules(hardware_map, hardware_type)
    batch = stage.Batch(", ".join(str(d) for d in directories), "ordersage")
    try:
        with reporter.task("reading OrderSage results", total=len(directories), unit="dirs") as task:
            for directory in directories:
                directory = Path(directory)
                if not directory.is_dir():
                    raise UsageError(f"{directory} is not a directory")
                chosen = ordersage.classify([p.name for p in directory.iterdir()]).all()
                files = {name: (directory / name).read_bytes() for name in chosen}
                for name in sorted(files):
                    batch.hash_bytes(name, files[name])
                # options change the result, so they are part of the batch's content
                batch.hash_bytes("options", repr((campaign or directory.name, rules)).encode())
                table, problems = ordersage.parse_directory(
                    files, directory=str(directory), campaign=campaign or directory.name,
                    rules=rules)
                batch.add_arrow(table)
                batch.add_problems(problems)
                task.advance()
        return _land(warehouse, batch, quarantine, reporter)
    finally:
        batch.close()


def ingest_jsonl(
    warehouse: Warehouse, files: Sequence[Path], *, quarantine: bool = False,
    reporter: Reporter | None = None,
) -> stage.IngestSummary:
    """Ingest native trial logs (JSON Lines)."""
    reporter = reporter or SilentReporter()
    paths = [Path(f) for f in files]
    for path in paths:
        if not path.is_file():
            raise UsageError(f"{path} is not a file")
    batch = stage.Batch(", ".join(str(p) for p in paths), "jsonl")
    try:
        total_mb = sum(p.stat().st_size for p in paths) / 1e6
        with reporter.task("parsing", total=total_mb, unit="MB") as task:
            offset = 0.0
            for path in paths:
                _read_jsonl(batch, path, task, offset)
                offset += path.stat().st_size / 1e6
        return _land(warehouse, batch, quarantine, reporter)
    finally:
        batch.close()


def _read_jsonl(batch: stage.Batch, path: Path, task: Task, offset_mb: float) -> None:
    """DuckDB's reader first, the line-by-line reference parser if DuckDB cannot parse."""
    source = str(path)
    # hashing and counting lines ride on the fast reader's own pass over the bytes, beside
    # DuckDB's parse (hashlib releases the GIL): one read of the file instead of two
    digest = batch.file_digest(path)
    # DuckDB tracks a query's progress only with its progress bar on (printing off):
    # without it query_progress() is -1 and the bar sat at 0 % for the whole read
    batch.con.execute("SET enable_progress_bar = true")
    batch.con.execute("SET enable_progress_bar_print = false")
    done = threading.Event()
    watcher = threading.Thread(target=_watch_progress,
                               args=(batch.con, path.stat().st_size / 1e6, task, offset_mb, done))
    watcher.start()
    try:
        n = jsonl.read_fast(batch.con, path, source, on_chunk=digest.update)
    finally:
        done.set()
        watcher.join()
    if n is None:
        table, problems = jsonl.parse(path.read_bytes(), source)
        batch.add_arrow(table)
        batch.add_problems(problems)
    elif n != digest.lines:
        jsonl.fix_line_numbers(batch.con, path, source)


def _watch_progress(con: duckdb.DuckDBPyConnection, size_mb: float, task: Task,
                    offset_mb: float, done: threading.Event) -> None:
    """Move the bar along with DuckDB's own progress estimate of the running read (the
    largest yet: the read runs as more than one query, each estimated from 0)."""
    best = 0.0
    while not done.wait(0.25):
        try:
            percent = con.query_progress()
        except duckdb.Error:
            return
        if percent and percent > best:
            best = min(percent, 100.0)
            task.update(completed=offset_mb + size_mb * best / 100)
    task.update(completed=offset_mb + size_mb)


def _land(warehouse: Warehouse, batch: stage.Batch, quarantine: bool,
          reporter: Reporter) -> stage.IngestSummary:
    return stage.land(warehouse, batch, quarantine=quarantine, reporter=reporter)


def ingest_table(
    warehouse: Warehouse, file: Path, mapping: Path | None, *, quarantine: bool = False,
    reporter: Reporter | None = None, keys: dict[str, str] | None = None,
) -> stage.IngestSummary:
    """Ingest a CSV or Parquet table through a TOML mapping (``ingest/mappings/``);
    ``keys`` (campaign, node, hardware_type, revision, revision_time: the command line's,
    as :class:`ImportOptions`) as ``ingest table`` takes them. Several files, directories
    and the other options: :func:`perfwarehouse.ingest.formats.table_ingest.ingest_tables`."""
    from perfwarehouse.ingest.formats.table_ingest import ingest_tables

    keys = keys or {}
    options = ImportOptions(**{name: keys.get(name) for name in  # type: ignore[arg-type]
                               ("campaign", "node", "hardware_type", "revision", "revision_time")})
    _files, summary = ingest_tables(warehouse, [Path(file)], mapping, options,
                                    quarantine=quarantine, reporter=reporter)
    assert isinstance(summary, stage.IngestSummary)  # not a dry run
    return summary


