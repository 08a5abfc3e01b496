"""Slow obvious Theil-Sen: list every pairwise slope in Python, sort, take the ranks."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps


def theil_sen_naive(y: list[float], x: list[float], confidence: float = 0.95) -> tuple[float, float, float, float]:
    """(slope, intercept, low, high): median slope, median(y - slope x), Sen's CI ranks."""
    n = len(y)
    slopes = sorted((y[j] - y[i]) / (x[j] - x[i]) if x[j] > x[i] else (y[i] - y[j]) / (x[i] - x[j])
                    for i in range(n) for j in range(i + 1, n) if x[i] != x[j])
    nt = len(slopes)
    slope = slopes[nt // 2] if nt % 2 else (slopes[nt // 2 - 1] + slopes[nt // 2]) / 2.0
    intercept = float(np.median([y[i] - slope * x[i] for i in range(n)]))
    ties = 0
    for values in (x, y):
        for v in set(values):
            k = values.count(v)
            ties += k * (k - 1) * (2 * k + 5)
    sigsq = (n * (n - 1) * (2 * n + 5) - ties) / 18.0
    alpha = 1 - confidence if confidence > 0.5 else confidence
    z = sps.norm.ppf(alpha / 2)
    if sigsq < 0:
        return slope, intercept, math.nan, math.nan
    sigma = math.sqrt(sigsq)
    high = min(round((nt - z * sigma) / 2), nt - 1)
    low = max(round((nt + z * sigma) / 2) - 1, 0)
    return slope, intercept, slopes[low], slopes[high]
