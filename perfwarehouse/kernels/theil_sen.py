"""numba kernels: exact order statistics of the implicit set of pairwise slopes.

For n points sorted by x, the slopes s_ab = fl(fl(y_b - y_a) / fl(x_b - x_a)) of
all pairs with x_a < x_b are the values ``scipy.stats.theilslopes`` sorts
(SPEC 8, "Theil-Sen"). With n = 10^6 there are 5 x 10^11 of them, so they are
never materialised; the k-th smallest is found by *selection*:

* **Counting** the slopes <= t for any t in O(n log n): with u_i(t) = y_i - t x_i,
  a pair a, b with x_a < x_b has slope <= t exactly when u_b(t) <= u_a(t), so
  the count is the number of inversions of the points' t-order relative to
  their x-order (a merge sort), minus the pairs inside groups of equal x
  (excluded from the slope set). u is evaluated with an error-free product
  (Dekker) and a double-double difference, so the count is that of the exact
  slopes Delta y / Delta x up to ~1e-32 relative.
* **Sampling and enumerating** the slopes in (L, R]: they are exactly the pairs
  whose order differs between the L-order and the R-order, i.e. the
  inversions of one permutation relative to the other; a merge sort lists
  them (O(n log n + K)) or draws each with probability rho (O(n log n + rho K)).
* **Randomised interval shrinking** (in :mod:`perfwarehouse.stats.theil_sen`):
  sample the slopes of the current interval, keep a sub-interval around the
  target ranks whose count is checked, until few enough remain to enumerate.
* **Exactness**: a computed slope differs from the exact ratio by at most
  ~3 ulp, so thresholds are widened by a margin of 64 ulp and the ranks of the
  enumerated candidates are taken from their *computed* slopes; a result closer
  than the margin to a threshold is re-done with a wider interval.

Every function takes contiguous float64/int64 arrays; points are indexed in
x-sorted order (ties in x grouped, ordered by y then original index).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_SPLIT = 134217729.0  # 2**27 + 1, Dekker/Veltkamp splitting constant


@njit(cache=True, nogil=True)
def _two_product_error(a: float, b: float, p: float) -> float:
    """e with a*b = p + e exactly (p = fl(a*b)), Dekker's algorithm without FMA."""
    c = _SPLIT * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    c = _SPLIT * b
    b_hi = c - (c - b)
    b_lo = b - b_hi
    return ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


@njit(cache=True, nogil=True)
def residuals(x: np.ndarray, y: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
    """u_i = y_i - t x_i as a double-double (hi, lo)."""
    n = x.size
    hi = np.empty(n)
    lo = np.empty(n)
    for i in range(n):
        p = t * x[i]
        e = _two_product_error(t, x[i], p)
        s = y[i] - p
        bb = s - y[i]
        err = (y[i] - (s - bb)) + (-p - bb)
        low = err - e
        h = s + low
        lo[i] = low - (h - s)
        hi[i] = h
    return hi, lo


@njit(cache=True, nogil=True)
def _key_less(hi: np.ndarray, lo: np.ndarray, x: np.ndarray, a: int, b: int) -> bool:
    """Order at a threshold t: by u(t), then larger x first, then index."""
    if hi[a] != hi[b]:
        return hi[a] < hi[b]
    if lo[a] != lo[b]:
        return lo[a] < lo[b]
    if x[a] != x[b]:
        return x[a] > x[b]
    return a < b


@njit(cache=True, nogil=True)
def order_at(x: np.ndarray, y: np.ndarray, t: float) -> np.ndarray:
    """Permutation of the points sorted by u(t) (ties: larger x first, then index)."""
    hi, lo = residuals(x, y, t)
    order = np.argsort(hi, kind="quicksort")
    n = order.size
    i = 0
    while i < n:  # runs of equal hi: insertion sort on the full key
        j = i + 1
        while j < n and hi[order[j]] == hi[order[i]]:
            j += 1
        if j - i > 1:
            for k in range(i + 1, j):
                v = order[k]
                m = k - 1
                while m >= i and _key_less(hi, lo, x, v, order[m]):
                    order[m + 1] = order[m]
                    m -= 1
                order[m + 1] = v
        i = j
    return order


@njit(cache=True, nogil=True)
def order_at_plus_infinity(group_start: np.ndarray) -> np.ndarray:
    """The order for t -> +inf: x descending, inside a group of equal x as in x-order."""
    n = group_start[-1]
    order = np.empty(n, dtype=np.int64)
    k = 0
    for g in range(group_start.size - 2, -1, -1):
        for i in range(group_start[g], group_start[g + 1]):
            order[k] = i
            k += 1
    return order


@njit(cache=True, nogil=True)
def _merge_inversions(seq: np.ndarray, mode: int, rho: float, out_a: np.ndarray,
                      out_b: np.ndarray) -> tuple[int, int, bool]:
    """Sort ``seq`` (distinct ints) in place; count pairs i < j with seq[j] < seq[i].

    mode 0: count only; 1: emit every inverted pair (seq[i], seq[j]) into
    out_a/out_b; 2: emit each with probability rho (with replacement inside a
    block). Returns (inversions, emitted, overflowed).
    """
    n = seq.size
    buf = np.empty(n, dtype=np.int64)
    src = seq
    dst = buf
    inversions = 0
    emitted = 0
    cap = out_a.size
    overflow = False
    width = 1
    while width < n:
        start = 0
        while start < n:
            mid = min(start + width, n)
            end = min(start + 2 * width, n)
            i = start
            j = mid
            k = start
            while i < mid and j < end:
                if src[j] < src[i]:
                    c = mid - i
                    inversions += c
                    if mode == 1:
                        if emitted + c > cap:
                            overflow = True
                        else:
                            for m in range(i, mid):
                                out_a[emitted] = src[m]
                                out_b[emitted] = src[j]
                                emitted += 1
                    elif mode == 2:
                        draws = np.random.binomial(c, rho)
                        for _ in range(draws):
                            if emitted >= cap:
                                overflow = True
                                break
                            out_a[emitted] = src[i + np.random.randint(0, c)]
                            out_b[emitted] = src[j]
                            emitted += 1
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < end:
                dst[k] = src[j]
                j += 1
                k += 1
            start = end
        tmp = src
        src = dst
        dst = tmp
        width *= 2
    if src is not seq:
        seq[:] = src
    return inversions, emitted, overflow


@njit(cache=True, nogil=True)
def count_at_most(x: np.ndarray, y: np.ndarray, group_start: np.ndarray, t: float) -> int:
    """Number of pairs with x_a < x_b whose exact slope is <= t."""
    return count_in_order(order_at(x, y, t), group_start)


@njit(cache=True, nogil=True)
def count_in_order(order: np.ndarray, group_start: np.ndarray) -> int:
    """Pairs with x_a < x_b that ``order`` (a threshold's order) puts b before a."""
    n = order.size
    rank = np.empty(n, dtype=np.int64)
    for k in range(n):
        rank[order[k]] = k
    dummy = np.empty(0, dtype=np.int64)
    within = 0
    for g in range(group_start.size - 1):
        a = group_start[g]
        b = group_start[g + 1]
        if b - a > 1:
            part = rank[a:b].copy()
            within += _merge_inversions(part, 0, 0.0, dummy, dummy)[0]
    total = _merge_inversions(rank, 0, 0.0, dummy, dummy)[0]
    return total - within


@njit(cache=True, nogil=True)
def slope_of(x: np.ndarray, y: np.ndarray, a: int, b: int) -> float:
    """The slope of a pair as scipy computes it: larger-x point minus smaller-x point."""
    if x[a] > x[b]:
        a, b = b, a
    return (y[b] - y[a]) / (x[b] - x[a])


@njit(cache=True, nogil=True)
def slopes_between(x: np.ndarray, y: np.ndarray, group_start: np.ndarray, lower: float,
                   upper: float, lower_inf: bool, upper_inf: bool, mode: int, rho: float,
                   capacity: int, seed: int) -> tuple[np.ndarray, bool]:
    """Computed slopes of the pairs in (lower, upper] (by exact-slope order).

    mode 1 lists them all (``capacity`` must hold them), mode 2 samples each with
    probability ``rho``. Pairs with equal x are skipped. Returns (slopes, overflowed).
    """
    n = x.size
    order_l = np.arange(n) if lower_inf else order_at(x, y, lower)
    order_u = order_at_plus_infinity(group_start) if upper_inf else order_at(x, y, upper)
    return slopes_between_orders(x, y, order_l, order_u, mode, rho, capacity, seed)


@njit(cache=True, nogil=True)
def slopes_between_orders(x: np.ndarray, y: np.ndarray, order_l: np.ndarray,
                          order_u: np.ndarray, mode: int, rho: float, capacity: int,
                          seed: int) -> tuple[np.ndarray, bool]:
    """:func:`slopes_between` given the two thresholds' orders."""
    np.random.seed(seed)
    n = x.size
    rank_u = np.empty(n, dtype=np.int64)
    for k in range(n):
        rank_u[order_u[k]] = k
    seq = np.empty(n, dtype=np.int64)
    for k in range(n):
        seq[k] = rank_u[order_l[k]]
    out_a = np.empty(capacity, dtype=np.int64)
    out_b = np.empty(capacity, dtype=np.int64)
    _, emitted, overflow = _merge_inversions(seq, mode, rho, out_a, out_b)
    slopes = np.empty(emitted)
    m = 0
    for k in range(emitted):
        a = order_u[out_a[k]]
        b = order_u[out_b[k]]
        if x[a] != x[b]:
            slopes[m] = slope_of(x, y, a, b)
            m += 1
    return slopes[:m], overflow


@njit(cache=True, nogil=True)
def all_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Every computed slope of pairs with x_a < x_b (the brute-force path for small n)."""
    n = x.size
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if x[i] != x[j]:
                count += 1
    out = np.empty(count)
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            if x[i] != x[j]:
                out[k] = slope_of(x, y, i, j)
                k += 1
    return out


@njit(cache=True, nogil=True)
def random_pair_slopes(x: np.ndarray, y: np.ndarray, size: int, seed: int) -> np.ndarray:
    """``size`` slopes of uniformly drawn pairs with distinct x (with replacement)."""
    np.random.seed(seed)
    n = x.size
    out = np.empty(size)
    k = 0
    tries = 0
    while k < size and tries < 1000 * size + 1000:
        tries += 1
        i = np.random.randint(0, n)
        j = np.random.randint(0, n)
        if x[i] != x[j]:
            out[k] = slope_of(x, y, i, j)
            k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def slope_range_between(x: np.ndarray, y: np.ndarray, group_start: np.ndarray, lower: float,
                        upper: float, lower_inf: bool, upper_inf: bool) -> tuple[float, float, int]:
    """(min, max, count) of the computed slopes in (lower, upper], without storing them.

    O(n log n + K): used when a huge number of pairs share one slope value
    (integer-valued data), to confirm they are all equal.
    """
    n = x.size
    order_l = np.arange(n) if lower_inf else order_at(x, y, lower)
    order_u = order_at_plus_infinity(group_start) if upper_inf else order_at(x, y, upper)
    return slope_range_between_orders(x, y, order_l, order_u)


@njit(cache=True, nogil=True)
def slope_range_between_orders(x: np.ndarray, y: np.ndarray, order_l: np.ndarray,
                               order_u: np.ndarray) -> tuple[float, float, int]:
    """:func:`slope_range_between` given the two thresholds' orders."""
    n = x.size
    rank_u = np.empty(n, dtype=np.int64)
    for k in range(n):
        rank_u[order_u[k]] = k
    src = np.empty(n, dtype=np.int64)
    for k in range(n):
        src[k] = rank_u[order_l[k]]
    dst = np.empty(n, dtype=np.int64)
    lo = np.inf
    hi = -np.inf
    count = 0
    width = 1
    while width < n:
        start = 0
        while start < n:
            mid = min(start + width, n)
            end = min(start + 2 * width, n)
            i = start
            j = mid
            k = start
            while i < mid and j < end:
                if src[j] < src[i]:
                    b = order_u[src[j]]
                    for m in range(i, mid):
                        a = order_u[src[m]]
                        if x[a] != x[b]:
                            s = slope_of(x, y, a, b)
                            lo = min(lo, s)
                            hi = max(hi, s)
                            count += 1
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < end:
                dst[k] = src[j]
                j += 1
                k += 1
            start = end
        src, dst = dst, src
        width *= 2
    return lo, hi, count
