"""Slow, obvious twin of perfwarehouse.stats.shift: every difference listed and sorted, the
null distribution of U by enumerating every split of the ranks."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction


def u_cdf_naive(n1: int, n2: int) -> list[Fraction]:
    """P(U <= u), u = 0..n1 n2, by listing every choice of the first sample's ranks."""
    n = n1 + n2
    counts = [0] * (n1 * n2 + 1)
    for chosen in itertools.combinations(range(1, n + 1), n1):
        counts[sum(chosen) - n1 * (n1 + 1) // 2] += 1
    total = math.comb(n, n1)
    out, acc = [], 0
    for c in counts:
        acc += c
        out.append(Fraction(acc, total))
    return out


def hodges_lehmann_naive(x: list[float], y: list[float], confidence: float
                         ) -> tuple[float, float | None, float | None]:
    """(median of y - x, d(C), d(N + 1 - C)) with C from the enumerated null distribution
    (no ties)."""
    d = sorted(b - a for a in x for b in y)
    big_n = len(d)
    est = d[big_n // 2] if big_n % 2 else (d[big_n // 2 - 1] + d[big_n // 2]) / 2
    cdf = u_cdf_naive(len(x), len(y))
    half = (1 - Fraction(confidence)) / 2
    c = 0
    for k in range(1, (big_n + 1) // 2 + 1):
        if cdf[k - 1] <= half:
            c = k
    if c == 0:
        return est, None, None
    return est, d[c - 1], d[big_n - c]
