"""Exact Theil-Sen regression with Sen's confidence interval, for any n.

``theil_sen(y, x)`` returns the numbers of ``scipy.stats.theilslopes(y, x,
alpha=confidence, method="joint")``:

* slope = median of the slopes (y_b - y_a)/(x_b - x_a) of all pairs with
  x_a != x_b (the mean of the two middle ones for an even count);
* intercept = median(y - slope x);
* [low, high] = the sorted slopes at Sen's (1968, eq. 2.6) ranks, with the
  variance corrected for ties in x and in y, and the ranks rounded as scipy
  rounds them (half to even), clipped to the slope set.

Small inputs list every slope; larger ones select the needed ranks over the
implicit slope set (:mod:`perfwarehouse.kernels.theil_sen`), in O(n log n)
expected time, so 10^6 points take seconds and no n^2 memory.

NaN: a point whose x or y is NaN is dropped (scipy's ``nan_policy="omit"``).
Infinite values are refused. Fewer than 2 points: ``ValueError``. All x equal:
no slope exists; the result holds NaN like scipy's (which also warns).
A confidence below 0.5 is read as 1 - confidence, as scipy does.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

# the numba kernels (perfwarehouse.kernels.theil_sen) and scipy are imported where they are
# used: importing perfwarehouse.stats (every fraction option of the CLI does) stays light

#: pairs up to which every slope is listed and sorted (faster than selecting)
BRUTE_FORCE_PAIRS = 20_000
_ULP_MARGIN = 64 * np.finfo(np.float64).eps
#: threads that compute the orders of independent thresholds at once
_WORKERS = min(2, os.cpu_count() or 1)
#: ... for series of at least this many points: below, starting the threads costs more
#: than the second one saves (measured: equal near 5,000 points; 1.2x slower at 3,000, 1.3x
#: faster at 30,000), and a job that fits many short series runs them on threads already
_THREADS_FROM_POINTS = 8_000


@dataclass(frozen=True)
class TheilSenResult:
    """Theil-Sen fit: ``slope`` (y units per x unit), ``intercept``, Sen's CI ``[low, high]``.

    ``n`` is the number of points used (after dropping NaN), ``n_slopes`` the
    number of pairs with distinct x, ``confidence`` the CI level, and
    ``low_rank``/``high_rank`` the 0-based ranks of the CI in the sorted slopes.
    """

    slope: float
    intercept: float
    low: float
    high: float
    n: int
    n_slopes: int
    confidence: float
    low_rank: int
    high_rank: int


def theil_sen(y: object, x: object = None, confidence: float = 0.95, *,
              brute_force_pairs: int = BRUTE_FORCE_PAIRS, seed: int = 0) -> TheilSenResult:
    """Exact Theil-Sen slope, joint intercept and Sen's CI (scipy's ``theilslopes`` numbers).

    Parameters
    ----------
    y, x:
        Values and abscissae (default 0, 1, ..., n-1); same length.
    confidence:
        Level of the slope's two-sided CI, in (0, 1).
    brute_force_pairs:
        Up to this many pairs every slope is listed; above, ranks are selected.
    seed:
        Seed of the selection's sampling (affects speed only, never the result).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be a fraction in (0, 1), got {confidence!r}")
    yy = np.asarray(y, dtype=np.float64).ravel()
    xx = np.arange(yy.size, dtype=np.float64) if x is None else np.asarray(x, dtype=np.float64).ravel()
    if xx.size != yy.size:
        raise ValueError(f"x and y differ in length ({xx.size} and {yy.size})")
    keep = ~(np.isnan(xx) | np.isnan(yy))
    xx, yy = xx[keep], yy[keep]
    if not (np.all(np.isfinite(xx)) and np.all(np.isfinite(yy))):
        raise ValueError("x and y must be finite (infinite values found)")
    n = int(yy.size)
    if n < 2:
        raise ValueError(f"Theil-Sen needs at least 2 points, got {n} (after dropping NaN)")

    xs, ys = _sorted_by_x_then_y(xx, yy)
    group_sizes = _tie_sizes(xs)
    group_start = np.concatenate(([0], np.cumsum(group_sizes))).astype(np.int64)
    n_slopes = n * (n - 1) // 2 - int(np.sum(group_sizes * (group_sizes - 1) // 2))

    alpha = 1.0 - confidence if confidence > 0.5 else confidence
    low_rank, high_rank = sen_ranks(n_slopes, xs, ys, alpha, x_is_sorted=True)
    if n_slopes == 0:
        return TheilSenResult(math.nan, math.nan, math.nan, math.nan, n, 0, confidence, -1, -1)

    mid = [(n_slopes - 1) // 2, n_slopes // 2]
    wanted = sorted({*mid, *(r for r in (low_rank, high_rank) if r >= 0)})
    values = select_slopes(xs, ys, group_start, n_slopes, wanted,
                           brute_force_pairs=brute_force_pairs, seed=seed)
    a, b = values[mid[0]], values[mid[1]]
    slope = float(a) if mid[0] == mid[1] else float((a + b) / 2.0)
    intercept = float(np.median(yy - slope * xx))
    low = float(values[low_rank]) if low_rank >= 0 else math.nan
    high = float(values[high_rank]) if high_rank >= 0 else math.nan
    return TheilSenResult(slope, intercept, low, high, n, n_slopes, confidence, low_rank, high_rank)


def _sorted_by_x_then_y(xx: np.ndarray, yy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points ordered by x, then y (then input position): ``np.lexsort((yy, xx))``.

    Already sorted x (a time axis) costs one pass; otherwise two stable sorts,
    which are faster than ``np.lexsort`` on floats.
    """
    if np.all(xx[1:] > xx[:-1]):
        return np.ascontiguousarray(xx), np.ascontiguousarray(yy)
    by_y = np.argsort(yy, kind="stable")
    order = by_y[np.argsort(xx[by_y], kind="stable")]
    return np.ascontiguousarray(xx[order]), np.ascontiguousarray(yy[order])


def sen_ranks(n_slopes: int, x: np.ndarray, y: np.ndarray, alpha: float, *,
              x_is_sorted: bool = False) -> tuple[int, int]:
    """0-based ranks of Sen's CI in the sorted slopes, exactly as scipy computes them.

    sigma^2 = [n(n-1)(2n+5) - sum over tie groups t(t-1)(2t+5) in x and in y] / 18;
    high = min(round((N - z sigma)/2), N-1), low = max(round((N + z sigma)/2) - 1, 0)
    with z = Phi^-1(alpha/2) and round half to even. (-1, -1) when undefined
    (no slopes, or a negative variance from heavy ties), where scipy gives NaN.
    """
    n = int(x.size)
    tx = _tie_sizes(x if x_is_sorted else np.sort(x))
    ty = _tie_sizes(np.sort(y))
    ties = sum(int(k) * (int(k) - 1) * (2 * int(k) + 5) for k in tx[tx > 1])
    ties += sum(int(k) * (int(k) - 1) * (2 * int(k) + 5) for k in ty[ty > 1])
    sigsq = 1 / 18.0 * (n * (n - 1) * (2 * n + 5) - ties)
    if n_slopes == 0 or sigsq < 0:
        return -1, -1
    from scipy.special import ndtri

    z = float(ndtri(alpha / 2.0))
    sigma = math.sqrt(sigsq)
    high = min(int(np.round((n_slopes - z * sigma) / 2.0)), n_slopes - 1)
    low = max(int(np.round((n_slopes + z * sigma) / 2.0)) - 1, 0)
    return low, high


def _tie_sizes(sorted_values: np.ndarray) -> np.ndarray:
    """Sizes of the runs of equal values in a sorted array."""
    if sorted_values.size == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.flatnonzero(np.diff(sorted_values)) + 1
    edges = np.concatenate(([0], change, [sorted_values.size]))
    return np.diff(edges)


def select_slopes(xs: np.ndarray, ys: np.ndarray, group_start: np.ndarray, n_slopes: int,
                  ranks: list[int], *, brute_force_pairs: int = BRUTE_FORCE_PAIRS,
                  seed: int = 0) -> dict[int, float]:
    """The computed slopes at the given 0-based ranks (points sorted by x, then y)."""
    from perfwarehouse.kernels import slope_pairs as pairs

    if ys.size and ys.min() == ys.max():
        return {r: 0.0 for r in ranks}  # every slope is exactly 0
    if n_slopes <= brute_force_pairs:
        slopes = np.sort(pairs.all_slopes(xs, ys))
        return {r: float(slopes[r]) for r in ranks}
    return _Selector(xs, ys, group_start, n_slopes, seed).select(ranks)


class _Selector:
    """Randomised interval shrinking over the implicit slope set (see the kernel module)."""

    def __init__(self, xs: np.ndarray, ys: np.ndarray, group_start: np.ndarray, n_slopes: int,
                 seed: int) -> None:
        self.xs, self.ys, self.group_start, self.total = xs, ys, group_start, n_slopes
        n = xs.size
        self.sample_size = int(min(max(n, 2000), 1_000_000))
        self.enumerate_at = int(max(8 * n, 100_000))
        x_range = float(xs[-1] - xs[0])
        self.scale = float(np.max(np.abs(ys))) / x_range  # a slope magnitude of the data
        self.rng = np.random.default_rng(seed)
        self.workers = _WORKERS if n >= _THREADS_FROM_POINTS else 1
        self._orders: dict[float, tuple[np.ndarray, int]] = {}
        self._listed: dict[tuple[float, float], np.ndarray] = {}  # slopes in (a, b]

    def _seed(self) -> int:
        return int(self.rng.integers(0, 2**31 - 1))

    def margin(self, t: float) -> float:
        return _ULP_MARGIN * max(abs(t), self.scale)

    def _compute(self, t: float) -> tuple[np.ndarray, int]:
        from perfwarehouse.kernels import theil_sen as kern

        if t == -math.inf:
            return np.arange(self.xs.size, dtype=np.int64), 0
        if t == math.inf:
            return kern.order_at_plus_infinity(self.group_start), self.total
        order, count = kern.order_and_count(self.xs, self.ys, self.group_start, float(t))
        return order, int(count)

    def prefetch(self, thresholds: list[float]) -> None:
        """Compute the orders and counts of several thresholds at once, on two threads.

        The kernels release the GIL, so two thresholds cost about one on two cores.
        """
        todo = [t for t in dict.fromkeys(thresholds) if t not in self._orders
                and math.isfinite(t)]
        if len(todo) < 2 or self.workers < 2:
            return
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for t, result in zip(todo, pool.map(self._compute, todo)):
                self._store(t, result)

    def _store(self, t: float, result: tuple[np.ndarray, int]) -> None:
        if len(self._orders) >= 10:
            self._orders.pop(next(iter(self._orders)))
        self._orders[t] = result

    def _entry(self, t: float) -> tuple[np.ndarray, int]:
        """The points' order at threshold t and the count of slopes <= t (cached)."""
        if t not in self._orders:
            self._store(t, self._compute(t))
        return self._orders[t]

    def order(self, t: float) -> np.ndarray:
        return self._entry(t)[0]

    def count(self, t: float) -> int:
        return self._entry(t)[1]

    def _between(self, lower: float, upper: float, mode: int, rho: float, capacity: int):
        from perfwarehouse.kernels import slope_pairs as pairs

        if mode == 1 and (lower, upper) in self._listed:
            return self._listed.pop((lower, upper)), False
        if mode == 1:
            return pairs.list_between_orders(self.xs, self.ys, self.order(lower),
                                            self.order(upper), int(capacity))
        return pairs.sample_between_orders(self.xs, self.ys, self.order(lower), self.order(upper),
                                          float(rho), int(capacity), self._seed())

    def select(self, ranks: list[int]) -> dict[int, float]:
        out: dict[int, float] = {}
        self._solve(sorted(ranks), -math.inf, math.inf, 0, self.total, out)
        return out

    def _solve(self, ranks: list[int], lower: float, upper: float, c_lower: int, c_upper: int,
               out: dict[int, float], force_list: bool = False) -> None:
        while True:
            m = c_upper - c_lower
            if m <= self.enumerate_at or force_list:
                if self._finish(ranks, lower, upper, c_lower, c_upper, out):
                    return
                lower, upper = self._widen(lower, upper)
                self.prefetch([lower, upper])
                c_lower, c_upper = self.count(lower), self.count(upper)
                continue
            sample = self._sample(lower, upper, m)
            if sample.size < 50:
                continue
            sample.sort()
            clusters = None if sample[0] == sample[-1] else self._clusters(
                ranks, sample, lower, upper, c_lower, m)
            if clusters is None:  # a few values repeated very often (tied data)
                self._by_plateaus(ranks, np.unique(sample), lower, upper, out)
                return
            self._bracket(clusters, m / sample.size)
            for group, new_lower, new_upper, _ in clusters:
                cl, cu = self.count(new_lower), self.count(new_upper)
                if cl <= group[0] and group[-1] < cu:
                    self._solve(group, new_lower, new_upper, cl, cu, out)
                else:  # the sample misled us (rare): search this group in the whole interval
                    self._solve(group, lower, upper, c_lower, c_upper, out)
            return

    def _bracket(self, clusters: list[tuple[list[int], float, float, int]],
                 per_sample: float) -> None:
        """Orders and counts at the clusters' bounds, two threads at a time.

        A cluster expected to hold few enough slopes to list gets its upper order
        from its lower one by an insertion sort (:func:`~perfwarehouse.kernels.slope_pairs.advance_order`), which
        lists the slopes in between on the way; the others are sorted and counted.
        """
        advance = []
        full = []
        for _, a, b, sampled in clusters:
            expected = (sampled + 1) * per_sample
            if math.isfinite(a) and math.isfinite(b) and expected <= self.enumerate_at:
                advance.append((a, b, int(min(3 * expected, 4 * self.enumerate_at) + 10_000)))
                full.append(a)
            else:
                full += [a, b]
        self.prefetch(full)
        todo = [job for job in advance if job[1] not in self._orders]
        if self.workers > 1 and len(todo) > 1:
            with ThreadPoolExecutor(max_workers=self.workers) as pool:
                list(pool.map(self._advance, todo))
        else:
            for job in todo:
                self._advance(job)

    def _advance(self, job: tuple[float, float, int]) -> None:
        from perfwarehouse.kernels import slope_pairs as pairs

        a, b, capacity = job
        count_a = self.count(a)
        order, met, slopes, overflow = pairs.advance_order(self.xs, self.ys, self.order(a),
                                                          float(b), capacity)
        if not overflow:
            self._store(b, (order, count_a + int(met)))
            self._listed[(a, b)] = slopes

    def _by_plateaus(self, ranks: list[int], values: np.ndarray, lower: float, upper: float,
                     out: dict[int, float]) -> None:
        """Locate each rank on a plateau of one repeated slope value, or in a gap between.

        A plateau is confirmed by listing the min and max of its slopes (no storage).
        """
        from perfwarehouse.kernels import slope_pairs as pairs

        candidates: list[float] = []
        for v in map(float, values):
            previous = candidates[-1] if candidates else None
            if lower < self._below(v) and self._above(v) < upper and (
                    previous is None or self._above(previous) < self._below(v)):
                candidates.append(v)
        cuts = [(lower, self.count(lower))]
        for v in candidates:
            cuts.append((self._below(v), -1))
            cuts.append((self._above(v), -1))
        cuts.append((upper, self.count(upper)))
        for k in ranks:
            lo_i, hi_i = 0, len(cuts) - 1  # invariant: count(cut lo) <= k < count(cut hi)
            while hi_i - lo_i > 1:
                mid = (lo_i + hi_i) // 2
                if cuts[mid][1] < 0:
                    cuts[mid] = (cuts[mid][0], self.count(cuts[mid][0]))
                if cuts[mid][1] <= k:
                    lo_i = mid
                else:
                    hi_i = mid
            a, b = cuts[lo_i][0], cuts[hi_i][0]
            ca, cb = self.count(a), self.count(b)
            if lo_i % 2 == 1 and hi_i == lo_i + 1:  # between below(v) and above(v): a plateau
                v = candidates[lo_i // 2]
                lo, hi, count = pairs.slope_range_between_orders(self.xs, self.ys, self.order(a),
                                                                self.order(b))
                if lo == hi == v and count == cb - ca:
                    out[k] = v
                    continue
            if (a, b) == (lower, upper):  # no progress possible: list the interval
                lower_all, upper_all = -math.inf, math.inf
                self._solve([k], lower_all, upper_all, 0, self.total, out, force_list=True)
                continue
            self._solve([k], a, b, ca, cb, out)

    def _sample(self, lower: float, upper: float, m: int) -> np.ndarray:
        from perfwarehouse.kernels import slope_pairs as pairs

        r = self.sample_size
        if lower == -math.inf and upper == math.inf:  # ~4 sqrt(N): the window then holds ~N^0.75
            first = int(min(1_000_000, max(2_000, 4 * math.sqrt(self.total))))
            return pairs.random_pair_slopes(self.xs, self.ys, first, self._seed())
        rho = min(1.0, r / m)
        slopes, overflow = self._between(lower, upper, 2, rho, int(2 * r + 1000))
        return slopes if not overflow else slopes[: r]

    def _clusters(self, ranks: list[int], sample: np.ndarray, lower: float, upper: float,
                  c_lower: int, m: int) -> list[tuple[list[int], float, float, int]] | None:
        """Group target ranks whose sample windows overlap; bounds per group (and the
        number of sampled slopes between them)."""
        r = sample.size
        windows = []
        for k in ranks:
            f = (k - c_lower + 0.5) / m
            spread = 3.0 * math.sqrt(r * f * (1 - f)) + 2.0
            windows.append((int(math.floor(f * r - spread)), int(math.ceil(f * r + spread)), k))
        groups: list[list[tuple[int, int, int]]] = []
        for w in windows:
            if groups and w[0] <= groups[-1][-1][1]:
                groups[-1].append(w)
            else:
                groups.append([w])
        if len(groups) == 1 and groups[0][0][0] < 0 and groups[0][-1][1] >= r:
            groups = [[w] for w in windows]  # chained windows span everything: split them
        elif len(groups) > 1:  # one interval for all, when few enough slopes to list it
            span = (min(windows[-1][1], r) - max(windows[0][0], 0)) / r * m
            if span <= self.enumerate_at:
                groups = [windows]
        result = []
        for g in groups:
            lo_i = min(w[0] for w in g)
            hi_i = max(w[1] for w in g)
            new_lower = lower if lo_i < 0 else self._below(float(sample[lo_i]))
            new_upper = upper if hi_i >= r else self._above(float(sample[hi_i]))
            new_lower = max(new_lower, lower)
            new_upper = min(new_upper, upper)
            if new_lower == lower and new_upper == upper and len(groups) == 1:
                return None
            result.append(([w[2] for w in g], new_lower, new_upper, hi_i - lo_i))
        return result

    def _below(self, t: float) -> float:
        return t - 2.0 * self.margin(t)

    def _above(self, t: float) -> float:
        return t + 2.0 * self.margin(t)

    def _widen(self, lower: float, upper: float) -> tuple[float, float]:
        if lower == -math.inf or upper == math.inf:
            return -math.inf, math.inf
        width = max(upper - lower, self.margin(lower), self.margin(upper))
        return lower - width, upper + width

    def _finish(self, ranks: list[int], lower: float, upper: float, c_lower: int, c_upper: int,
                out: dict[int, float]) -> bool:
        """List the slopes of (lower, upper] and take the ranks from their computed values."""
        m = c_upper - c_lower
        slopes, overflow = self._between(lower, upper, 1, 1.0, int(m + m // 8 + 1000))
        if overflow:
            return False
        positions = [k - c_lower for k in ranks]
        if not all(0 <= i < slopes.size for i in positions):
            return False
        slopes = np.partition(slopes, positions)
        found = {}
        for k in ranks:
            i = k - c_lower
            v = float(slopes[i])
            if lower != -math.inf and not v > lower + self.margin(lower):
                return False
            if upper != math.inf and not v < upper - self.margin(upper):
                return False
            found[k] = v
        out.update(found)
        return True


def trend_ci_contains_zero(y: np.ndarray, confidence: float) -> bool:
    """Whether Sen's ``confidence`` CI of the slope of ``y`` against its index contains 0.

    Decided from two counts, without selecting the CI's slopes (O(n log n)):
    slope_(low) <= 0 iff at least low + 1 slopes are <= 0, and slope_(high) >= 0
    iff at most high slopes are < 0. Equal to ``low <= 0 <= high`` of
    :func:`theil_sen` (y must be free of NaN).
    """
    from perfwarehouse.kernels import theil_sen as kern

    ys = np.ascontiguousarray(y, dtype=np.float64)
    n = ys.size
    xs = np.arange(n, dtype=np.float64)
    n_slopes = n * (n - 1) // 2
    alpha = 1.0 - confidence if confidence > 0.5 else confidence
    low, high = sen_ranks(n_slopes, xs, ys, alpha)
    if low < 0:
        return False
    ties = _tie_sizes(np.sort(ys))
    equal_pairs = int(np.sum(ties * (ties - 1) // 2))
    at_most_zero = int(kern.count_at_most(xs, ys, np.arange(n + 1, dtype=np.int64), 0.0))
    below_zero = at_most_zero - equal_pairs
    return at_most_zero >= low + 1 and below_zero <= high
