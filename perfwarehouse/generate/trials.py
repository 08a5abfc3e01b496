"""Shared output of the generators: a columnar table of native trial records.

A generator returns a :class:`Generated` (records as an Arrow table in the
native trial-log columns, plus the ground truth); :func:`write_generated`
writes it as JSON Lines (or Parquet when the name ends in ``.parquet``) and the
truth next to it as ``FILE.truth.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from perfwarehouse.progress import Task
from perfwarehouse.warehouse.store import configure

# Column order of a native record (docs/ingest.md, "The trial log (JSON Lines)").
NATIVE_COLUMNS = (
    "v", "campaign", "run_id", "node", "hardware_type", "run_index", "order_kind", "seed",
    "position", "run_size", "benchmark", "settings", "metric", "unit", "higher_is_better",
    "values", "started_at", "duration_s", "status", "env",
)


@dataclass
class Generated:
    """Records of a synthetic campaign and what was planted in it."""

    records: pa.Table
    truth: dict[str, Any] = field(default_factory=dict)


def settings_json(settings: dict[str, Any]) -> str:
    """Canonical JSON text of a settings mapping (sorted keys, compact)."""
    return json.dumps(settings, sort_keys=True, separators=(",", ":"))


def values_column(flat: np.ndarray, per_trial: int | np.ndarray) -> pa.ListArray:
    """An Arrow ``list<double>`` column from a flat value array split in equal or given lengths."""
    flat = np.ascontiguousarray(flat, dtype=np.float64)
    if isinstance(per_trial, int | np.integer):
        n = len(flat) // int(per_trial)
        offsets = np.arange(n + 1, dtype=np.int32) * int(per_trial)
    else:
        offsets = np.zeros(len(per_trial) + 1, dtype=np.int32)
        np.cumsum(per_trial, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat))


def write_generated(generated: Generated, out: Path, task: Task | None = None) -> Path:
    """Write records to ``out`` (JSON Lines, or Parquet for ``*.parquet``) and the truth file;
    ``task`` (optional) follows the megabytes written, out of an estimate of the file's size.

    Returns the path of the truth file (``out`` + ``.truth.json``). One DuckDB ``COPY``
    with one thread writes the file: its JSON writer spent twice the CPU for no gain
    with two threads (measured at scale 0.3: 1.2 s against 2.0 s).
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    records = generated.records
    if out.suffix == ".parquet":
        select, options = "SELECT * EXCLUDE (env), env FROM records", "FORMAT parquet, COMPRESSION zstd"
    else:
        # JSON-typed columns are written as nested JSON, not as quoted strings.
        latency = ("CAST(latency AS VARCHAR)::JSON AS latency, "
                   if "latency" in records.column_names else "")
        select = ("SELECT * REPLACE (CAST(settings AS VARCHAR)::JSON AS settings, "
                  "CAST(env AS VARCHAR)::JSON AS env, " + latency +
                  "strftime(started_at, '%Y-%m-%dT%H:%M:%S.%fZ') AS started_at) FROM records")
        options = "FORMAT json"
    if task is None:
        _copy(records, select, tmp, options)
    else:
        _copy_watched(records, select, tmp, options, task)
    tmp.replace(out)
    truth_path = out.with_name(out.name + ".truth.json")
    truth_path.write_text(json.dumps(generated.truth, indent=1, sort_keys=False) + "\n")
    return truth_path


def _copy_watched(records: pa.Table, select: str, path: Path, options: str, task: Task) -> None:
    """:func:`_copy`, with ``task`` following the file's size (MB) every 0.2 s, out of the
    size estimated from the first 1,000 records (within 0.2 % on the long-term campaign)."""
    import threading

    sample = path.with_name(path.name + ".sample")
    _copy(records.slice(0, 1000), select, sample, options)
    estimate = (sample.stat().st_size / 1e6 * max(records.num_rows, 1)
                / max(min(records.num_rows, 1000), 1))
    sample.unlink()
    task.update(completed=0, total=estimate)
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.2):
            try:
                task.update(completed=min(path.stat().st_size / 1e6, estimate))
            except OSError:
                pass

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        _copy(records, select, path, options)
    finally:
        done.set()
        watcher.join()
    task.update(completed=estimate)


def _copy(records: pa.Table, select: str, path: Path, options: str) -> None:
    """``COPY (select) TO path (options)`` with ``records`` as the table ``records``, by a
    connection of its own with one thread."""
    con = duckdb.connect()
    try:
        configure(con)
        con.execute("SET threads = 1")
        con.register("records", records)
        con.execute(f"COPY ({select}) TO '{_sql_path(path)}' ({options})")
    finally:
        con.close()


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
