"""Change points: perfwarehouse against Apache Otava on the same series, same run.

    .venv/bin/python benchmarks/bench_change_points.py [--series 1000] [--points 500]
        [--repeat 5] [--otava-python /tmp/otava-venv/bin/python] [--calibration 400]

Otava is a benchmark-only tool, never a dependency: install it into its own environment,

    python3 -m venv /tmp/otava-venv && /tmp/otava-venv/bin/pip install apache-otava

and pass that interpreter with ``--otava-python`` (without one, only perfwarehouse runs).

1. **Planted steps.** ``--series`` series of ``--points`` N(100, 1) points, each with 0-3
   steps of +-2..4 standard deviations at random positions (>= 25 points apart and from
   the ends; 20 % of the series have none). Times (a) ``perfwarehouse.changepoints.detect_all``
   with its defaults (alpha 0.01, 999/199 permutations at most, the permutation cache emptied
   before every pass: a cold start) on every core, as ``analyze change-points`` runs it, and
   on one thread, ``--repeat`` passes each, median; (b) Otava's default
   ``compute_change_points`` (Fleming et al., ICPE 2023: windowed E-divisive, Student t-test,
   max p-value 0.001) over the same series in a fresh process, ``--otava-repeat`` passes,
   median; (c) Otava's ``compute_change_points_orig`` (Matteson & James with 100
   permutations, p 0.01) on the first ``--orig-series`` series only, extrapolated (it is
   ~2,000 times slower). Recall and precision against the planted steps, a detection counting
   when within +-2 (and +-5) positions of an unmatched planted step.
2. **Calibration** (``--calibration-only`` runs it alone). The share of stationary series
   (normal N(100, 1); heavy-tailed 100 + Student t with 2 degrees of freedom; lognormal(3, 0.5);
   ties: normal rounded to integers; small ties: N(100, 1) rounded to 0.001, whose ties
   the search breaks at random from 200 points on) that get any change point, by length
   10 .. 5,000, for perfwarehouse's defaults, for ``--alpha 0.05``, and for Otava's default
   (lengths up to 1,000 and fewer series, it is slow).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OTAVA = """
import json, sys, time
import numpy as np
from otava.analysis import compute_change_points, compute_change_points_orig
data = np.load(sys.argv[1], allow_pickle=True)
mode, repeat = sys.argv[2], int(sys.argv[3])
series = list(data)
passes, found = [], []
for r in range(repeat):
    out = []
    t = time.perf_counter()
    for x in series:
        values = [float(v) for v in x]
        if mode == "orig":
            cps, _ = compute_change_points_orig(values, max_pvalue=0.01, seed=1)
        else:
            cps, _ = compute_change_points(values)
        out.append([int(c.index) for c in cps])
    passes.append(time.perf_counter() - t)
    found = out
print(json.dumps({"seconds": passes, "found": found}))
"""


def planted(rng: np.random.Generator, n_series: int, n: int
            ) -> tuple[list[np.ndarray], list[list[int]]]:
    series, truth = [], []
    for i in range(n_series):
        x = rng.normal(100.0, 1.0, n)
        k = 0 if i % 5 == 0 else int(rng.integers(1, 4))
        positions: list[int] = []
        while len(positions) < k:
            p = int(rng.integers(25, n - 25))
            if all(abs(p - q) >= 25 for q in positions):
                positions.append(p)
        for p in sorted(positions):
            x[p:] += rng.choice([-1.0, 1.0]) * rng.uniform(2.0, 4.0)
        series.append(x)
        truth.append(sorted(positions))
    return series, truth


def score(found: list[list[int]], truth: list[list[int]], tol: int) -> tuple[float, float]:
    """(recall, precision) with one-to-one matching within +-tol."""
    hits = n_found = n_true = 0
    for f, t in zip(found, truth):
        free = list(t)
        for p in f:
            match = [q for q in free if abs(q - p) <= tol]
            if match:
                free.remove(min(match, key=lambda q: abs(q - p)))
                hits += 1
        n_found += len(f)
        n_true += len(t)
    return hits / max(n_true, 1), hits / max(n_found, 1)


def run_ours(series: list[np.ndarray], repeat: int, threads: int
             ) -> tuple[list[float], list[list[int]]]:
    """``detect_all`` on ``threads`` threads (what ``analyze change-points`` runs),
    ``repeat`` passes, each from a cold permutation cache."""
    from perfwarehouse.changepoints import analysis as cp

    cp.detect(series[0][:50])  # compile (numba cache) outside the timing
    passes, found = [], []
    for _ in range(repeat):
        cp._NULL_CACHE.clear()
        t = time.perf_counter()
        results = cp.detect_all(series, threads=threads)
        passes.append(time.perf_counter() - t)
        found = [[c.position for c in r.change_points] for r in results]
    return passes, found


def run_otava(python: str, series: list[np.ndarray], mode: str, repeat: int
              ) -> tuple[list[float], list[list[int]]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "series.npy"
        arr = np.empty(len(series), dtype=object)
        arr[:] = series
        np.save(path, arr, allow_pickle=True)
        out = subprocess.run([python, "-c", OTAVA, str(path), mode, str(repeat)],
                             capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result["seconds"], result["found"]


def stationary(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    if kind == "normal":
        return rng.normal(100.0, 1.0, n)
    if kind == "heavy-tailed":
        return 100.0 + rng.standard_t(2, n)
    if kind == "lognormal":
        return rng.lognormal(3.0, 0.5, n)
    if kind == "small ties":
        return np.round(rng.normal(100.0, 1.0, n), 3)
    return np.round(rng.normal(10.0, 1.0, n))


def real_shaped(rng: np.random.Generator, n: int, n_changes: int, decimals: int
                ) -> tuple[np.ndarray, list[int]]:
    """A history as campaigns save it: level 100 with lognormal noise of 1-3 %, a slow
    drift, ``n_changes`` steps of +-2..10 % at random positions (>= 20 points apart),
    1 % outliers 20-50 % slow, values rounded to ``decimals`` (ties)."""
    sigma = rng.uniform(0.01, 0.03)
    log_level = np.zeros(n)
    positions: list[int] = []
    while len(positions) < n_changes:
        p = int(rng.integers(20, n - 20))
        if all(abs(p - q) >= 20 for q in positions):
            positions.append(p)
    for p in positions:
        log_level[p:] += rng.choice([-1.0, 1.0]) * rng.uniform(0.02, 0.10)
    drift = np.linspace(0.0, rng.normal(0.0, 0.01), n)
    x = 100.0 * np.exp(log_level + drift + rng.normal(0.0, sigma, n))
    slow = rng.random(n) < 0.01
    x[slow] *= rng.uniform(1.2, 1.5, int(slow.sum()))
    return np.round(x, decimals), sorted(positions)


def agreement(ours: list[list[int]], theirs: list[list[int]], tol: int = 1) -> tuple[int, int, int]:
    """(matched within +-tol, ours, theirs) with one-to-one matching."""
    matched = 0
    for a, b in zip(ours, theirs):
        free = list(b)
        for p in a:
            near = [q for q in free if abs(q - p) <= tol]
            if near:
                free.remove(min(near, key=lambda q: abs(q - p)))
                matched += 1
    return matched, sum(len(a) for a in ours), sum(len(b) for b in theirs)


def real_histories(args: argparse.Namespace) -> None:
    """Real-shaped histories: ``--short`` of ~1,000 points (0-4 changes, values with one
    decimal: ties) and ``--long`` of 27,000 points with ~190 changes; perfwarehouse's
    defaults (every core and one thread, cold cache) against Otava's default, the same
    series, agreement of the change points within +-1 position."""
    rng = np.random.default_rng(args.seed + 7)
    sets = {
        f"{args.short} short histories (~1,000 points, 0-4 changes, 1 decimal)": [
            real_shaped(rng, int(rng.integers(900, 1100)), int(rng.integers(0, 5)), 1)
            for _ in range(args.short)],
        f"{args.long} long histories (27,000 points, 190 changes, 2 decimals)": [
            real_shaped(rng, 27_000, 190, 2) for _ in range(args.long)],
    }
    print("\n## Real-shaped histories")
    print("| series | perfwarehouse, every core (s) | perfwarehouse, 1 thread (s) | Otava "
          "default (s) | change points pw / Otava | matched +-1 | planted found +-1 pw / Otava |")
    print("|---|---|---|---|---|---|---|")
    cores = os.cpu_count() or 1
    for name, pairs in sets.items():
        if not pairs:
            continue
        series = [x for x, _ in pairs]
        truth = [t for _, t in pairs]
        many_t, ours = run_ours(series, 1, cores)
        one_t, _ = run_ours(series, 1, 1)
        cells = [f"{many_t[0]:.2f}", f"{one_t[0]:.2f}"]
        if args.otava_python:
            ot, theirs = run_otava(args.otava_python, series, "default", 1)
            m, a, b = agreement(ours, theirs)
            cells += [f"{ot[0]:.2f}", f"{a:,} / {b:,}", f"{m:,} ({100 * m / max(b, 1):.0f} % of Otava's)",
                      f"{score(ours, truth, 1)[0]:.3f} / {score(theirs, truth, 1)[0]:.3f}"]
        else:
            cells += ["-", f"{sum(len(f) for f in ours):,} / -", "-",
                      f"{score(ours, truth, 1)[0]:.3f} / -"]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def stream_levels(args: argparse.Namespace) -> None:
    """The level of the first test at each length, given its stream: the series of one
    length (distinct values, or small ties broken) share one stream of 999 permutations,
    so their false-alarm rate is P(max Q of a random order > the stream's critical
    value), estimated here with ``--fresh`` permutations from another seed (its standard
    error printed); lengths up to 10 are tested exactly, their level is exact."""
    from perfwarehouse.changepoints import analysis as cp
    from perfwarehouse.kernels.changepoints import permutation_maxima

    print(f"\n## Level of the first test given its stream ({args.fresh:,} fresh "
          f"permutations per length; alpha 0.01, 999 permutations, min size "
          f"{cp.DEFAULT_MIN_SIZE})")
    print("| length | level | standard error |")
    print("|---|---|---|")
    for n in (8, 9, 10, 11, 12, 15, 20, 30, 50, 100, 200, 500, 1000, 2000, 5000):
        ranks = np.arange(1.0, n + 1.0)
        stream = cp._stream(ranks, n, cp.DEFAULT_MIN_SIZE)
        if isinstance(stream, cp._Exact):  # exact: the share of orders with p <= alpha
            p = np.array([stream.p_value(v - 1e-9 * abs(v), 10, 999) for v in stream.values])
            level = float(np.sum(np.diff(-np.append(stream.tail, 0))[p <= 0.01])) / stream.total
            print(f"| {n:,} | {100 * level:.3f} % | exact |")
            continue
        stream.p_value(np.inf, 10**9, 999)  # all 999
        critical = np.sort(stream.maxima)[-cp.SEQUENTIAL_HITS]  # p <= 0.01 iff above it
        _, levels, n_levels = cp.ranks_and_levels(ranks)
        fresh, _ = permutation_maxima(ranks.copy(), levels, n_levels, cp.DEFAULT_MIN_SIZE,
                                      args.fresh, np.uint64(args.seed + n), np.inf, 1)
        threshold = fresh - 1e-9 * np.abs(fresh)
        level = float(np.mean(threshold > critical))
        se = (level * (1 - level) / args.fresh) ** 0.5
        print(f"| {n:,} | {100 * level:.2f} % | {100 * se:.2f} |", flush=True)


def calibration(args: argparse.Namespace) -> None:
    from perfwarehouse.changepoints import detect

    lengths = (10, 12, 20, 50, 100, 500, 1000, 5000)
    kinds = ("normal", "heavy-tailed", "lognormal", "ties", "small ties")
    print(f"\n## Calibration: share of stationary series with any change point "
          f"({args.calibration} series per cell; {args.calibration // 4} at 5,000; "
          f"Otava {args.otava_calibration} per cell up to 1,000)")
    header = "| length | " + " | ".join(
        f"{k} (pw α=0.01) | {k} (pw α=0.05)" + (f" | {k} (Otava)" if args.otava_python else "")
        for k in kinds) + " |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    rng = np.random.default_rng(args.seed + 1)
    for n in lengths:
        cells = []
        count = args.calibration if n < 5000 else args.calibration // 4
        for kind in kinds:
            data = [stationary(rng, kind, n) for _ in range(count)]
            default = np.mean([bool(detect(x).change_points) for x in data])
            loose = np.mean([bool(detect(x, alpha=0.05).change_points) for x in data])
            cells += [f"{100 * default:.1f} %", f"{100 * loose:.1f} %"]
            if args.otava_python:
                if n <= 1000:
                    _, found = run_otava(args.otava_python, data[:args.otava_calibration],
                                         "default", 1)
                    cells.append(f"{100 * np.mean([bool(f) for f in found]):.1f} %")
                else:
                    cells.append("-")
        print(f"| {n:,} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=1000)
    parser.add_argument("--points", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--otava-python", default=None)
    parser.add_argument("--otava-repeat", type=int, default=1)
    parser.add_argument("--orig-series", type=int, default=3)
    parser.add_argument("--calibration", type=int, default=400)
    parser.add_argument("--otava-calibration", type=int, default=100)
    parser.add_argument("--skip-calibration", action="store_true")
    parser.add_argument("--calibration-only", action="store_true")
    parser.add_argument("--stream-levels", action="store_true",
                        help="print the level of the first test at each length and stop")
    parser.add_argument("--fresh", type=int, default=20_000)
    parser.add_argument("--real", action="store_true",
                        help="time the real-shaped histories only (--short, --long)")
    parser.add_argument("--short", type=int, default=10)
    parser.add_argument("--long", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if args.real:
        real_histories(args)
        return
    if args.stream_levels:
        stream_levels(args)
        return
    if args.calibration_only:
        calibration(args)
        return

    rng = np.random.default_rng(args.seed)
    series, truth = planted(rng, args.series, args.points)
    n_true = sum(len(t) for t in truth)
    print(f"# {args.series:,} series x {args.points} points, {n_true:,} planted steps")
    cores = os.cpu_count() or 1
    ours_t, ours = run_ours(series, args.repeat, cores)
    one_t, one = run_ours(series, args.repeat, 1)
    rows = [(f"perfwarehouse (defaults, {cores} threads: every core, as analyze "
             f"change-points runs)", statistics.median(ours_t), len(ours_t), ours),
            ("perfwarehouse (defaults, 1 thread)", statistics.median(one_t), len(one_t), one)]
    if args.otava_python:
        ot, of = run_otava(args.otava_python, series, "default", args.otava_repeat)
        rows.append(("Otava compute_change_points (default)", statistics.median(ot), len(ot),
                     of))
        k = args.orig_series
        if k > 0:
            gt, gf = run_otava(args.otava_python, series[:k], "orig", 1)
            rows.append((f"Otava compute_change_points_orig (E-divisive with permutations; "
                         f"{k} series, extrapolated)",
                         statistics.median(gt) * args.series / k, 1, None))
            r2, p2 = score(gf, truth[:k], 2)
            print(f"  (orig on its {k} series: recall {r2:.3f}, precision {p2:.3f} at +-2)")
    base = rows[0][1]
    print("\n| method | time for all series (s, median) | passes | vs perfwarehouse "
          "| recall +-2 | precision +-2 | recall +-5 | precision +-5 |")
    print("|---|---|---|---|---|---|---|---|")
    for name, seconds, passes, found in rows:
        if found is None:
            metrics = "- | - | - | -"
        else:
            r2, p2 = score(found, truth, 2)
            r5, p5 = score(found, truth, 5)
            metrics = f"{r2:.3f} | {p2:.3f} | {r5:.3f} | {p5:.3f}"
        print(f"| {name} | {seconds:.2f} | {passes} | {seconds / base:.1f}x | {metrics} |")
    print(f"\nperfwarehouse passes (s), {cores} threads: {', '.join(f'{t:.2f}' for t in ours_t)}; "
          f"1 thread: {', '.join(f'{t:.2f}' for t in one_t)}")
    if not args.skip_calibration:
        calibration(args)


if __name__ == "__main__":
    main()
