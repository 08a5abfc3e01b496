"""Confidence intervals, accuracy and the peak-rate region test of a load-test point.

References
----------
Shivam, Marupadi, Chase, Subramaniam and Babu, "Cutting Corners: Workbench
Automation for Server Benchmarking", USENIX Annual Technical Conference 2008
(Duke University), section 2.1 (equations 1 and 2) and section 4 (the peak-rate
region [R_sat - s R_sat, R_sat + s R_sat] and the overlap test of Algorithm 2).

The CI of a mean, its critical value and its accuracy (equations 1 and 2) live in
:mod:`perfwarehouse.stats.means` (shared with the workbench controller), with the reason
this package uses Student's t rather than the paper's z.

A rank-based (distribution-free) alternative for the median or any percentile
of the trials reuses the binomial order statistics of
:mod:`perfwarehouse.stats.order_statistics`: no normality assumption, but it needs
more trials (at 95 % a median CI needs n >= 6) and says ``None`` when it has too few.

Everything here is pure and vectorised where a job needs it: numpy in, numpy or a
frozen dataclass out. Units are those of the input (the load-test job passes ms
and requests per second).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from perfwarehouse.loadtest.parameters import peak_region
from perfwarehouse.loadtest.results import RankInterval
from perfwarehouse.stats.means import accuracy_or_none, check_confidence
from perfwarehouse.stats.order_statistics import (
    _median_rank,
    clean_sample,
    interval_coverage,
    lower_bound_index,
)

Region = Literal["below", "overlap", "above", "unknown"]


# --------------------------------------------------------- rank-based (median)
def quantile_rank_indices(n: int, p: float, confidence: float) -> tuple[int, int, float]:
    """1-based order statistics ``(j, k)`` of an equal-tailed distribution-free CI of
    the p-quantile, with their exact coverage ``P(j <= B <= k - 1)``, B ~ Bin(n, p).

    For p = 1/2 this is the median interval of :mod:`perfwarehouse.stats`
    (``[x(j), x(n - j + 1)]``); otherwise each end is the one-sided bound at
    confidence (1 + C)/2 (Thompson 1936), so the pair covers with probability >= C.
    ``(0, 0, best)`` when no pair reaches the confidence.
    """
    check_confidence(confidence)
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be a fraction in (0, 1), got {p!r}")
    if p == 0.5:
        j, _ = _median_rank(int(n), confidence)
        if j == 0:
            return 0, 0, interval_coverage(n, p, 1, n) if n >= 1 else 0.0
        k = n - j + 1
        return j, k, interval_coverage(n, p, j, k)
    one_sided = (1.0 + confidence) / 2.0
    m_low, _ = lower_bound_index(n, p, one_sided)
    m_high, _ = lower_bound_index(n, 1.0 - p, one_sided)
    j, k = int(m_low[0]), n - int(m_high[0]) + 1
    if m_low[0] == 0 or m_high[0] == 0 or j > k:
        return 0, 0, interval_coverage(n, p, 1, n) if n >= 1 else 0.0
    return j, k, interval_coverage(n, p, j, k)


def percentile_rank_ci(x: object, p: float, confidence: float = 0.95) -> RankInterval:
    """Distribution-free CI of the p-quantile of ``x`` (NaN dropped), see
    :func:`quantile_rank_indices`; the median CI for ``p = 0.5``."""
    xs = np.sort(clean_sample(x))
    n = xs.size
    point = float(np.quantile(xs, p))
    j, k, cov = quantile_rank_indices(n, p, confidence)
    if j == 0:
        need = n + 1
        while quantile_rank_indices(need, p, confidence)[0] == 0:
            need += 1
        return RankInterval(point, None, None, p, n, cov, 0, 0, need, None)
    low, high = float(xs[j - 1]), float(xs[k - 1])
    return RankInterval(point, low, high, p, n, cov, j, k, None, accuracy_or_none(low, high))


def median_rank_ci(x: object, confidence: float = 0.95) -> RankInterval:
    """Distribution-free CI of the median of ``x`` (the order statistics of
    :func:`perfwarehouse.stats.median_ci`)."""
    return percentile_rank_ci(x, 0.5, confidence)


def region_decision(low: object, high: object, r_sat: float, width: float) -> np.ndarray:
    """Where the CI ``[low, high]`` of a response time lies against the peak-rate region
    (Algorithm 2, step 9 of Shivam et al.), vectorised:

    * ``"below"``: the whole CI is below ``R_sat (1 - s)``: the load is below the peak
      rate with the CI's confidence;
    * ``"above"``: the whole CI is above ``R_sat (1 + s)``: the server is saturated;
    * ``"overlap"``: the CI meets the region: the load is a potential peak rate
      (more trials would narrow it);
    * ``"unknown"``: no CI (fewer than two trials, or NaN).
    """
    lo_r, hi_r = peak_region(r_sat, width)
    lo = np.asarray(low, dtype=np.float64)
    hi = np.asarray(high, dtype=np.float64)
    out = np.full(np.broadcast(lo, hi).shape, "unknown", dtype=object)
    known = ~(np.isnan(lo) | np.isnan(hi))
    out[known & (hi < lo_r)] = "below"
    out[known & (lo > hi_r)] = "above"
    out[known & ~(hi < lo_r) & ~(lo > hi_r)] = "overlap"
    return out
