"""Importer speed: trials/s per format against json.load of the same file, in the same run.

    .venv/bin/python benchmarks/bench_importers.py [--values 1000000] [--repeat 5]
    .venv/bin/python benchmarks/bench_importers.py --against /tmp/base --repeat 3 \
        --formats pyperf gotest gbench hyperfine sysbench jmeter gatling

For every registered format with a generator in SCALERS, writes a large file (at
least ``--values`` values) under benchmarks/out/ by scaling up that format's fixture,
then, ``--repeat`` times and alternating:

* baseline: ``json.load`` of the file (reading and decoding, nothing else); for text
  formats (go test, redis-benchmark CSV, JMeter JTL) reading, decoding and splitting it
  into lines and comma-separated fields;
* parse: the format's pure ``parse`` (bytes in, records out);
* ingest: ``ingest_import`` into a new warehouse (parse, the per-record checks,
  validation, Parquet, catalog: everything).

Prints medians, trials/s and the ratios to the baseline. The load generators whose
output is one trial per small file (wrk, hey, k6, Locust stats) are listed as skipped: a
large file of theirs does not exist (a sysbench log of appended runs and a Gatling
simulation.log do).

``--against BASE_CHECKOUT`` times only the parse, of this checkout's package and of
another commit's (its checkout on PYTHONPATH), on the same files, each in a fresh
interpreter, alternating: CPU seconds (``time.process_time``, the figure to read on a
shared machine) and wall seconds, medians, with the load average before and after.
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


def scale_hyperfine(n_values: int) -> bytes:
    """Commands of 100 runs each (a long parameter scan's export)."""
    doc = json.loads((FIXTURES / "hyperfine" / "good" / "plain.json").read_text())
    template = doc["results"][0]
    results = []
    for c in range(-(-n_values // 100)):
        row = dict(template, command=f"cmd{c:06d}")
        row["times"] = [1e-3 * (1 + 1e-4 * i) for i in range(100)]
        row["exit_codes"] = [0] * 100
        results.append(row)
    return json.dumps({"results": results}).encode()


def scale_jmh(n_values: int) -> bytes:
    """Benchmarks x 5 forks x 20 measurement iterations."""
    doc = json.loads((FIXTURES / "jmh" / "good" / "listbench.json").read_text())
    template = doc[0]
    out = []
    for b in range(-(-n_values // 100)):
        entry = copy.deepcopy(template)
        entry["benchmark"] = f"bench.Generated.m{b:06d}"
        entry["forks"] = 5
        entry["primaryMetric"]["rawData"] = [[1e4 + f + 1e-2 * i for i in range(20)]
                                             for f in range(5)]
        entry["secondaryMetrics"] = {}
        out.append(entry)
    return json.dumps(out).encode()


def scale_gotest(n_values: int) -> bytes:
    """`go test -bench -count` text: lines of 4 metrics each."""
    lines = ["goos: linux", "goarch: amd64", "pkg: example.invalid/gen", "cpu: generated"]
    for i in range(-(-n_values // 4)):
        lines.append(f"BenchmarkGen{i // 10:06d}-2\t2000\t{7000 + i % 97} ns/op\t"
                     f"{500 + i % 13}.5 MB/s\t0 B/op\t0 allocs/op")
    return ("\n".join([*lines, "PASS", "ok  \texample.invalid/gen\t1.0s"]) + "\n").encode()


def scale_asv(n_values: int) -> bytes:
    """One version-2 result file: benchmarks with 100 recorded samples each."""
    path = FIXTURES / "asv" / "good" / "bench-host-1" / "4b8f2a91-virtualenv-py3.11-numpy.json"
    doc = json.loads(path.read_text())
    columns = doc["result_columns"]
    results = {}
    for b in range(-(-n_values // 100)):
        row = dict.fromkeys(columns)
        row.update(result=[1e-3], params=[], version="v", started_at=1700003600000,
                   duration=0.5, samples=[[1e-3 * (1 + 1e-4 * i) for i in range(100)]])
        results[f"benchmarks.Gen.time_{b:06d}"] = [row[c] for c in columns]
    doc["results"] = results
    return json.dumps(doc).encode()


def scale_redis_benchmark(n_values: int) -> bytes:
    """`redis-benchmark --csv` with many tests (one trial of 7 metrics per row)."""
    lines = ['"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",'
             '"p95_latency_ms","p99_latency_ms","max_latency_ms"']
    for i in range(-(-n_values // 7)):
        lines.append(f'"T{i:07d}","{9000 + i % 101}.5","0.299","0.024","0.103","1.903",'
                     '"4.143","15.135"')
    return ("\n".join(lines) + "\n").encode()


def scale_jmeter(n_values: int) -> bytes:
    """A JTL (CSV with header) of one trial with ``n_values`` request samples."""
    rows = (FIXTURES / "jmeter" / "good" / "jmeter_t4_header.jtl").read_text().splitlines()
    header, first = rows[0], rows[1].split(",")
    out = [header]
    for i in range(n_values):
        first[0], first[1] = str(1732371000003 + i), str(20 + i % 50)
        out.append(",".join(first))
    return ("\n".join(out) + "\n").encode()


def scale_sysbench(n_values: int) -> bytes:
    """A log of sysbench 1.0 cpu runs appended with ``>>`` (a long thread sweep): the
    fixture's run again and again, its thread count and event rate varied (7 values each)."""
    run = (FIXTURES / "sysbench" / "good" / "sysbench10_cpu_t2.txt").read_text()
    out = []
    for i in range(-(-n_values // 7)):
        out.append(run.replace("Number of threads: 2", f"Number of threads: {1 + i % 64}")
                   .replace("1148.30", f"{1000 + i % 997}.30"))
    return "".join(out).encode()


def scale_gatling(n_values: int) -> bytes:
    """A Gatling 3.7 simulation.log of one run with ``n_values`` requests (1,000 users of
    ``n_values / 1000`` requests each, their USER records included)."""
    per_user = max(1, n_values // 1000)
    out = ["RUN\tcomputerdatabase.BasicSimulation\tbasicsimulation\t1732370000000\t \t3.7.6"]
    for u in range(-(-n_values // per_user)):
        t = 1732370000150 + 7 * u
        out.append(f"USER\tBrowse\tSTART\t{t}")
        for i in range(per_user):
            took = 20 + (u * 31 + i * 17) % 180
            out.append(f"REQUEST\t\trequest_{i % 10}\t{t}\t{t + took}\t"
                       f"{'KO' if i % 97 == 0 else 'OK'}\t ")
            t += took + 5
        out.append(f"USER\tBrowse\tEND\t{t}")
    return ("\n".join(out) + "\n").encode()


def scale_pytest_benchmark(n_values: int) -> bytes:
    """A --benchmark-json file of parametrized benchmarks of 1000 rounds each."""
    doc = json.loads((FIXTURES / "pytest-benchmark" / "real" / "json" / "pb-5.1.0.json")
                     .read_text())
    template = doc["benchmarks"][0]
    benchmarks = []
    for b in range(-(-n_values // 1000)):
        row = copy.deepcopy(template)
        row["name"], row["param"], row["params"] = f"test_fib[{b}]", str(b), {"n": b}
        row["fullname"] = f"test_suite.py::test_fib[{b}]"
        row["stats"]["data"] = [1e-6 * (1 + 1e-4 * i) for i in range(1000)]
        benchmarks.append(row)
    return json.dumps({**doc, "benchmarks": benchmarks}).encode()


def scale_criterion(n_values: int) -> bytes:
    """cargo-criterion --message-format=json: benchmark-complete messages of 100 samples."""
    lines = (FIXTURES / "criterion" / "good" / "cargo-criterion.json").read_text().splitlines()
    template = json.loads(lines[0])
    out = []
    for b in range(-(-n_values // 100)):
        message = dict(template, id=f"group/bench/{b}")
        message["iteration_count"] = [10 * (i + 1) for i in range(100)]
        message["measured_values"] = [250.0 * 10 * (i + 1) * (1 + 1e-4 * i) for i in range(100)]
        out.append(json.dumps(message))
    return ("\n".join(out) + "\n").encode()


#: formats whose output is one trial per (small) file: nothing to scale up
ONE_TRIAL_FILES = ("hey", "k6", "locust", "wrk")

SCALERS: dict[str, Callable[[int], bytes]] = {
    "pyperf": scale_pyperf, "gbench": scale_gbench, "hyperfine": scale_hyperfine,
    "jmh": scale_jmh, "gotest": scale_gotest, "asv": scale_asv,
    "redis-benchmark": scale_redis_benchmark, "jmeter": scale_jmeter,
    "sysbench": scale_sysbench, "gatling": scale_gatling,
    "pytest-benchmark": scale_pytest_benchmark, "criterion": scale_criterion,
}


def _baseline(data: bytes) -> None:
    """json.load for JSON (a JSON object per line: each line's); for text formats,
    decoding and splitting lines and fields."""
    if data[:1] in (b"{", b"["):
        try:
            json.loads(data)
        except ValueError:  # JSON Lines (cargo-criterion's messages)
            [json.loads(line) for line in data.splitlines() if line.strip()]
    else:
        [line.split(",") for line in data.decode().splitlines()]


#: the parse of one file in a fresh interpreter, timed around ``parse`` only (imports and
#: reading excluded): argv = format, path; prints [[cpu_s, wall_s, records, latency
#: samples] (None: the format is not registered there), the package's file]
_PARSE_ONCE = """
import json, sys, time
from perfwarehouse.ingest.formats import IMPORTERS, load
from perfwarehouse.ingest.formats.records import ImportOptions
fmt, path = sys.argv[1], sys.argv[2]
import perfwarehouse
if fmt not in IMPORTERS:
    print(json.dumps([None, perfwarehouse.__file__])); sys.exit(0)
module, data = load(fmt), open(path, "rb").read()
cpu, wall = time.process_time(), time.perf_counter()
records = module.parse(data, path, ImportOptions(node="bench-node"))
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
print(json.dumps([[cpu, wall, len(records),
                   sum(len(r.get("latency", {}).get("samples", [])) for r in records)],
                  perfwarehouse.__file__]))
"""


def against(base: Path, formats: list[str], n_values: int, repeat: int) -> None:
    """Parse CPU and wall time of this checkout's package against ``base`` (a checkout of
    another commit, e.g. ``git worktree add /tmp/base 04494c9``) on the same files, each
    parse in a fresh interpreter, the two sides alternating (which goes first alternates
    too), ``repeat`` times; medians, and the load average before and after."""
    import os
    import subprocess
    import sys

    here = HERE.parent
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'format':10} {'MB':>6} {'records base/branch':>19} {'samples':>9}  {'base CPU s':>10} "
          f"{'branch CPU s':>12} {'CPU ratio':>9}  {'base wall s':>11} {'branch wall s':>13}",
          flush=True)
    for fmt in formats:
        path = out / f"large-{fmt}.data"
        path.write_bytes(SCALERS[fmt](n_values))
        runs: dict[str, list[list[float]]] = {"base": [], "branch": []}
        sides = {"base": base, "branch": here}
        for i in range(repeat):
            for side in (("base", "branch") if i % 2 == 0 else ("branch", "base")):
                env = {**os.environ, "PYTHONPATH": str(sides[side])}
                done = subprocess.run([sys.executable, "-c", _PARSE_ONCE, fmt, str(path)],
                                      env=env, capture_output=True, text=True, check=True,
                                      cwd=sides[side])  # -c puts the cwd first on sys.path
                result, package = json.loads(done.stdout)
                assert Path(package).is_relative_to(sides[side]), (side, package)
                if result is not None:
                    runs[side].append(result)

        def med(side: str, k: int) -> str:
            return f"{statistics.median(r[k] for r in runs[side]):.2f}" if runs[side] else "n/a"

        cpu = {side: statistics.median(r[0] for r in rows) for side, rows in runs.items()
               if rows}
        ratio = f"{cpu['branch'] / cpu['base']:.2f}" if "base" in cpu else "new"
        last = runs["branch"][-1]
        counts = f"{runs['base'][-1][2]:,}/{last[2]:,}" if runs["base"] else f"-/{last[2]:,}"
        print(f"{fmt:10} {path.stat().st_size / 1e6:6.1f} {counts:>19} {last[3]:9,}  "
              f"{med('base', 0):>10} {med('branch', 0):>12} {ratio:>9}  {med('base', 1):>11} "
              f"{med('branch', 1):>13}", flush=True)
        path.unlink()
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main() -> None:
    from perfwarehouse.ingest.formats import IMPORTERS, load
    from perfwarehouse.ingest.formats.records import ImportOptions
    from perfwarehouse.ingest.service import ingest_import
    from perfwarehouse.warehouse.store import Warehouse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--formats", nargs="*", help="Only these formats (default: all).")
    parser.add_argument("--against", type=Path, metavar="BASE_CHECKOUT",
                        help="Compare the parse's CPU and wall time with the package of "
                             "this checkout of another commit, alternating (no ingest).")
    args = parser.parse_args()
    if args.against is not None:
        against(args.against.resolve(), [f for f in args.formats or sorted(SCALERS)
                                         if f in SCALERS], args.values, args.repeat)
        return
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    options = ImportOptions(node="bench-node")
    print(f"{'format':15} {'MB':>6} {'trials':>9} {'values':>10} {'baseline s':>11} "
          f"{'parse s':>8} {'ingest s':>9} {'trials/s':>10} {'parse/json':>10} "
          f"{'ingest/json':>11}", flush=True)
    for fmt in args.formats or sorted(IMPORTERS):
        if fmt not in SCALERS:
            why = ("one trial per small file, nothing to scale" if fmt in ONE_TRIAL_FILES
                   else "no generator in SCALERS")
            print(f"{fmt:15} skipped: {why}")
            continue
        path = out / f"large-{fmt}.data"
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
            _baseline(path.read_bytes())
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
        print(f"{fmt:15} {len(data) / 1e6:6.1f} {n_trials:9,} {n_values:10,} "
              f"{med['json']:11.2f} {med['parse']:8.2f} {med['ingest']:9.2f} "
              f"{n_trials / med['ingest']:10,.0f} {med['parse'] / med['json']:10.1f} "
              f"{med['ingest'] / med['json']:11.1f}", flush=True)


if __name__ == "__main__":
    main()
