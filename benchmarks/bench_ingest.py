"""Ingest speed against DuckDB's own reader, in the same run.

    .venv/bin/python benchmarks/bench_ingest.py [--scale 1.0] [--repeat 5] [--against CHECKOUT]

Generates the ordersage-longterm campaign (JSON Lines and Parquet) once under
benchmarks/out/, then, ``--repeat`` times and alternating, in fresh processes:

* baseline: ``CREATE TABLE t AS SELECT * FROM read_json(FILE)`` into a new DuckDB file;
* typed baseline: the same with the native format's columns and types given
  (``columns = {...}``, :data:`perfwarehouse.ingest.formats.jsonl.DUCKDB_COLUMNS`): the
  anchor of issue 38 (ingest <= 2x it);
* typed read and landing: the typed read's rows, one per value, written as the
  warehouse writes them (``COPY ... TO`` zstd Parquet partitioned by campaign and
  hardware type), with no check, hash or catalog: the floor of any ingest that lands
  this file in Parquet;
* ``perfwarehouse ingest jsonl FILE`` into a new warehouse (validation, dedupe,
  Parquet, catalog: everything);
* with ``--against CHECKOUT``, the same ingest with CHECKOUT's code (a ``git worktree
  add /tmp/old REV``), so old and new code alternate in one run;
* ``perfwarehouse ingest table FILE.parquet`` into a new warehouse.

Each process times its own work (interpreter start-up excluded) and reports its peak
resident memory and CPU seconds (``wait4``; DuckDB reads with every core, so on a
shared machine CPU seconds say more than wall seconds). Prints medians, the ratios
to the baselines and the range of the load average while measuring.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

BASELINE = """
import duckdb, json, sys, time
con = duckdb.connect(sys.argv[2]); con.execute("SET enable_progress_bar = false")
t = time.perf_counter()
con.execute("CREATE TABLE t AS SELECT * FROM read_json(?)", [sys.argv[1]])
print(json.dumps({"seconds": time.perf_counter() - t}))
"""

TYPED = """
import duckdb, json, sys, time
from perfwarehouse.ingest.formats.jsonl import DUCKDB_COLUMNS
con = duckdb.connect(sys.argv[2]); con.execute("SET enable_progress_bar = false")
t = time.perf_counter()
con.execute("CREATE TABLE t AS SELECT * FROM read_json(?, format = 'newline_delimited', "
            "columns = ?)", [sys.argv[1], DUCKDB_COLUMNS])
print(json.dumps({"seconds": time.perf_counter() - t}))
"""

LANDING = """
import duckdb, json, sys, time
from perfwarehouse.ingest.formats.jsonl import DUCKDB_COLUMNS
con = duckdb.connect(sys.argv[2]); con.execute("SET enable_progress_bar = false")
t = time.perf_counter()
rows = ("SELECT * EXCLUDE (\\"values\\"), unnest(\\"values\\") AS value FROM read_json("
        "?, format = 'newline_delimited', columns = ?)")
target = sys.argv[2].replace("'", "''") + ".parquet.d"
con.execute(f"COPY ({rows}) TO '{target}' (FORMAT parquet, COMPRESSION zstd, "
            "PARTITION_BY (campaign, hardware_type))", [sys.argv[1], DUCKDB_COLUMNS])
print(json.dumps({"seconds": time.perf_counter() - t}))
"""

INGEST = """
import json, sys, time
from pathlib import Path
from perfwarehouse.ingest.service import ingest_jsonl, ingest_table
from perfwarehouse.warehouse.store import Warehouse
t = time.perf_counter()
wh = Warehouse(Path(sys.argv[2]))
fn = ingest_table if sys.argv[1].endswith(".parquet") else ingest_jsonl
s = fn(wh, Path(sys.argv[1]), None) if fn is ingest_table else fn(wh, [Path(sys.argv[1])])
print(json.dumps({"seconds": time.perf_counter() - t, "trials": s.trials_added}))
"""


def run(code: str, source: Path, target: Path, checkout: Path | None = None
        ) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(checkout or HERE.parent)}
    proc = subprocess.Popen([sys.executable, "-c", code, str(source), str(target)],
                            stdout=subprocess.PIPE, text=True, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    out = proc.stdout.read() if proc.stdout else ""
    if status != 0:
        raise SystemExit(f"benchmark process failed ({status}): {out}")
    result = json.loads(out.strip().splitlines()[-1])
    result["peak_mb"] = usage.ru_maxrss / 1024
    result["cpu"] = usage.ru_utime + usage.ru_stime
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="also ingest with the code of this checkout, alternating")
    parser.add_argument("--no-table", action="store_true", help="skip 'ingest table'")
    args = parser.parse_args()

    out = HERE / "out"
    out.mkdir(exist_ok=True)
    jsonl = out / f"ordersage-longterm-{args.scale:g}.jsonl"
    parquet = jsonl.with_suffix(".parquet")
    for path in (jsonl,) if args.no_table else (jsonl, parquet):
        if not path.exists():
            subprocess.run([sys.executable, "-m", "perfwarehouse", "generate",
                            "ordersage-longterm", "--out", str(path), "--scale", str(args.scale)],
                           check=True)
    print(f"input: {jsonl.name} ({jsonl.stat().st_size / 1e6:.0f} MB)"
          + ("" if args.no_table else f", {parquet.name} ({parquet.stat().st_size / 1e6:.0f} MB)"))

    cases: dict[str, tuple[str, Path, Path | None]] = {
        "duckdb read_json (baseline)": (BASELINE, jsonl, None),
        "duckdb read_json, typed (anchor)": (TYPED, jsonl, None),
        "duckdb typed read + Parquet (landing)": (LANDING, jsonl, None),
        "perfwarehouse ingest jsonl": (INGEST, jsonl, None)}
    if args.against:
        cases[f"ingest jsonl, {args.against}"] = (INGEST, jsonl, args.against.resolve())
    if not args.no_table:
        cases["perfwarehouse ingest table (parquet)"] = (INGEST, parquet, None)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in cases}
    loads = [os.getloadavg()[0]]  # the machine is shared: say how loaded it was
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        for i in range(args.repeat):
            for name, (code, source, checkout) in cases.items():
                target = Path(tmp) / f"{i}-{len(results[name])}"
                results[name].append(run(code, source, target if code is INGEST
                                         else target.with_suffix(".duckdb"), checkout))
                shutil.rmtree(target, ignore_errors=True)
                shutil.rmtree(target.with_suffix(".duckdb.parquet.d"), ignore_errors=True)
                target.with_suffix(".duckdb").unlink(missing_ok=True)
                loads.append(os.getloadavg()[0])

    anchor = "duckdb read_json, typed (anchor)"
    base = statistics.median(r["seconds"] for r in results[anchor])
    base_cpu = statistics.median(r["cpu"] for r in results[anchor])
    print(f"{'case':40s} {'median s':>9s} {'ratio':>6s} {'CPU s':>7s} {'ratio':>6s} "
          f"{'peak MB':>8s}   runs (s)")
    for name, runs in results.items():
        seconds = [r["seconds"] for r in runs]
        med = statistics.median(seconds)
        cpu = statistics.median(r["cpu"] for r in runs)
        peak = max(r["peak_mb"] for r in runs)
        print(f"{name:40s} {med:9.2f} {med / base:6.2f} {cpu:7.2f} {cpu / base_cpu:6.2f} "
              f"{peak:8.0f}   " + " ".join(f"{s:.2f}" for s in seconds))
    print("(ratios to the typed read; CPU s of the whole process, interpreter included)")
    print(f"load average (1 min) while measuring: {min(loads):.1f}-{max(loads):.1f}")
    trials = results["perfwarehouse ingest jsonl"][0].get("trials", 0)
    print(f"trials ingested per run: {trials:,.0f}")


if __name__ == "__main__":
    main()
