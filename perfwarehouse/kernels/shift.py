"""numba kernel: order statistics of the pairwise differences y_j - x_i of two sorted
samples without listing them (for the Hodges-Lehmann shift, :mod:`perfwarehouse.stats.shift`).

The k-th smallest difference is found by bisection on the value t with an exact count of
the differences <= t (two pointers, O(n1 + n2) per count, since y_j - x_i is monotone in
both indices, also in floating point) until few differences are left in the bracket, which
are listed and selected from; the result is one of the differences exactly.
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
def _between(xs: np.ndarray, ys: np.ndarray, lo: float, hi: float, size: int) -> np.ndarray:
    """The ``size`` differences d with lo < d <= hi (two pointers per bound)."""
    out = np.empty(size)
    n2 = ys.size
    a = 0  # first j with ys[j] - xs[i] > lo
    b = 0  # first j with ys[j] - xs[i] > hi
    k = 0
    for i in range(xs.size):
        while a < n2 and not (ys[a] - xs[i] > lo):
            a += 1
        while b < n2 and ys[b] - xs[i] <= hi:
            b += 1
        for j in range(a, b):
            out[k] = ys[j] - xs[i]
            k += 1
    return out


@njit(cache=True, nogil=True)
def kth_difference(xs: np.ndarray, ys: np.ndarray, k: int) -> float:
    """The k-th smallest (1-based) of ys[j] - xs[i] for sorted float64 ``xs``, ``ys``.

    Bisection on the value narrows (lo, hi] until it holds at most n1 + n2 differences
    (each step halves their number on continuous data), which are then listed and the
    right one selected; when the bracket can no longer be split (adjacent floats: every
    difference in it is equal), the smallest difference above lo is the answer."""
    lo = ys[0] - xs[xs.size - 1]
    hi = ys[ys.size - 1] - xs[0]
    count_lo = _count_le(xs, ys, lo)
    if count_lo >= k:
        return lo
    count_hi = xs.size * ys.size
    enough = xs.size + ys.size
    # invariant: count(lo) < k <= count(hi)
    for _ in range(200):
        if count_hi - count_lo <= enough:
            inside = _between(xs, ys, lo, hi, count_hi - count_lo)
            return np.partition(inside, k - count_lo - 1)[k - count_lo - 1]
        mid = lo + (hi - lo) / 2.0
        if mid <= lo or mid >= hi:
            break
        count_mid = _count_le(xs, ys, mid)
        if count_mid >= k:
            hi, count_hi = mid, count_mid
        else:
            lo, count_lo = mid, count_mid
    return _next_above(xs, ys, lo, hi)


@njit(cache=True, nogil=True)
def _next_above(xs: np.ndarray, ys: np.ndarray, lo: float, hi: float) -> float:
    """The smallest difference > lo (``hi`` if none is smaller)."""
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


@njit(cache=True, nogil=True)
def kth_differences(xs: np.ndarray, ys: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """:func:`kth_difference` for each k of the int64 array ``ks``, in one call (a k that
    follows k - 1 in ``ks`` is found from the previous answer in two passes)."""
    out = np.empty(ks.size)
    for i in range(ks.size):
        if i and ks[i] == ks[i - 1] + 1:  # the next one (a median pair): two passes
            d = out[i - 1]
            out[i] = d if _count_le(xs, ys, d) >= ks[i] else _next_above(
                xs, ys, d, ys[ys.size - 1] - xs[0])
        else:
            out[i] = kth_difference(xs, ys, ks[i])
    return out


@njit(cache=True, nogil=True)
def tie_term(xs: np.ndarray, ys: np.ndarray) -> float:
    """sum of t^3 - t over the groups of t equal values of the two sorted samples pooled
    (the tie correction of the rank-sum variance)."""
    i = 0
    j = 0
    total = 0.0
    while i < xs.size or j < ys.size:
        if j >= ys.size or (i < xs.size and xs[i] <= ys[j]):
            v = xs[i]
        else:
            v = ys[j]
        t = 0.0
        while i < xs.size and xs[i] == v:
            i += 1
            t += 1.0
        while j < ys.size and ys[j] == v:
            j += 1
            t += 1.0
        total += t * t * t - t
    return total
