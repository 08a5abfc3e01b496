"""Issue 41's acceptance measurement: a year of nightly history, then 8 more nights.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_refresh_nightly.py \\
        [--benchmarks 1500] [--nights 360] [--more 8] [--dir /tmp/refresh-nightly] \\
        [--processes 1] [--job NAME ...]

1. A nightly campaign of ``--benchmarks`` benchmarks over ``--nights`` revisions (one
   trial of each benchmark per night, lognormal noise of 1.5 %), generated with a seed:
   half of the benchmarks have 1-3 old steps of 3-20 % (either sign) between nights 20 and
   ``nights - 20`` (a quarter of the nights from either end below 80 nights); ingested,
   then ``refresh`` (every analysis, the site) is timed, after a warm-up on a tiny
   history that fills numba's cache.
2. ``--more`` nights more, in which benchmarks 7, 700 and 1,400 (scaled to
   ``--benchmarks``) get 15 % slower from the third new night; ingested, then ``refresh
   --fail-on new-regression --format json`` is timed: its exit code (3 expected), the new
   findings it names, its time over the first refresh's (<= 0.35 expected).
3. The change points the second refresh stored (found incrementally, from each series'
   last change point: :mod:`perfwarehouse.jobs.incremental`) against a full search of the
   same data (``run_job`` of ``change-points``, not written): the share of series with the
   same verdict and the same change points within one position (>= 99 % expected).

Prints one JSON object of figures; ``--keep`` leaves the warehouse in ``--dir``. The times
are wall-clock seconds of the ``perfwarehouse refresh`` processes (CLI start included).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
START = datetime(2025, 1, 1, tzinfo=timezone.utc)


def plan(benchmarks: int, nights: int, more: int, seed: int
         ) -> tuple[dict[int, list[tuple[int, float]]], list[int]]:
    """(old steps per benchmark: [(first night, fraction)], the 3 regressing benchmarks)."""
    rng = np.random.default_rng(seed)
    steps: dict[int, list[tuple[int, float]]] = {}
    for b in range(benchmarks):
        if rng.random() < 0.5:
            k = int(rng.integers(1, 4))
            edge = min(20, nights // 4)
            firsts = sorted(rng.choice(np.arange(edge, nights - edge), k, replace=False).tolist())
            steps[b] = [(int(f), float(rng.choice([-1, 1]) * rng.uniform(0.03, 0.20)))
                        for f in firsts]
    regressing = sorted({7 * benchmarks // 1500, 700 * benchmarks // 1500,
                         1400 * benchmarks // 1500})
    for b in regressing:
        steps.setdefault(b, []).append((nights + min(2, more - 1), 0.15))
    return steps, regressing


def write_nights(path: Path, first: int, last: int, benchmarks: int,
                 steps: dict[int, list[tuple[int, float]]], seed: int) -> Path:
    """Native trial-log records of nights ``first..last-1`` (one run per night)."""
    base = np.random.default_rng(seed).uniform(1.0, 100.0, benchmarks)
    with path.open("w") as out:
        for night in range(first, last):
            rng = np.random.default_rng([seed, night])
            noise = np.exp(rng.normal(0.0, 0.015, benchmarks))
            when = START + timedelta(days=night)
            rev_time = when.isoformat().replace("+00:00", "Z")
            for b in range(benchmarks):
                factor = 1.0
                for at, s in steps.get(b, []):
                    if night >= at:
                        factor *= 1.0 + s
                out.write(json.dumps({
                    "v": 1, "campaign": "nightly", "run_id": f"n{night:04d}",
                    "node": "c220g2-000001", "hardware_type": "c220g2", "run_index": night,
                    "order_kind": "fixed", "seed": seed, "position": b,
                    "run_size": benchmarks, "benchmark": f"bench{b:04d}", "settings": {},
                    "metric": "runtime", "unit": "s", "higher_is_better": False,
                    "values": [float(base[b] * factor * noise[b])],
                    "started_at": (when + timedelta(hours=1, seconds=b)).isoformat()
                    .replace("+00:00", "Z"),
                    "status": "ok", "revision": f"r{night:04d}", "revision_time": rev_time,
                }) + "\n")
    return path


def cli(home: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run ``perfwarehouse`` in ``home``: (process, wall seconds, CPU seconds of it and
    its job workers)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "perfwarehouse", "--warehouse",
                          str(home / "warehouse"), *args], capture_output=True, text=True,
                         cwd=home, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, wall, cpu


def nights(home: Path, benchmarks: int, nights: int, more: int, seed: int
           ) -> tuple[Path, Path, list[int]]:
    """The two files (the history, the nights after it) and the regressing benchmarks."""
    steps, regressing = plan(benchmarks, nights, more, seed)
    old = write_nights(home / "old.jsonl", 0, nights, benchmarks, steps, seed)
    new = write_nights(home / "new.jsonl", nights, nights + more, benchmarks, steps, seed)
    return old, new, regressing


def warm_up(home: Path) -> None:
    """A tiny history through ingest and two refreshes: numba's cache of this checkout
    is filled before anything is timed (a cold cache compiles in the first refresh)."""
    home.mkdir(parents=True, exist_ok=True)
    old, new, _ = nights(home, 20, 40, 8, 1)
    for step in (("ingest", "jsonl", str(old)), ("refresh", "--no-site"),
                 ("ingest", "jsonl", str(new)), ("refresh", "--no-site")):
        out = cli(home, *step)[0]
        assert out.returncode in (0, 3), out.stderr


def same_within_one(stored: Any, full: Any) -> dict[str, Any]:
    """Series (campaign, hardware type, config_id) of two ``change_points`` tables: how
    many, and the share with the same verdict (change points or none) and the same number
    of change points each within one position."""
    def points(table: Any) -> dict[tuple[Any, ...], list[int]]:
        out: dict[tuple[Any, ...], list[int]] = {}
        for r in table.select(["campaign", "hardware_type", "config_id", "position"]
                              ).to_pylist():
            found = out.setdefault((r["campaign"], r["hardware_type"], r["config_id"]), [])
            if r["position"] is not None:
                found.append(r["position"])
        return {k: sorted(v) for k, v in out.items()}

    mine, theirs = points(stored), points(full)
    keys = sorted(set(mine) | set(theirs), key=repr)
    same = [k for k in keys if len(mine.get(k, [])) == len(theirs.get(k, [-1]))
            and all(abs(a - b) <= 1 for a, b in zip(mine[k], theirs[k]))]
    verdict = [k for k in keys if k in mine and k in theirs
               and bool(mine[k]) == bool(theirs[k])]
    return {"series": len(keys), "same_within_one": len(same) / max(1, len(keys)),
            "same_verdict": len(verdict) / max(1, len(keys)),
            "differ": [(str(k[2]), mine.get(k), theirs.get(k)) for k in keys
                       if k not in same][:10]}


def agreement(home: Path) -> dict[str, Any]:
    """The stored change points (the second refresh's) against a full search of the same
    data: series with the same verdict and change points within one position."""
    sys.path.insert(0, str(ROOT))
    from perfwarehouse.jobs.change_points import JOB
    from perfwarehouse.jobs.framework import run_job
    from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

    warehouse = Warehouse(home / "warehouse")
    start = time.perf_counter()
    full = run_job(warehouse, JOB, JOB.params(), write=False).tables["change_points"]
    seconds = time.perf_counter() - start
    with warehouse.catalog() as con:
        stored = fetch_arrow(con, "SELECT * FROM change_points")
    return same_within_one(stored, full) | {"full_search_s": round(seconds, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--benchmarks", type=int, default=1500)
    ap.add_argument("--nights", type=int, default=360)
    ap.add_argument("--more", type=int, default=8)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/refresh-nightly"))
    ap.add_argument("--processes", default=None)
    ap.add_argument("--job", action="append", default=[])
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    home = args.dir
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    warm_up(home / "warm-up")
    old, new, regressing = nights(home, args.benchmarks, args.nights, args.more, args.seed)
    extra = [a for j in args.job for a in ("--job", j)]
    if args.processes:
        extra += ["--processes", str(args.processes)]
    out, ingest_old, _ = cli(home, "ingest", "jsonl", str(old))
    assert out.returncode == 0, out.stderr
    first, first_s, first_cpu = cli(home, "refresh", *extra, "--format", "json")
    assert first.returncode == 0, first.stderr
    out, ingest_new, _ = cli(home, "ingest", "jsonl", str(new))
    assert out.returncode == 0, out.stderr
    second, second_s, second_cpu = cli(home, "refresh", *extra, "--fail-on",
                                       "new-regression", "--format", "json")
    found = json.loads(second.stdout)["new"] if second.stdout.strip() else []
    names = sorted({f["benchmark"] for f in found if f["kind"] == "regression"})
    expected = [f"bench{b:04d}" for b in regressing]
    figures = {
        "benchmarks": args.benchmarks, "nights": args.nights, "more": args.more,
        "jobs": args.job or "every analysis",
        "ingest_old_s": round(ingest_old, 1), "ingest_new_s": round(ingest_new, 1),
        "first_refresh_s": round(first_s, 1), "second_refresh_s": round(second_s, 1),
        "ratio": round(second_s / first_s, 3),
        "first_refresh_cpu_s": round(first_cpu, 1), "second_refresh_cpu_s": round(second_cpu, 1),
        "cpu_ratio": round(second_cpu / first_cpu, 3), "second_exit": second.returncode,
        "regressions_named": names, "expected": expected,
        "other_findings": [(f["kind"], f["benchmark"]) for f in found
                           if f["benchmark"] not in expected],
        "loadavg": os.getloadavg(),
        "first_stderr": first.stderr.strip().splitlines(),
        "second_stderr": second.stderr.strip().splitlines(),
    }
    figures |= agreement(home)
    print(json.dumps(figures, indent=1))
    if not args.keep:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
