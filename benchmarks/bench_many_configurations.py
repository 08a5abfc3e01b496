"""Peak memory of each analysis on a campaign of many one-trial configurations (issue 44,
H5: an ``analyze all`` worker grew to 22.7 GB at 10^6 configurations).

Writes a Parquet of N configurations (benchmark ``b<i>``), each measured by one trial of
``--values`` values, in runs of 100 positions on one hardware type, fixed order; ingests
it with ``ingest table`` into ``WORK/whN`` (reused when it exists), then runs each job
(``--jobs``, default every job) as ``perfwarehouse analyze JOB`` under ``/usr/bin/time``:
its peak resident memory and wall time, and the peak per 1,000 configurations. With
``--report``, then ``perfwarehouse report all`` into ``WORK/siteN`` (its peak is the whole
process tree's, sampled, as the site builds pages in worker processes from 500,000
measurements); ``--jobs none --report`` times the report alone (run the analyses first).

Usage::

    PYTHONPATH=. python benchmarks/bench_many_configurations.py --work /tmp/many --n 100000
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

RUN_SIZE = 100


def write_table(path: Path, n: int, values: int) -> None:
    """N one-trial configurations in runs of RUN_SIZE positions."""
    runs = -(-n // RUN_SIZE)
    index = pa.array(range(n), pa.int64())
    run = pa.array([i // RUN_SIZE for i in range(n)], pa.int64())
    base = 1_700_000_000
    table = pa.table({
        "campaign": pa.array(["many"] * n), "run_id": pa.array([f"r{r}" for r in run.to_pylist()]),
        "node": pa.array(["n1"] * n), "hardware_type": pa.array(["hw"] * n),
        "run_index": run, "order_kind": pa.array(["fixed"] * n),
        "position": pa.array([i % RUN_SIZE for i in range(n)], pa.int64()),
        "run_size": pa.array([min(RUN_SIZE, n - (i // RUN_SIZE) * RUN_SIZE) for i in range(n)],
                             pa.int64()),
        "benchmark": pa.array([f"b{i}" for i in index.to_pylist()]),
        "settings": pa.array(["{}"] * n), "metric": pa.array(["runtime"] * n),
        "unit": pa.array(["s"] * n),
        "started_at": pa.array([f"{_iso(base + 60 * i)}" for i in range(n)]),
        "status": pa.array(["ok"] * n),
        "values": pa.array([[1.0 + (i % 97) / 100 + k / 1000 for k in range(values)]
                            for i in range(n)], pa.list_(pa.float64())),
        "v": pa.array([1] * n, pa.int64())})
    assert runs >= 1
    pq.write_table(table, path)


def _iso(seconds: int) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(seconds, timezone.utc).isoformat().replace("+00:00", "Z")


def timed(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak MB of a child process."""
    start = time.monotonic()
    proc = subprocess.run(["/usr/bin/time", "-f", "PEAK_KB %M", *args], capture_output=True,
                          text=True)
    wall = time.monotonic() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr[-3000:]}")
    peak = re.findall(r"PEAK_KB (\d+)", proc.stderr)
    return wall, int(peak[-1]) / 1024


def tree_rss_mb(pid: int) -> float:
    """The resident memory of ``pid`` and every process under it, MB (Linux ``/proc``)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        rss[int(entry.name)] = int(fields[21])  # pages
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo.extend(children.get(p, []))
    return total * os.sysconf("SC_PAGE_SIZE") / 2**20


def report_all(cli: list[str], out_dir: Path, every_s: float = 0.5) -> tuple[float, float, float]:
    """``report all`` (issue 44): wall seconds, the peak of the whole process tree's resident
    memory sampled every ``every_s`` (the site's workers included, MB) and the largest
    single process's peak (``/usr/bin/time``, MB)."""
    start = time.monotonic()
    proc = subprocess.Popen(["/usr/bin/time", "-f", "PEAK_KB %M", *cli, "report", "all",
                             "--out-dir", str(out_dir)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    tree = 0.0
    while proc.poll() is None:
        tree = max(tree, tree_rss_mb(proc.pid))
        time.sleep(every_s)
    out, err = proc.communicate()
    wall = time.monotonic() - start
    if proc.returncode:
        raise SystemExit(f"report all failed:\n{out}\n{err[-3000:]}")
    return wall, tree, int(re.findall(r"PEAK_KB (\d+)", err)[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--values", type=int, default=5)
    parser.add_argument("--jobs", default="")
    parser.add_argument("--report", action="store_true",
                        help="also time `report all` (after the jobs; --jobs none: only it)")
    args = parser.parse_args()
    from perfwarehouse.jobs import CATALOG

    args.work.mkdir(parents=True, exist_ok=True)
    wh = args.work / f"wh{args.n}"
    cli = [sys.executable, "-m", "perfwarehouse", "-q", "--warehouse", str(wh)]
    if not wh.exists():
        table = args.work / f"many{args.n}.parquet"
        write_table(table, args.n, args.values)
        wall, peak = timed([*cli, "ingest", "table", str(table)])
        print(f"ingested {args.n:,} configurations in {wall:.1f} s (peak {peak:,.0f} MB)")
    names = ([] if args.jobs == "none" else args.jobs.split(",") if args.jobs
             else [job.name for job in CATALOG])
    print("| job | configurations | wall s | peak MB | MB per 1,000 configurations |")
    print("|---|---|---|---|---|")
    for name in names:
        wall, peak = timed([*cli, "analyze", name])
        print(f"| {name} | {args.n:,} | {wall:.1f} | {peak:,.0f} | {peak / args.n * 1000:.1f} |",
              flush=True)
    if args.report:
        wall, tree, peak = report_all(cli, args.work / f"site{args.n}")
        print(f"| report all (largest process {peak:,.0f} MB) | {args.n:,} | {wall:.1f} | "
              f"{tree:,.0f} | {tree / args.n * 1000:.1f} |", flush=True)


if __name__ == "__main__":
    main()
