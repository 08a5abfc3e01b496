"""Change points on seasonal and drifting series: steps or level shifts (issue 39).

    .venv/bin/python benchmarks/bench_change_point_structure.py [--scale 1.0] [--seed 1]

Generates the long-term OrderSage-shaped campaign (``perfwarehouse generate
ordersage-longterm``: planted drift on about 6 % of the configurations, daily and weekly
cycles on some hardware types, no steps), plants a step of +-10 % at a random point
(20-80 % of the way) into a random 10 % of the series, and runs what the change-points job
runs on every series (median of each trial's values, in start order): E-divisive with the
permutation test (:func:`perfwarehouse.changepoints.detect_all`, the job's defaults), then
:func:`perfwarehouse.jobs.change_points.shift_kinds`.

Prints, for the series the generator made seasonal or drifting (without a planted
step), the share that carries an action-needed change point (a step whose interval lies
beyond +-1 %) before and after the classification (target <= 5 %), and the share of
planted steps found as an action-needed step within 2 % of the series' length of where
they were planted (target >= 95 %); and the same for the series with neither.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perfwarehouse.changepoints import detect_all  # noqa: E402
from perfwarehouse.generate import generate  # noqa: E402
from perfwarehouse.jobs.change_points import needs_action, shift_kinds  # noqa: E402

STEP = 0.10
PLANTED_SHARE = 0.10


def series_of(records) -> dict[tuple[str, str, str, str], tuple[np.ndarray, np.ndarray]]:
    """(hardware type, benchmark, settings, metric) -> (days, trial medians) by start."""
    cols = {k: records.column(k).to_pylist() for k in
            ("hardware_type", "benchmark", "settings", "metric")}
    medians = np.array([float(np.median(v)) for v in records.column("values").to_pylist()])
    days = records.column("started_at").cast("int64").to_numpy() / 86_400e6
    index: dict[tuple[str, str, str, str], list[int]] = defaultdict(list)
    for i, key in enumerate(zip(cols["hardware_type"], cols["benchmark"], cols["settings"],
                                cols["metric"])):
        index[key].append(i)
    out = {}
    for key, rows in index.items():
        idx = np.array(rows)
        order = np.argsort(days[idx], kind="stable")
        out[key] = (days[idx][order], medians[idx][order])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    t0 = time.perf_counter()
    generated = generate("ordersage-longterm", seed=args.seed, scale=args.scale)
    truth = generated.truth
    series = series_of(generated.records)
    drifting = {(d["hardware_type"], d["benchmark"], d["settings"], d["metric"])
                for d in truth["drifting"]}
    seasonal_types = {s["hardware_type"] for s in truth["seasonality"]}
    rng = np.random.default_rng(args.seed + 1000)
    planted: dict[tuple[str, str, str, str], tuple[int, float]] = {}
    for key, (_days, values) in series.items():
        if rng.random() < PLANTED_SHARE and values.size >= 40:
            at = int(rng.uniform(0.2, 0.8) * values.size)
            sign = float(rng.choice([-1.0, 1.0]))
            values[at:] *= 1.0 + sign * STEP
            planted[key] = (at, sign)
    keys = list(series)
    print(f"{len(keys):,} series, {sum(v.size for _, v in series.values()):,} points, "
          f"{len(planted)} planted steps; generated in {time.perf_counter() - t0:.1f} s")
    t1 = time.perf_counter()
    results = detect_all([series[k][1] for k in keys])
    t2 = time.perf_counter()
    tallies: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # series, before, after
    found = 0
    for key, result in zip(keys, results):
        days, values = series[key]
        cps = result.change_points
        shifts = shift_kinds(values, days, [c.position for c in cps], [False] * len(cps))
        action = [needs_action(c.change_pct, c.ci_low_pct, c.ci_high_pct, 1.0) for c in cps]
        kept = [a and s == "step" for a, (s, _why) in zip(action, shifts)]
        if key in planted:
            at, sign = planted[key]
            near = max(2, int(0.02 * values.size))
            found += any(k and abs(c.position - at) <= near and np.sign(c.change_pct) == sign
                         for c, k in zip(cps, kept))
            continue
        kind = ("drifting" if key in drifting else
                "seasonal" if key[0] in seasonal_types else "neither")
        tallies[kind][0] += 1
        tallies[kind][1] += any(action)
        tallies[kind][2] += any(kept)
    t3 = time.perf_counter()
    print(f"detect {t2 - t1:.1f} s, classify {t3 - t2:.1f} s")
    print(f"{'series':<10} {'n':>6} {'action before':>14} {'action after':>13}")
    for kind in ("drifting", "seasonal", "neither"):
        n, before, after = tallies[kind]
        print(f"{kind:<10} {n:>6} {before:>8} ({before / max(n, 1):5.1%}) "
              f"{after:>6} ({after / max(n, 1):5.1%})")
    print(f"planted steps found as action-needed steps: {found} of {len(planted)} "
          f"({found / max(len(planted), 1):.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
