"""The two statistics the fleet report computes per period, through the stable API of
SPEC 9: ``perfwarehouse.stats.kruskal`` (Kruskal-Wallis with tie correction) and
``perfwarehouse.stats.theil_sen`` (exact Theil-Sen slope with Sen's CI)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perfwarehouse.stats import kruskal
from perfwarehouse.stats import theil_sen as _theil_sen


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
    result = kruskal(a, b)
    h, p = float(result.statistic), float(result.pvalue)
    eta2 = (h - 1) / (n - 2) if n > 2 else math.nan
    return TwoGroupTest(p, eta2)


def theil_sen(y: np.ndarray, x: np.ndarray, confidence: float) -> Trend | None:
    """Theil-Sen slope of ``y`` on ``x`` with its ``confidence`` CI; None when every x is
    the same (no slope is defined)."""
    if np.ptp(x) == 0:
        return None
    r = _theil_sen(y, x, confidence=confidence)
    return Trend(float(r.slope), float(r.low), float(r.high))
