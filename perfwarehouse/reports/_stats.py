"""The two statistics the fleet report computes per period, through the stable API of
SPEC 9: ``perfwarehouse.stats.kruskal`` (Kruskal-Wallis with tie correction) and
``perfwarehouse.stats.theil_sen`` (exact Theil-Sen slope with Sen's CI).

Both are specified to give scipy's numbers (``scipy.stats.kruskal`` and
``scipy.stats.theilslopes(..., method="joint")``). Where the package's own versions are
not installed yet (they arrive with the order-effects and TriScale work), scipy stands
in; scipy's Theil-Sen materialises all n(n-1)/2 slopes, which is fine for the fleet
report's per-period series of trials.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

try:  # the package's numba versions, when present
    from perfwarehouse.stats import kruskal as _package_kruskal  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on which work is merged
    _package_kruskal = None
try:
    from perfwarehouse.stats import theil_sen as _package_theil_sen  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    _package_theil_sen = None


@dataclass(frozen=True)
class TwoGroupTest:
    """Kruskal-Wallis of two groups: p-value and η²_H = (H - k + 1)/(n - k)."""

    pvalue: float
    eta2: float


@dataclass(frozen=True)
class Trend:
    """Theil-Sen slope of y against x with its two-sided CI."""

    slope: float
    low: float
    high: float


def kruskal_two(a: np.ndarray, b: np.ndarray) -> TwoGroupTest | None:
    """Kruskal-Wallis of ``a`` against ``b``; None when every value is tied (H is 0/0)."""
    if np.ptp(np.concatenate([a, b])) == 0:
        return None
    n = a.size + b.size
    if _package_kruskal is not None:
        result = _package_kruskal(a, b)
        h, p = float(result.statistic), float(result.pvalue)
    else:
        h, p = (float(v) for v in scipy_stats.kruskal(a, b))
    eta2 = (h - 1) / (n - 2) if n > 2 else math.nan
    return TwoGroupTest(p, eta2)


def theil_sen(y: np.ndarray, x: np.ndarray, confidence: float) -> Trend | None:
    """Theil-Sen slope of ``y`` on ``x`` with its ``confidence`` CI; None when every x is
    the same (no slope is defined)."""
    if np.ptp(x) == 0:
        return None
    if _package_theil_sen is not None:
        r = _package_theil_sen(y, x, confidence=confidence)
        return Trend(float(r.slope), float(r.low), float(r.high))
    slope, _intercept, low, high = scipy_stats.theilslopes(y, x, alpha=confidence,
                                                           method="joint")
    return Trend(float(slope), float(low), float(high))
