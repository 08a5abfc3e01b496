"""numba kernels of E-divisive means (Matteson & James, JASA 109(505), 2014, section 2).

For a series z_1..z_n split after tau points into X = z_1..z_tau and Y = z_tau+1..z_n,
with the exponent alpha = 1 of the paper (|.|^1, the energy distance of the two parts),

    E(tau) = 2/(a b) sum_{i<=tau<j} |z_i - z_j| - 2/(a (a-1)) sum_{i<k<=tau} |z_i - z_k|
             - 2/(b (b-1)) sum_{tau<j<k} |z_j - z_k|,       a = tau, b = n - tau,
    Q(tau) = a b / n * E(tau)                                (paper, equations 5-6)

with the end of the segment fixed at n (the form Otava and MongoDB's signal-processing
library use; Daly et al., ICPE 2020, section 3.2). The three pairwise sums are computed for
every tau in one O(n log n) pass: the within-prefix sum A(tau) grows by
sum_{i<tau} |z_tau - z_i| (a Fenwick tree over the dense value levels keeps the counts and
sums of the smaller values); with D_i = sum_j |z_i - z_j| (a function of z_i's level, the
same for every permutation), sum_{i<=tau} D_i = 2 A(tau) + cross(tau) gives the cross sum,
and the within-suffix sum is A(n) - A(tau) - cross(tau). Callers pass ranks (integers or
mid-ranks); the tree works on the ranks doubled, in int64, so A(tau) is exact, and so is
every float64 sum of ranks (integers or half-integers, n <= 10^5).

The permutation test draws permutations with Fisher-Yates shuffles driven by splitmix64
(Steele, Lea & Flood, OOPSLA 2014), so the slow twin in ``tests/naive/changepoints.py``
reproduces the very same permutations in pure Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, nogil=True)
def _splitmix(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """(next state, 64 random bits)."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def ranks_levels(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(mid-ranks, 0-based dense level of each value, number of levels) of a float64 array
    without NaN (equal values share a level and the mean of their 1-based ranks)."""
    n = values.size
    order = np.argsort(values)  # equal values get one rank and level: stability is moot
    ranks = np.empty(n)
    levels = np.empty(n, dtype=np.int64)
    start = 0
    level = 0
    while start < n:
        stop = start + 1
        while stop < n and values[order[stop]] == values[order[start]]:
            stop += 1
        mid = (start + stop + 1) / 2.0
        for k in range(start, stop):
            ranks[order[k]] = mid
            levels[order[k]] = level
        level += 1
        start = stop
    return ranks, levels, level


@njit(cache=True, nogil=True)
def level_distances(x: np.ndarray, level: np.ndarray, n_levels: int) -> np.ndarray:
    """D[l] = sum_j |u_l - x_j| for the value u_l of each level (invariant under
    permutations of the series)."""
    n = x.size
    count = np.zeros(n_levels)
    value = np.zeros(n_levels)
    for i in range(n):
        count[level[i]] += 1.0
        value[level[i]] = x[i]
    total = 0.0
    for lv in range(n_levels):
        total += count[lv] * value[lv]
    out = np.empty(n_levels)
    c_below = 0.0
    s_below = 0.0
    for lv in range(n_levels):
        u = value[lv]
        c_le = c_below + count[lv]
        s_le = s_below + count[lv] * u
        out[lv] = u * c_le - s_le + (total - s_le) - u * (n - c_le)
        c_below = c_le
        s_below = s_le
    return out


@njit(cache=True, nogil=True)
def _curve(x2: np.ndarray, level: np.ndarray, n_levels: int, min_size: int, dist: np.ndarray,
           total: float, out: np.ndarray, cnt: np.ndarray, sm: np.ndarray) -> int:
    """Fill out[tau] = Q(tau) for min_size <= tau <= n - min_size (NaN elsewhere); return
    the first tau of the maximum (-1 when there is none).

    One pass over t: A(t), the sum over pairs inside the first t points (Fenwick tree over
    the levels, counts in ``cnt`` and sums in ``sm``), and cum(t) = sum_{i<t} D[level_i] =
    2 A(t) + cross(t), so cross(t) = cum(t) - 2 A(t) and B(t) = A(n) - A(t) - cross(t),
    with ``total`` = A(n) (:func:`_pair_total`: it does not depend on the order). The
    tree and A(t) are integers: ``x2`` holds the ranks doubled (mid-ranks are
    half-integers), so they are exact and 2 A(t) is halved exactly."""
    n = x2.size
    cnt[:] = 0
    sm[:] = 0
    total_c = 0
    total_s = 0
    acc2 = 0
    run = 0.0
    out[:] = np.nan
    best = -1
    best_q = -np.inf
    for t in range(n - min_size):
        v = x2[t]
        lv = level[t] + 1
        c_le = 0
        s_le = 0
        k = lv
        while k > 0:
            c_le += cnt[k]
            s_le += sm[k]
            k -= k & -k
        acc2 += v * c_le - s_le + (total_s - s_le) - v * (total_c - c_le)
        run += dist[lv - 1]
        k = lv
        while k <= n_levels:
            cnt[k] += 1
            sm[k] += v
            k += k & -k
        total_c += 1
        total_s += v
        tau = t + 1
        if tau >= min_size:
            acc = 0.5 * acc2
            a = float(tau)
            b = float(n - tau)
            cross = run - 2.0 * acc
            within_y = total - acc - cross
            e = 2.0 * cross / (a * b) - 2.0 * acc / (a * (a - 1.0)) \
                - 2.0 * within_y / (b * (b - 1.0))
            q = a * b / n * e
            out[tau] = q
            if q > best_q:
                best_q = q
                best = tau
    return best


@njit(cache=True, nogil=True)
def _pair_total(level: np.ndarray, dist: np.ndarray) -> float:
    """A(n) = sum_{i<j} |z_i - z_j| = sum_i D[level_i] / 2."""
    total = 0.0
    for t in range(level.size):
        total += dist[level[t]]
    return 0.5 * total


@njit(cache=True, nogil=True)
def _work_arrays(n: int, n_levels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The work arrays of :func:`_curve` for ``n`` values of ``n_levels`` levels: out
    (n + 1), cnt, sm (n_levels + 1 integers each)."""
    return (np.empty(n + 1), np.empty(n_levels + 1, dtype=np.int64),
            np.empty(n_levels + 1, dtype=np.int64))


@njit(cache=True, nogil=True)
def _doubled(ranks: np.ndarray) -> np.ndarray:
    """2 x the ranks (integers or mid-ranks) as exact int64."""
    out = np.empty(ranks.size, dtype=np.int64)
    for i in range(ranks.size):
        out[i] = np.int64(2.0 * ranks[i])
    return out


@njit(cache=True, nogil=True)
def q_curve(x: np.ndarray, level: np.ndarray, n_levels: int, min_size: int) -> np.ndarray:
    """Q(tau) for tau = 0..n (NaN where a part would have fewer than ``min_size`` points).

    ``x``: float64 values (ranks); ``level``: int64 dense level of each value (0-based,
    equal values share a level, order preserved); ``n_levels`` = max(level) + 1;
    ``min_size`` >= 2.
    """
    return _curve_of(x, level, n_levels, min_size)[0]


@njit(cache=True, nogil=True)
def _curve_of(x: np.ndarray, level: np.ndarray, n_levels: int, min_size: int
              ) -> tuple[np.ndarray, int]:
    """(Q(tau) for tau = 0..n, the first tau of its maximum or -1) of ranks ``x``."""
    out, cnt, sm = _work_arrays(x.size, n_levels)
    dist = level_distances(x, level, n_levels)
    best = _curve(_doubled(x), level, n_levels, min_size, dist, _pair_total(level, dist), out,
                  cnt, sm)
    return out, best


@njit(cache=True, nogil=True)
def segment_split(values: np.ndarray, min_size: int) -> tuple[int, float, np.ndarray, int]:
    """(split, Q at the split, mid-ranks, number of levels) of a float64 segment without
    NaN: the split is the first tau of max Q(tau) over min_size <= tau <= n - min_size of
    its mid-ranks (-1 with NaN when all values are equal or no tau is allowed). One call
    instead of :func:`ranks_levels` and :func:`q_curve`."""
    ranks, levels, n_levels = ranks_levels(values)
    if n_levels == 1:
        return -1, np.nan, ranks, n_levels
    out, best = _curve_of(ranks, levels, n_levels, min_size)
    return best, (out[best] if best >= 0 else np.nan), ranks, n_levels


@njit(cache=True, nogil=True)
def count_hits(maxima: np.ndarray, limit: int, threshold: float, stop_count: int
               ) -> tuple[int, int]:
    """(hits, draws) among the first ``limit`` maxima: hits = how many are >= threshold,
    stopping at the ``stop_count``-th hit (draws = its 1-based index), else draws =
    min(limit, maxima.size)."""
    hits = 0
    n = min(limit, maxima.size)
    for i in range(n):
        if maxima[i] >= threshold:
            hits += 1
            if hits >= stop_count:
                return hits, i + 1
    return hits, n


@njit(cache=True, nogil=True)
def permutation_maxima(px: np.ndarray, pl: np.ndarray, n_levels: int, min_size: int,
                       n_perm: int, state: np.uint64, stop_at: float, stop_count: int
                       ) -> tuple[np.ndarray, np.uint64]:
    """max_tau Q(tau) of up to ``n_perm`` random permutations of the series (px, pl).

    Permutation r shuffles the previous one in place (Fisher-Yates from the end,
    j = ((bits >> 32) (i + 1)) >> 32 (Lemire, ACM TOMACS 29(1), 2019), bits from a
    splitmix64 stream at ``state``), so ``px``/``pl``
    are left at the last permutation and the returned state continues the stream: a
    caller can draw more later and get the same sequence as one long call. Stops early,
    after the permutation that brings the count of maxima >= ``stop_at`` to
    ``stop_count`` (sequential Monte Carlo test, Besag & Clifford, Biometrika 78(2),
    1991); ``stop_at = inf`` draws all. Returns (the maxima drawn, the new state).
    """
    n = px.size
    out, cnt, sm = _work_arrays(n, n_levels)
    dist = level_distances(px, pl, n_levels)
    total = _pair_total(pl, dist)
    x2 = _doubled(px)  # shuffled with pl; px is given the last permutation at the end
    maxima = np.empty(n_perm)
    drawn = 0
    hits = 0
    for r in range(n_perm):
        for i in range(n - 1, 0, -1):
            state, bits = _splitmix(state)
            j = np.int64(((bits >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
            tx = x2[i]
            x2[i] = x2[j]
            x2[j] = tx
            tl = pl[i]
            pl[i] = pl[j]
            pl[j] = tl
        best = _curve(x2, pl, n_levels, min_size, dist, total, out, cnt, sm)
        m = out[best] if best >= 0 else np.nan
        maxima[r] = m
        drawn = r + 1
        if m >= stop_at:
            hits += 1
            if hits >= stop_count:
                break
    for i in range(n):
        px[i] = 0.5 * x2[i]
    return maxima[:drawn], state


@njit(cache=True, nogil=True)
def _next_arrangement(a: np.ndarray) -> bool:
    """Step ``a`` to its next arrangement in lexicographic order (Knuth, TAOCP 4A,
    7.2.1.2, algorithm L: repeated values give each distinct arrangement once); False
    (``a`` left sorted descending) after the last."""
    n = a.size
    j = n - 2
    while j >= 0 and a[j] >= a[j + 1]:
        j -= 1
    if j < 0:
        return False
    k = n - 1
    while a[j] >= a[k]:
        k -= 1
    t = a[j]
    a[j] = a[k]
    a[k] = t
    lo = j + 1
    hi = n - 1
    while lo < hi:
        t = a[lo]
        a[lo] = a[hi]
        a[hi] = t
        lo += 1
        hi -= 1
    return True


@njit(cache=True, nogil=True)
def arrangement_maxima(sorted_ranks: np.ndarray, sorted_levels: np.ndarray, n_levels: int,
                       min_size: int, count: int) -> np.ndarray:
    """max_tau Q(tau) of every distinct arrangement of a rank multiset (``count`` of them:
    n! / prod(tie sizes!)), for an exact permutation test: under exchangeability each
    distinct arrangement is equally likely, so P(max Q >= q) is the share of these
    maxima >= q. ``sorted_ranks``/``sorted_levels``: the ranks and their dense levels in
    ascending order."""
    n = sorted_ranks.size
    out, cnt, sm = _work_arrays(n, n_levels)
    dist = level_distances(sorted_ranks, sorted_levels, n_levels)
    total = _pair_total(sorted_levels, dist)
    level_x2 = np.empty(n_levels, dtype=np.int64)
    for i in range(n):
        level_x2[sorted_levels[i]] = np.int64(2.0 * sorted_ranks[i])
    arr = sorted_levels.copy()
    x2 = np.empty(n, dtype=np.int64)
    maxima = np.empty(count)
    r = 0
    while r < count:
        for i in range(n):
            x2[i] = level_x2[arr[i]]
        best = _curve(x2, arr, n_levels, min_size, dist, total, out, cnt, sm)
        maxima[r] = out[best] if best >= 0 else np.nan
        r += 1
        if not _next_arrangement(arr):
            break
    return maxima[:r]


@njit(cache=True, nogil=True)
def _arrangement_max(arr: np.ndarray, x2: np.ndarray, n: int, min_size: int,
                     dist: np.ndarray, total: float, out: np.ndarray, cnt: np.ndarray,
                     sm: np.ndarray) -> float:
    """max_tau Q(tau) of the arrangement ``arr`` of the levels 0..n-1 (ranks level + 1)."""
    for i in range(n):
        x2[i] = 2 * (arr[i] + 1)
    best = _curve(x2, arr, n, min_size, dist, total, out, cnt, sm)
    return out[best] if best >= 0 else np.nan


@njit(cache=True, nogil=True)
def untied_arrangement_maxima(n: int, min_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(maxima, weights): :func:`arrangement_maxima` of the ranks 1..n (no ties), from one
    arrangement in about four. max_tau Q(tau) is the same for an arrangement, its reverse
    (Q(tau) becomes Q(n - tau): E is symmetric in the two parts) and its complement
    (rank r -> n + 1 - r keeps every |z_i - z_j|), so only the arrangements whose first
    level f and last level l have f < l and f + l <= n - 1 are visited: weight 4 where
    f + l < n - 1 (the four images are distinct), 2 where f + l = n - 1 (the reversed
    complement is another arrangement of the same kind, visited too). The weights add up
    to n!. The images' maxima agree up to rounding, which matters only where the maximum
    is 0 (|max| < 1e-9; a nonzero one is a rational far larger for n <= 10): there each
    image is computed as :func:`arrangement_maxima` computes it, with weight 1, so every
    tail count is the same as over all n! arrangements."""
    out, cnt, sm = _work_arrays(n, n)
    ranks = np.arange(1.0, n + 1.0)
    levels = np.arange(n, dtype=np.int64)
    dist = level_distances(ranks, levels, n)
    total = _pair_total(levels, dist)
    size = 1
    for k in range(2, n + 1):
        size *= k
    maxima = np.empty(size)
    weights = np.empty(size)
    arr = np.empty(n, dtype=np.int64)
    image = np.empty(n, dtype=np.int64)
    x2 = np.empty(n, dtype=np.int64)
    middle = np.empty(n - 2, dtype=np.int64)
    r = 0
    for f in range(n):
        for last in range(f + 1, n - f):  # f < last and f + last <= n - 1
            four = f + last < n - 1
            k = 0
            for v in range(n):
                if v != f and v != last:
                    middle[k] = v
                    k += 1
            arr[0] = f
            arr[n - 1] = last
            more = True
            while more:
                for i in range(n - 2):
                    arr[i + 1] = middle[i]
                m = _arrangement_max(arr, x2, n, min_size, dist, total, out, cnt, sm)
                if abs(m) >= 1e-9 or np.isnan(m):
                    maxima[r] = m
                    weights[r] = 4.0 if four else 2.0
                    r += 1
                else:  # 0 up to rounding: each image as it is, weight 1
                    maxima[r] = m
                    weights[r] = 1.0
                    r += 1
                    for i in range(n):
                        image[i] = arr[n - 1 - i]
                    maxima[r] = _arrangement_max(image, x2, n, min_size, dist, total, out,
                                                 cnt, sm)
                    weights[r] = 1.0
                    r += 1
                    if four:
                        for i in range(n):
                            image[i] = n - 1 - arr[i]
                        maxima[r] = _arrangement_max(image, x2, n, min_size, dist, total,
                                                     out, cnt, sm)
                        weights[r] = 1.0
                        r += 1
                        for i in range(n):
                            image[i] = n - 1 - arr[n - 1 - i]
                        maxima[r] = _arrangement_max(image, x2, n, min_size, dist, total,
                                                     out, cnt, sm)
                        weights[r] = 1.0
                        r += 1
                more = _next_arrangement(middle)
    return maxima[:r], weights[:r]
