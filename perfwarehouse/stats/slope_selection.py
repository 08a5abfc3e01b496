"""The k-th smallest slopes of the implicit set of pairwise slopes, for
:func:`perfwarehouse.stats.theil_sen.theil_sen`: every slope listed and sorted for small
sets (up to :data:`BRUTE_FORCE_PAIRS`), else *randomised interval shrinking* — sample the
slopes of the current interval, keep a sub-interval around the target ranks whose count
is checked, until few enough remain to enumerate — over the numba kernels that count
(:mod:`perfwarehouse.kernels.theil_sen`, whose docstring states the method and its
exactness) and list or sample (:mod:`perfwarehouse.kernels.slope_pairs`) the slopes.

Points are sorted by x, then y; the ranks are 0-based; the slopes are the computed ones,
as ``scipy.stats.theilslopes`` sorts them.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

#: pairs up to which every slope is listed and sorted (faster than selecting)
BRUTE_FORCE_PAIRS = 20_000
_ULP_MARGIN = 64 * np.finfo(np.float64).eps
#: threads that compute the orders of independent thresholds at once
_WORKERS = min(2, os.cpu_count() or 1)
#: ... for series of at least this many points: below, starting the threads costs more
#: than the second one saves (measured: equal near 5,000 points; 1.2x slower at 3,000, 1.3x
#: faster at 30,000), and a job that fits many short series runs them on threads already
_THREADS_FROM_POINTS = 8_000


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
        # list an interval once it holds as few slopes as brute force lists (or 8 per
        # point): the floor was 100,000, which at 1,200 points listed 100,000 slopes where
        # 20,000 do (2.2 -> 1.5 ms a fit; the same from 3,000 points on, tied or not)
        self.enumerate_at = int(max(8 * n, BRUTE_FORCE_PAIRS))
        x_range = float(xs[-1] - xs[0])
        self.scale = float(np.max(np.abs(ys))) / x_range  # a slope magnitude of the data
        self.rng = np.random.default_rng(seed)
        self.workers = _WORKERS if n >= _THREADS_FROM_POINTS else 1
        self._orders: dict[float, tuple[np.ndarray, int]] = {}
        self._listed: dict[tuple[float, float], np.ndarray] = {}  # slopes in (a, b]
        self._plateaus: dict[tuple[float, float], float | None] = {}  # _one_value
        self._zeros: int | None = None  # _zero_slopes

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
                if self._one_value(a, b) == v:
                    out[k] = v
                    continue
            if (a, b) == (lower, upper):  # no progress possible
                whole = self._one_value(a, b)
                if whole is not None:  # the interval is one plateau (coarse data: a slope
                    out[k] = whole     # of 0 repeated by half the pairs)
                    continue
                # slopes a few ulps apart, none a plateau of its own: list this interval
                # (_finish widens it when a rank lands within the margin of a bound)
                self._solve([k], a, b, ca, cb, out, force_list=True)
                continue
            self._solve([k], a, b, ca, cb, out)

    def _one_value(self, a: float, b: float) -> float | None:
        """The computed slope shared by every slope of (a, b], or None when they differ:
        their min and max, from the two orders, without storing them (cached)."""
        from perfwarehouse.kernels import slope_pairs as pairs

        if (a, b) not in self._plateaus:
            inside = self.count(b) - self.count(a)
            if a < 0.0 < b and self._zero_slopes() == inside:
                self._plateaus[(a, b)] = 0.0  # counted in O(n log n), not walked
            else:
                lo, hi, count = pairs.slope_range_between_orders(
                    self.xs, self.ys, self.order(a), self.order(b))
                self._plateaus[(a, b)] = float(lo) if lo == hi and count == inside else None
        return self._plateaus[(a, b)]

    def _zero_slopes(self) -> int:
        """How many slopes are exactly 0 (equal y, different x): pairs of equal y less
        those of equal x and y. A difference of equal values is 0 whatever the rounding,
        and the count of slopes <= t is exact, so an interval around 0 holding this many
        slopes holds nothing else (at 100,000 points of coarse values, 2.5e9 zero slopes
        counted instead of walked: 6.8 s)."""
        if self._zeros is None:
            def pairs_within(*keys: np.ndarray) -> int:
                order = np.lexsort(keys)
                same = np.ones(order.size - 1, bool)
                for key in keys:
                    ordered = key[order]
                    same &= ordered[1:] == ordered[:-1]
                sizes = np.diff(np.flatnonzero(np.concatenate(([True], ~same, [True]))))
                return int(np.sum(sizes * (sizes - 1) // 2))

            self._zeros = pairs_within(self.ys) - pairs_within(self.ys, self.xs)
        return self._zeros

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
