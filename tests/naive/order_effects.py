"""Slow, obvious twins of perfwarehouse.kernels.order_effects and the order-effects statistics.

Ranks by counting (O(n^2)), groups with dicts, sorting with ``sorted``; no numpy
tricks, so a disagreement points at the fast code.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import scipy.special


def midranks(pooled: Sequence[float]) -> list[float]:
    """1-based mid-rank of each value: #smaller + (#equal + 1) / 2."""
    out = []
    for v in pooled:
        less = sum(1 for w in pooled if w < v)
        equal = sum(1 for w in pooled if w == v)
        out.append(less + (equal + 1) / 2)
    return out


def tie_term(pooled: Sequence[float]) -> float:
    counts: dict[float, int] = defaultdict(int)
    for v in pooled:
        counts[v] += 1
    return float(sum(t**3 - t for t in counts.values()))


def kruskal(samples: Sequence[Sequence[float]]) -> tuple[float, float]:
    """(H, p) with tie correction, NaN dropped; (nan, nan) when every value is equal."""
    groups = [[float(v) for v in s if not math.isnan(v)] for s in samples]
    pooled = [v for g in groups for v in g]
    n = len(pooled)
    ranks = midranks(pooled)
    h = 0.0
    start = 0
    for g in groups:
        r = sum(ranks[start:start + len(g)])
        h += r * r / len(g)
        start += len(g)
    h = 12.0 / (n * (n + 1)) * h - 3 * (n + 1)
    correction = 1 - tie_term(pooled) / (n**3 - n)
    if correction == 0:
        return math.nan, math.nan
    h /= correction
    return h, float(scipy.special.chdtrc(len(groups) - 1, h))


def mannwhitneyu(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """(U of x, two-sided p), normal approximation with tie and continuity correction."""
    x = [float(v) for v in x if not math.isnan(v)]
    y = [float(v) for v in y if not math.isnan(v)]
    n1, n2 = len(x), len(y)
    ranks = midranks(x + y)
    u1 = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    n = n1 + n2
    s = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term(x + y) / (n * (n - 1))))
    numerator = u - n1 * n2 / 2 - 0.5
    z = numerator / s if s > 0 else (math.inf if numerator > 0 else -math.inf)
    return u1, min(1.0, 2 * float(scipy.special.ndtr(-z)))


def median(sorted_values: Sequence[float]) -> float:
    n = len(sorted_values)
    return (sorted_values[(n - 1) // 2] + sorted_values[n // 2]) / 2


def two_group_table(
    configs: Sequence[int], groups: Sequence[int], values: Sequence[float]
) -> dict[int, dict[str, object]]:
    """Per configuration: counts, rank sums, tie term, sums and each group's sorted values."""
    rows: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for c, g, v in zip(configs, groups, values):
        rows[int(c)].append((int(g), float(v)))
    out: dict[int, dict[str, object]] = {}
    for c, members in rows.items():
        pooled = [v for _g, v in members]
        ranks = midranks(pooled)
        result: dict[str, object] = {"tie_term": tie_term(pooled)}
        for g in (0, 1):
            mine = [i for i, (gg, _v) in enumerate(members) if gg == g]
            result[f"n{g}"] = len(mine)
            result[f"rank_sum{g}"] = sum(ranks[i] for i in mine)
            result[f"sum{g}"] = sum(pooled[i] for i in mine)
            result[f"sorted{g}"] = sorted(pooled[i] for i in mine)
        out[c] = result
    return out
