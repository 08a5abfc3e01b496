"""numba kernels: the pairwise slopes themselves, for the selection of
:mod:`perfwarehouse.stats.theil_sen` (counting is :mod:`perfwarehouse.kernels.theil_sen`,
whose docstring states the method).

* the slopes in (L, R], i.e. the pairs whose order differs between the L-order and the
  R-order: sampled with probability rho by a merge sort with geometric skips
  (:func:`sample_between_orders`), listed by an insertion sort of the L-order into the
  R-order (:func:`list_between_orders`), their range (:func:`slope_range_between_orders`),
  and the L-order moved on to a new threshold (:func:`advance_order`);
* one pair's slope (:func:`slope_of`), all of them for small n (:func:`all_slopes`) and
  random pairs (:func:`random_pair_slopes`).

Every function takes contiguous float64/int64 arrays; points are indexed in
x-sorted order (ties in x grouped, ordered by y then original index).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from perfwarehouse.kernels.theil_sen import _key_less, residuals


@njit(cache=True, nogil=True)
def sample_between_orders(x: np.ndarray, y: np.ndarray, order_l: np.ndarray,
                          order_u: np.ndarray, rho: float, capacity: int,
                          seed: int) -> tuple[np.ndarray, bool]:
    """Computed slopes of the pairs in (L, U], each drawn with probability ``rho``.

    A merge sort of the L-order relabelled by U-ranks meets the inverted pairs
    in blocks; the gaps between drawn pairs are geometric (no per-block random
    call). Pairs with equal x are skipped. Returns (slopes, overflowed).
    """
    np.random.seed(seed)
    n = x.size
    rank_u = np.empty(n, dtype=np.int64)
    xy = np.empty((n, 2))  # the points by U-rank, x and y side by side: one cache line
    for k in range(n):
        p = order_u[k]
        rank_u[p] = k
        xy[k, 0] = x[p]
        xy[k, 1] = y[p]
    src = np.empty(n, dtype=np.int64)
    for k in range(n):
        src[k] = rank_u[order_l[k]]
    dst = np.empty(n, dtype=np.int64)
    out = np.empty(capacity)
    emitted = 0
    overflow = False
    skip = np.random.geometric(rho) - 1  # pairs to pass before the next drawn one
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
                    while skip < c:
                        if emitted < capacity:
                            a = src[i + skip]
                            b = src[j]
                            xa = xy[a, 0]
                            xb = xy[b, 0]
                            if xa < xb:
                                out[emitted] = (xy[b, 1] - xy[a, 1]) / (xb - xa)
                                emitted += 1
                            elif xa > xb:
                                out[emitted] = (xy[a, 1] - xy[b, 1]) / (xa - xb)
                                emitted += 1
                        else:
                            overflow = True
                        skip += np.random.geometric(rho)
                    skip -= c
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
    return out[:emitted], overflow


@njit(cache=True, nogil=True)
def list_between_orders(x: np.ndarray, y: np.ndarray, order_l: np.ndarray,
                        order_u: np.ndarray, capacity: int) -> tuple[np.ndarray, bool]:
    """Computed slopes of every pair in (L, U], by an insertion sort of the L-order.

    O(n + K) for K pairs in between: each element moves past exactly the
    elements it forms an inverted pair with. Stops (overflowed) once more than
    ``capacity`` pairs are met. Pairs with equal x are skipped.
    """
    n = x.size
    rank_u = np.empty(n, dtype=np.int64)
    for k in range(n):
        rank_u[order_u[k]] = k
    r = np.empty(n, dtype=np.int64)
    px = np.empty(n)
    py = np.empty(n)
    for k in range(n):
        p = order_l[k]
        r[k] = rank_u[p]
        px[k] = x[p]
        py[k] = y[p]
    out = np.empty(capacity)
    met = 0
    emitted = 0
    for k in range(1, n):
        rv = r[k]
        if rv > r[k - 1]:
            continue
        xv = px[k]
        yv = py[k]
        m = k - 1
        while m >= 0 and rv < r[m]:
            if met >= capacity:
                return out[:emitted], True
            met += 1
            xw = px[m]
            if xw != xv:
                if xw < xv:
                    out[emitted] = (yv - py[m]) / (xv - xw)
                else:
                    out[emitted] = (py[m] - yv) / (xw - xv)
                emitted += 1
            r[m + 1] = r[m]
            px[m + 1] = xw
            py[m + 1] = py[m]
            m -= 1
        r[m + 1] = rv
        px[m + 1] = xv
        py[m + 1] = yv
    return out[:emitted], False


@njit(cache=True, nogil=True)
def slope_of(x: np.ndarray, y: np.ndarray, a: int, b: int) -> float:
    """The slope of a pair as scipy computes it: larger-x point minus smaller-x point."""
    if x[a] > x[b]:
        a, b = b, a
    return (y[b] - y[a]) / (x[b] - x[a])


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
    """``size`` slopes of uniformly drawn pairs with distinct x (with replacement): both
    points drawn, the pair redrawn when their x are equal (fewer slopes when nearly every
    pair is tied, after 1,000 draws per slope)."""
    np.random.seed(seed)
    n = x.size
    out = np.empty(size)
    k = 0
    budget = 1000 * size + 1000
    while k < size and budget > 0:
        first = _sorted_draws(n, min(size - k, budget))
        budget -= first.size
        for i in first:
            j = np.random.randint(0, n)
            xi = x[i]
            xj = x[j]
            if xi < xj:
                out[k] = (y[j] - y[i]) / (xj - xi)
                k += 1
            elif xi > xj:
                out[k] = (y[i] - y[j]) / (xi - xj)
                k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def _sorted_draws(n: int, size: int) -> np.ndarray:
    """``size`` uniform draws of 0..n-1 in increasing order (the first points of
    :func:`random_pair_slopes`' pairs: then only the second point of a pair is a cache
    miss), sorted by counting: numba's np.sort of many repeated integers took 190 of the
    270 us of 3,457 draws over 1,200 points, the demo's series."""
    counts = np.zeros(n, np.int64)
    for i in np.random.randint(0, n, size):
        counts[i] += 1
    first = np.empty(size, np.int64)
    k = 0
    for i in range(n):
        for _ in range(counts[i]):
            first[k] = i
            k += 1
    return first


@njit(cache=True, nogil=True)
def slope_range_between_orders(x: np.ndarray, y: np.ndarray, order_l: np.ndarray,
                               order_u: np.ndarray) -> tuple[float, float, int]:
    """(min, max, count) of the computed slopes in (L, U], without storing them.

    O(n log n + K): used when a huge number of pairs share one slope value
    (integer-valued data), to confirm they are all equal.
    """
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


@njit(cache=True, nogil=True)
def advance_order(x: np.ndarray, y: np.ndarray, order_l: np.ndarray, t: float,
                  capacity: int) -> tuple[np.ndarray, int, np.ndarray, bool]:
    """From the order at L to the order at t > L by an insertion sort, listing the slopes between.

    Every pair the insertion sort swaps is a pair whose slope lies in (L, t], and
    each is met once, so this costs O(n + K) for K slopes in between (instead of
    a full sort and count at t). Returns (order at t, K, computed slopes of the
    pairs with distinct x, overflowed); once K exceeds ``capacity`` it stops and
    returns overflowed = True (the order is then unusable).
    """
    hi, lo = residuals(x, y, t)
    n = x.size
    idx = order_l.copy()
    key = np.empty(n)
    px = np.empty(n)
    py = np.empty(n)
    for k in range(n):
        p = idx[k]
        key[k] = hi[p]
        px[k] = x[p]
        py[k] = y[p]
    out = np.empty(capacity)
    met = 0
    emitted = 0
    for k in range(1, n):
        kv = key[k]
        v = idx[k]
        if kv > key[k - 1] or (kv == key[k - 1] and not _key_less(hi, lo, x, v, idx[k - 1])):
            continue
        xv = px[k]
        yv = py[k]
        m = k - 1
        while m >= 0 and (kv < key[m] or (kv == key[m] and _key_less(hi, lo, x, v, idx[m]))):
            if met >= capacity:
                return idx, met, out[:emitted], True
            met += 1
            xw = px[m]
            if xw != xv:
                if xw < xv:
                    out[emitted] = (yv - py[m]) / (xv - xw)
                else:
                    out[emitted] = (py[m] - yv) / (xw - xv)
                emitted += 1
            key[m + 1] = key[m]
            idx[m + 1] = idx[m]
            px[m + 1] = xw
            py[m + 1] = py[m]
            m -= 1
        key[m + 1] = kv
        idx[m + 1] = v
        px[m + 1] = xv
        py[m + 1] = yv
    return idx, met, out[:emitted], False
