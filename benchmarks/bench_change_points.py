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
2. **Calibration.** The share of stationary series (normal N(100, 1); lognormal(3, 0.5);
   ties: normal rounded to integers; small ties: N(100, 1) rounded to 0.001, whose ties
   the search breaks at random from 200 points on) that get any change point, by length
   20 .. 5,000, for perfwarehouse's defaults, for ``--alpha 0.05``, and for Otava's default
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
    import perfwarehouse.changepoints as cp

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
    if kind == "lognormal":
        return rng.lognormal(3.0, 0.5, n)
    if kind == "small ties":
        return np.round(rng.normal(100.0, 1.0, n), 3)
    return np.round(rng.normal(10.0, 1.0, n))


def calibration(args: argparse.Namespace) -> None:
    from perfwarehouse.changepoints import detect

    lengths = (20, 50, 100, 500, 1000, 5000)
    kinds = ("normal", "lognormal", "ties", "small ties")
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
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

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
