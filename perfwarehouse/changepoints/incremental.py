"""Change points of a series that grew at its end, searched again only where the new
points can change the answer (issue 41: work that grows with the new data).

The full search (:func:`perfwarehouse.changepoints.analysis.detect`) bisects the series:
the best split of a segment is a change point when its permutation test rejects, then both
parts are searched again; each change point is finally re-placed at the best split of the
segment between its neighbours (``_refine``) and described from those two segments.

**The argument.** Let the old series x[0:m] have the change points c_1 < ... < c_k (the
stored result of a full search) and let d points be appended (x' = x[0:m] + y, n = m + d).

* The segments between c_{j-1} and c_{j+1} for j < k hold no new point: c_j's placement
  (the best split between its neighbours, which ``_refine`` made it) and its description
  (the medians and the Hodges-Lehmann change of the two segments) are unchanged, and the
  tests that found c_1..c_k rejected on parts of x that x' still holds. A full search of
  x' that splits at the same places therefore keeps them.
* The new points lie after c_k: they can move c_k (its segment after grows), change its
  description, and hold a change of their own. :func:`detect_appended` searches the
  segment from the anchor (the last stored change point with at least
  :func:`anchor_margin` old points after it, see below) to the end exactly as the full
  search searches a part (binary segmentation, each test with ``split_permutations``, on
  the same search values: :func:`~perfwarehouse.changepoints.analysis.search_values` of
  the whole new series), keeps the stored change points up to the anchor, then re-places
  and describes every change point as the full search does.

What the argument does not give is that a full search of x' splits at the same places: its
first test is over all of x', and the order in which it bisects can differ. That is why the
equality is a measured claim, not a theorem: ``tests/unit/changepoints/test_incremental.py``
compares this search with the full one on 400 random stepped series (seeds 0-199, clear
and borderline steps, 1-11 points appended): 397 have the same change points within one
position and the same verdict, and in each of the 3 others the full search of the grown
series changed its own answer about the old points (a change 3-7 points from another, a
5-point blip: the order of its bisection moved), which no search that keeps what it found
can follow; the test asserts that every difference is of that kind.
``benchmarks/bench_refresh_nightly.py`` measures it on 1,500 series of a year of nights.

**Where it falls back to the full search** (returns :func:`detect` of x'):

* the whole series, or the anchor's segment, has no significant split any more (above);
* no stored change point: the segment the new points can change is the whole series (a
  series without change is searched whole; the permutation null of its first test depends
  on every point, so no part of it can be kept);
* ``min_change`` > 0: the full search drops small changes one at a time and recomputes
  their neighbours, so a stored set after dropping is not a prefix of what it would keep;
* the caller's part (:mod:`perfwarehouse.jobs.change_points`): the old series must be a
  prefix of the new one (the new trials ordered after every old one, no old trial
  changed), else the full search.

The anchor needs :func:`anchor_margin` old points after it (2 x ``min_points``): a change
point found with fewer points after it (near the old end) was decided on little evidence,
which the new points can overturn, so the search starts from the change point before it.
Two tests are run again with the new points, else the search is the full one: the full
search's first test (the whole series, ``permutations``: the verdict "change or none" is
then the full search's), and the anchor's own evidence (the segment from the change point
before it to the end must have a significant split: a borderline change that the grown
series no longer supports is searched again whole). A clear step costs these tests
nothing (settled without drawing, :func:`~perfwarehouse.changepoints.analysis.
tail_bound`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfwarehouse.changepoints.analysis import (
    _refine,
    detect,
    search_parts,
    search_values,
    split_segment,
)
from perfwarehouse.changepoints.describe import describe
from perfwarehouse.changepoints.parameters import (
    DEFAULT_ALPHA,
    DEFAULT_CONFIDENCE,
    DEFAULT_MIN_SIZE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SPLIT_PERMUTATIONS,
    check_options,
    min_points,
)
from perfwarehouse.changepoints.results import ChangePointResult


@dataclass(frozen=True)
class Stored:
    """What a full search of the old series found: its length ``n`` and its change points'
    positions (ascending) with their p-values."""

    n: int
    positions: tuple[int, ...]
    p_values: tuple[float, ...]


def anchor_margin(min_size: int) -> int:
    """Old points a stored change point needs after it to anchor the search (2 x
    :func:`~perfwarehouse.changepoints.parameters.min_points`: 16 at ``min_size`` 4)."""
    return 2 * min_points(min_size)


def anchor(stored: Stored, min_size: int) -> int | None:
    """Index into ``stored.positions`` of the change point the search starts from (the
    last with :func:`anchor_margin` old points after it), or None (search the whole
    series)."""
    for i in range(len(stored.positions) - 1, -1, -1):
        if stored.n - stored.positions[i] >= anchor_margin(min_size):
            return i
    return None


def detect_appended(values: object, stored: Stored, *, alpha: float = DEFAULT_ALPHA,
                    min_change: float = 0.0, min_size: int = DEFAULT_MIN_SIZE,
                    permutations: int = DEFAULT_PERMUTATIONS,
                    split_permutations: int = DEFAULT_SPLIT_PERMUTATIONS,
                    confidence: float = DEFAULT_CONFIDENCE) -> ChangePointResult:
    """Change points of ``values``, the old series of ``stored`` with points appended
    (the module docstring says how, why, and where it is the full search instead)."""
    x = np.ascontiguousarray(np.asarray(values, dtype=np.float64).ravel())
    options: dict[str, Any] = dict(alpha=alpha, min_change=min_change, min_size=min_size,
                                   permutations=permutations,
                                   split_permutations=split_permutations,
                                   confidence=confidence)
    at = anchor(stored, min_size)
    if at is None or min_change > 0 or np.isnan(x).any() or x.size < stored.n:
        return detect(x, **options)
    check_options(alpha, min_size, permutations)
    n = int(x.size)
    z = search_values(x)
    part_permutations = max(1, min(split_permutations, permutations))
    # the verdict of the full search's first test, and the anchor's own evidence, with
    # the new points (a change between the change point before it and the end): where
    # either fails, the full search
    for low in sorted({0, stored.positions[at - 1] if at else 0}):
        split, _stat, p = split_segment(z[low:], min_size,
                                        permutations if low == 0 else part_permutations)
        if split < 0 or not p <= alpha:
            return detect(x, **options)
    found = [(stored.positions[i], stored.p_values[i], math.nan) for i in range(at + 1)]
    found += search_parts(z, [(stored.positions[at], n)], alpha=alpha, min_size=min_size,
                          permutations=part_permutations)
    found.sort()
    found = _refine(z, found, min_size)
    points = describe(x, found, confidence)
    return ChangePointResult(n, tuple(points), stored.p_values[0], None, alpha, min_size,
                             permutations)


def detect_each(series: Sequence[object], stored: Sequence[Stored | None],
                threads: int | None = None, **options: Any) -> list[ChangePointResult]:
    """:func:`detect_appended` of each series with a stored result, :func:`detect` of the
    others, in order, on ``threads`` threads (longest first, as
    :func:`~perfwarehouse.changepoints.analysis.detect_all`)."""
    arrays = [np.asarray(values) for values in series]

    def one(i: int) -> ChangePointResult:
        known = stored[i]
        return (detect(arrays[i], **options) if known is None
                else detect_appended(arrays[i], known, **options))

    order = sorted(range(len(arrays)), key=lambda i: -arrays[i].size)
    with ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool:
        done = dict(zip(order, pool.map(one, order)))
    return [done[i] for i in range(len(arrays))]
