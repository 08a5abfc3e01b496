"""Confidence interval of a mean and its accuracy (Shivam et al., USENIX ATC 2008, eqs. 1-2).

The paper's equation 1 uses the normal quantile z_p; its appendix replaces it by
Student's t with n - 1 degrees of freedom for n <= 30 trials. We always use t
(for n > 30 the two agree to within 1 %), because the controller works with 2 to
20 trials, where z is far too narrow (at n = 2 and c = 0.95, t = 12.7 vs z = 1.96).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence


@dataclass(frozen=True)
class MeanInterval:
    """The mean of ``n`` values with its two-sided t interval at ``confidence``."""

    n: int
    mean: float
    low: float
    high: float
    confidence: float

    @property
    def accuracy(self) -> float:
        return accuracy(self.low, self.high)


def t_interval(values: Sequence[float], confidence: float) -> MeanInterval:
    """Student's t interval of the mean: mean ± t_{(1+c)/2, n-1} · sd / sqrt(n).

    Needs at least two values; ``sd`` is the sample standard deviation (n - 1).
    Identical values give a zero-width interval.
    """
    n = len(values)
    if n < 2:
        raise ValueError("a t interval needs at least two values")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must lie in (0, 1)")
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile((1.0 + confidence) / 2.0, n - 1) * math.sqrt(var / n)
    return MeanInterval(n, mean, mean - half, mean + half, confidence)


@lru_cache(maxsize=1024)
def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (scipy's, cached)."""
    from scipy import stats

    return float(stats.t.ppf(p, df))


def accuracy(low: float, high: float) -> float:
    """Equation 2: 1 - (high - low) / (high + low), as a fraction (0.9 = 90 %).

    Meaningful for positive quantities (response times, loads) whose interval lies
    above zero; 0 when ``high + low <= 0``. An interval that crosses zero (too few or
    too noisy trials) gives a number below 0 that means nothing: the controller
    reports such an interval as crossing zero (:func:`crosses_zero`), never by it.
    """
    total = high + low
    if not total > 0:
        return 0.0
    return 1.0 - (high - low) / total


def crosses_zero(low: float, high: float) -> bool:
    """The interval of a positive quantity reaches zero or below: its accuracy is void."""
    return low <= 0.0 < high or (low <= 0.0 and high <= 0.0)


def trials_for(values: Sequence[float], confidence: float, target: float) -> int | None:
    """About how many trials of this spread give ``target`` accuracy: equation 2 is
    half / mean, so n = (t sd / ((1 - target) mean))^2, with t at the present n - 1
    degrees of freedom (it only shrinks with n: an upper estimate). None without a
    spread or a positive mean."""
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    if not mean > 0 or not var > 0:
        return None
    t = t_quantile((1.0 + confidence) / 2.0, n - 1)
    return max(n + 1, math.ceil((t * math.sqrt(var) / ((1.0 - target) * mean)) ** 2))
