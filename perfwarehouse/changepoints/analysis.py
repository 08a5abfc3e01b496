"""Change points of a series: E-divisive means with a calibrated permutation test.

Method (Matteson & James, "A Nonparametric Approach for Multiple Change Point Analysis of
Multivariate Data", JASA 109(505), 2014, sections 2-3; as Otava and MongoDB use it,
Daly et al., "Change Point Detection in Software Performance Testing", ICPE 2020,
section 3):

1. A segment of m >= 2 ``min_size`` points is **rank-transformed** (mid-ranks for ties),
   which makes the test robust to outliers and skew and, without ties, its null
   distribution depend on m only.
2. Its split tau (each part >= ``min_size`` points) maximises the E-divisive statistic
   Q(tau) (kernel :mod:`perfwarehouse.kernels.changepoints`).
3. **Permutation test of the maximum**: the p-value is (1 + #{r: max Q of permutation r
   >= observed max}) / (1 + D) over D <= R random orders of the segment's ranks, so the
   test accounts for the search over tau. R = ``permutations`` (999) for the first test of
   a series, ``split_permutations`` (199) for the tests of its parts. The draws stop at the
   :data:`SEQUENTIAL_HITS`-th (10th) maximum >= the observed one (Besag & Clifford's
   sequential p-value, Biometrika 78(2), 1991), whatever ``alpha``: the p-value never
   depends on ``alpha``; it is the p of all R draws whenever either is <= 11 / (R + 1)
   (0.011 at 999, so every verdict at alpha <= 0.01 is that of the full test), and a valid
   p-value above; a segment without change costs a few dozen permutations. A segment
   whose ranks have at most :data:`EXACT_ARRANGEMENTS` (10!, so up to 10 distinct
   values) or :data:`EXACT_TIED_ARRANGEMENTS` (with ties) distinct arrangements is tested
   over all of them: its p is exact, which decides the shortest series (a perfect 5 | 5
   split of 10 points has p = 2 / C(10, 5) = 0.0079; no Monte Carlo draw can tell it from
   0.01). Where no arrangement can reach ``alpha`` at the split found (a 6 | 4 split of 10
   points: at least 4 / C(10, 4) = 0.019, :func:`split_floor`) the reason says so and how
   many points after the change would do (:func:`points_needed`).
   **Settled without drawing**: where :func:`tail_bound` (a Hoeffding bound on
   P(max Q >= observed) over random orders, needing no draw) times R is at most
   :data:`SETTLED` (1e-6), every draw would fall short of the observed maximum except
   with that probability, and the test gives what its draws give, p = 1 / (1 + R). This
   settles the tests of long parts with a clear change (a 1-sd step in 3,000 points, a
   2-sd step in 1,000, any clean step in 600), which drew all R permutations before: on
   histories of 27,000 points with 190 changes the search takes 4x less CPU, with the
   same change points and p-values (benchmarks/bench_change_points.py --real). A
   stationary series is never settled (its maximum is far below the bound's reach).
   **Settled from the tabulated null**: the long parts of drifting histories have
   statistics of only 3-15 x m, beyond any bound's reach; for an untied part of 32 to
   32,768 points the tail of max Q / m is estimated from :data:`NULL_QUANTILES` (its
   1e-3 quantile, measured once) falling tenfold per :data:`NULL_DECADE`
   (:func:`tabled_tail`), and where R x that tail <= :data:`TABLED_SETTLED` (2e-2) the
   test gives 1 / (1 + R), as its draws would except in at most 2 % of such tests (a
   verdict in 2e-4). On 42 series of the 10x campaign the search takes 6.3x less CPU
   with the same change points and p-values (docs/change-points.md); on short stepped
   histories (225 nightly series of 300-480 points), with the rows from 32 points and
   the exact null of 10 untied points from a quarter of its arrangements, 3x less
   (benchmarks/bench_change_points_histories.py).
   The permutations of a rank multiset are a fixed stream (seeded by its length and tie
   pattern), cached per process and extended on demand: without ties every segment of
   length m shares one stream, and the cache changes the speed, never a result.
   **Small ties** (no value repeated by more than :data:`FEW_TIES` of the points, as
   values rounded to a few decimals give) are broken at random before the search
   (:func:`search_values`): the series is searched on its ranks 1..n, so its tests share
   the untied streams of their lengths with every other such series instead of drawing a
   stream of their own for a tie pattern no other series has (on the demo's campaign,
   whose values have four decimals, the tests of 2,000-2,750-point series drew 18 of the
   job's 21 thread-seconds of permutations that way, and the job took 22 s instead of 6).
   Under exchangeability the ranks with ties broken by independent random keys are a
   uniformly random permutation, so the test stays exact and calibrated; the keys are
   drawn from a generator seeded by the series' bytes, so a series always gets the same
   result. A tie carries no order, so breaking it moves a point's rank by less than its
   tie's size: at most 1 % of the range here. Series with larger ties (a few levels)
   keep mid-ranks (random order inside large tie blocks would cost power) and their
   exact stream.
4. If p <= ``alpha`` the split is a change point and both parts are searched again
   (step 1); otherwise the segment has no change point.
5. Each change point is re-placed at the best split of the segment between its
   neighbours (a rank staircase of three levels can pull the first split one point off).

**Calibration.** On a stationary series (exchangeable values) the permutation p-value of
the first step is valid, P(p <= alpha) <= alpha, and a change point is reported only if
that first test rejects, so the probability that a stationary series gets *any* change
point, over the whole recursive search, is at most ``alpha`` (sequential stopping). As the
series of one length share one stream of permutations, the level for a given length is
that of its stream's quantile: with R = 999 it is within about +-0.3 points of 1 % for the
default ``alpha = 0.01`` (measured by ``benchmarks/bench_change_points.py --calibration-only``
for lengths 10 to 5,000, normal, Student t(2), lognormal and tied; docs/change-points.md). Further splits of a series
that has a real change are each tested at ``alpha`` with fewer permutations (their
precision matters less than the first test's: they only happen after a real change).

Each change point carries the medians of the segments before and after it (between the
neighbouring change points) and the change in percent of the Hodges-Lehmann shift of the
log values with its distribution-free interval (:func:`perfwarehouse.stats.shift.
hodges_lehmann`); for a segment pair with a non-positive value it is the raw shift
divided by |median before| (by |median after| when that is 0), as ``compare`` defines it,
so its sign is the sign of the change for negative and zero-crossing series (:func:`_change`). ``min_change`` (percent) then drops, smallest first, change
points whose |change| is below it, recomputing their neighbours.
"""


from __future__ import annotations

import hashlib
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from perfwarehouse.changepoints.describe import describe as _describe
from perfwarehouse.changepoints.exact_null import tabled
from perfwarehouse.changepoints.parameters import (
    DEFAULT_ALPHA,
    DEFAULT_CONFIDENCE,
    DEFAULT_MIN_SIZE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SPLIT_PERMUTATIONS,
    EXACT_ARRANGEMENTS,
    EXACT_TIED_ARRANGEMENTS,
    FEW_TIES,
    NULL_DECADE,
    NULL_QUANTILE_TAIL,
    NULL_QUANTILES,
    SEQUENTIAL_HITS,
    SETTLED,
    TABLED_SETTLED,
    check_options,
    min_points,
)
from perfwarehouse.changepoints.results import ChangePointResult
from perfwarehouse.kernels.changepoints import (
    arrangement_maxima,
    count_hits,
    permutation_maxima,
    ranks_levels,
    segment_split,
    untied_arrangement_maxima,
)

_NULL_CACHE: OrderedDict[tuple[int, int | bytes], _Stream] = OrderedDict()
_NULL_CACHE_SIZE = 2048
_NULL_CACHE_LOCK = threading.Lock()  # series may be tested on several threads
_EXACT_CACHE: OrderedDict[tuple[int, bytes], _Exact] = OrderedDict()
_EXACT_CACHE_SIZE = 256


def _seed(ranks: np.ndarray) -> int:
    counts = np.unique(ranks, return_counts=True)[1].astype(np.int64)
    return int(ranks.size + 1_000_003 * int(np.sum(counts * (counts - 1))))


class _Stream:
    """The permutation maxima of one rank multiset, in draw order, resumable: the
    permutations start from the sorted ranks with a seed that depends on the length and
    the tie pattern only, so every segment with the same ranks sees the same sequence
    whatever was asked before (the cache changes the speed, never a result)."""

    def __init__(self, sorted_ranks: np.ndarray, min_size: int) -> None:
        _, levels, self.n_levels = ranks_and_levels(sorted_ranks)
        self.px = sorted_ranks.copy()
        self.pl = levels
        self.min_size = min_size
        self.state = np.uint64(_seed(sorted_ranks))
        self.maxima = np.empty(0)
        self.lock = threading.Lock()  # one thread draws at a time; order never matters

    def p_value(self, threshold: float, stop_count: int, permutations: int) -> float:
        """(1 + hits) / (1 + draws) of the sequential test: draw until ``stop_count``
        maxima >= ``threshold`` or ``permutations`` draws."""
        hits, draws = count_hits(self.maxima, permutations, threshold, stop_count)
        if hits >= stop_count:
            return (1 + stop_count) / (1 + draws)
        if self.maxima.size >= permutations:
            return (1 + hits) / (1 + permutations)
        more, state = permutation_maxima(
            self.px, self.pl, self.n_levels, self.min_size,
            permutations - self.maxima.size, self.state, threshold, stop_count - hits)
        self.state = np.uint64(state)
        self.maxima = np.concatenate([self.maxima, more])
        total = hits + int(np.sum(more >= threshold))
        return (1 + total) / (1 + self.maxima.size)


class _Exact:
    """The maxima of every distinct arrangement of a small rank multiset, sorted: the
    exact permutation p-value is the share >= the observed maximum."""

    def __init__(self, sorted_ranks: np.ndarray, min_size: int, count: int) -> None:
        _, levels, n_levels = ranks_and_levels(sorted_ranks)
        untied = n_levels == sorted_ranks.size
        table = tabled(n_levels, min_size) if untied else None
        if table is not None:  # 10 untied points at the default min_size: tabulated
            self.values, counts = table
        else:
            if untied and n_levels > 3:  # a quarter of the arrangements
                maxima, weights = untied_arrangement_maxima(n_levels, min_size)
            else:
                maxima = arrangement_maxima(sorted_ranks, levels, n_levels, min_size, count)
                weights = np.ones(maxima.size)
            # a few hundred distinct values at most: keep them with their upper tail counts
            self.values, inverse = np.unique(maxima, return_inverse=True)
            counts = np.rint(np.bincount(inverse, weights=weights)).astype(np.int64)
        self.tail = np.cumsum(counts[::-1])[::-1]
        self.total = int(counts.sum())
        self.lock = threading.Lock()

    def p_value(self, threshold: float, stop_count: int, permutations: int) -> float:
        first = int(np.searchsorted(self.values, threshold, side="left"))
        return (int(self.tail[first]) if first < self.values.size else 0) / self.total


def arrangements(sorted_ranks: np.ndarray, limit: int) -> int:
    """Distinct arrangements n! / prod(t_i!) of a rank multiset (t_i: tie sizes), or
    ``limit + 1`` when there are more than ``limit``."""
    count, placed = 1, 0
    for t in np.unique(sorted_ranks, return_counts=True)[1].tolist():
        count *= math.comb(placed + t, t)
        placed += t
        if count > limit:
            return limit + 1
    return count


def _stream(ranks: np.ndarray, n_levels: int, min_size: int) -> _Stream | _Exact:
    """The null distribution of the segment's rank multiset (cached; untied ranks are
    keyed by length): exact over every distinct arrangement when there are at most
    :data:`EXACT_ARRANGEMENTS`, else a resumable stream of random permutations."""
    m = ranks.size
    sorted_ranks = np.arange(1.0, m + 1.0) if n_levels == m else np.sort(ranks)
    limit = EXACT_ARRANGEMENTS if n_levels == m else EXACT_TIED_ARRANGEMENTS
    # m! > 10! for untied ranks of more than 10 points: no need to count
    count = limit + 1 if n_levels == m > 10 else arrangements(sorted_ranks, limit)
    if count <= limit:
        exact_key = (min_size, sorted_ranks.tobytes())
        with _NULL_CACHE_LOCK:
            exact = _EXACT_CACHE.get(exact_key)
            if exact is not None:
                _EXACT_CACHE.move_to_end(exact_key)
                return exact
        exact = _Exact(sorted_ranks, min_size, count)  # small: a race costs a few ms
        with _NULL_CACHE_LOCK:
            _EXACT_CACHE[exact_key] = exact
            if len(_EXACT_CACHE) > _EXACT_CACHE_SIZE:
                _EXACT_CACHE.popitem(last=False)
        return exact
    key: tuple[int, int | bytes] = ((min_size, m) if n_levels == m
                                    else (min_size, sorted_ranks.tobytes()))
    with _NULL_CACHE_LOCK:
        stream = _NULL_CACHE.get(key)
        if stream is None:
            stream = _Stream(sorted_ranks, min_size)
            _NULL_CACHE[key] = stream
            if len(_NULL_CACHE) > _NULL_CACHE_SIZE:
                _NULL_CACHE.popitem(last=False)
        else:
            _NULL_CACHE.move_to_end(key)
    return stream


def split_segment(values: np.ndarray, min_size: int, permutations: int
                  ) -> tuple[int, float, float]:
    """(split, statistic, p) of one segment: ``split`` = number of points before the best
    split (-1 with p = nan when every value is equal). p is exact when the segment's ranks
    have at most :data:`EXACT_ARRANGEMENTS` distinct arrangements
    (:data:`EXACT_TIED_ARRANGEMENTS` with ties); otherwise the draws
    stop at the :data:`SEQUENTIAL_HITS`-th permutation maximum >= the observed one
    (Besag & Clifford's sequential p-value, (1 + hits) / (1 + draws)): it never depends on
    ``alpha``, and equals the p of all ``permutations`` draws whenever either is <=
    SEQUENTIAL_HITS / (1 + permutations) (0.01 at 999 permutations)."""
    split, observed, ranks, n_levels = segment_split(
        np.ascontiguousarray(values, dtype=np.float64), min_size)
    if n_levels == 1:
        return -1, math.nan, math.nan
    threshold = observed - 1e-9 * abs(observed)
    m = ranks.size
    if (tail_bound(threshold, m, min_size) * permutations <= SETTLED
            or n_levels == m and tabled_tail(threshold, m, min_size) * permutations
            <= TABLED_SETTLED):
        return split, observed, 1.0 / (1 + permutations)
    stream = _stream(ranks, n_levels, min_size)
    with stream.lock:  # the kernel releases the GIL: other series go on meanwhile
        p = stream.p_value(threshold, SEQUENTIAL_HITS, permutations)
    return split, observed, p


def tail_bound(q: float, m: int, min_size: int) -> float:
    """An upper bound on P(max_tau Q(tau) >= q) over the uniformly random orders of a
    segment of ``m`` mid-ranks (any ties), tau from ``min_size`` to m - ``min_size``.

    Derivation (module docstring, step 3). Q(tau) = a b / m E(tau) with U-statistic
    within-part means is at most the same with V-statistic means (each within mean only
    grows by a / (a - 1)), and with V-statistics E is the energy distance of the two
    parts, 2 x the integral of (F_X - F_Y)^2 (Szekely & Rizzo, J. Stat. Plan. Inference
    143(8), 2013, section 2.1). F_X - F_Y is constant between consecutive values, equal
    to m / (a b) (H_l - c_l a / m) after the c_l smallest points (H_l of them in X), and
    the values span at most m - 1, so Q(tau) >= q needs max_l |H_l - c_l a / m| >= s,
    s^2 = q a b / (2 m (m - 1)). Under a random order H_l is hypergeometric, and
    Hoeffding's inequality holds for sampling without replacement (Hoeffding, JASA
    58(301), 1963, theorem 4 and section 6), with the sample of either size:
    P(|H_l - E H_l| >= s) <= 2 exp(-2 s^2 / min(a, b)). A union bound over the <= m - 1
    values and over tau gives the sum below, with exponent q max(a, b) / (m (m - 1)).
    It is loose (the maximum stands for a sum of squares) but needs no draw: it settles
    the tests of long parts with a clear change, whose permutations would all fall
    short of q (:data:`SETTLED`)."""
    if m < 2 * min_size or not q > 0:
        return 1.0
    # the largest term (the most balanced split) alone decides most calls: a segment
    # without a clear change gets 1 here, with no array built (every segment test asks)
    if math.log(2.0 * (m - 1)) - q * math.ceil(m / 2) / (m * (m - 1.0)) >= 0.0:
        return 1.0
    tau = np.arange(min_size, m - min_size + 1, dtype=np.float64)
    exponent = q * np.maximum(tau, m - tau) / (m * (m - 1.0))
    log_terms = math.log(2.0 * (m - 1)) - exponent
    top = float(log_terms.max())
    return min(1.0, math.exp(top + math.log(float(np.exp(log_terms - top).sum()))))


def tabled_tail(q: float, m: int, min_size: int) -> float:
    """The estimated P(max_tau Q(tau) >= q) over random orders of ``m`` untied ranks, from
    the tabulated null (:data:`NULL_QUANTILES`: the quantile of the smallest tabulated
    length >= m, extended by :data:`NULL_DECADE` per tenfold), or 1 where the table does
    not apply: below the tabulated quantile, ``min_size`` < 4 (more splits than tabulated),
    m outside the table. An estimate, not a bound like :func:`tail_bound`: it settles the
    tests of long drifting parts (statistics of 5-15 x m, an estimated tail of 1e-5 to
    1e-15), which no bound reaches and which drew all their permutations before."""
    first, last = NULL_QUANTILES[0][0], NULL_QUANTILES[-1][0]
    if min_size < 4 or not first <= m <= last:
        return 1.0
    quantile = next(value for length, value in NULL_QUANTILES if length >= m)
    decades = (q / m - quantile) / NULL_DECADE
    return NULL_QUANTILE_TAIL * 10.0 ** -decades if decades > 0 else 1.0


def split_floor(before: int, after: int) -> float:
    """Smallest p the rank test can give a change with ``before`` points before it and
    ``after`` after it (distinct values): the permutations that separate the two parts
    completely at that split or at the mirrored one, 4 of C(n, before) (2 when before ==
    after), all reach the largest statistic of that split."""
    if before + after > 1_000:  # C(n, k) > 1e300 for any allowed split: p can reach 0
        return 0.0
    return (2.0 if before == after else 4.0) / math.comb(before + after, before)


def points_needed(before: int, alpha: float) -> int:
    """Fewest points after a change with ``before`` points before it whose
    :func:`split_floor` is <= ``alpha``."""
    after = 1
    while split_floor(before, after) > alpha:
        after += 1
    return after


def search_values(x: np.ndarray) -> np.ndarray:
    """The values the search runs on: ``x`` itself when its values are distinct, or when
    a value is repeated by more than :data:`FEW_TIES` of its points (mid-ranks, exact);
    otherwise its ranks 1..n with the ties broken by random keys from a generator seeded
    by the series' bytes (module docstring, step 3). Within any segment these ranks order
    the points as ``x`` does, except inside a tie."""
    n = x.size
    largest_tie = int(np.unique(x, return_counts=True)[1].max(initial=1))
    if largest_tie == 1 or largest_tie > FEW_TIES * n:
        return x
    seed = int.from_bytes(hashlib.blake2b(x.tobytes(), digest_size=8).digest(), "little")
    keys = np.random.default_rng(seed).random(n)
    ranks = np.empty(n)
    ranks[np.lexsort((keys, x))] = np.arange(1.0, n + 1.0)
    return ranks


def ranks_and_levels(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(mid-ranks, 0-based dense level of each value, number of levels)."""
    ranks, levels, n_levels = ranks_levels(np.ascontiguousarray(values, dtype=np.float64))
    return ranks, levels, int(n_levels)


def _refine(x: np.ndarray, found: list[tuple[int, float, float]], min_size: int,
            passes: int = 3) -> list[tuple[int, float, float]]:
    """Re-place each change point at the best split of the segment between its neighbours
    (ranks are global to the segment tested, so with three or more levels the first split
    can land a point off; between its neighbours a change is a two-level step). Up to
    ``passes`` sweeps, until nothing moves; the p-values stay those of the tests."""
    found = list(found)
    if len(found) < 2:  # one change point: its segment is the series, as tested
        return found
    for _ in range(passes):
        moved = False
        for i, (pos, p, _) in enumerate(found):
            lo = found[i - 1][0] if i else 0
            hi = found[i + 1][0] if i + 1 < len(found) else x.size
            seg = x[lo:hi]
            if seg.size < 2 * min_size or np.all(seg == seg[0]):
                continue
            split, stat = segment_split(seg, min_size)[:2]
            if lo + split != pos:
                moved = True
            found[i] = (lo + split, p, stat)
        if not moved:
            break
    return found


def search_parts(z: np.ndarray, work: list[tuple[int, int]], *, alpha: float, min_size: int,
                 permutations: int) -> list[tuple[int, float, float]]:
    """Binary segmentation of the segments ``work`` ([start, end) of the search values
    ``z``): each is tested (``permutations``: R of each test) and split where the test
    finds a change at level ``alpha``, its parts tested in turn; (position, p, statistic)
    of every change found, in the order found."""
    found = []
    while work:
        start, end = work.pop()
        if end - start < min_points(min_size):
            continue
        split, stat, p = split_segment(z[start:end], min_size, permutations)
        if split >= 0 and p <= alpha:
            found.append((start + split, p, stat))
            work += [(start, start + split), (start + split, end)]
    return found


def detect(values: object, *, alpha: float = DEFAULT_ALPHA, min_change: float = 0.0,
           min_size: int = DEFAULT_MIN_SIZE, permutations: int = DEFAULT_PERMUTATIONS,
           split_permutations: int = DEFAULT_SPLIT_PERMUTATIONS,
           confidence: float = DEFAULT_CONFIDENCE) -> ChangePointResult:
    """Change points of ``values`` (a 1-d series in order; NaN is a ValueError).

    ``alpha``: level of each permutation test (and the bound on the false-alarm rate of a
    stationary series); ``min_change``: drop changes smaller than this many percent;
    ``min_size``: fewest points on each side of a change (>= 2); ``permutations``: R of the
    first test (the one that decides whether a stationary series gets a false alarm);
    ``split_permutations``: R of the tests of the parts (at most ``permutations``);
    ``confidence``: of the change's interval.
    """
    x = np.ascontiguousarray(np.asarray(values, dtype=np.float64).ravel())
    if np.isnan(x).any():
        raise ValueError("detect: the series holds NaN")
    check_options(alpha, min_size, permutations)
    n = int(x.size)
    args = (alpha, min_size, permutations)
    if n < min_points(min_size):
        return ChangePointResult(n, (), None, f"too short: {n} points, the test needs at least "
                                 f"{min_points(min_size)}", *args)
    z = search_values(x)
    first_split, stat, p = split_segment(z, min_size, permutations)
    first_p = None if math.isnan(p) else p
    found: list[tuple[int, float, float]] = []
    if first_split >= 0 and p <= alpha:
        found = [(first_split, p, stat), *search_parts(
            z, [(0, first_split), (first_split, n)], alpha=alpha, min_size=min_size,
            permutations=max(1, min(split_permutations, permutations)))]
    found.sort()
    found = _refine(z, found, min_size)
    points = _describe(x, found, confidence)
    while min_change > 0 and points:
        small = [i for i, cp in enumerate(points)
                 if not (abs(cp.change_pct) >= min_change)]
        if not small:
            break
        drop = min(small, key=lambda i: (abs(points[i].change_pct)
                                         if not math.isnan(points[i].change_pct) else -1.0))
        del found[drop]
        points = _describe(x, found, confidence)
    reason = None
    if not points:
        if first_p is None:
            reason = "all values equal"
        elif first_p > alpha:
            reason = f"no significant change (p = {first_p:.3g} > alpha = {alpha:g})"
            before, after = first_split, n - first_split
            floor = split_floor(before, after)
            if first_split > 0 and floor > alpha:
                reason += (f"; the smallest p a change after point {before} of {n} can get is "
                           f"{floor:.3g}: it needs >= {points_needed(before, alpha)} points "
                           f"after it to reach alpha")
        else:
            reason = f"no change of at least {min_change:g} %"
    return ChangePointResult(n, tuple(points), first_p, reason, *args)


def detect_all(series: Sequence[object], threads: int | None = None,
               **options: Any) -> list[ChangePointResult]:
    """:func:`detect` of every series, in order, on ``threads`` threads (default: every
    core). The permutation kernel releases the GIL and the shared permutation streams are
    locked, so each result is the one the series gets alone. The longest series start
    first, so that no thread is left with a long one while the others are idle."""
    arrays = [np.asarray(values) for values in series]
    longest_first = sorted(range(len(arrays)), key=lambda i: -arrays[i].size)
    with ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool:
        done = dict(zip(longest_first, pool.map(lambda i: detect(arrays[i], **options),
                                                longest_first)))
    return [done[i] for i in range(len(arrays))]
