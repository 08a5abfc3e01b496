"""Slow, obvious twins for perfwarehouse.compare: corrections written from their
definitions, the interval from the enumerating Hodges-Lehmann twin on log values."""

from __future__ import annotations

import math

from tests.naive.shift import hodges_lehmann_naive


def holm_naive(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def bh_naive(p: list[float]) -> list[float]:
    m = len(p)
    return [min(min(1.0, p[j] * m / (sum(1 for q in p if q <= p[j]))) for j in range(m)
                if p[j] >= p[i]) for i in range(m)]


def bonferroni_naive(p: list[float]) -> list[float]:
    return [min(1.0, q * len(p)) for q in p]


def change_naive(x: list[float], y: list[float], confidence: float
                 ) -> tuple[float, float | None, float | None]:
    est, low, high = hodges_lehmann_naive([math.log(v) for v in x], [math.log(v) for v in y],
                                          confidence)
    pct = 100 * (math.exp(est) - 1)
    if low is None or high is None:
        return pct, None, None
    return pct, 100 * (math.exp(low) - 1), 100 * (math.exp(high) - 1)


def simulated_power(n: int, p_greater: float, *, level: float, seed: int,
                    reps: int = 400) -> float:
    """Share of `reps` normal samples of n against n, shifted so that P(Y > X) =
    p_greater, where scipy's Mann-Whitney rejects at `level` (the obvious simulation)."""
    import numpy as np
    from scipy import special
    from scipy import stats as sps

    shift = float(np.sqrt(2.0) * special.ndtri(p_greater))  # P(Y - X > 0), Y - X ~ N(d, 2)
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        x, y = rng.normal(0, 1, n), rng.normal(shift, 1, n)
        hits += sps.mannwhitneyu(x, y).pvalue < level
    return hits / reps
