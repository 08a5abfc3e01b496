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


def pooled_quantile_ci(hists: list[tuple[list[int], list[float]]], weights: list[float],
                       p: float, t_quantile: float, low_ms: float, per_decade: float
                       ) -> tuple[float, float, float]:
    """Pooled p-quantile of grid histograms and its Woodruff CI, with dicts and loops."""
    pooled: dict[int, float] = {}
    total = sum(weights)
    norm = [sum(f) for _i, f in hists]
    for (idx, frac), w, s in zip(hists, weights, norm):
        for i, f in zip(idx, frac):
            pooled[i] = pooled.get(i, 0.0) + w * f / s
    keys = sorted(pooled)

    def locate(target: float) -> tuple[int, float]:
        c = 0.0
        for i in keys:
            m = pooled[i]
            if m > 0 and c + m >= target:
                return i, max(0.0, (target - c) / m)
            c += m
        return keys[-1], 1.0

    def value(bf: tuple[int, float]) -> float:
        return low_ms * 10.0 ** ((bf[0] + bf[1]) / per_decade)

    xb, xf = locate(p * total)
    point = value((xb, xf))
    k = len(hists)
    if k < 2:
        return point, math.nan, math.nan
    cdfs = []
    for (idx, frac), s in zip(hists, norm):
        c = sum(f for i, f in zip(idx, frac) if i < xb)
        c += sum(xf * f for i, f in zip(idx, frac) if i == xb)
        cdfs.append(c / s)
    fbar = sum(w * c for w, c in zip(weights, cdfs)) / total
    var = k / (k - 1) * sum((w / total * (c - fbar)) ** 2 for w, c in zip(weights, cdfs))
    half = t_quantile * math.sqrt(var)
    lo = value(locate(max(0.0, fbar - half) * total))
    hi = value(locate(min(1.0, fbar + half) * total))
    return point, lo, hi


def closed_law_residual(clients: float, think_s: float, throughput: float, mean_ms: float) -> float:
    """X (R + Z) / N - 1."""
    return throughput * (mean_ms / 1000.0 + think_s) / clients - 1.0
