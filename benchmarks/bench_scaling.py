"""Every job at several sizes of one generated campaign: time, peak memory and cost per
million measurements, locally and on a local Dask cluster; a Markdown table.

For each scale K (``--scales 1,3,10``): the campaign ``perfwarehouse generate
ordersage-longterm --scale K`` (2.3M measurements at 1x) is written and ingested with
``ingest table`` into ``WORK/whK`` (kept and reused when it exists: the ingest is timed
once, when it runs). Then, for each job, ``--runs`` times, the median kept:

* local: ``perfwarehouse analyze JOB`` as a child process: its recorded job time
  (``job_runs.duration_s``: planning, reading, computing, not the process start nor the
  write) and its peak resident memory (``/usr/bin/time -f %M``);
* cluster: the same command with ``--scheduler`` on a fresh ``LocalCluster`` of
  ``--workers`` worker processes (one thread each): the job time, the client's peak,
  and the largest worker peak (``VmHWM``, read by each worker).

* ``all``: the one command ``perfwarehouse analyze all``, timed by its wall clock (every
  job, the process start and the writes included), with its peak.

Cost per million measurements = job seconds / (measurements / 1e6). A job whose cost
per million grows by more than ``--growth`` (default 1.3x) from the smallest to the
largest scale is named under the table: its work grows faster than its data (the
explanation is in docs/scaling.md).

Usage::

    PYTHONPATH=. python benchmarks/bench_scaling.py --work /tmp/scaling --scales 1,3,10

``distributed`` must be importable (it is pinned in the lock) unless ``--no-cluster``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_dask import _worker_peak_mb, run_cli  # noqa: E402

from perfwarehouse.jobs import CATALOG  # noqa: E402
from perfwarehouse.warehouse.store import Warehouse  # noqa: E402


def _timed(args: list[str]) -> tuple[float, float, str]:
    """Run a child under ``/usr/bin/time``: wall seconds, peak MB and its stdout."""
    start = time.monotonic()
    proc = subprocess.run(["/usr/bin/time", "-f", "PEAK_KB %M", *args], capture_output=True,
                          text=True)
    wall = time.monotonic() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    peak = re.findall(r"PEAK_KB (\d+)", proc.stderr)
    return wall, int(peak[-1]) / 1024 if peak else float("nan"), proc.stdout


def campaign(work: Path, scale: float) -> tuple[Warehouse, str]:
    """The warehouse of the campaign at ``scale`` (generated and ingested when missing),
    and a line saying how long that took."""
    label = f"{scale:g}"
    wh = work / f"wh{label}"
    if wh.exists():
        return Warehouse(wh), f"{label}x: reused {wh}"
    work.mkdir(parents=True, exist_ok=True)
    data = work / f"lt{label}.parquet"
    cli = [sys.executable, "-m", "perfwarehouse"]
    gen_s, gen_mb, _ = _timed([*cli, "generate", "ordersage-longterm", "--scale", label,
                               "--out", str(data)])
    ing_s, ing_mb, _ = _timed([*cli, "-q", "--warehouse", str(wh), "ingest", "table",
                               str(data)])
    return Warehouse(wh), (f"{label}x: generated in {gen_s:.1f} s (peak {gen_mb:,.0f} MB), "
                           f"ingested in {ing_s:.1f} s (peak {ing_mb:,.0f} MB)")


def run_on_cluster(root: Path, job: str, workers: int, memory_limit: str) -> dict[str, float]:
    """The job on a fresh local cluster: job s, client peak MB, largest worker peak MB."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           host="127.0.0.1", scheduler_port=0, dashboard_address=":0",
                           memory_limit=memory_limit)
    client = Client(cluster, set_as_default=False)
    try:
        result = _run(root, job, cluster.scheduler_address)
        result["worker_mb"] = max(client.run(_worker_peak_mb).values())
    finally:
        client.close()
        cluster.close()
    return result


def _run(root: Path, job: str, scheduler: str | None) -> dict[str, float]:
    """One ``analyze JOB`` child (:func:`bench_dask.run_cli`); for ``all``, the job time is
    the command's wall clock (it runs every job and writes each one's rows)."""
    result = run_cli(root, job, scheduler)
    if job == "all":
        result["job_s"] = result["wall_s"]
    return result


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/perfwarehouse-scaling"),
                    help="where the campaigns' files and warehouses go (reused)")
    ap.add_argument("--scales", default="1,3,10")
    ap.add_argument("--jobs", default=",".join([*(e.name for e in CATALOG), "all"]),
                    help="jobs to run, by name; 'all' is the one command `analyze all`, "
                         "timed by its wall clock (process start and writes included)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="6GB")
    ap.add_argument("--no-cluster", action="store_true")
    ap.add_argument("--growth", type=float, default=1.3,
                    help="name jobs whose cost per million grows by more than this factor")
    args = ap.parse_args()
    scales = [float(x) for x in args.scales.split(",")]
    names = args.jobs.split(",")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
          f"{args.runs} run(s) per job and side", flush=True)

    rows: list[tuple[str, float, int, dict[str, float], dict[str, float] | None]] = []
    for scale in scales:
        wh, line = campaign(args.work, scale)
        print(line, flush=True)
        measurements = sum(f.row_count for f in wh.snapshot().files)
        for name in names:
            local = _median([_run(wh.root, name, None) for _ in range(args.runs)])
            remote = None if args.no_cluster else _median(
                [run_on_cluster(wh.root, name, args.workers, args.memory_limit)
                 for _ in range(args.runs)])
            rows.append((name, scale, measurements, local, remote))
            print(f"  {scale:g}x {name}: local {local['job_s']:.2f} s {local['peak_mb']:,.0f} MB"
                  + ("" if remote is None else
                     f"; cluster {remote['job_s']:.2f} s client {remote['peak_mb']:,.0f} MB "
                     f"worker {remote['worker_mb']:,.0f} MB")
                  + f" (load {os.getloadavg()[0]:.1f})", flush=True)

    print("\n| job | scale | measurements (M) | local s | local peak MB | local s per M "
          "| cluster s | client peak MB | worker peak MB | cluster s per M |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, scale, n, local, remote in sorted(rows, key=lambda r: (names.index(r[0]), r[1])):
        per_m = n / 1e6
        cells = [name, f"{scale:g}x", f"{per_m:.2f}", f"{local['job_s']:.2f}",
                 f"{local['peak_mb']:,.0f}", f"{local['job_s'] / per_m:.2f}"]
        if remote is None:
            cells += ["-"] * 4
        else:
            cells += [f"{remote['job_s']:.2f}", f"{remote['peak_mb']:,.0f}",
                      f"{remote['worker_mb']:,.0f}", f"{remote['job_s'] / per_m:.2f}"]
        print("| " + " | ".join(cells) + " |")
    if len(scales) > 1:
        print(f"\ncost per million measurements, {min(scales):g}x -> {max(scales):g}x (local):")
        for name in names:
            by_scale = {s: loc["job_s"] / (n / 1e6) for j, s, n, loc, _ in rows if j == name}
            growth = by_scale[max(scales)] / by_scale[min(scales)]
            flag = "GROWS" if growth > args.growth else "flat"
            print(f"  {name}: x{growth:.2f} {flag}")


if __name__ == "__main__":
    main()
