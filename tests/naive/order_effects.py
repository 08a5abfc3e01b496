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


def compare_orders(
    codes: Sequence[int], groups: Sequence[int], values: Sequence[float], n_configs: int,
    m: Sequence[int], alpha: float, confidence: float | None,
) -> list[dict[str, object]]:
    """Per configuration, one at a time: scipy's Kruskal-Wallis, median_ci, numpy medians,
    the CI case of SPEC 5.1 (the fast job's default method)."""
    import numpy as np
    import scipy.stats

    from perfwarehouse.stats import median_ci

    fixed: dict[int, list[float]] = defaultdict(list)
    random: dict[int, list[float]] = defaultdict(list)
    for c, g, v in zip(codes, groups, values):
        (random if g else fixed)[int(c)].append(float(v))
    out = []
    for c in range(n_configs):
        f, r = fixed.get(c, []), random.get(c, [])
        conf = confidence if confidence is not None else 1 - alpha / max(int(m[c]), 1)
        row: dict[str, object] = {"n_fixed": len(f), "n_random": len(r)}
        row["median_fixed"] = float(np.median(f)) if f else None
        row["median_random"] = float(np.median(r)) if r else None
        for name, sample in (("fixed", f), ("random", r)):
            ci = median_ci(sample, conf) if sample else None
            row[f"ci_{name}_low"] = ci.low if ci else None
            row[f"ci_{name}_high"] = ci.high if ci else None
        if f and r:
            if len(set(f + r)) == 1:
                h, p = None, None
            else:
                res = scipy.stats.kruskal(f, r)
                h, p = float(res.statistic), float(res.pvalue)
            row["kw_h"], row["kw_p"] = h, p
            n = len(f) + len(r)
            row["eta2"] = None if h is None or n <= 2 else (h - 1) / (n - 2)
            mf, mr = sum(f) / len(f), sum(r) / len(r)
            row["delta_pct"] = None if mf == 0 else (mf - mr) / mf * 100
            row["reject_alpha"] = p is not None and p < alpha
            row["reject_bonferroni"] = p is not None and p < alpha / max(int(m[c]), 1)
        else:
            row.update(kw_h=None, kw_p=None, eta2=None, delta_pct=None, reject_alpha=False,
                       reject_bonferroni=False)
        row["ci_case"] = ci_case(row)
        out.append(row)
    return out


def ci_case(row: dict[str, object]) -> int | None:
    """1 disjoint, 2 a median strictly inside the other interval, 3 otherwise (SPEC 5.1)."""
    fl, fh, rl, rh = (row["ci_fixed_low"], row["ci_fixed_high"], row["ci_random_low"],
                      row["ci_random_high"])
    fm, rm = row["median_fixed"], row["median_random"]
    if fl is None or rl is None:
        return None
    if fl > rh or fh < rl:  # type: ignore[operator]
        return 1
    if fl < rm < fh or rl < fm < rh:  # type: ignore[operator]
        return 2
    return 3


def predecessors(runs: Sequence[int], positions: Sequence[int], tests: Sequence[int]) -> list[int]:
    """The test at (run, position - 1) of each row; -1 at position 0, -2 when nothing is there."""
    at = {(int(r), int(p)): int(t) for r, p, t in zip(runs, positions, tests)}
    return [-1 if p == 0 else at.get((int(r), int(p) - 1), -2) for r, p in zip(runs, positions)]


def adjust(pvalues: Sequence[float], method: str) -> list[float]:
    """Holm or Benjamini-Hochberg adjusted p-values of one family, by their definitions."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [0.0] * m
    if method == "holm":
        running = 0.0
        for rank, i in enumerate(order, start=1):
            running = max(running, min(1.0, (m - rank + 1) * pvalues[i]))
            out[i] = running
    else:
        running = 1.0
        for rank in range(m, 0, -1):
            i = order[rank - 1]
            running = min(running, min(1.0, pvalues[i] * m / rank))
            out[i] = running
    return out


def assert_two_group_ranks(n_configs: int, outputs: Sequence, reference: dict) -> None:
    """Assert that a kernel's ``(counts, rank_sum, tie_term, total, by_group,
    group_offsets)`` over ``n_configs`` configurations are :func:`two_group_table`'s
    ``reference``: counts, rank sums and tie terms exactly, sums to rounding, each group's
    sorted values bit for bit (-0.0 included: the packed keys decode losslessly)."""
    import pytest

    counts, rank_sum, tie_term, total, by_group, group_offsets = outputs
    for c in range(n_configs):
        ref = reference.get(c)
        if ref is None:
            assert counts[c].sum() == 0 and tie_term[c] == 0
            continue
        assert (counts[c, 0], counts[c, 1]) == (ref["n0"], ref["n1"])
        assert tuple(rank_sum[c]) == (ref["rank_sum0"], ref["rank_sum1"])
        assert tie_term[c] == ref["tie_term"]
        assert total[c] == pytest.approx([ref["sum0"], ref["sum1"]])
        for g in (0, 1):
            got = by_group[group_offsets[c, g]:group_offsets[c, g] + counts[c, g]]
            assert list(got) == ref[f"sorted{g}"]
            assert sorted(x.hex() for x in got) == sorted(x.hex() for x in ref[f"sorted{g}"])
