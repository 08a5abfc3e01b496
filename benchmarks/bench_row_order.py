"""What the clustered layout saves the jobs that read series (``Job.row_order``).

On a copy of WAREHOUSE (the demo's, as ingested: rows in time order) and on a compacted
copy (rows by configuration, start time, run, iteration), prints medians over several
interleaved runs, in CPU seconds of this process (all threads) and wall seconds:

* reading the largest partition's series rows in the jobs' order: DuckDB's ``ORDER BY``
  in the query (the baseline: what the query did before) and the query without it
  followed by :func:`perfwarehouse.jobs.row_order.in_row_order`, each on the files as
  ingested (sorted there) and compacted (only checked);
* the recorded duration of each job that reads them (kpi, variability-score,
  independence, trends), as ingested and compacted.

Usage::

    python benchmarks/bench_row_order.py /tmp/me/warehouse [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from perfwarehouse.jobs import JOBS, run_job
from perfwarehouse.jobs.row_order import in_row_order
from perfwarehouse.jobs.series import TRIAL_VALUES_ORDER
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.compact import compact
from perfwarehouse.warehouse.store import DataFile, Warehouse, fetch_arrow

SERIES_JOBS = ("kpi", "variability-score", "independence", "trends")


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """(CPU s of this process, wall s) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu, time.perf_counter() - wall


def largest_partition(warehouse: Warehouse) -> tuple[str, str]:
    rows: dict[tuple[str, str], int] = {}
    for f in warehouse.data_files():
        rows[f.campaign, f.hardware_type] = rows.get((f.campaign, f.hardware_type), 0) + f.row_count
    return max(rows, key=lambda key: rows[key])


def read_series(warehouse: Warehouse, files: list[DataFile], key: tuple[str, str], *,
                sql_sort: bool) -> int:
    """The partition's series rows in the jobs' order, sorted by DuckDB or by row_order."""
    query = sqlfiles.load("queries/triscale_trial_values")
    if sql_sort:
        query += "ORDER BY " + ", ".join(TRIAL_VALUES_ORDER)
    con = warehouse.reader(files)
    try:
        rows = fetch_arrow(con, query, {"campaign": key[0], "hardware_type": key[1]})
    finally:
        con.close()
    return (rows if sql_sort else in_row_order(rows, TRIAL_VALUES_ORDER)).num_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warehouse", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-row-order-") as tmp:
        ingested = Warehouse(Path(tmp) / "ingested")
        shutil.copytree(args.warehouse, ingested.root)
        clustered = Warehouse(Path(tmp) / "compacted")
        shutil.copytree(args.warehouse, clustered.root)
        compact(clustered)
        key = largest_partition(ingested)
        files = {warehouse: [f for f in warehouse.data_files()
                             if (f.campaign, f.hardware_type) == key]
                 for warehouse in (ingested, clustered)}
        n = read_series(ingested, files[ingested], key, sql_sort=True)
        print(f"largest partition {key[0]} / {key[1]}: {n:,} rows; medians of {args.runs} runs, "
              "CPU s / wall s")
        cases: dict[str, Callable[[], object]] = {
            "read, DuckDB ORDER BY (baseline), as ingested":
                lambda: read_series(ingested, files[ingested], key, sql_sort=True),
            "read + row_order, as ingested (sorted here)":
                lambda: read_series(ingested, files[ingested], key, sql_sort=False),
            "read, DuckDB ORDER BY, compacted":
                lambda: read_series(clustered, files[clustered], key, sql_sort=True),
            "read + row_order, compacted (only checked)":
                lambda: read_series(clustered, files[clustered], key, sql_sort=False),
        }
        for job in JOBS:
            if job.name in SERIES_JOBS:
                for label, warehouse in (("as ingested", ingested), ("compacted", clustered)):
                    cases[f"job {job.name}, {label}"] = (
                        lambda job=job, warehouse=warehouse: run_job(warehouse, job, job.params(),
                                                                     write=False))
        for work in cases.values():  # warm: numba's cache, the files in the page cache
            work()
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.runs):  # interleaved: a disturbance hits every case alike
            for name, work in cases.items():
                samples[name].append(timed(work))
        medians = {name: (statistics.median(c for c, _ in s), statistics.median(w for _, w in s))
                   for name, s in samples.items()}
        for name, (cpu, wall) in medians.items():
            print(f"  {name:52s} {cpu:7.3f} {wall:7.3f}")
        base = medians["read, DuckDB ORDER BY (baseline), as ingested"]
        for name in ("read + row_order, as ingested (sorted here)",
                     "read + row_order, compacted (only checked)"):
            cpu, wall = medians[name]
            print(f"baseline / {name}: {base[0] / cpu:.2f}x CPU, {base[1] / wall:.2f}x wall")


if __name__ == "__main__":
    main()
