"""The Hodges-Lehmann shift of two samples and its distribution-free confidence interval.

For samples x (n1 values) and y (n2 values), the N = n1 n2 differences d = y_j - x_i
sorted as d(1) <= ... <= d(N): the estimate is their median (Hodges & Lehmann, Annals of
Mathematical Statistics 34, 1963), and [d(C), d(N + 1 - C)] is a confidence interval of the
shift of a location-shift model with coverage 1 - 2 P(U <= C - 1), U the Mann-Whitney
statistic under the null (Hollander, Wolfe & Chicken, "Nonparametric Statistical Methods",
3rd ed., 2014, section 4.3). C is the largest with that coverage >= the requested confidence.

P(U <= c) is exact (the coefficients of the Gaussian binomial [n1 + n2 choose n1]_q,
Harding's algorithm, Applied Statistics 33, 1984) when there are no ties and N <= 2,500;
otherwise the normal approximation with continuity and tie correction picks C.
Without ties the exact interval is distribution-free; with ties it is approximate.

Used on log values, the shift is a log ratio: 100 (exp(shift) - 1) is the change in percent
of the typical value (a ratio of medians when the two distributions differ by a scale
factor), and the interval maps the same way.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: Largest n1 * n2 with the exact null distribution of U.
EXACT = 2_500
#: Largest n1 * n2 whose differences numpy lists and selects from when the numba kernels
#: are not loaded yet (:func:`_use_kernels`).
NUMPY_PAIRS = 2_500
_KERNELS = "perfwarehouse.kernels.shift"


def _use_kernels(big_n: int) -> bool:
    """Whether the numba kernels compute the order statistics and the tie term of samples
    with ``big_n`` pairs: above :data:`NUMPY_PAIRS`, or once they are loaded (a job that
    computes thousands of intervals). Below, numpy gives the same numbers (the same
    differences y_j - x_i, the same integer tie term) in about twice the kernels' 10 us,
    and a short process (``perfwarehouse compare`` of a few hundred rows) does not pay
    numba's import and cache load (0.3-0.8 s) for it."""
    return big_n > NUMPY_PAIRS or _KERNELS in sys.modules


def _tie_term(xs: np.ndarray, ys: np.ndarray) -> float:
    """sum of t^3 - t over the groups of t equal values of sorted ``xs`` and ``ys`` pooled."""
    if _use_kernels(xs.size * ys.size):
        from perfwarehouse.kernels.shift import tie_term

        return float(tie_term(xs, ys))
    pooled = np.sort(np.concatenate([xs, ys]))
    starts = np.concatenate(([0], np.flatnonzero(pooled[1:] != pooled[:-1]) + 1))
    t = np.diff(np.append(starts, pooled.size)).astype(np.float64)
    return float(np.sum(t * t * t - t))


@dataclass(frozen=True)
class ShiftResult:
    """Hodges-Lehmann shift y - x with its interval.

    ``low``/``high`` are None when no order statistic reaches the confidence (samples
    too small); ``coverage`` is the nominal coverage of the interval given (exact or by
    the normal approximation, ``exact`` says which); ``index`` is the 1-based C.
    """

    estimate: float
    low: float | None
    high: float | None
    confidence: float
    coverage: float
    index: int
    n1: int
    n2: int
    exact: bool


@lru_cache(maxsize=256)
def u_cdf(n1: int, n2: int) -> np.ndarray:
    """P(U <= u), u = 0..n1 n2, of the Mann-Whitney U of samples of n1 and n2 without ties."""
    m, n = min(n1, n2), max(n1, n2)
    size = m * n + 1
    poly = np.zeros(size)
    poly[0] = 1.0
    # [n + i choose i]_q = [n + i - 1 choose i - 1]_q (1 - q^(n+i)) / (1 - q^i)
    for i in range(1, m + 1):
        shift = n + i
        if shift < size:
            poly[shift:] -= poly[:size - shift].copy()
        # divide by (1 - q^i): running sums with stride i (columns of a padded reshape)
        padded = np.zeros(-(-size // i) * i)
        padded[:size] = poly
        np.cumsum(padded.reshape(-1, i), axis=0, out=padded.reshape(-1, i))
        poly = padded[:size].copy()
    cdf = np.cumsum(poly)
    return cdf / cdf[-1]


def interval_index(n1: int, n2: int, confidence: float, tie_term: float = 0.0
                   ) -> tuple[int, float, bool]:
    """(C, coverage, exact): the 1-based order statistic of the differences for the lower
    end of the interval (0 when none reaches ``confidence``)."""
    big_n = n1 * n2
    half_alpha = (1.0 - confidence) / 2.0
    if tie_term == 0.0 and big_n <= EXACT:
        return _exact_index(min(n1, n2), max(n1, n2), confidence)
    n = n1 + n2
    var = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)))
    if var <= 0:
        return 0, 0.0, False
    sigma = math.sqrt(var)
    from scipy import special

    z = float(special.ndtri(half_alpha))
    c = int(math.floor(big_n / 2.0 + 0.5 + sigma * z))
    if c < 1:
        return 0, 0.0, False
    coverage = 1.0 - 2.0 * float(special.ndtr((c - 0.5 - big_n / 2.0) / sigma))
    return c, coverage, False


@lru_cache(maxsize=16_384)  # every (n1, n2) with n1 n2 <= EXACT fits: about 8,500 pairs
def _exact_index(n1: int, n2: int, confidence: float) -> tuple[int, float, bool]:
    """:func:`interval_index` without ties for n1 <= n2 and n1 n2 <= :data:`EXACT`,
    memoised: a series' change points ask for the same few thousand pairs again and
    again, more than :func:`u_cdf`'s cache holds (on the 10x campaign, 104,704 change
    points spent 8 % of the job in u_cdf)."""
    big_n = n1 * n2
    cdf = u_cdf(n1, n2)
    ok = np.flatnonzero(cdf[: (big_n + 1) // 2] <= (1.0 - confidence) / 2.0 + 1e-12)
    if ok.size == 0:
        return 0, 0.0, True
    c = int(ok[-1]) + 1  # P(U <= c - 1) <= alpha / 2
    return c, float(1.0 - 2.0 * cdf[c - 1]), True


def kth_differences(xs: np.ndarray, ys: np.ndarray, ks: list[int]) -> list[float]:
    """The k-th smallest (1-based) of y_j - x_i for each k of ``ks``, for sorted ``xs``,
    ``ys`` (kernel :func:`perfwarehouse.kernels.shift.kth_difference`: no listing of the
    n1 n2 differences)."""
    xs = np.ascontiguousarray(xs, dtype=np.float64)
    ys = np.ascontiguousarray(ys, dtype=np.float64)
    if _use_kernels(xs.size * ys.size):
        from perfwarehouse.kernels.shift import kth_differences as kth_many

        return list(kth_many(xs, ys, np.asarray(ks, dtype=np.int64)).tolist())
    ranks = np.asarray(ks, dtype=np.int64) - 1
    return list(np.partition(np.subtract.outer(ys, xs).ravel(), ranks)[ranks].tolist())


def kth_difference(xs: np.ndarray, ys: np.ndarray, k: int) -> float:
    """The k-th smallest (1-based) of y_j - x_i for sorted ``xs``, ``ys``."""
    return kth_differences(xs, ys, [k])[0]


def hodges_lehmann(x: object, y: object, confidence: float = 0.95) -> ShiftResult:
    """Shift of ``y`` relative to ``x`` (median of y_j - x_i) with its interval at
    ``confidence``. NaN values are dropped; an empty sample is a ValueError."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    xs = np.sort(np.asarray(x, dtype=np.float64).ravel())
    ys = np.sort(np.asarray(y, dtype=np.float64).ravel())
    xs, ys = xs[~np.isnan(xs)], ys[~np.isnan(ys)]
    if xs.size == 0 or ys.size == 0:
        raise ValueError("hodges_lehmann needs two non-empty samples")
    return hodges_lehmann_sorted(xs, ys, confidence)


def hodges_lehmann_sorted(xs: np.ndarray, ys: np.ndarray, confidence: float) -> ShiftResult:
    """:func:`hodges_lehmann` of two non-empty float64 samples already sorted, without
    NaN (no copies, no checks: for callers that hold them so)."""
    n1, n2 = int(xs.size), int(ys.size)
    big_n = n1 * n2
    c, coverage, exact = interval_index(n1, n2, confidence, _tie_term(xs, ys))
    middle = [(big_n + 1) // 2] if big_n % 2 else [big_n // 2, big_n // 2 + 1]
    ends = [c, big_n + 1 - c] if c else []
    found = kth_differences(xs, ys, middle + ends)
    estimate = found[0] if len(middle) == 1 else (found[0] + found[1]) / 2.0
    if c == 0:
        return ShiftResult(estimate, None, None, confidence, coverage, 0, n1, n2, exact)
    low, high = found[len(middle)], found[len(middle) + 1]
    return ShiftResult(estimate, low, high, confidence, coverage, c, n1, n2, exact)
