"""Exact conditional null distribution of the Mann-Whitney rank sum with ties.

Given the tie pattern of the pooled sample (group sizes ``t_g`` and doubled mid-ranks
``r2_g``, integers), :func:`rank_sum_counts` counts, for every doubled rank sum ``s``, the
subsets of ``n1`` of the ``N`` pooled values whose doubled mid-ranks add up to ``s``: the
permutation (conditional) distribution of ``2 W`` under H0, where every one of the
C(N, n1) assignments to the first sample is equally likely (Lehmann, "Nonparametrics",
1975, section 1.4; the exact test of R's coin and exactRankTests). Without ties it is the
distribution of Harding's algorithm; with ties it is exact where the normal approximation
is not. A group contributes j of its t values in C(t, j) ways, so the dynamic programme
runs over groups, chosen count and sum: O(G n1 S max t) additions of non-negative counts
(no cancellation, so tail probabilities keep their relative precision).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def rank_sum_counts(sizes: np.ndarray, ranks2: np.ndarray, n1: int) -> np.ndarray:
    """counts[s] = number of ways (float64) to draw n1 of the pooled values with doubled
    mid-rank sum s; ``sizes[g]`` values share the doubled mid-rank ``ranks2[g]``."""
    total_max = 0
    left = n1
    for g in range(sizes.size - 1, -1, -1):  # the n1 largest ranks bound the sum
        take = min(left, sizes[g])
        total_max += take * ranks2[g]
        left -= take
    dp = np.zeros((n1 + 1, total_max + 1))
    dp[0, 0] = 1.0
    hi = np.zeros(n1 + 1, dtype=np.int64)  # largest sum reachable in row k so far
    seen = 0
    for g in range(sizes.size):
        t = sizes[g]
        r2 = ranks2[g]
        binom = np.ones(t + 1)
        for j in range(1, t + 1):
            binom[j] = binom[j - 1] * (t - j + 1) / j
        top = min(n1, seen + t)
        for k in range(top, 0, -1):  # in place, largest k first: rows k - j are old
            for j in range(1, min(k, t) + 1):
                if k - j > seen:
                    continue
                shift = j * r2
                length = min(hi[k - j] + 1, total_max + 1 - shift)
                if length <= 0:
                    continue
                dp[k, shift:shift + length] += binom[j] * dp[k - j, :length]
                hi[k] = max(hi[k], shift + length - 1)
        seen += t
    return dp[n1].copy()
