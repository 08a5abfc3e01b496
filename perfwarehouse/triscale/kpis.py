"""TriScale's KPIs and variability scores (Jacob et al. (TriScale, JSys 2021), §4.2,
§4.3 and §5.4): the KPI of a series (the independence test, then Thompson's
distribution-free bound of a percentile), the variability score across sequels (a
two-sided interval of their KPIs) and the confidence band of a CDF.

Terms: a *series* is the run metrics of one configuration in one campaign or time
window; *sequels* are several series, summarised by their KPIs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from perfwarehouse.stats.order_statistics import (
    BoundResult,
    clean_sample,
    n_required_lower_bound,
    n_required_median,
    percentile_bound,
    percentile_interval,
)
from perfwarehouse.triscale.analysis import independence_test
from perfwarehouse.triscale.parameters import (
    Method,
    check_fraction,
    check_method,
)
from perfwarehouse.triscale.results import (
    CDFBounds,
    KPIResult,
    VariabilityScore,
)


def kpi(values: object, p: float, confidence: float, bound: str | None = None,
        bounds: tuple[float, float] | None = None, method: Method = "default") -> KPIResult:
    """KPI of a series (Jacob et al. (TriScale, JSys 2021), §4.2): independence test, then Thompson's bound.

    The bound is an upper bound for p > 0.5 and a lower bound for p < 0.5; for
    the median ``bound`` ("lower" or "upper") must be given. ``bounds`` are the
    y bounds of the weak-stationarity check. NaN dropped.
    """
    p = check_fraction("p", p)
    confidence = check_fraction("confidence", confidence)
    side = bound or ("upper" if p > 0.5 else "lower" if p < 0.5 else None)
    if side not in ("lower", "upper"):
        raise ValueError("for the median, say which bound the KPI is: bound='lower' or 'upper'"
                         if side is None else f"bound must be 'lower' or 'upper', got {bound!r}")
    data = clean_sample(values)
    test = independence_test(data, method, bounds=bounds)
    res: _Bound | BoundResult
    if check_method(method) == "triscale":
        res = _triscale_bound(np.sort(data), p, confidence, side)
    else:
        res = percentile_bound(data, p, confidence, side)  # type: ignore[arg-type]
    return KPIResult(res.value, test.independent, res.n_required, side, res.index, res.coverage,
                     int(data.size), test.weakly_stationary, test.violating_lags,
                     not test.independent)


@dataclass(frozen=True)
class _Bound:
    value: float | None
    index: int
    coverage: float
    n_required: int | None


def _triscale_lower_index(n: int, q: float, confidence: float) -> int:
    """TriScale's rule: 1 - cumulative sum of binomial pmf, first k below C; 0 if none."""
    tail = np.maximum(1.0 - np.cumsum(sps.binom.pmf(np.arange(n), n, q)), 0.0)
    if tail[0] < confidence:
        return 0
    below = np.nonzero(tail < confidence)[0]
    return int(below[0]) if below.size else n  # TriScale crashes when none is below


def _triscale_bound(xs: np.ndarray, p: float, confidence: float, side: str) -> _Bound:
    n = xs.size
    q = p if side == "lower" else 1.0 - p
    m = _triscale_lower_index(n, q, confidence)
    if m == 0:
        return _Bound(None, 0, float(sps.binom.sf(0, n, q)), n_required_lower_bound(q, confidence))
    index = m if side == "lower" else n - m + 1
    return _Bound(float(xs[index - 1]), index, float(sps.binom.sf(m - 1, n, q)), None)


def variability_score(kpis: object, p: float, confidence: float,
                      bounds: tuple[float, float] | None = None,
                      method: Method = "default") -> VariabilityScore:
    """Variability score across sequels (Jacob et al. (TriScale, JSys 2021), §4.3).

    Default: the largest m whose *joint* coverage of [x(m), x(n-m+1)] for the
    range [P_q, P_(1-q)] is >= C. ``method="triscale"``: m from one one-sided
    bound at C (jointly only 2C - 1), except for the median, where both use the
    median's two-sided interval. None when the sequels are too few. NaN dropped.
    """
    p = check_fraction("p", p)
    confidence = check_fraction("confidence", confidence)
    data = clean_sample(kpis)
    test = independence_test(data, method, bounds=bounds)
    xs = np.sort(data)
    n = int(xs.size)
    if check_method(method) == "triscale":
        lo_i, hi_i, coverage, need = _triscale_interval(n, p, confidence)
    else:
        res = percentile_interval(data, p, confidence, method="exact")
        lo_i, hi_i, coverage, need = res.low_index, res.high_index, res.coverage, res.n_required
    if lo_i == 0:
        return VariabilityScore(None, None, None, None, test.independent, coverage, n, need, 0, 0,
                                 test.weakly_stationary, test.violating_lags)
    low, high = float(xs[lo_i - 1]), float(xs[hi_i - 1])
    score = high - low
    middle = (low + high) / 2.0
    relative = score / middle if middle != 0 else None
    return VariabilityScore(low, high, score, relative, test.independent, coverage, n, None, lo_i,
                             hi_i, test.weakly_stationary, test.violating_lags)


def _triscale_interval(n: int, p: float, confidence: float) -> tuple[int, int, float, int | None]:
    """TriScale's two-sided indices (1-based) with their exact joint coverage."""
    from perfwarehouse.stats.order_statistics import range_coverage

    q = min(p, 1.0 - p)
    if q == 0.5:
        tail = np.maximum(1.0 - np.cumsum(2 * sps.binom.pmf(np.arange(n), n, 0.5)), 0.0)
        if tail[0] < confidence:
            return 0, 0, float(max(1 - 2 * 0.5**n, 0.0)), n_required_median(confidence)
        j = int(np.nonzero(tail < confidence)[0][0])
        return j, n - j + 1, range_coverage(n, 0.5, j), None
    m = _triscale_lower_index(n, q, confidence)
    if m == 0 or m > n - m + 1:
        return 0, 0, range_coverage(n, q, 1), n_required_lower_bound(q, confidence)
    return m, n - m + 1, range_coverage(n, q, m), None


def cdf_bounds(values: object, confidence: float = 0.95,
               percentiles: object = None) -> CDFBounds:
    """CI of a CDF: lower-bound KPIs of the 2nd ... 98th percentiles (Jacob et al. (TriScale, JSys 2021), §5.4)."""
    confidence = check_fraction("confidence", confidence)
    ps = np.arange(1, 50) * 0.02 if percentiles is None else np.asarray(percentiles, float)
    data = clean_sample(values)
    out = np.array([np.nan if (b := percentile_bound(data, float(p), confidence, "lower")).value
                    is None else b.value for p in ps])
    return CDFBounds(ps, out, confidence)
