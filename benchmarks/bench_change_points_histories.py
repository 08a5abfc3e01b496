"""Change points on short, stepped histories: this code, another checkout and Apache Otava,
the same series, in one run.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_change_points_histories.py \\
        [--against /tmp/checkout-of-the-base] [--otava-python /tmp/otava-venv/bin/python] \\
        [--repeat 3] [--profile]

Two shapes of history, both short and stepped (the settling rules of issue 32 were
measured on long drifting series; these are the other kind):

* **signal**: 10 series of 950-1,050 points with 20-34 steps each (a level held for 15-60
  points), the shape of the step-function, regression-and-fix, outlier and banding
  patterns that Otava's own tests and test-data generators plant: a level of a few
  thousand (integer values, as a throughput in operations per second), Gaussian noise of
  0.5-1.5 %, steps of 3-15 %, a few single-point drops of 30-45 % (an anomalous run), and
  on every third series two bands (values alternating between two levels 2 % apart).
* **nightly**: 225 series of 300-480 points (a year of nightly runs; 87,000 points in
  all), 0-4 steps of 2-10 %, lognormal noise of 1-3 %, 1 % of runs 20-50 % slow, values
  rounded to 2 decimals.

Each side runs ``changepoints.detect_all`` with its defaults (every core, as ``analyze
change-points`` runs it) in a child process of its own (``PYTHONPATH`` = its checkout),
after one small series that loads the numba cache; the sides alternate, ``--repeat``
passes each, and the median wall time is printed with the ratio. The change points of
the two checkouts must be the same positions (printed: series that differ); against
Otava's ``compute_change_points`` (its defaults: window 50, p 0.001), the number of its
change points matched within +-1 position. ``--profile`` prints where this code's time
goes (cProfile, one pass). ``benchmarks/history.py`` keeps the CPU time of this code on
both sets in the project's history.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

SIDE = """
import json, sys, time
import numpy as np
from perfwarehouse.changepoints.analysis import detect, detect_all
data = np.load(sys.argv[1])
series = [data[k] for k in data.files]
detect(np.arange(100.0))  # load the numba cache outside the timing
start, cpu = time.perf_counter(), time.process_time()
results = detect_all(series)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"seconds": seconds, "cpu": cpu,
                  "found": [[c.position for c in r.change_points] for r in results],
                  "p": [[c.p_value for c in r.change_points] for r in results]}))
"""

OTAVA = """
import json, sys, time
import numpy as np
from otava.analysis import compute_change_points
data = np.load(sys.argv[1])
series = [[float(v) for v in data[k]] for k in data.files]
compute_change_points(series[0][:100])
start, cpu = time.perf_counter(), time.process_time()
found = [[int(c.index) for c in compute_change_points(x)[0]] for x in series]
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"seconds": seconds, "cpu": cpu, "found": found}))
"""


def _positions(rng: np.random.Generator, n: int, k: int, gap: int) -> list[int]:
    """``k`` sorted step positions in ``n`` points: k + 1 levels of at least ``gap`` points,
    the rest of the points shared among them at random."""
    spare = n - (k + 1) * gap
    if spare < 0:
        raise ValueError(f"{k} steps at least {gap} apart do not fit in {n} points")
    lengths = gap + rng.multinomial(spare, np.full(k + 1, 1.0 / (k + 1)))
    return [int(p) for p in np.cumsum(lengths)[:-1]]


def signal_series(rng: np.random.Generator) -> tuple[np.ndarray, list[int]]:
    """One series of the 'signal' shape (module docstring) and its planted steps."""
    n = int(rng.integers(950, 1051))
    steps = _positions(rng, n, int(rng.integers(20, 35)), 15)
    level = np.full(n, float(rng.uniform(2_000, 30_000)))
    for p in steps:
        level[p:] *= 1.0 + rng.choice([-1.0, 1.0]) * rng.uniform(0.03, 0.15)
    x = level * (1.0 + rng.normal(0.0, rng.uniform(0.005, 0.015), n))
    if rng.random() < 1 / 3:  # banding: two close levels, alternating
        x *= np.where(rng.random(n) < 0.5, 1.0, 1.02)
    drops = rng.choice(n, size=int(rng.integers(1, 4)), replace=False)
    x[drops] *= rng.uniform(0.55, 0.70, drops.size)
    return np.round(x), steps


def nightly_series(rng: np.random.Generator) -> tuple[np.ndarray, list[int]]:
    """One series of the 'nightly' shape (module docstring) and its planted steps."""
    n = int(rng.integers(300, 481))
    steps = _positions(rng, n, int(rng.integers(0, 5)), 20)
    log_level = np.zeros(n)
    for p in steps:
        log_level[p:] += rng.choice([-1.0, 1.0]) * rng.uniform(0.02, 0.10)
    x = 100.0 * np.exp(log_level + rng.normal(0.0, rng.uniform(0.01, 0.03), n))
    slow = rng.random(n) < 0.01
    x[slow] *= rng.uniform(1.2, 1.5, int(slow.sum()))
    return np.round(x, 2), steps


def histories(seed: int) -> dict[str, tuple[list[np.ndarray], list[list[int]]]]:
    """The two sets of series, with their planted steps."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, make, count in (("signal", signal_series, 10), ("nightly", nightly_series, 225)):
        pairs = [make(rng) for _ in range(count)]
        out[name] = ([x for x, _ in pairs], [t for _, t in pairs])
    return out


def run_side(code: str, python: str, path: Path, pythonpath: str | None) -> dict[str, object]:
    """One pass of one side in a child process; its printed JSON."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([python, "-c", code, str(path)], env=env, cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def matched(ours: list[list[int]], theirs: list[list[int]], tol: int = 1) -> int:
    """Change points of ``theirs`` matched one-to-one by one of ``ours`` within +-tol."""
    count = 0
    for a, b in zip(ours, theirs):
        free = list(b)
        for p in a:
            near = [q for q in free if abs(q - p) <= tol]
            if near:
                free.remove(min(near, key=lambda q: abs(q - p)))
                count += 1
    return count


def profile(series: list[np.ndarray]) -> None:
    """Where this code's time goes on ``series`` (one thread, so the profile sees it)."""
    import cProfile
    import pstats

    from perfwarehouse.changepoints.analysis import detect, detect_all

    detect(np.arange(100.0))
    prof = cProfile.Profile()
    prof.enable()
    detect_all(series, threads=1)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="a checkout of the code to compare with")
    parser.add_argument("--otava-python", help="a python with apache-otava installed")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--only", choices=["signal", "nightly"])
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    sets = histories(args.seed)
    for name, (series, truth) in sets.items():
        if args.only and name != args.only:
            continue
        points = sum(x.size for x in series)
        print(f"\n## {name}: {len(series)} series, {points:,} points, "
              f"{sum(len(t) for t in truth):,} planted steps")
        if args.profile:
            profile(series)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "series.npz"
            np.savez(path, *series)
            sides: dict[str, tuple[str, str, str | None]] = {
                "this code": (SIDE, sys.executable, str(ROOT))}
            if args.against:
                sides["base"] = (SIDE, sys.executable, str(Path(args.against).resolve()))
            if args.otava_python:
                sides["Otava"] = (OTAVA, args.otava_python, None)
            runs: dict[str, list[dict[str, object]]] = {k: [] for k in sides}
            for _ in range(args.repeat):  # alternating
                for label, (code, python, pythonpath) in sides.items():
                    runs[label].append(run_side(code, python, path, pythonpath))
        ours = runs["this code"][-1]["found"]
        assert isinstance(ours, list)
        base = statistics.median(float(r["seconds"]) for r in runs["this code"])  # type: ignore[arg-type]
        print("| side | median wall s | CPU s | passes (wall s) | change points | "
              "this code's / theirs matched +-1 |")
        print("|---|---|---|---|---|---|")
        for label, passes in runs.items():
            walls = [float(r["seconds"]) for r in passes]  # type: ignore[arg-type]
            cpus = [float(r["cpu"]) for r in passes]  # type: ignore[arg-type]
            found = passes[-1]["found"]
            assert isinstance(found, list)
            both = matched(ours, found)
            print(f"| {label} | {statistics.median(walls):.2f} "
                  f"({statistics.median(walls) / base:.2f}x) | {statistics.median(cpus):.2f} | "
                  f"{', '.join(f'{w:.2f}' for w in walls)} | {sum(len(f) for f in found):,} | "
                  f"{both:,} of {sum(len(f) for f in found):,} |")
        if args.against:
            theirs = runs["base"][-1]["found"]
            assert isinstance(theirs, list)
            differ = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
            p_ours, p_base = runs["this code"][-1]["p"], runs["base"][-1]["p"]
            assert isinstance(p_ours, list) and isinstance(p_base, list)
            p_differ = sum(a != b for x, y in zip(p_ours, p_base) for a, b in zip(x, y))
            print(f"\nseries whose change points differ from the base: {len(differ)}"
                  + (f" ({differ[:10]})" if differ else "")
                  + f"; p-values that differ: {p_differ}")


if __name__ == "__main__":
    main()
