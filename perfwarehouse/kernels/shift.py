"""numba kernel: order statistics of the pairwise differences y_j - x_i of two sorted
samples without listing them (for the Hodges-Lehmann shift, :mod:`perfwarehouse.stats.shift`).

The k-th smallest difference is found by bisection on the value t with an exact count of
the differences <= t (two pointers, O(n1 + n2) per count, since y_j - x_i is monotone in
both indices, also in floating point), and then snapped to the smallest difference above
the final lower end, so the result is one of the differences exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _count_le(xs: np.ndarray, ys: np.ndarray, t: float) -> int:
    """#{(i, j): ys[j] - xs[i] <= t}."""
    n2 = ys.size
    j = 0
    total = 0
    for i in range(xs.size):  # x ascending: t + x_i grows, so does the count per i
        while j < n2 and ys[j] - xs[i] <= t:
            j += 1
        total += j
    return total


@njit(cache=True, nogil=True)
def kth_difference(xs: np.ndarray, ys: np.ndarray, k: int) -> float:
    """The k-th smallest (1-based) of ys[j] - xs[i] for sorted float64 ``xs``, ``ys``."""
    lo = ys[0] - xs[xs.size - 1]
    hi = ys[ys.size - 1] - xs[0]
    if _count_le(xs, ys, lo) >= k:
        return lo
    # invariant: count(lo) < k <= count(hi)
    for _ in range(200):
        mid = lo + (hi - lo) / 2.0
        if mid <= lo or mid >= hi:
            break
        if _count_le(xs, ys, mid) >= k:
            hi = mid
        else:
            lo = mid
    # the answer is the smallest difference > lo
    best = hi
    n2 = ys.size
    j = 0
    for i in range(xs.size):  # x ascending: the first j with ys[j] - xs[i] > lo moves right
        while j < n2 and not (ys[j] - xs[i] > lo):
            j += 1
        if j == n2:
            break
        d = ys[j] - xs[i]
        if d < best:
            best = d
    return best
