"""Rank tests with scipy's numbers: Kruskal-Wallis H and Mann-Whitney U.

Both rank the pooled sample with mid-ranks for ties, using the same numba
kernel as the order-effects job (:func:`perfwarehouse.kernels.order_effects.rank_sums_search`),
and then evaluate the statistic with the same floating-point operations, in the
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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special

from perfwarehouse.kernels.order_effects import rank_sums_search

NanPolicy = Literal["omit", "propagate", "raise"]


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
    two-sided p-value, ``z`` the standardised statistic used for it.
    """

    statistic: float
    pvalue: float
    z: float
    n1: int
    n2: int


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
    pooled = np.sort(np.concatenate(samples))
    sizes = np.array([s.size for s in samples], dtype=np.int64)
    group_offsets = np.concatenate([[0], np.cumsum(sizes)])
    rank_sum, tie_term = rank_sums_search(
        pooled, np.array([0, pooled.size], dtype=np.int64), np.concatenate(samples),
        group_offsets, np.zeros(len(samples), dtype=np.int64))
    return rank_sum, float(tie_term[0])


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
    pvalue = float(special.chdtrc(float(k - 1), h))
    eta = (h - k + 1) / (total - k) if total > k else math.nan
    return KruskalResult(h, pvalue, k - 1, total, sizes, eta, float(tie_correction), False)


def mannwhitneyu(x: object, y: object, *, nan_policy: NanPolicy = "omit",
                 use_continuity: bool = True) -> MannWhitneyResult:
    """Two-sided Mann-Whitney U test: ``scipy.stats.mannwhitneyu(x, y, method="asymptotic")``."""
    (a, b), saw_nan = _clean((x, y), nan_policy)
    n1, n2 = int(a.size), int(b.size)
    if saw_nan and nan_policy == "propagate":
        return MannWhitneyResult(math.nan, math.nan, math.nan, n1, n2)
    rank_sum, tie_term = _rank_sums([a, b])
    u1 = float(rank_sum[0] - n1 * (n1 + 1) / 2)
    z, pvalue = mannwhitney_p(u1, n1, n2, tie_term, use_continuity)
    return MannWhitneyResult(u1, pvalue, z, n1, n2)


def mannwhitney_p(u1: float | np.ndarray, n1: int | np.ndarray, n2: int | np.ndarray,
                  tie_term: float | np.ndarray, use_continuity: bool = True
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(z, two-sided p) of U1 for samples of sizes n1, n2 whose pooled tie term is
    ``tie_term`` = sum(t^3 - t); vectorised. scipy's formula and operation order."""
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
        z = numerator / s
    p = np.clip(special.ndtr(-z) * 2, 0.0, 1.0)
    if p.ndim == 0:
        return float(z), float(p)
    return z, p
