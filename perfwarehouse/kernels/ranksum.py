"""numba kernels: the two-sided Wilcoxon rank-sum (Mann-Whitney U) test with the normal
approximation, the continuity correction and the tie correction, as
``scipy.stats.mannwhitneyu(..., method="asymptotic")`` computes it, for the A/A tests of
Laaber et al. (PeerJ Preprints 2018, section 4.2.1; the group sampling is
:mod:`perfwarehouse.kernels.laaber`).

:func:`ranksum_sorted` takes two sorted samples (merged once, ties ranked by their
midrank), ``_ranksum_counts`` two samples as counts per distinct value, and
:func:`mannwhitneyu` two unsorted samples.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


# ----------------------------------------------------------------------- rank-sum test
@njit(cache=True)
def _ranksum_pvalue(rank_sum_x: float, ties: float, n1: int, n2: int) -> tuple[float, float]:
    """U1 and the two-sided p-value from the rank sum of x and the tie term sum(t^3 - t)."""
    n = float(n1 + n2)
    u1 = rank_sum_x - n1 * (n1 + 1.0) / 2.0
    u = max(u1, n1 * float(n2) - u1)
    mu = n1 * float(n2) / 2.0
    var = n1 * float(n2) / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)))
    if var <= 0.0:
        return u1, 1.0
    z = (u - mu - 0.5) / math.sqrt(var)
    return u1, min(1.0, math.erfc(z / math.sqrt(2.0)))


@njit(cache=True)
def ranksum_sorted(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float]:
    """Two-sided Wilcoxon rank-sum (Mann-Whitney U) test of two *sorted* samples.

    Normal approximation with tie and continuity correction, the numbers of
    ``scipy.stats.mannwhitneyu(x, y, method="asymptotic")``: returns
    ``(U1, p)`` with U1 the statistic of ``x``. One merge over both samples:
    ranks of tied values are averaged and the tie term sum(t^3 - t) is
    accumulated on the way. NaN for an empty sample or NaN values; p = 1 when
    all values tie.

    It runs inside the parallel draws, so it is numba code of its own rather
    than :func:`perfwarehouse.stats.mannwhitneyu` (vectorised numpy and scipy
    over many configurations); both are tested against scipy.
    :func:`_ranksum_counts` is the same test for samples given as counts per
    distinct value.
    """
    n1 = len(xs)
    n2 = len(ys)
    if n1 == 0 or n2 == 0:
        return np.nan, np.nan
    i = 0
    j = 0
    pos = 0.0
    rank_sum_x = 0.0
    ties = 0.0
    while i < n1 or j < n2:
        if j >= n2 or (i < n1 and xs[i] <= ys[j]):
            v = xs[i]
        else:
            v = ys[j]
        cx = 0
        while i < n1 and xs[i] == v:
            cx += 1
            i += 1
        cy = 0
        while j < n2 and ys[j] == v:
            cy += 1
            j += 1
        if cx + cy == 0:  # NaN: not orderable
            return np.nan, np.nan
        t = float(cx + cy)
        rank_sum_x += cx * (pos + (t + 1.0) / 2.0)
        ties += t * t * t - t
        pos += t
    return _ranksum_pvalue(rank_sum_x, ties, n1, n2)


@njit(cache=True)
def _ranksum_counts(count_x: np.ndarray, count_y: np.ndarray) -> tuple[float, float]:
    """:func:`ranksum_sorted` for samples given as counts per distinct value (ascending).

    The same operations in the same order as the merge, so the same bits.
    """
    n1 = 0
    n2 = 0
    pos = 0.0
    rank_sum_x = 0.0
    ties = 0.0
    for g in range(len(count_x)):
        cx = count_x[g]
        cy = count_y[g]
        if cx + cy == 0:
            continue
        n1 += cx
        n2 += cy
        t = float(cx + cy)
        rank_sum_x += cx * (pos + (t + 1.0) / 2.0)
        ties += t * t * t - t
        pos += t
    if n1 == 0 or n2 == 0:
        return np.nan, np.nan
    return _ranksum_pvalue(rank_sum_x, ties, n1, n2)


@njit(cache=True)
def mannwhitneyu(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """:func:`ranksum_sorted` of unsorted samples (sorted copies)."""
    return ranksum_sorted(np.sort(x), np.sort(y))
