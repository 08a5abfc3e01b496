"""Report building against reading its input, in the same run, on an existing warehouse.

    .venv/bin/python benchmarks/bench_reports.py --warehouse DIR [--repeat 5]

For each report, ``--repeat`` times: the time to build the page from the warehouse
(queries, in-process statistics, charts; no HTML writing) and, as the baseline, one
scan of every measurement of the warehouse (``SELECT count(*), sum(value) FROM
measurements``). Then the time to render and write each page (HTML only; the
vl-convert JavaScript bundle is made once per process, and its first making is
timed separately), and the page size. Prints medians and ratios to the baseline.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from perfwarehouse.reports import REPORTS, Request
from perfwarehouse.reports.render import javascript_bundle, write_report
from perfwarehouse.warehouse.store import Warehouse, fetch_one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warehouse = Warehouse(args.warehouse)

    start = time.perf_counter()
    javascript_bundle()
    print(f"vl-convert JavaScript bundle, first call: {time.perf_counter() - start:.2f} s")

    def scan() -> float:
        t = time.perf_counter()
        with warehouse.catalog() as con:
            fetch_one(con, "SELECT count(*), sum(value) FROM measurements")
        return time.perf_counter() - t

    with warehouse.catalog() as con:
        rows = fetch_one(con, "SELECT count(*) FROM measurements")[0]
    print(f"warehouse {warehouse.root}: {rows:,} measurements")
    baseline = statistics.median(scan() for _ in range(args.repeat))
    print(f"baseline scan of every measurement: median {baseline:.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        for report in REPORTS:
            builds, writes = [], []
            for _ in range(args.repeat):
                t = time.perf_counter()
                page = report.page(warehouse, Request())
                builds.append(time.perf_counter() - t)
                t = time.perf_counter()
                out = write_report(page, Path(tmp) / f"{report.name}.html")
                writes.append(time.perf_counter() - t)
            build, write = statistics.median(builds), statistics.median(writes)
            print(f"{report.name:14s} build median {build:6.2f} s ({build / baseline:5.1f} x scan)"
                  f"  write median {write:5.2f} s  page {out.stat().st_size / 1e6:5.2f} MB  "
                  f"{len(page.figures())} charts")


if __name__ == "__main__":
    main()
