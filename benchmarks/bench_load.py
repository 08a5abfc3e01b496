"""Speed of ``perfwarehouse analyze load`` on 10^6 load-test trials with latency histograms.

The job's compute step (:func:`perfwarehouse.jobs.load.compute`: settings parsed into
families and loads, operational-law checks of every trial, grouping, t CIs of
throughput and response time, pooled latency percentiles with Woodruff CIs from every
trial's histogram, peak throughput and peak rate) runs on an in-memory Arrow table
shaped like the job's query result (``sql/queries/load_trials.sql``): 20,000
configuration families x 10 load levels x 5 trials, half closed and half open loop,
each trial with a 24-bucket latency histogram, 3 % of trials with a client bottleneck.
Reading the table from the warehouse (DuckDB over Parquet and the catalog) is not
timed, nor is the baseline's.

The baseline is the straightforward implementation of ``tests/naive/loadtest.py``
(a dict of groups, a Python loop over them, numpy and scipy inside each: t
intervals, law checks, pooled percentiles on a dense grid), given the same trials as
Python dicts. It runs on ``--baseline-fraction`` of the families and its time is
scaled up linearly (it is a loop over independent groups).

Prints the median of ``--runs`` runs of each and their ratio (target >= 10), in wall
and CPU seconds (the machine is shared).

Usage::

    PYTHONPATH=. python benchmarks/bench_load.py [--trials 1000000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perfwarehouse.jobs.load import LoadParams, compute  # noqa: E402
from perfwarehouse.loadtest import histograms  # noqa: E402
from tests.naive import loadtest as naive  # noqa: E402

LEVELS = 10
TRIALS = 5
BUCKETS = 24


def synthetic(n_trials: int, seed: int = 1) -> pa.Table:
    """``n_trials`` load-test trials in the columns of the job's query."""
    rng = np.random.default_rng(seed)
    n_fam = max(2, n_trials // (LEVELS * TRIALS))
    fam = np.repeat(np.arange(n_fam), LEVELS * TRIALS)
    level = np.tile(np.repeat(np.arange(LEVELS), TRIALS), n_fam)
    n = fam.size
    closed = fam % 2 == 0
    clients = 2.0 ** level
    rate = 200.0 * (level + 1)
    settings_of = {}
    for f in range(n_fam):
        for lv in range(LEVELS):
            s = ({"clients": 2 ** lv, "loop": "closed", "think_time_s": 0.001, "variant": f}
                 if f % 2 == 0 else {"loop": "open", "rate_rps": 200 * (lv + 1), "variant": f})
            settings_of[(f, lv)] = json.dumps(s, sort_keys=True, separators=(",", ":"))
    settings = [settings_of[(f, lv)] for f, lv in zip(fam.tolist(), level.tolist())]
    service = 0.0005 * (1 + (fam % 7) / 10)
    r_s = np.where(closed, service * np.maximum(1.0, clients * service / 0.0015),
                   service / np.maximum(0.05, 1 - rate * service / 2))
    r_s *= np.exp(rng.normal(0, 0.05, n))
    x = np.where(closed, clients / (r_s + 0.001), rate) * (1 + rng.normal(0, 0.01, n))
    x = np.where(rng.random(n) < 0.03, x * 0.6, x)  # client bottlenecks
    mean_ms = r_s * 1e3
    # histograms: 24 consecutive buckets starting a little below the mean, exponential-ish
    start = np.clip(histograms.bucket_of(mean_ms * 0.3), 0, histograms.N_BUCKETS - BUCKETS)
    index = (start[:, None] + np.arange(BUCKETS)[None, :]).astype(np.uint16).ravel()
    shape = np.exp(-np.arange(BUCKETS) / 6.0)[None, :] * rng.uniform(0.5, 1.5, (n, BUCKETS))
    frac = (shape / shape.sum(axis=1, keepdims=True)).ravel()
    offsets = pa.array(np.arange(n + 1, dtype=np.int32) * BUCKETS)
    return pa.table({
        "campaign": pa.array(["bench"] * n), "hardware_type": pa.array(["hw"] * n),
        "benchmark": pa.array(["kv"] * n), "settings": pa.array(settings),
        "run_id": pa.array([f"r{i}" for i in range(n)]), "position": pa.array(np.zeros(n, np.int32)),
        "node": pa.array(["n"] * n), "throughput": x, "arrival_rate": np.where(closed, np.nan, x),
        "requests": x * 30, "errors": np.zeros(n), "mean_ms": mean_ms,
        "hist_n": x * 30,
        "hist_index": pa.ListArray.from_arrays(offsets, pa.array(index)),
        "hist_frac": pa.ListArray.from_arrays(offsets, pa.array(frac)),
    })


def timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline-fraction", type=float, default=0.02)
    args = ap.parse_args()

    t0 = time.perf_counter()
    table = synthetic(args.trials)
    print(f"{table.num_rows:,} trials ({table.nbytes / 1e6:.0f} MB in Arrow) built in "
          f"{time.perf_counter() - t0:.1f} s")
    params = LoadParams(r_sat="2")
    out = compute(table.slice(0, 1000), params)  # JIT warm-up (numba caches anyway)
    n_base = max(LEVELS * TRIALS * 2,
                 int(table.num_rows * args.baseline_fraction) // (LEVELS * TRIALS * 2)
                 * LEVELS * TRIALS * 2)
    rows = table.slice(0, n_base).to_pylist()
    for r in rows:
        for k, v in r.items():
            if isinstance(v, float) and v != v:
                r[k] = None
    scale = table.num_rows / n_base
    job_times, base_times = [], []
    for run in range(args.runs):  # interleaved, so both see the same machine load
        job_times.append(timed(lambda: compute(table, params)))
        base_times.append(timed(lambda: naive.load_curve(
            rows, 0.95, 0.10, histograms.N_BUCKETS, histograms.LOW_MS, histograms.PER_DECADE)))
        print(f"  run {run + 1}: job {job_times[-1][0]:.2f} s, baseline on {n_base:,} trials "
              f"{base_times[-1][0]:.2f} s (x {scale:.0f} = {base_times[-1][0] * scale:.1f} s)")
    out = compute(table, params)
    job_wall = statistics.median(t[0] for t in job_times)
    job_cpu = statistics.median(t[1] for t in job_times)
    base_wall = statistics.median(t[0] for t in base_times) * scale
    base_cpu = statistics.median(t[1] for t in base_times) * scale
    print(f"analyze load compute, {table.num_rows:,} trials: median {job_wall:.2f} s wall, "
          f"{job_cpu:.2f} s CPU ({out['load_curve'].num_rows:,} levels, "
          f"{out['peak_rate'].num_rows:,} families)")
    print(f"straightforward numpy/scipy loop (scaled from {n_base:,} trials): median "
          f"{base_wall:.1f} s wall, {base_cpu:.1f} s CPU")
    print(f"ratio baseline / job: {base_wall / job_wall:.1f}x wall, {base_cpu / job_cpu:.1f}x CPU "
          "(target >= 10)")


if __name__ == "__main__":
    main()
