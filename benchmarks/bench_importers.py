"""Importer speed: trials/s per format against json.load of the same file, in the same run.

    .venv/bin/python benchmarks/bench_importers.py [--values 1000000] [--repeat 5]

For every registered format with a generator in SCALERS, writes a large file (at
least ``--values`` values) under benchmarks/out/ by scaling up that format's fixture,
then, ``--repeat`` times and alternating:

* baseline: ``json.load`` of the file (reading and decoding, nothing else);
* parse: the format's pure ``parse`` (bytes in, records out);
* ingest: ``ingest_import`` into a new warehouse (parse, the per-record checks,
  validation, Parquet, catalog: everything).

Prints medians, trials/s and the ratios to the baseline. A format without a generator
is listed as skipped (its author adds one to SCALERS).
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "tests" / "fixtures" / "importers"


def scale_pyperf(n_values: int) -> bytes:
    """A suite of B benchmarks x 50 worker runs x 20 values (calibration runs kept)."""
    suite = json.loads((FIXTURES / "pyperf" / "good" / "suite.json").read_text())
    template = suite["benchmarks"][0]
    calibration = [r for r in template["runs"] if not r.get("values")]
    worker = next(r for r in template["runs"] if r.get("values"))
    runs_per, values_per = 50, 20
    n_bench = -(-n_values // (runs_per * values_per))
    start = datetime(2024, 5, 1, 10, 0, 0)
    benchmarks = []
    for b in range(n_bench):
        runs = copy.deepcopy(calibration)
        for r in range(runs_per):
            run = copy.deepcopy(worker)
            run["metadata"]["date"] = str(start + timedelta(seconds=r))
            run["values"] = [worker["values"][i % len(worker["values"])] * (1 + 1e-3 * i)
                             for i in range(values_per)]
            runs.append(run)
        benchmarks.append({"metadata": {**template["metadata"], "name": f"bench_{b:05d}"},
                           "runs": runs})
    suite["benchmarks"] = benchmarks
    return json.dumps(suite).encode()


def scale_gbench(n_values: int) -> bytes:
    """Repetitions of the fixture's rows under new names (aggregates kept, not ingested)."""
    doc = json.loads((FIXTURES / "gbench" / "good" / "repetitions.json").read_text())
    rows = doc["benchmarks"]
    per_copy = sum(sum(1 for k, v in r.items() if k in ("real_time", "cpu_time") or k.endswith(
        ("_per_second", "elements"))) for r in rows if r["run_type"] == "iteration")
    out = []
    for c in range(-(-n_values // per_copy)):
        for row in rows:
            row = dict(row)
            for key in ("name", "run_name"):
                if key in row:
                    row[key] = row[key].replace("BM_", f"BM{c:05d}_", 1)
            out.append(row)
    doc["benchmarks"] = out
    return json.dumps(doc, indent=2).encode()


SCALERS: dict[str, Callable[[int], bytes]] = {"pyperf": scale_pyperf, "gbench": scale_gbench}


def main() -> None:
    from perfwarehouse.ingest.formats import IMPORTERS, load
    from perfwarehouse.ingest.formats.records import ImportOptions
    from perfwarehouse.ingest.service import ingest_import
    from perfwarehouse.warehouse.store import Warehouse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--formats", nargs="*", help="Only these formats (default: all).")
    args = parser.parse_args()
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    options = ImportOptions(node="bench-node")
    print(f"{'format':8} {'MB':>6} {'trials':>9} {'values':>10} {'json.load s':>11} "
          f"{'parse s':>8} {'ingest s':>9} {'trials/s':>10} {'parse/json':>10} "
          f"{'ingest/json':>11}", flush=True)
    for fmt in args.formats or sorted(IMPORTERS):
        if fmt not in SCALERS:
            print(f"{fmt:8} skipped: no generator in SCALERS")
            continue
        path = out / f"large-{fmt}.json"
        path.write_bytes(SCALERS[fmt](args.values))
        data = path.read_bytes()
        module = load(fmt)
        records = module.parse(data, str(path), options)
        n_trials = len(records)
        n_values = sum(len(r["values"]) for r in records)
        del records
        times: dict[str, list[float]] = {"json": [], "parse": [], "ingest": []}
        for _ in range(args.repeat):
            t = time.perf_counter()
            with open(path, "rb") as f:
                json.load(f)
            times["json"].append(time.perf_counter() - t)
            t = time.perf_counter()
            module.parse(path.read_bytes(), str(path), options)
            times["parse"].append(time.perf_counter() - t)
            root = Path(tempfile.mkdtemp(prefix="bench-importers-", dir=out))
            try:
                t = time.perf_counter()
                _, summary = ingest_import(Warehouse(root / "wh"), fmt, [path], options)
                times["ingest"].append(time.perf_counter() - t)
                assert summary.trials_added == n_trials, summary  # type: ignore[union-attr]
            finally:
                shutil.rmtree(root)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"{fmt:8} {len(data) / 1e6:6.1f} {n_trials:9,} {n_values:10,} "
              f"{med['json']:11.2f} {med['parse']:8.2f} {med['ingest']:9.2f} "
              f"{n_trials / med['ingest']:10,.0f} {med['parse'] / med['json']:10.1f} "
              f"{med['ingest'] / med['json']:11.1f}", flush=True)


if __name__ == "__main__":
    main()
