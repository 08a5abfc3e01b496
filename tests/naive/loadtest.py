"""Slow, obvious twins of perfwarehouse.loadtest: loops over every point, exact binomial
sums with fractions, no vectorisation."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction
from math import comb


def mean_ci(xs: list[float], t_quantile: float) -> tuple[float, float, float]:
    """(mean, low, high) with the given critical value, by the textbook formula."""
    m = statistics.fmean(xs)
    sd = statistics.stdev(xs)
    half = t_quantile * sd / math.sqrt(len(xs))
    return m, m - half, m + half


def accuracy(low: float, high: float) -> float:
    """Equation 2 of Shivam et al.: 1 - (high - low)/(high + low)."""
    return 1.0 - (high - low) / (high + low)


def quantile_rank_indices(n: int, p: float, confidence: float) -> tuple[int, int]:
    """Equal-tailed pair (j, k): j the largest index with P(B <= j - 1) <= (1 - C)/2 and
    k the smallest with P(B >= k) <= (1 - C)/2, B ~ Bin(n, p); (0, 0) if none exists.
    For p = 1/2 the symmetric pair with P(j <= B <= n - j) >= C."""
    pf = Fraction(p)
    pmf = [comb(n, i) * pf**i * (1 - pf) ** (n - i) for i in range(n + 1)]
    if p == 0.5:
        best = 0
        for j in range(1, (n + 1) // 2 + 1):
            if sum(pmf[j:n - j + 1]) >= Fraction(confidence):
                best = j
        return (best, n - best + 1) if best else (0, 0)
    tail = (1 - Fraction(confidence)) / 2
    j = 0
    for cand in range(1, n + 1):
        if sum(pmf[:cand]) <= tail:
            j = cand
    k = 0
    for cand in range(n, 0, -1):
        if sum(pmf[cand:]) <= tail:
            k = cand
    if j == 0 or k == 0 or j > k:
        return 0, 0
    return j, k


def region(low: float, high: float, r_sat: float, s: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return "unknown"
    if high < r_sat - s * r_sat:
        return "below"
    if low > r_sat + s * r_sat:
        return "above"
    return "overlap"
