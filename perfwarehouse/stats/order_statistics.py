"""Distribution-free confidence intervals and bounds from order statistics.

With x(1) <= ... <= x(n) the sorted sample (1-based) and B ~ Binomial(n, p) the
number of samples below the population p-quantile P_p:

* P(x(m) <= P_p) = P(B >= m); a one-sided lower bound at confidence C is x(m)
  for the largest m with P(B >= m) >= C (Thompson 1936; Jacob et al. (TriScale, JSys 2021),
  §4, equations 1-3). The upper bound mirrors it with 1 - p.
* The median's two-sided interval is [x(j), x(n-j+1)] for the largest j with
  P(j <= B <= n-j) = 1 - 2 P(B <= j-1) >= C (Duplyakin et al. (OrderSage, USENIX ATC 2023), §3, "rank-based
  CI").
* Le Boudec's normal approximation ("Performance Evaluation of Computer and
  Communication Systems", 2010, Theorem 2.1) picks j = floor(np - z sqrt(np(1-p)))
  and k = ceil(np + 1 + z sqrt(np(1-p))) instead; its exact coverage is reported.

When no order statistic reaches the requested confidence the result says so:
``low = high = None`` (``value = None``) with ``coverage`` = the best achievable
and ``n_required`` = the smallest sample size that would reach it. A number is
never guessed ("Too few samples").

The index functions are vectorised over n (numpy arrays of sample sizes), so a
job can compute them once per distinct n and hand them to a kernel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from perfwarehouse.stats import binomial

Side = Literal["lower", "upper"]


@dataclass(frozen=True)
class IntervalResult:
    """A two-sided interval [low, high] of a quantile (or of the range [P_p, P_(1-p)]).

    ``low_index``/``high_index`` are the 1-based order statistics used (0 when
    there is no interval); ``coverage`` is the exact probability that the
    interval covers its target.
    """

    low: float | None
    high: float | None
    coverage: float
    n: int
    low_index: int
    high_index: int
    n_required: int | None


@dataclass(frozen=True)
class BoundResult:
    """A one-sided bound of the p-quantile: ``value = x(index)`` (1-based), or None."""

    value: float | None
    index: int
    coverage: float
    n: int
    side: Side
    n_required: int | None


def clean_sample(x: object) -> np.ndarray:
    """A float64 copy of ``x`` without NaN; ``ValueError`` when nothing is left."""
    arr = np.asarray(x, dtype=np.float64).ravel()
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        raise ValueError("empty sample (after dropping NaN)")
    return arr


def _check_fraction(name: str, value: float, *, open_interval: bool = True) -> None:
    ok = 0.0 < value < 1.0 if open_interval else 0.0 <= value <= 1.0
    if not ok:
        raise ValueError(f"{name} must be a fraction in (0, 1), got {value!r}")


# ------------------------------------------------------------ index functions
def lower_bound_index(n: int | np.ndarray, p: float, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Largest m with P(B >= m) >= confidence, B ~ Bin(n, p); 0 where even m = 1 fails.

    Returns ``(m, coverage)`` with coverage = P(B >= m) (for m = 0: the best
    achievable, P(B >= 1)).
    """
    n_arr = np.atleast_1d(np.asarray(n, dtype=np.int64))
    # m - 1 = largest k with cdf(k) <= 1 - confidence; binom.ppf gives the
    # smallest k with cdf(k) >= q, so step back where cdf overshoots
    q = 1.0 - confidence
    k = binomial.ppf(q, n_arr, p).astype(np.int64)
    k = np.where(binomial.cdf(k, n_arr, p) > q * (1 + 1e-12), k - 1, k)
    # guard against ppf rounding the other way
    k = np.where(binomial.cdf(k + 1, n_arr, p) <= q * (1 - 1e-12), k + 1, k)
    m = np.clip(k + 1, 0, n_arr)
    coverage = binomial.sf(np.maximum(m, 1) - 1, n_arr, p)
    return m, coverage


def median_interval_index(n: int | np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Largest j with 1 - 2 P(B <= j-1) >= confidence, B ~ Bin(n, 1/2); 0 if none.

    The interval is [x(j), x(n-j+1)]. Returns ``(j, coverage)``; for j = 0 the
    coverage is the best achievable (j = 1).
    """
    n_arr = np.atleast_1d(np.asarray(n, dtype=np.int64))
    q = (1.0 - confidence) / 2.0
    k = binomial.ppf(q, n_arr, 0.5).astype(np.int64)
    k = np.where(binomial.cdf(k, n_arr, 0.5) > q * (1 + 1e-12), k - 1, k)
    k = np.where(binomial.cdf(k + 1, n_arr, 0.5) <= q * (1 - 1e-12), k + 1, k)
    j = np.clip(k + 1, 0, (n_arr + 1) // 2)
    coverage = 1.0 - 2.0 * binomial.cdf(np.maximum(j, 1) - 1, n_arr, 0.5)
    return j, np.clip(coverage, 0.0, 1.0)


def le_boudec_indices(n: int | np.ndarray, confidence: float, p: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Le Boudec's 1-based indices (j, k) of the p-quantile's interval [x(j), x(k)].

    j = floor(np - z sqrt(np(1-p))), k = ceil(np + 1 + z sqrt(np(1-p))), z the
    (1 + confidence)/2 normal quantile. Indices outside 1..n mean the formula
    has no interval at this n (the book asks for n >= 6 at 95 %).
    """
    n_arr = np.atleast_1d(np.asarray(n, dtype=np.float64))
    z = binomial.norm_ppf((1.0 + confidence) / 2.0)
    half = z * np.sqrt(n_arr * p * (1 - p))
    j = np.floor(n_arr * p - half).astype(np.int64)
    k = np.ceil(n_arr * p + 1 + half).astype(np.int64)
    return j, k


def interval_coverage(n: int, p: float, low_index: int, high_index: int) -> float:
    """P(x(low) <= P_p <= x(high)) = P(low <= B <= high - 1), B ~ Bin(n, p)."""
    if low_index < 1 or high_index > n or low_index > high_index:
        return 0.0
    return float(binomial.cdf(high_index - 1, n, p) - binomial.cdf(low_index - 1, n, p))


def n_required_lower_bound(p: float, confidence: float) -> int:
    """Smallest n with P(x(1) <= P_p) = 1 - (1 - p)^n >= confidence."""
    return max(1, math.ceil(math.log(1.0 - confidence) / math.log(1.0 - p) - 1e-12))


def n_required_median(confidence: float) -> int:
    """Smallest n with 1 - 2 (1/2)^n >= confidence (the interval [x(1), x(n)])."""
    return max(1, math.ceil(1.0 - math.log(1.0 - confidence) / math.log(2.0) - 1e-12))


@lru_cache(maxsize=65536)
def range_coverage(n: int, p: float, m: int) -> float:
    """Joint coverage of [x(m), x(n-m+1)] for the range [P_p, P_(1-p)], p <= 1/2.

    P(N_low >= m and N_high >= m) where (N_low, N_mid, N_high) is multinomial
    with probabilities (p, 1 - 2p, p). For p = 1/2 this is the median interval's
    coverage. Memoised: jobs ask for the same few (n, p, m) for thousands of series.
    """
    if m < 1 or m > n - m + 1:
        return 0.0
    a = np.arange(m, n + 1)
    p_low = binomial.pmf(a, n, p)
    q = p / (1.0 - p) if p < 1.0 else 0.0
    p_high = binomial.sf(m - 1, n - a, q)
    return float(np.sum(p_low * p_high))


# ---------------------------------------------------------- user functions
def median_ci(x: object, confidence: float = 0.95,
              method: Literal["exact", "le-boudec"] = "exact") -> IntervalResult:
    """Distribution-free CI of the median (NaN dropped).

    ``exact``: [x(j), x(n-j+1)] with the largest j whose binomial coverage is
    >= ``confidence``. ``le-boudec``: Le Boudec's normal-approximation indices,
    with their exact coverage; None when they fall outside 1..n.
    """
    _check_fraction("confidence", confidence)
    xs = np.sort(clean_sample(x))
    n = xs.size
    if method == "exact":
        j0, cov = _median_rank(n, confidence)
        if j0 == 0:
            return IntervalResult(None, None, cov, n, 0, 0, n_required_median(confidence))
        return IntervalResult(float(xs[j0 - 1]), float(xs[n - j0]), cov, n, j0, n - j0 + 1, None)
    if method == "le-boudec":
        jj, kk = le_boudec_indices(n, confidence)
        j0, k0 = int(jj[0]), int(kk[0])
        if j0 < 1 or k0 > n:
            best = 1.0 - 2.0 * 0.5**n
            return IntervalResult(None, None, best, n, 0, 0, _n_required_le_boudec(confidence))
        return IntervalResult(float(xs[j0 - 1]), float(xs[k0 - 1]),
                              interval_coverage(n, 0.5, j0, k0), n, j0, k0, None)
    raise ValueError(f"method must be 'exact' or 'le-boudec', got {method!r}")


def _n_required_le_boudec(confidence: float) -> int:
    n = 1
    while True:
        j, k = le_boudec_indices(n, confidence)
        if j[0] >= 1 and k[0] <= n:
            return n
        n += 1


@lru_cache(maxsize=65536)
def _lower_bound_rank(n: int, q: float, confidence: float) -> tuple[int, float]:
    """:func:`lower_bound_index` for one n, memoised (jobs ask for the same n many times)."""
    m, cov = lower_bound_index(n, q, confidence)
    return int(m[0]), float(cov[0])


@lru_cache(maxsize=65536)
def _median_rank(n: int, confidence: float) -> tuple[int, float]:
    """:func:`median_interval_index` for one n, memoised."""
    j, cov = median_interval_index(n, confidence)
    return int(j[0]), float(cov[0])


def percentile_bound(x: object, p: float, confidence: float, side: Side) -> BoundResult:
    """One-sided bound of the p-quantile (Thompson 1936; Jacob et al. (TriScale, JSys 2021), eq. 1-3). NaN dropped.

    ``side="lower"``: x(m) with the largest m such that P(x(m) <= P_p) >= C.
    ``side="upper"``: x(n - m' + 1), m' computed the same way for 1 - p.
    ``value`` is None (with ``n_required``) when even the extreme sample fails.
    """
    _check_fraction("p", p)
    _check_fraction("confidence", confidence)
    if side not in ("lower", "upper"):
        raise ValueError(f"side must be 'lower' or 'upper', got {side!r}")
    xs = np.sort(clean_sample(x))
    n = xs.size
    q = p if side == "lower" else 1.0 - p
    m, cov = _lower_bound_rank(n, q, confidence)
    if m == 0:
        return BoundResult(None, 0, cov, n, side, n_required_lower_bound(q, confidence))
    index = m if side == "lower" else n - m + 1
    return BoundResult(float(xs[index - 1]), index, cov, n, side, None)


def percentile_interval(x: object, p: float, confidence: float,
                        method: Literal["exact", "triscale"] = "exact") -> IntervalResult:
    """Two-sided interval: the median's CI for p = 1/2, else [x(m), x(n-m+1)] covering the
    range [P_q, P_(1-q)], q = min(p, 1-p). NaN dropped.

    ``exact`` picks the largest m whose *joint* coverage is >= C. ``triscale``
    reproduces TriScale: m from the one-sided lower bound of P_q at confidence C
    (jointly only 2C - 1), except for the median, where both use the two-sided
    interval. ``coverage`` is always the exact joint coverage of what is returned.
    """
    _check_fraction("p", p)
    _check_fraction("confidence", confidence)
    if method not in ("exact", "triscale"):
        raise ValueError(f"method must be 'exact' or 'triscale', got {method!r}")
    q = min(p, 1.0 - p)
    if q == 0.5:
        return median_ci(x, confidence)
    xs = np.sort(clean_sample(x))
    n = xs.size
    if method == "triscale":
        m, _ = _lower_bound_rank(n, q, confidence)
        if m == 0 or m > n - m + 1:
            return IntervalResult(None, None, range_coverage(n, q, 1), n, 0, 0,
                                  n_required_lower_bound(q, confidence))
    else:
        m = _largest_joint_m(n, q, confidence)
        if m == 0:
            need = n_required_lower_bound(q, confidence)
            while range_coverage(need, q, 1) < confidence:
                need += 1
            return IntervalResult(None, None, range_coverage(n, q, 1), n, 0, 0, need)
    return IntervalResult(float(xs[m - 1]), float(xs[n - m]), range_coverage(n, q, m), n, m,
                          n - m + 1, None)


@lru_cache(maxsize=65536)
def _largest_joint_m(n: int, q: float, confidence: float) -> int:
    """Largest m (coverage decreases in m) with range_coverage >= confidence; 0 if none."""
    if range_coverage(n, q, 1) < confidence:
        return 0
    lo, hi = 1, (n + 1) // 2
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if range_coverage(n, q, mid) >= confidence:
            lo = mid
        else:
            hi = mid - 1
    return lo
