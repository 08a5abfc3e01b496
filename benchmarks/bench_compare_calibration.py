"""Calibration of ``perfwarehouse compare``'s verdicts: A/A false verdicts and power.

For each sample size n (trials per side) and each correction (the default ``bh``,
``holm``, ``none``, ``bonferroni``), simulate comparisons of ``--rows`` configurations
at the default confidence 0.95 and threshold 0:

* A/A: both sides drawn from one lognormal distribution (sigma ``--noise``); the rate of
  false verdicts (slower or faster) per row, and per comparison (any false verdict);
* power: ``--changed`` of the rows shifted by +2, +5 or +10 % (the rest unchanged), the
  share of the shifted rows called slower.

Prints a Markdown table (the one in docs/compare.md). Run:

    PYTHONPATH=$PWD python benchmarks/bench_compare_calibration.py --reps 200

The p-values and intervals come from :func:`perfwarehouse.compare.compare_samples`
(exact Mann-Whitney, log-scale Hodges-Lehmann); the corrections from
:func:`perfwarehouse.compare.adjust`, as ``compare_table`` applies them.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from perfwarehouse.compare import adjust, compare_samples, judge

CORRECTIONS = ("bh", "holm", "none", "bonferroni")


def simulate(n: int, rows: int, changed: int, shift_pct: float, noise: float, reps: int,
             seed: int, confidence: float = 0.95) -> dict[str, tuple[float, float, float]]:
    """{correction: (false verdicts per null row, comparisons with any false verdict,
    power on the shifted rows)}."""
    rng = np.random.default_rng(seed)
    shifted = changed if shift_pct else 0
    false_rows = dict.fromkeys(CORRECTIONS, 0)
    false_any = dict.fromkeys(CORRECTIONS, 0)
    hits = dict.fromkeys(CORRECTIONS, 0)
    for _ in range(reps):
        results = []
        for r in range(rows):
            x = rng.lognormal(0.0, noise, n)
            y = rng.lognormal(math.log1p(shift_pct / 100) if r < shifted else 0.0, noise, n)
            results.append(compare_samples(x, y, confidence=confidence, threshold=0.0))
        p = np.array([c.p_value for c in results])
        compared = np.ones(rows, dtype=bool)
        for corr in CORRECTIONS:
            adjusted = adjust(p, compared, corr)
            verdicts = [judge(c.change_pct, c.ci_low_pct, c.ci_high_pct, float(a), False,
                              confidence, 0.0) for c, a in zip(results, adjusted)]
            false = sum(v in ("slower", "faster") for v in verdicts[shifted:])
            false_rows[corr] += false
            false_any[corr] += false > 0
            hits[corr] += sum(v == "slower" for v in verdicts[:shifted])
    nulls = (rows - shifted) * reps
    return {c: (false_rows[c] / nulls, false_any[c] / reps,
                hits[c] / (shifted * reps) if shifted else math.nan) for c in CORRECTIONS}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200, help="comparisons per cell")
    ap.add_argument("--rows", type=int, default=50, help="configurations per comparison")
    ap.add_argument("--changed", type=int, default=10, help="shifted rows (power runs)")
    ap.add_argument("--noise", type=float, default=0.03,
                    help="lognormal sigma of the trial values (0.03 = ~3 %% spread)")
    ap.add_argument("--sizes", default="5,10,20,30")
    args = ap.parse_args()
    start = time.perf_counter()
    print(f"{args.rows} configurations per comparison, lognormal noise sigma {args.noise}, "
          f"{args.reps} comparisons per cell, confidence 0.95, threshold 0; power: "
          f"{args.changed} of the {args.rows} rows shifted\n")
    print("| n per side | correction | A/A false verdicts per row | A/A comparisons with "
          "any false verdict | power +2 % | power +5 % | power +10 % |")
    print("|---|---|---|---|---|---|---|")
    for n in (int(v) for v in args.sizes.split(",")):
        aa = simulate(n, args.rows, 0, 0.0, args.noise, args.reps, seed=n)
        power = {s: simulate(n, args.rows, args.changed, s, args.noise, args.reps,
                             seed=1000 * n + int(s)) for s in (2.0, 5.0, 10.0)}
        for corr in CORRECTIONS:
            label = f"**{corr}** (default)" if corr == "bh" else corr
            print(f"| {n} | {label} | {aa[corr][0]:.4f} | {aa[corr][1]:.3f} | "
                  + " | ".join(f"{power[s][corr][2]:.2f}" for s in (2.0, 5.0, 10.0)) + " |")
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
