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
  :func:`sample_between_orders`); an insertion sort of the L-order into the
  R-order meets every one of them exactly once, so it lists them in O(n + K)
  (:func:`list_between_orders`), K being known from the two counts.
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
    """``size`` slopes of uniformly drawn pairs with distinct x (with replacement)."""
    np.random.seed(seed)
    n = x.size
    # the first points of the pairs in increasing index order (sorted draws): then
    # only the second point of a pair is a cache miss
    first = np.sort(np.random.randint(0, n, size))
    out = np.empty(size)
    k = 0
    tries = 0
    while k < size and tries < 1000 * size + 1000:
        i = first[tries % size]
        tries += 1
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
