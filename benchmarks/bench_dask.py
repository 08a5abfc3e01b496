"""Every job locally and on a local Dask cluster: wall time and peak memory.

For each job, interleaved, ``--runs`` times:

* local: ``perfwarehouse analyze JOB`` as a child process; its recorded job duration
  (``job_runs.duration_s``: planning, reading, computing; not process start nor the
  write), its wall time and its peak resident memory (``/usr/bin/time -f %M`` around
  the command, which does not inherit this large process's peak as ``ru_maxrss`` of a
  child forked from here would; ``wait4``'s ``ru_maxrss`` only if ``time`` printed
  nothing);
* cluster: the same command with ``--scheduler`` on a ``LocalCluster`` of ``--workers``
  worker processes (one thread each) started here; the client's peak as above; each
  worker's peak resident memory (``VmHWM`` of ``/proc/self/status``, read by the worker
  itself, the largest over the workers), once before the job (idle) and once after it,
  on a fresh cluster per run so that the peak belongs to this job; and every piece's
  compute time on its worker (the scheduler's task stream).

Then, per job, the scaling model: pieces, Parquet bytes each piece scans (a slice of
configurations scans its whole partition, keeping 1/k of the rows), and the expected
time on N workers = the run's overhead (planning, prepare, finalize: the wall time not
covered by pieces) + the makespan of the measured piece times scheduled longest-first
on N workers. On a 2-core machine no speed-up is expected: the point is bounded memory
per worker and identical tables (which tests/integration/test_dask.py checks).

Usage::

    perfwarehouse generate ordersage-longterm --scale 10 --out /tmp/lt10.parquet
    perfwarehouse --warehouse /tmp/wh10 ingest table /tmp/lt10.parquet
    python benchmarks/bench_dask.py --warehouse /tmp/wh10 [--runs 5] [--jobs kpi,trends]

``distributed`` must be importable (it is pinned in the lock).
"""

from __future__ import annotations

import argparse
import heapq
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from perfwarehouse.jobs import CATALOG, get
from perfwarehouse.jobs.framework import SLICE_ROWS, plan_job
from perfwarehouse.warehouse.store import Warehouse

MB = 1024 * 1024


def run_cli(warehouse: Path, job: str, scheduler: str | None) -> dict[str, float]:
    """One ``analyze`` child process: job duration, wall and peak RSS (MB)."""
    import tempfile

    args = [sys.executable, "-m", "perfwarehouse", "-q", "--warehouse", str(warehouse)]
    if scheduler:
        args += ["--scheduler", scheduler]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.monotonic()
        # /usr/bin/time reports its own child's peak: a child forked from this (large)
        # process would inherit this process's peak in ru_maxrss, time's child does not
        proc = subprocess.Popen(["/usr/bin/time", "-f", "PEAK_KB %M", *args, "analyze", job],
                                stdout=out, stderr=err, text=True)
        _pid, status, usage = os.wait4(proc.pid, 0)  # the child's own rusage
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read()
        errors = err.read()
        if proc.returncode:
            raise SystemExit(f"{' '.join(args)} analyze {job} failed:\n{text}\n{errors}")
    match = re.search(r"job_run_id \d+, ([0-9.]+) s\)", text)
    peak = re.findall(r"PEAK_KB (\d+)", errors)
    return {"job_s": float(match.group(1)) if match else float("nan"), "wall_s": wall,
            "peak_mb": int(peak[-1]) / 1024 if peak else usage.ru_maxrss / 1024}


def _worker_peak_mb() -> float:
    """This process's own peak RSS (VmHWM: unlike ``ru_maxrss``, not inherited from the
    process that forked it)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def lpt_makespan(times: list[float], n: int) -> float:
    """Longest-processing-time-first schedule of ``times`` on ``n`` workers."""
    loads = [0.0] * n
    heapq.heapify(loads)
    for t in sorted(times, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + t)
    return max(loads)


def piece_times(client: Any, since: float, job: str) -> tuple[list[float], float]:
    """Compute seconds of each piece of ``job`` run since ``since``, and the span from the
    first piece's start to the last one's end."""
    tasks = [t for t in client.get_task_stream(start=since)
             if str(t["key"]).startswith(f"{job}-")]
    computes = [s for t in tasks for s in t["startstops"] if s["action"] == "compute"]
    if not computes:
        return [], 0.0
    span = max(s["stop"] for s in computes) - min(s["start"] for s in computes)
    return [s["stop"] - s["start"] for s in computes], span


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warehouse", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="6GB")
    ap.add_argument("--jobs", default=",".join(e.name for e in CATALOG))
    ap.add_argument("--model-workers", default="1,2,4,8,16,64")
    args = ap.parse_args()

    from distributed import Client, LocalCluster

    warehouse = Warehouse(args.warehouse)
    snapshot = warehouse.snapshot()
    rows = sum(f.row_count for f in snapshot.files)
    print(f"warehouse {warehouse.root}: {rows:,} measurements in {len(snapshot.files)} files; "
          f"{args.workers} workers, {os.cpu_count()} cores, {args.runs} run(s)", flush=True)
    names = args.jobs.split(",")
    model_n = [int(x) for x in args.model_workers.split(",")]
    report: list[str] = []
    for name in names:
        job = get(name)
        plan = plan_job(warehouse, job, job.params(), snapshot.files, snapshot.configurations,
                        SLICE_ROWS)
        scanned = [sum(os.path.getsize(warehouse.root / f.path) for f in p.files)
                   for p in plan.pieces]
        local: list[dict[str, float]] = []
        remote: list[dict[str, float]] = []
        workers_mb: list[float] = []
        baseline_mb: list[float] = []
        durations: list[list[float]] = []
        spans: list[float] = []
        for _ in range(args.runs):
            local.append(run_cli(warehouse.root, name, None))
            # a fresh cluster per run, so that each worker's peak memory is this job's
            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                   processes=True, host="127.0.0.1", scheduler_port=0,
                                   dashboard_address=":0", memory_limit=args.memory_limit)
            client = Client(cluster)
            client.get_task_stream(count=0)  # installs the scheduler's task-stream plugin
            address = cluster.scheduler_address
            baseline_mb.append(max(client.run(_worker_peak_mb).values()))
            since = time.time()
            remote.append(run_cli(warehouse.root, name, address))
            workers_mb.append(max(client.run(_worker_peak_mb).values()))
            times, span = piece_times(client, since, name)
            durations.append(times)
            spans.append(span)
            client.close()
            cluster.close()
        med = {k: statistics.median(r[k] for r in local) for k in local[0]}
        rmed = {k: statistics.median(r[k] for r in remote) for k in remote[0]}
        pieces = durations[len(durations) // 2] or [0.0]
        overhead = max(0.0, rmed["job_s"] - statistics.median(spans))
        model = {n: overhead + lpt_makespan(pieces, n) for n in model_n}
        line = (f"{name:22s} local job {med['job_s']:7.2f} s wall {med['wall_s']:7.2f} s "
                f"peak {med['peak_mb']:6.0f} MB | cluster job {rmed['job_s']:7.2f} s "
                f"(x{rmed['job_s'] / med['job_s']:.2f}) wall {rmed['wall_s']:7.2f} s "
                f"client {rmed['peak_mb']:6.0f} MB, worker peak "
                f"{statistics.median(workers_mb):6.0f} MB (idle {statistics.median(baseline_mb):4.0f})")
        print(line, flush=True)
        detail = (f"{name:22s} {len(plan.pieces):4d} pieces, scan "
                  f"{statistics.median(scanned) / MB:7.1f} MB each (max {max(scanned) / MB:.1f}), "
                  f"piece compute median {statistics.median(pieces):6.2f} s max "
                  f"{max(pieces):6.2f} s, overhead {overhead:5.2f} s; model: "
                  + ", ".join(f"N={n} {t:.1f} s" for n, t in model.items()))
        print("  " + detail, flush=True)
        report.append(line)
        report.append("  " + detail)
    print("\nsummary (medians of runs):")
    for line in report:
        print(line)


if __name__ == "__main__":
    main()
