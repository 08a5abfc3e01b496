"""numba kernels: exact order statistics of the implicit set of pairwise slopes.

For n points sorted by x, the slopes s_ab = fl(fl(y_b - y_a) / fl(x_b - x_a)) of
all pairs with x_a < x_b are the values ``scipy.stats.theilslopes`` sorts
("Theil-Sen"). With n = 10^6 there are 5 x 10^11 of them, so they are
never materialised; the k-th smallest is found by *selection*:

* **Counting** the slopes <= t for any t in O(n log n): with u_i(t) = y_i - t x_i,
  a pair a, b with x_a < x_b has slope <= t exactly when u_b(t) <= u_a(t), so
  the count is the number of inversions of the points' t-order relative to
  their x-order, minus the pairs inside groups of equal x (excluded from the
  slope set). One merge sort of the x-ordered keys u(t) yields both the t-order
  and that count (:func:`order_and_count`). u is evaluated with an error-free
  product (Dekker) and a double-double difference, so the count is that of the
  exact slopes Delta y / Delta x up to ~1e-32 relative.
* **Sampling and enumerating** the slopes in (L, R]: they are exactly the pairs
  whose order differs between the L-order and the R-order, i.e. the
  inversions of one permutation relative to the other. A merge sort draws each
  with probability rho by geometric skips (O(n log n + rho K),
  :func:`~perfwarehouse.kernels.slope_pairs.sample_between_orders`); an insertion
  sort of the L-order into the R-order meets every one of them exactly once, so it
  lists them in O(n + K) (:func:`~perfwarehouse.kernels.slope_pairs.list_between_orders`),
  K being known from the two counts. These kernels are :mod:`.slope_pairs`.
* **Randomised interval shrinking** (in :mod:`perfwarehouse.stats.slope_selection`):
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
    return order_and_count(x, y, group_start, t)[1]


@njit(cache=True, nogil=True)
def order_and_count(x: np.ndarray, y: np.ndarray, group_start: np.ndarray,
                    t: float) -> tuple[np.ndarray, int]:
    """(order at t, number of pairs with x_a < x_b whose exact slope is <= t), one merge sort.

    The x-ordered points are sorted by the key of :func:`_key_less` (u(t), then
    larger x first, then index); every inversion met is a pair b-before-a, i.e.
    a slope <= t. Pairs inside a group of equal x are not slopes: they are
    subtracted (they are never inverted, as u(t) then follows y, unless rounding
    says otherwise, which is checked).
    """
    hi, lo = residuals(x, y, t)
    n = x.size
    src_k = hi.copy()
    src_i = np.arange(n)
    dst_k = np.empty(n)
    dst_i = np.empty(n, dtype=np.int64)
    inversions = 0
    block = 16  # insertion sort of small blocks, then bottom-up merges
    for s in range(0, n, block):
        e = min(s + block, n)
        for k in range(s + 1, e):
            v = src_i[k]
            kv = src_k[k]
            m = k - 1
            while m >= s and (kv < src_k[m] or (kv == src_k[m]
                                                and _key_less(hi, lo, x, v, src_i[m]))):
                src_k[m + 1] = src_k[m]
                src_i[m + 1] = src_i[m]
                m -= 1
            inversions += k - 1 - m
            src_k[m + 1] = kv
            src_i[m + 1] = v
    width = block
    while width < n:
        start = 0
        while start < n:
            mid = min(start + width, n)
            end = min(start + 2 * width, n)
            i = start
            j = mid
            k = start
            while i < mid and j < end:
                ki = src_k[i]
                kj = src_k[j]
                if kj < ki or (kj == ki and _key_less(hi, lo, x, src_i[j], src_i[i])):
                    inversions += mid - i
                    dst_k[k] = kj
                    dst_i[k] = src_i[j]
                    j += 1
                else:
                    dst_k[k] = ki
                    dst_i[k] = src_i[i]
                    i += 1
                k += 1
            while i < mid:
                dst_k[k] = src_k[i]
                dst_i[k] = src_i[i]
                i += 1
                k += 1
            while j < end:
                dst_k[k] = src_k[j]
                dst_i[k] = src_i[j]
                j += 1
                k += 1
            start = end
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
        width *= 2
    order = src_i
    if group_start.size - 1 < n:  # groups of equal x exist
        rank = np.empty(n, dtype=np.int64)
        for k in range(n):
            rank[order[k]] = k
        dummy = np.empty(0, dtype=np.int64)
        for g in range(group_start.size - 1):
            a = group_start[g]
            b = group_start[g + 1]
            monotone = True
            for i in range(a + 1, b):
                if rank[i] < rank[i - 1]:
                    monotone = False
                    break
            if not monotone:
                part = rank[a:b].copy()
                inversions -= _merge_inversions(part, 0, 0.0, dummy, dummy)[0]
    return order, inversions


