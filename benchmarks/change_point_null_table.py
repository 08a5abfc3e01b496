"""Tabulate the permutation null of change points' test statistic for long untied parts.

    PYTHONPATH=. .venv/bin/python benchmarks/change_point_null_table.py
        [--lengths 512,1024,...,32768] [--draws 200000]

For each length m it draws ``--draws`` random orders of the ranks 1..m (min_size 4, a
splitmix64 stream seeded apart from the ones ``detect`` uses), takes max_tau Q(tau) / m of
each (``perfwarehouse.kernels.changepoints.permutation_maxima``), and prints its upper
quantiles at 1e-1 .. 1e-4 with the step per tenfold between them, then the
``NULL_QUANTILES`` rows of ``perfwarehouse/changepoints/parameters.py`` (the quantile at
``NULL_QUANTILE_TAIL``, 1e-3: 200 draws above it). It checks what the table's use
relies on: the quantile does not fall as m grows (a length takes the next tabulated
one's row). The step beyond the row (1e-3 to 1e-4, 20 draws above: within about 0.1)
is what ``NULL_DECADE`` stands for.

200,000 draws at each of the seven lengths took 9 minutes of one core (2026-11-27): 3.5 s
at 512 points, 58 s at 8,192, 125 s at 16,384, 290 s at 32,768.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perfwarehouse.changepoints.parameters import (  # noqa: E402
    DEFAULT_MIN_SIZE,
    NULL_QUANTILE_TAIL,
)
from perfwarehouse.kernels.changepoints import permutation_maxima  # noqa: E402

SEED = 0xC0FFEE


def null_maxima(m: int, draws: int) -> np.ndarray:
    """max Q / m of ``draws`` random orders of the ranks 1..m."""
    ranks = np.arange(1.0, m + 1.0)
    levels = np.arange(m, dtype=np.int64)
    maxima, _ = permutation_maxima(ranks, levels, m, DEFAULT_MIN_SIZE, draws,
                                   np.uint64(SEED + 7 * m), np.inf, draws + 1)
    return maxima / m


def upper_quantile(values: np.ndarray, tail: float) -> float:
    """The value reached by a share ``tail`` of ``values`` (the k-th largest, k = tail x n)."""
    k = max(1, int(round(tail * values.size)))
    return float(np.partition(values, values.size - k)[values.size - k])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="512,1024,2048,4096,8192,16384,32768")
    parser.add_argument("--draws", type=int, default=200_000)
    args = parser.parse_args()
    tails = [t for t in (1e-1, 1e-2, 1e-3, 1e-4) if t * args.draws >= 5]
    rows = []
    print("| m | draws | " + " | ".join(f"{t:g}" for t in tails) + " | steps per tenfold |"
          " seconds |")
    print("|---" * (len(tails) + 4) + "|")
    for m in (int(v) for v in args.lengths.split(",")):
        start = time.perf_counter()
        q = null_maxima(m, args.draws)
        quantiles = [upper_quantile(q, t) for t in tails]
        steps = np.diff(quantiles)
        print(f"| {m:,} | {args.draws:,} | " + " | ".join(f"{v:.4f}" for v in quantiles)
              + " | " + ", ".join(f"{s:.2f}" for s in steps)
              + f" | {time.perf_counter() - start:.1f} |", flush=True)
        rows.append((m, quantiles[tails.index(NULL_QUANTILE_TAIL)]))
    for (m0, q0), (m1, q1) in zip(rows, rows[1:]):
        if q1 < q0:
            print(f"  ! the quantile falls from {m0:,} to {m1:,} points ({q0:.4f} > {q1:.4f})")
    print("\nNULL_QUANTILES = (" + ", ".join(f"({m:_}, {q:.4f})" for m, q in rows) + ")")


if __name__ == "__main__":
    main()
