"""Slow, obvious twins of perfwarehouse.stats.order_statistics: exact binomial sums
with integers, search over every index."""

from __future__ import annotations

from fractions import Fraction
from math import comb


def binom_sf_ge(n: int, p: Fraction, m: int) -> Fraction:
    """P(B >= m), B ~ Bin(n, p), exactly."""
    return sum((comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(m, n + 1)), Fraction(0))


def lower_bound_m(n: int, p: float, confidence: float) -> int:
    """Largest m with P(B >= m) >= confidence (0 when none)."""
    pf, cf = Fraction(p), Fraction(confidence)
    best = 0
    for m in range(1, n + 1):
        if binom_sf_ge(n, pf, m) >= cf:
            best = m
    return best


def median_j(n: int, confidence: float) -> int:
    """Largest j with P(j <= B <= n - j) >= confidence, B ~ Bin(n, 1/2) (0 when none)."""
    half, cf = Fraction(1, 2), Fraction(confidence)
    best = 0
    for j in range(1, (n + 1) // 2 + 1):
        cover = sum((comb(n, k) * half**n for k in range(j, n - j + 1)), Fraction(0))
        if cover >= cf:
            best = j
    return best


def range_coverage(n: int, p: float, m: int) -> float:
    """P(N_low >= m and N_high >= m) for a multinomial (p, 1 - 2p, p), by direct summation."""
    total = 0.0
    for a in range(n + 1):
        for b in range(n - a + 1):
            c = n - a - b
            if a >= m and c >= m:
                total += comb(n, a) * comb(n - a, b) * p**a * (1 - 2 * p) ** b * p**c
    return total
