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
implicit slope set (:mod:`perfwarehouse.stats.slope_selection` over the kernels of
:mod:`perfwarehouse.kernels.theil_sen`), in O(n log n) expected time, so 10^6 points
take seconds and no n^2 memory.

NaN: a point whose x or y is NaN is dropped (scipy's ``nan_policy="omit"``).
Infinite values are refused. Fewer than 2 points: ``ValueError``. All x equal:
no slope exists; the result holds NaN like scipy's (which also warns).
A confidence below 0.5 is read as 1 - confidence, as scipy does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perfwarehouse.stats.slope_selection import BRUTE_FORCE_PAIRS, select_slopes

# the numba kernels (perfwarehouse.kernels.theil_sen) and scipy are imported where they are
# used: importing perfwarehouse.stats (every fraction option of the CLI does) stays light


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
