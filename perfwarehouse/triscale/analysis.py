"""TriScale's run metrics, convergence and independence as pure functions (Jacob et al.
(TriScale, JSys 2021), §4.1 and §4.5): the metric of a run (:func:`metric`), its
convergence test (:func:`convergence_test`) and the independence test of a sequence
(:func:`independence_test`). The other methods have their modules: :mod:`.sizing`
(equations 2-4 and 6), :mod:`.kpis` (§4.2, §4.3, §5.4) and :mod:`.profiling` (§4.6).

Terms: a *run* is one trial with its measurements over time
(iterations); a *series* is the run metrics of one configuration in one campaign
or time window; *sequels* are several series, summarised by their KPIs.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

from perfwarehouse.kernels import windows as win
from perfwarehouse.stats.acf import acf
from perfwarehouse.stats.order_statistics import (
    clean_sample,
)
from perfwarehouse.stats.theil_sen import BRUTE_FORCE_PAIRS, theil_sen, trend_ci_contains_zero
from perfwarehouse.triscale.parameters import (
    Measure,
    Method,
    check_fraction,
    check_method,
    measure_kind,
)
from perfwarehouse.triscale.results import (
    ConvergenceResult,
    IndependenceResult,
    MetricResult,
)


def _to_float_x(x: object, n: int) -> np.ndarray:
    if x is None:
        return np.arange(n, dtype=np.float64)
    arr = np.asarray(x)
    if np.issubdtype(arr.dtype, np.datetime64):
        arr = arr.astype("datetime64[us]").astype(np.int64) / 1e6
    return np.asarray(arr, dtype=np.float64).ravel()


def _paired(y: object, x: object) -> tuple[np.ndarray, np.ndarray]:
    """float64 y and x with the points whose y or x is NaN dropped; ValueError if empty."""
    yy = np.asarray(y, dtype=np.float64).ravel()
    xx = _to_float_x(x, yy.size)
    if xx.size != yy.size:
        raise ValueError(f"x and y differ in length ({xx.size} and {yy.size})")
    keep = ~(np.isnan(yy) | np.isnan(xx))
    yy, xx = yy[keep], xx[keep]
    if yy.size == 0:
        raise ValueError("empty input (after dropping NaN)")
    return yy, xx


def _to_unit(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """Linear map of [low, high] onto [-1, 1], as TriScale writes it; 0 when low == high."""
    scale = high - low
    if scale == 0:
        return np.zeros_like(values)
    return (2 * values - (low + high)) / scale


def convergence_test(y: object, x: object = None, confidence: float = 0.95,
                     tolerance: float = 0.05, bounds: tuple[float, float] | None = None,
                     measure: Measure | None = None,
                     method: Method = "default") -> ConvergenceResult:
    """TriScale's convergence test (Jacob et al. (TriScale, JSys 2021), §4.5).

    With ``measure=None`` the points (x, y) themselves are tested (as for the weak
    stationarity of a sequence, or an environment series over time): x is mapped
    to [-1, 1] by its min and max, y by ``bounds`` (default: y's min and max),
    and the run converged when the ``confidence`` CI of the Theil-Sen slope lies
    inside [-tolerance, tolerance] (both ends included). With a ``measure``
    (percentile fraction, "mean", "min", "max") the run's sliding-window measures
    are tested instead, with y bounds = the run's raw min and max (see
    :func:`metric`). NaN points are dropped; x defaults to 0..n-1. A constant y
    (zero range) maps to 0 and converges; all x equal cannot be tested
    (``converged=False``, NaN slope). ``method`` is accepted for symmetry: the
    rule is TriScale's in both (TriScale's random subsample of 100 points for
    larger inputs is not reproducible, so every point is used).
    """
    check_method(method)
    confidence = check_fraction("confidence", confidence)
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
    yy, xx = _paired(y, x)
    if measure is not None:
        if bounds is None:
            bounds = (float(yy.min()), float(yy.max()))
        xx, yy = window_measures(yy, xx, measure)
    if yy.size < 2:
        raise ValueError("the convergence test needs at least 2 points")
    y_low, y_high = (float(yy.min()), float(yy.max())) if bounds is None else map(float, bounds)
    xu = _to_unit(xx, float(xx.min()), float(xx.max()))
    yu = _to_unit(yy, y_low, y_high)
    fit = theil_sen(yu, xu, confidence)
    converged = bool(fit.low >= -tolerance and fit.high <= tolerance)
    return ConvergenceResult(converged, fit.slope, fit.low, fit.high, confidence, float(tolerance),
                             int(yy.size))


def window_measures(y: np.ndarray, x: np.ndarray, measure: Measure) -> tuple[np.ndarray, np.ndarray]:
    """(x, measure) of TriScale's sliding windows of W = floor(n/2) points."""
    n = y.size
    if n < 2:
        raise ValueError("a run needs at least 2 values for the convergence test")
    width = n // 2
    starts = win.window_starts(n)
    wx = x[starts + width // 2]
    kind = measure_kind(measure)
    if kind == "mean":
        wy = np.array([np.mean(y[s: s + width]) for s in starts])
    else:
        code = {"quantile": 0, "min": 1, "max": 2}[kind]
        q = float(measure) if kind == "quantile" else 0.0
        wy = win.window_measures(np.ascontiguousarray(y), q, code)
    return wx, wy


def _whole_measure(y: np.ndarray, measure: Measure) -> float:
    kind = measure_kind(measure)
    if kind == "mean":
        return float(np.mean(y))
    if kind == "min":
        return float(np.min(y))
    if kind == "max":
        return float(np.max(y))
    return float(np.quantile(y, float(measure), method="nearest"))


def metric(y: object, x: object = None, measure: Measure = 0.5, converge: bool = False,
           confidence: float = 0.95, tolerance: float = 0.05,
           bounds: tuple[float, float] | None = None, method: Method = "default") -> MetricResult:
    """A run's metric (Jacob et al. (TriScale, JSys 2021), §4.1).

    Without convergence: the measure over all values (percentiles by numpy's
    ``quantile(method="nearest")``). With ``converge=True``: the measure over
    w = min(floor(n/2) + 1, 100) windows of floor(n/2) points, the convergence
    test on them, and the value = their median by ``method="nearest"``. A run
    that fails keeps that value with ``converged=False``; ``method="triscale"``
    returns NaN for it, as TriScale does.
    """
    check_method(method)
    yy, xx = _paired(y, x)
    if not converge:
        return MetricResult(_whole_measure(yy, measure), None, n=int(yy.size))
    if bounds is None:
        bounds = (float(yy.min()), float(yy.max()))
    wx, wy = window_measures(yy, xx, measure)
    test = convergence_test(wy, wx, confidence, tolerance, bounds)
    value = float(np.quantile(wy, 0.5, method="nearest"))
    if method == "triscale" and not test.converged:
        value = math.nan
    return MetricResult(value, test.converged, test.slope, test.low, test.high, int(yy.size),
                        int(wy.size))


def independence_test(x: object, method: Method = "default", alpha: float = 0.05,
                      bounds: tuple[float, float] | None = None,
                      ranks: bool = False) -> IndependenceResult:
    """Empirical independence of a sequence in its order (Jacob et al. (TriScale, JSys 2021), §4.5).

    ``method="triscale"``: weakly stationary (convergence test against the index
    with C = 0.5, t = 0.1, y bounds = ``bounds`` or the data's min and max) and
    |rho_k| < 1.96/sqrt(N) at every lag 1..N-1. ``"default"``: no trend (the
    two-sided 1 - alpha/2 CI of the Theil-Sen slope against the index contains 0)
    and no lag 1..h, h = min(N-1, max(10, floor(10 log10 N))), outside the
    Bonferroni band z(1 - alpha/(4h))/sqrt(N). NaN dropped; a constant sequence
    is independent; fewer than 2 values cannot be tested (not independent).
    ``ranks=True`` (default method only) computes the autocorrelation of the
    ranks, which keeps the 5 % level for heavy-tailed data (lognormal values
    reach ~10 % at N = 1000 with the plain autocorrelation); the trend half is
    rank-invariant already (its CI contains 0 exactly when Kendall's test of
    the sequence against its index does not reject).
    """
    check_method(method)
    alpha = check_fraction("alpha", alpha)
    values = clean_sample(x)
    n = int(values.size)
    if n < 2:
        return IndependenceResult(False, False, (), method, n, math.nan, 0,
                                  note="fewer than 2 values: independence cannot be tested")
    if values.min() == values.max():
        return IndependenceResult(True, True, (), method, n, 0.0, n - 1, 0.0, 0.0,
                                  note="constant sequence")
    index = np.arange(n, dtype=np.float64)
    if method == "triscale":
        stationary = convergence_test(values, index, 0.5, 0.1, bounds)
        band = 1.96 / math.sqrt(n)
        rho = acf(values)
        violating = tuple(int(k) for k in np.nonzero(~(np.abs(rho[1:]) < band))[0] + 1)
        return IndependenceResult(stationary.converged and not violating, stationary.converged,
                                  violating, method, n, band, n - 1, stationary.low,
                                  stationary.high)
    if n * (n - 1) // 2 <= BRUTE_FORCE_PAIRS:  # small: the CI's values come for free
        trend = theil_sen(values, index, 1.0 - alpha / 2.0)
        trend_free = bool(trend.low <= 0.0 <= trend.high)
        trend_low, trend_high = trend.low, trend.high
    else:  # the same decision from two counts (the CI's values are not needed)
        trend_free = trend_ci_contains_zero(values, 1.0 - alpha / 2.0)
        trend_low = trend_high = None  # type: ignore[assignment]
    h = min(n - 1, max(10, int(math.floor(10 * math.log10(n)))))
    band = float(sps.norm.ppf(1.0 - alpha / (4.0 * h))) / math.sqrt(n)
    rho = acf(sps.rankdata(values) if ranks else values, h)
    violating = tuple(int(k) for k in np.nonzero(np.abs(rho[1:]) > band)[0] + 1)
    return IndependenceResult(trend_free and not violating, trend_free, violating, method, n,
                              band, h, trend_low, trend_high)


