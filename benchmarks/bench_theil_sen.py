"""Exact Theil-Sen at scale (target: n = 10^6 in <= 2 s; scipy cannot: n^2/2 slopes).

Prints medians of several runs, interleaved so that the machine's load hits all alike:

* perfwarehouse on 10^6 points (t-distributed noise around a trend, the
  selection path), slope and Sen's CI;
* the baseline: one ``np.sort`` of n log2 n random float64 values (what an
  O(n log n)-comparison method must at least touch), and the ratio;
* on 3,000 points, ``scipy.stats.theilslopes`` (which lists and sorts all 4.5 M
  slopes) next to ours, with the ratio and an equality check.

    .venv/bin/python benchmarks/bench_theil_sen.py [--runs 5] [--n 1000000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from scipy import stats as sps

from perfwarehouse.stats import theil_sen


def _median_time(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--n", type=int, default=1_000_000)
    args = parser.parse_args()
    rng = np.random.default_rng(1)

    theil_sen(rng.normal(size=5000))  # compile (cached after the first process)
    x = np.sort(rng.uniform(0, 270, args.n))
    y = 100 + 0.01 * x + rng.standard_t(3, args.n)
    pool = rng.normal(size=int(args.n * np.log2(args.n)))
    ours_times, sort_times = [], []
    for _ in range(args.runs):
        ours_times.append(_median_time(lambda: theil_sen(y, x), 1))
        sort_times.append(_median_time(lambda: np.sort(pool), 1))
    big, base = statistics.median(ours_times), statistics.median(sort_times)

    fit = theil_sen(y, x)
    print(f"perfwarehouse theil_sen, n = {args.n:,} ({fit.n_slopes:,} slopes): "
          f"median {big:.2f} s over {args.runs} runs; slope {fit.slope:.6g} "
          f"[{fit.low:.6g}, {fit.high:.6g}]")
    print(f"baseline np.sort of n log2 n = {int(args.n * np.log2(args.n)):,} float64: "
          f"median {base:.2f} s; ratio theil_sen / baseline = {big / base:.2f}x")

    n = 3000
    xs = rng.uniform(0, 100, n)
    ys = 0.01 * xs + rng.lognormal(0, 1, n)
    ours = _median_time(lambda: theil_sen(ys, xs), max(args.runs, 5))
    ref = _median_time(lambda: sps.theilslopes(ys, xs, method="joint"), max(args.runs, 5))
    a, b = theil_sen(ys, xs), sps.theilslopes(ys, xs, method="joint")
    same = (a.slope, a.intercept, a.low, a.high) == (b.slope, b.intercept, b.low_slope, b.high_slope)
    print(f"n = {n:,}: perfwarehouse {1000 * ours:.1f} ms, scipy.stats.theilslopes "
          f"{1000 * ref:.1f} ms (baseline), ratio scipy/ours = {ref / ours:.1f}x; "
          f"identical results: {same}")


if __name__ == "__main__":
    main()
