"""Slow, obvious twins of perfwarehouse.kernels.changepoints and perfwarehouse.changepoints:
pairwise sums by double loops, the same splitmix64 permutations in pure Python, the
recursive search written out plainly. The twin always draws: the tests that
changepoints.tail_bound settles without drawing (long parts with a clear change, never
below several hundred points) are beyond the series it can handle, and
tests/unit/changepoints/test_tail_bound.py checks them against their draws instead."""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter

import numpy as np
from scipy import stats as sps

from perfwarehouse.changepoints import analysis as changepoints

MASK = (1 << 64) - 1


def q_naive(z: list[float], min_size: int) -> list[float]:
    """Q(tau), tau = 0..n, by the definition (NaN where a part is shorter than min_size)."""
    n = len(z)
    out = [math.nan] * (n + 1)
    for tau in range(min_size, n - min_size + 1):
        x, y = z[:tau], z[tau:]
        a, b = len(x), len(y)
        cross = sum(abs(u - v) for u in x for v in y)
        wx = sum(abs(x[i] - x[k]) for i in range(a) for k in range(i + 1, a))
        wy = sum(abs(y[j] - y[k]) for j in range(b) for k in range(j + 1, b))
        e = 2 * cross / (a * b) - 2 * wx / (a * (a - 1)) - 2 * wy / (b * (b - 1))
        out[tau] = a * b / n * e
    return out


def splitmix(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def permutation_maxima_naive(z: list[float], min_size: int, n_perm: int, seed: int,
                             stop_at: float = math.inf, stop_count: int = 1) -> list[float]:
    p = list(z)
    state = seed & MASK
    maxima: list[float] = []
    hits = 0
    for _ in range(n_perm):
        for i in range(len(p) - 1, 0, -1):
            state, bits = splitmix(state)
            j = ((bits >> 32) * (i + 1)) >> 32
            p[i], p[j] = p[j], p[i]
        q = [v for v in q_naive(p, min_size) if not math.isnan(v)]
        m = max(q) if q else math.nan
        maxima.append(m)
        if m >= stop_at:
            hits += 1
            if hits >= stop_count:
                break
    return maxima


def seed_naive(ranks: list[float]) -> int:
    """The permutation seed of a segment: its length and its tie structure."""
    counts: dict[float, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    return len(ranks) + 1_000_003 * sum(t * (t - 1) for t in counts.values())


def search_values_naive(values: list[float]) -> list[float]:
    """When some value repeats but none is repeated by more than ``FEW_TIES`` (read from
    perfwarehouse.changepoints at call time) of the points: each point's rank 1..n in the
    order of (value, random key), the keys drawn by numpy's generator seeded with the
    blake2b hash of the values' float64 bytes; else the values."""
    n = len(values)
    largest = max(Counter(values).values())
    if largest == 1 or largest > changepoints.FEW_TIES * n:
        return list(values)
    digest = hashlib.blake2b(np.asarray(values, dtype=np.float64).tobytes(), digest_size=8)
    keys = np.random.default_rng(int.from_bytes(digest.digest(), "little")).random(n)
    order = sorted(range(n), key=lambda i: (values[i], keys[i]))
    ranks = [0.0] * n
    for rank, i in enumerate(order, 1):
        ranks[i] = float(rank)
    return ranks


def arrangements_naive(sorted_ranks: list[float], limit: int) -> list[tuple[float, ...]] | None:
    """Every distinct arrangement of a multiset (a set of itertools permutations), or None
    when n! / prod(tie sizes!) exceeds ``limit``."""
    count = math.factorial(len(sorted_ranks))
    for t in Counter(sorted_ranks).values():
        count //= math.factorial(t)
    if count > limit:
        return None
    return sorted(set(itertools.permutations(sorted_ranks)))


def edivisive_naive(values: list[float], alpha: float, min_size: int,
                    n_perm: int, n_perm_split: int | None = None) -> list[tuple[int, float]]:
    """(position, p) of every change point: small ties broken (search_values_naive), rank
    each segment, split at the first argmax of Q when the permutation p-value (1 + #maxima >= observed) / (1 + draws) <= alpha,
    recurse into both parts. Permutations start from the sorted ranks; the draws stop once
    SEQUENTIAL_HITS maxima >= the observed one, whatever alpha; a segment with at most
    EXACT_ARRANGEMENTS distinct arrangements is tested over all of them. The first test draws up to ``n_perm``, the tests
    of parts up to ``n_perm_split`` (default: ``n_perm``)."""
    values = search_values_naive(values)
    found: list[tuple[int, float]] = []
    work = [(0, len(values))]
    while work:
        start, end = work.pop()
        if end - start < 2 * min_size:
            continue
        ranks = [float(r) for r in sps.rankdata(values[start:end])]
        q = q_naive(ranks, min_size)
        best = max(range(len(q)), key=lambda t: (-math.inf if math.isnan(q[t]) else q[t], -t))
        observed = q[best]
        threshold = observed - 1e-9 * abs(observed)
        r = n_perm if (start, end) == (0, len(values)) else min(n_perm_split or n_perm, n_perm)
        limit = (changepoints.EXACT_ARRANGEMENTS if len(set(ranks)) == len(ranks)
                 else changepoints.EXACT_TIED_ARRANGEMENTS)
        every = arrangements_naive(sorted(ranks), limit)
        if every is not None:  # exact: the share of all distinct arrangements
            maxima = [max(v for v in q_naive(list(a), min_size) if not math.isnan(v))
                      for a in every]
            p = sum(1 for m in maxima if m >= threshold) / len(maxima)
        else:
            maxima = permutation_maxima_naive(sorted(ranks), min_size, r, seed_naive(ranks),
                                              threshold, changepoints.SEQUENTIAL_HITS)
            hits = sum(1 for m in maxima if m >= threshold)
            p = (1 + hits) / (1 + len(maxima))
        if p <= alpha:
            found.append((start + best, p))
            work += [(start, start + best), (start + best, end)]
    found.sort()
    for _ in range(3):  # re-place each point between its neighbours
        moved = False
        for i, (pos, p) in enumerate(found):
            lo = found[i - 1][0] if i else 0
            hi = found[i + 1][0] if i + 1 < len(found) else len(values)
            seg = values[lo:hi]
            if len(seg) < 2 * min_size or len(set(seg)) == 1:
                continue
            q = q_naive([float(r) for r in sps.rankdata(seg)], min_size)
            best = max(range(len(q)),
                       key=lambda t: (-math.inf if math.isnan(q[t]) else q[t], -t))
            moved = moved or lo + best != pos
            found[i] = (lo + best, p)
        if not moved:
            break
    return found


def median(values: list[float]) -> float:
    return float(np.median(values))
