"""Rank tests with scipy's numbers: Kruskal-Wallis H and Mann-Whitney U.

Both rank the pooled sample with mid-ranks for ties (Kruskal-Wallis with the same numba
kernel as the order-effects job, :func:`perfwarehouse.kernels.order_effects.rank_sums_search`;
Mann-Whitney with one numpy sort, which gives the same sums and spares a short process
numba's import), and then evaluate the statistic with the same floating-point operations, in the
same order, as ``scipy.stats.kruskal`` and ``scipy.stats.mannwhitneyu(...,
method="asymptotic")``, so the numbers agree to the last bits, not only to a
tolerance.

Inputs
------
Each sample is anything numpy turns into a 1-d float64 array. NaN is dropped by
default (``nan_policy="omit"``, as scipy's option of that name); ``"propagate"``
returns NaN results when any sample holds NaN and ``"raise"`` raises. A sample
that is empty (after dropping NaN) is a ``ValueError``, as are fewer than two
samples for Kruskal-Wallis.

Degenerate data
---------------
When every value of every sample is the same, the tie-corrected H is 0/0:
``kruskal`` returns ``statistic = pvalue = nan`` (scipy returns nan too) with
``all_tied=True``, so callers can tell this case from missing data. Groups that
are each constant but differ from each other are ordinary data (H is defined).
``mannwhitneyu`` needs no special case: with every value tied the normal
approximation has zero variance and the p-value is 1, as in scipy.

Exact Mann-Whitney p-values
---------------------------
``mannwhitneyu(..., method="exact")`` gives the two-sided p-value 2 min(P(U <= u),
P(U >= u)) (capped at 1) from the exact null distribution: without ties the
distribution of U (Harding's algorithm, :func:`perfwarehouse.stats.shift.u_cdf`; the
numbers of ``scipy.stats.mannwhitneyu(method="exact")``), with ties the exact
conditional (permutation) distribution of the mid-rank sum given the tie pattern
(:func:`perfwarehouse.kernels.rank_exact.rank_sum_counts`), which is what a
permutation test over all C(n1 + n2, n1) splits gives. ``method="auto"`` (what
``perfwarehouse compare`` uses) is exact without ties up to n1 n2 = :data:`EXACT_PAIRS`
and with ties up to n1 + n2 = :data:`EXACT_TIED_N` (a programme of O(n^4) additions,
1.4 ms at the limit), asymptotic beyond, where it is close enough for any level a
decision uses (tests/unit/stats/test_rank_tests_exact.py: 9 % from the exact value
at p = 5e-4 for 105 + 105 untied values). The asymptotic p-value for two completely
separated samples of 10 is 1.8e-4, the exact one 1.08e-5 (= 2/C(20, 10)): a multiple-comparison
correction over tens of rows cannot reach 0.01 with the first and can with the second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np

# scipy.special and the numba kernels are imported where they are used: an exact
# Mann-Whitney test of two small samples (``perfwarehouse compare``) needs neither.

NanPolicy = Literal["omit", "propagate", "raise"]
Method = Literal["asymptotic", "exact", "auto"]

#: Largest n1 n2 for the exact distribution without ties under ``method="auto"``.
EXACT_PAIRS = 10_000
#: Largest n1 + n2 for the exact conditional distribution with ties under ``"auto"``.
EXACT_TIED_N = 50


@dataclass(frozen=True)
class KruskalResult:
    """Kruskal-Wallis H test (tie-corrected) of k >= 2 independent samples.

    ``statistic`` is H, ``pvalue`` its chi-square(k - 1) upper tail, ``df`` = k - 1.
    ``eta_squared`` = (H - k + 1)/(n - k) (Tomczak & Tomczak 2014; NaN when n = k).
    ``tie_correction`` = 1 - sum(t^3 - t)/(n^3 - n).
    """

    statistic: float
    pvalue: float
    df: int
    n: int
    sizes: tuple[int, ...]
    eta_squared: float
    tie_correction: float
    all_tied: bool


@dataclass(frozen=True)
class MannWhitneyResult:
    """Two-sided Mann-Whitney U test, normal approximation with tie and continuity correction.

    ``statistic`` is U of the first sample (scipy's convention), ``pvalue`` the
    two-sided p-value, ``z`` the standardised statistic (of the normal approximation,
    also given when the p-value is exact), ``method`` 'exact' or 'asymptotic' (which one
    gave ``pvalue``), ``ties`` whether the pooled sample holds ties.
    """

    statistic: float
    pvalue: float
    z: float
    n1: int
    n2: int
    method: str = "asymptotic"
    ties: bool = False


def _clean(samples: tuple[object, ...], nan_policy: NanPolicy) -> tuple[list[np.ndarray], bool]:
    """Float64 samples (NaN dropped for ``omit``) and whether NaN was seen."""
    if nan_policy not in ("omit", "propagate", "raise"):
        raise ValueError(f"nan_policy must be 'omit', 'propagate' or 'raise', got {nan_policy!r}")
    out = []
    saw_nan = False
    for i, sample in enumerate(samples):
        arr = np.asarray(sample, dtype=np.float64)
        if arr.ndim != 1:
            arr = arr.ravel()
        nan = np.isnan(arr)
        if nan.any():
            saw_nan = True
            if nan_policy == "raise":
                raise ValueError(f"sample {i} holds NaN (nan_policy='raise')")
            if nan_policy == "omit":
                arr = arr[~nan]
        if arr.size == 0:
            raise ValueError(f"sample {i} is empty" + (" after dropping NaN" if nan.any() else ""))
        out.append(np.ascontiguousarray(arr))
    return out, saw_nan


def _rank_sums(samples: list[np.ndarray]) -> tuple[np.ndarray, float]:
    """Rank sum of each sample in the pooled sample, and the pooled tie term."""
    from perfwarehouse.kernels.order_effects import rank_sums_search

    pooled = np.sort(np.concatenate(samples))
    sizes = np.array([s.size for s in samples], dtype=np.int64)
    group_offsets = np.concatenate([[0], np.cumsum(sizes)])
    rank_sum, tie_term = rank_sums_search(
        pooled, np.array([0, pooled.size], dtype=np.int64), np.concatenate(samples),
        group_offsets, np.zeros(len(samples), dtype=np.int64))
    return rank_sum, float(tie_term[0])


def _rank_sums_two(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """:func:`_rank_sums` of two samples in numpy (mid-ranks of the pooled sample by one
    stable sort); the same numbers: rank sums are sums of half-integers and the tie term
    a sum of integers, exact in float64 in any order below 2^53."""
    pooled = np.concatenate([a, b])
    n = pooled.size
    order = np.argsort(pooled, kind="stable")
    ordered = pooled[order]
    starts = np.concatenate(([0], np.flatnonzero(ordered[1:] != ordered[:-1]) + 1))
    ends = np.append(starts[1:], n)
    sizes = ends - starts
    ranks = np.empty(n)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, sizes)
    sizes_f = sizes.astype(np.float64)
    tie_term = float(np.sum(sizes_f * sizes_f * sizes_f - sizes_f))
    return np.array([ranks[: a.size].sum(), ranks[a.size:].sum()]), tie_term


def kruskal(*samples: object, nan_policy: NanPolicy = "omit") -> KruskalResult:
    """Kruskal-Wallis H test with tie correction; the numbers of ``scipy.stats.kruskal``."""
    if len(samples) < 2:
        raise ValueError(f"Kruskal-Wallis needs at least two samples, got {len(samples)}")
    clean, saw_nan = _clean(samples, nan_policy)
    k = len(clean)
    sizes = tuple(int(s.size) for s in clean)
    total = sum(sizes)
    if saw_nan and nan_policy == "propagate":
        return KruskalResult(math.nan, math.nan, k - 1, total, sizes, math.nan, math.nan, False)
    rank_sum, tie_term = _rank_sums(clean)
    tie_correction = 1 - tie_term / (total**3 - total)
    if tie_correction == 0:  # every value equal: H = 0/0
        return KruskalResult(math.nan, math.nan, k - 1, total, sizes, math.nan, 0.0, True)
    # scipy's operations, in scipy's order
    ssbn = sum(rank_sum[i] ** 2 / sizes[i] for i in range(k))
    h = 12.0 / (total * (total + 1)) * ssbn - 3 * (total + 1)
    h = float(h / tie_correction)
    from scipy import special

    pvalue = float(special.chdtrc(float(k - 1), h))
    eta = (h - k + 1) / (total - k) if total > k else math.nan
    return KruskalResult(h, pvalue, k - 1, total, sizes, eta, float(tie_correction), False)


def mannwhitneyu(x: object, y: object, *, nan_policy: NanPolicy = "omit",
                 use_continuity: bool = True, method: Method = "asymptotic"
                 ) -> MannWhitneyResult:
    """Two-sided Mann-Whitney U test. ``method="asymptotic"``: the numbers of
    ``scipy.stats.mannwhitneyu(x, y, method="asymptotic")``; ``"exact"``: the exact
    (conditional, with ties) null distribution; ``"auto"``: exact where it is cheap
    (module docstring)."""
    if method not in ("asymptotic", "exact", "auto"):
        raise ValueError(f"method must be 'asymptotic', 'exact' or 'auto', got {method!r}")
    (a, b), saw_nan = _clean((x, y), nan_policy)
    n1, n2 = int(a.size), int(b.size)
    if saw_nan and nan_policy == "propagate":
        return MannWhitneyResult(math.nan, math.nan, math.nan, n1, n2, method)
    rank_sum, tie_term = _rank_sums_two(a, b)
    u1 = float(rank_sum[0] - n1 * (n1 + 1) / 2)
    ties = tie_term > 0
    exact = method == "exact" or (method == "auto" and (
        n1 + n2 <= EXACT_TIED_N if ties else n1 * n2 <= EXACT_PAIRS))
    if not exact:
        z, pvalue = mannwhitney_p(u1, n1, n2, tie_term, use_continuity)
        return MannWhitneyResult(u1, pvalue, z, n1, n2, "asymptotic", ties)
    z = float(mannwhitney_z(u1, n1, n2, tie_term, use_continuity))
    if ties:
        p = exact_p_tied(np.concatenate([a, b]), float(rank_sum[0]), n1)
    else:
        p = exact_p_untied(u1, n1, n2)
    return MannWhitneyResult(u1, p, z, n1, n2, "exact", ties)


def exact_p_untied(u1: float, n1: int, n2: int) -> float:
    """Two-sided exact p of U1 without ties: 2 P(U <= min(U1, U2)) (the distribution is
    symmetric), capped at 1; the tail is summed from its own end, so 1e-30 keeps its
    digits."""
    from perfwarehouse.stats.shift import u_cdf

    u_min = int(round(min(u1, n1 * n2 - u1)))
    return float(min(1.0, 2.0 * u_cdf(n1, n2)[u_min]))


def exact_p_tied(pooled: np.ndarray, rank_sum1: float, n1: int) -> float:
    """Two-sided exact conditional p of the first sample's mid-rank sum ``rank_sum1``
    given the tie pattern of ``pooled`` (both samples): 2 min(P(W <= w), P(W >= w)),
    capped at 1."""
    _, sizes = np.unique(pooled, return_counts=True)
    sizes = sizes.astype(np.int64)
    ends = np.cumsum(sizes)
    ranks2 = (2 * ends - sizes + 1).astype(np.int64)  # 2 x mid-rank of each tie group
    step = int(np.gcd.reduce(ranks2))  # untied: every doubled rank is even
    if pooled.size <= EXACT_TIED_N:  # what "auto" asks for: no numba import for it
        counts = rank_sum_counts_numpy(sizes, ranks2 // step, n1)
    else:
        from perfwarehouse.kernels.rank_exact import rank_sum_counts

        counts = rank_sum_counts(sizes, ranks2 // step, n1)
    w2 = int(round(2 * rank_sum1)) // step
    total = counts.sum()
    low = counts[: w2 + 1].sum() / total
    high = counts[w2:].sum() / total
    return float(min(1.0, 2.0 * min(low, high)))


def rank_sum_counts_numpy(sizes: np.ndarray, ranks2: np.ndarray, n1: int) -> np.ndarray:
    """:func:`perfwarehouse.kernels.rank_exact.rank_sum_counts` in numpy, for the small
    pooled samples of ``method="auto"``: the same dynamic programme over the tie groups,
    one array operation per (group, count taken from it) over every (count so far, sum),
    the additions into each cell in the kernel's order, so the counts are the same
    floats (tested)."""
    total_max = 0
    left = n1
    for g in range(sizes.size - 1, -1, -1):  # the n1 largest ranks bound the sum
        take = min(left, int(sizes[g]))
        total_max += take * int(ranks2[g])
        left -= take
    dp = np.zeros((n1 + 1, total_max + 1))
    dp[0, 0] = 1.0
    for t, r2 in zip(sizes.tolist(), ranks2.tolist()):
        new = dp.copy()
        binom = 1.0
        for j in range(1, min(t, n1) + 1):
            binom = binom * (t - j + 1) / j
            shift = j * r2
            if shift > total_max:
                break
            new[j:, shift:] += binom * dp[: n1 + 1 - j, : total_max + 1 - shift]
        dp = new
    out: np.ndarray = dp[n1].copy()
    return out


@overload
def mannwhitney_p(u1: float, n1: int, n2: int, tie_term: float,
                  use_continuity: bool = True) -> tuple[float, float]: ...
@overload
def mannwhitney_p(u1: np.ndarray, n1: int | np.ndarray, n2: int | np.ndarray,
                  tie_term: float | np.ndarray, use_continuity: bool = True
                  ) -> tuple[np.ndarray, np.ndarray]: ...
def mannwhitney_p(u1: float | np.ndarray, n1: int | np.ndarray, n2: int | np.ndarray,
                  tie_term: float | np.ndarray, use_continuity: bool = True
                  ) -> tuple[float, float] | tuple[np.ndarray, np.ndarray]:
    """(z, two-sided p) of U1 for samples of sizes n1, n2 whose pooled tie term is
    ``tie_term`` = sum(t^3 - t); vectorised. scipy's formula and operation order."""
    from scipy import special

    z = mannwhitney_z(u1, n1, n2, tie_term, use_continuity)
    p = np.clip(special.ndtr(-z) * 2, 0.0, 1.0)
    if p.ndim == 0:
        return float(z), float(p)
    return z, p


def mannwhitney_z(u1: float | np.ndarray, n1: int | np.ndarray, n2: int | np.ndarray,
                  tie_term: float | np.ndarray, use_continuity: bool = True) -> np.ndarray:
    """The standardised U of :func:`mannwhitney_p` (a 0-d array for scalars), without
    scipy."""
    u1 = np.asarray(u1, dtype=np.float64)
    n1 = np.asarray(n1, dtype=np.int64)
    n2 = np.asarray(n2, dtype=np.int64)
    u2 = n1 * n2 - u1
    u = np.maximum(u1, u2)
    mu = n1 * n2 / 2
    n = n1 + n2
    s = np.sqrt(n1 * n2 / 12 * ((n + 1) - np.asarray(tie_term, dtype=np.float64) / (n * (n - 1))))
    numerator = u - mu
    if use_continuity:
        numerator = numerator - 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        z: np.ndarray = numerator / s
    return z
