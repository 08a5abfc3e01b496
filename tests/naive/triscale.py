"""Slow obvious twins of TriScale's rules (SPEC 8), written from the text, loop by loop."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps


def sizing_naive(p: float, confidence: float, robustness: int = 0) -> tuple[int, int]:
    """Smallest N (counting up from 1) with P(x(1+r) <= P_q) >= C, and for the median
    the smallest N with P(x(1+r) <= M <= x(N-r)) >= C; exact binomial sums."""
    q = min(p, 1 - p)
    r = robustness

    def tail(n: int) -> float:  # P(B >= r + 1)
        return 1 - sum(math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(r + 1))

    def middle(n: int) -> float:  # P(r + 1 <= B <= n - r - 1), B ~ Bin(n, 1/2)
        return sum(math.comb(n, k) for k in range(r + 1, n - r)) / 2**n

    one = 1
    while tail(one) < confidence:
        one += 1
    two = one
    if q == 0.5:
        two = 1
        while middle(two) < confidence:
            two += 1
    return one, two


def windows_naive(y: list[float], x: list[float], measure: object) -> tuple[list[float], list[float]]:
    n = len(y)
    width = n // 2
    count = min(width + 1, 100)
    xs, ms = [], []
    for i in range(count):
        start = math.floor(i * width / (count - 1))
        part = np.array(y[start:start + width])
        xs.append(x[start + width // 2])
        if measure == "mean":
            ms.append(float(np.mean(part)))
        elif measure == "min":
            ms.append(float(part.min()))
        elif measure == "max":
            ms.append(float(part.max()))
        else:
            ms.append(float(np.quantile(part, measure, method="midpoint")))
    return xs, ms


def scaled(values: list[float], low: float, high: float) -> list[float]:
    return [0.0 if high == low else (2 * v - (low + high)) / (high - low) for v in values]


def convergence_naive(y: list[float], x: list[float], confidence: float, tolerance: float,
                      bounds: tuple[float, float] | None = None) -> tuple[bool, float, float, float]:
    low, high = bounds if bounds is not None else (min(y), max(y))
    fit = sps.theilslopes(scaled(y, low, high), scaled(x, min(x), max(x)), alpha=confidence,
                          method="joint")
    return (fit.low_slope >= -tolerance and fit.high_slope <= tolerance, fit.slope,
            fit.low_slope, fit.high_slope)


def metric_naive(y: list[float], measure: object, converge: bool) -> tuple[float, bool | None]:
    x = list(range(len(y)))
    if not converge:
        if measure == "mean":
            return float(np.mean(y)), None
        return float(np.quantile(y, measure, method="nearest")), None
    xs, ms = windows_naive(y, x, measure)
    ok = convergence_naive(ms, xs, 0.95, 0.05, (min(y), max(y)))[0]
    return float(np.quantile(ms, 0.5, method="nearest")), ok


def acf_naive(x: list[float]) -> list[float]:
    n = len(x)
    mean = sum(x) / n
    d = [v - mean for v in x]
    c0 = sum(v * v for v in d)
    if c0 == 0:
        return [1.0] + [0.0] * (n - 1)
    return [sum(d[i] * d[i + k] for i in range(n - k)) / c0 for k in range(n)]


def independence_naive(x: list[float], method: str) -> tuple[bool, bool, tuple[int, ...]]:
    n = len(x)
    if min(x) == max(x):
        return True, True, ()
    rho = acf_naive(x)
    if method == "triscale":
        ok = convergence_naive(x, list(range(n)), 0.5, 0.1)[0]
        bad = tuple(k for k in range(1, n) if not abs(rho[k]) < 1.96 / math.sqrt(n))
        return ok and not bad, ok, bad
    fit = sps.theilslopes(x, list(range(n)), alpha=0.975, method="joint")
    ok = fit.low_slope <= 0 <= fit.high_slope
    h = min(n - 1, max(10, math.floor(10 * math.log10(n))))
    band = sps.norm.ppf(1 - 0.05 / (4 * h)) / math.sqrt(n)
    bad = tuple(k for k in range(1, h + 1) if abs(rho[k]) > band)
    return ok and not bad, ok, bad
