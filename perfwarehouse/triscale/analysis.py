"""TriScale's analyses as pure functions (Jacob et al. (TriScale, JSys 2021), §4.1-4.6 and 5.4).

Terms: a *run* is one trial with its measurements over time
(iterations); a *series* is the run metrics of one configuration in one campaign
or time window; *sequels* are several series, summarised by their KPIs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats as sps

from perfwarehouse.kernels import windows as win
from perfwarehouse.stats.acf import acf
from perfwarehouse.stats.order_statistics import (
    BoundResult,
    clean_sample,
    n_required_lower_bound,
    n_required_median,
    percentile_bound,
    percentile_interval,
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
    CDFBounds,
    ConvergenceResult,
    IndependenceResult,
    KPIResult,
    MetricResult,
    ProfileResult,
    SeasonalPeriod,
    SizingResult,
    VariabilityScore,
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


def experiment_sizing(p: float, confidence: float, robustness: int = 0,
                      method: Method = "default") -> SizingResult:
    """How many runs a KPI (or series a variability score) needs (Jacob et al. (TriScale, JSys 2021), eq. 2-4, 6).

    With q = min(p, 1 - p) and r = ``robustness`` samples allowed to be discarded:
    ``one_sided`` is the smallest N with P(x(1+r) <= P_q) >= C (r = 0:
    ceil(ln(1-C)/ln(1-q))); ``two_sided`` (median only) the smallest N with
    P(x(1+r) <= M <= x(N-r)) >= C. ``method="triscale"`` starts the search for
    r > 0 at max(N(r=0), 2(r+1)) as TriScale does, which can overshoot the
    smallest N when C <= 0.5.
    """
    p = check_fraction("p", p)
    confidence = check_fraction("confidence", confidence)
    if isinstance(robustness, bool) or not isinstance(robustness, (int, np.integer)) or robustness < 0:
        raise ValueError(f"robustness must be a non-negative integer, got {robustness!r}")
    r = int(robustness)
    q = min(p, 1.0 - p)
    if check_method(method) == "triscale":
        one, two = _triscale_sizing(q, confidence, r)
    else:
        one = _smallest_n(lambda n: float(sps.binom.sf(r, n, q)), confidence,
                          max(r + 1, n_required_lower_bound(q, confidence)))
        two = one
        if q == 0.5:
            two = _smallest_n(lambda n: 1.0 - 2.0 * float(sps.binom.cdf(r, n, 0.5)), confidence,
                              max(2 * r + 2, n_required_median(confidence)))
    return SizingResult(one, two, p, confidence, r)


def _smallest_n(prob, confidence: float, start: int) -> int:
    n = start
    while prob(n) < confidence:
        n += 1
    while n - 1 >= 1 and prob(n - 1) >= confidence:
        n -= 1
    return n


def _triscale_sizing(q: float, confidence: float, r: int) -> tuple[int, int]:
    one = math.ceil(math.log(1 - confidence) / math.log(1 - q))
    if r:
        one = max(one, 2 * (r + 1))
        while 1 - float(np.sum(sps.binom.pmf(np.arange(r + 1), one, q))) < confidence:
            one += 1
    two = one
    if q == 0.5:
        two = math.ceil(1 - math.log(1 - confidence) / math.log(2))
        if r:
            two = max(two, 2 * (r + 1))
            while 1 - float(np.sum(2 * sps.binom.pmf(np.arange(r + 1), two, 0.5))) < confidence:
                two += 1
    return one, two


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


def gappy_acf(d: np.ndarray, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Autocorrelation of a series with empty bins: (sum of d_i d_(i+k) over observed
    pairs / their count) / (the same at lag 0), and the pair counts. ``d`` is 0 where
    unobserved and centred on the observed values."""
    n = d.size
    m = observed.astype(np.float64)
    d = np.where(observed, d - d[observed].mean(), 0.0)
    size = 1 << int(2 * n - 1).bit_length()

    def correlate(a: np.ndarray) -> np.ndarray:
        f = np.fft.rfft(a, size)
        return np.fft.irfft(f * np.conj(f), size)[:n]

    sums = correlate(d)
    pairs = np.rint(correlate(m))
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = np.where(pairs > 0, sums / np.maximum(pairs, 1), 0.0)
    rho = cov / cov[0] if cov[0] > 0 else np.where(np.arange(n) == 0, 1.0, 0.0)
    return rho, pairs


def family_band(n: int, alpha: float = 0.05, lags: int | None = None) -> float:
    """Bonferroni band over the L lags searched (default N/3): z(1 - alpha/(2 L))/sqrt(N)."""
    lags = max(1, n // 3 if lags is None else lags)
    return float(sps.norm.ppf(1.0 - alpha / (2.0 * lags))) / math.sqrt(n)


def profile(times: object, values: object, bounds: tuple[float, float] | None = None,
            step: float | None = None, confidence: float = 0.95, tolerance: float = 0.05,
            fill: Literal["interpolate", "median", "none"] = "interpolate",
            max_period_s: float | None = None, highpass_s: float | None = None,
            short_range_s: float | None = None, min_pairs: int = 30) -> ProfileResult:
    """Profile an environment series over time (Jacob et al. (TriScale, JSys 2021), §4.6 and Figure 5).

    ``times`` in seconds (or datetime64) and ``values``; the series is put on a
    regular grid of ``step`` seconds (default: the median spacing), averaging
    values that share a bin; empty bins are filled by linear interpolation
    (``"interpolate"``), with the series median (``"median"``, TriScale's rule),
    or left empty (``"none"``: each lag's autocorrelation then comes from the
    pairs of observed bins that lag apart, sums divided by their count and
    normalised by lag 0, with the per-lag band 1.96/sqrt(pairs) in ``lag_band``;
    the right estimator for a sparsely sampled environment).

    Returned: the convergence test over time (C, t as given), the ACF at every
    lag (biased, as :func:`perfwarehouse.stats.acf`, for a complete series)
    with its 95 % band 1.96/sqrt(N), ``candidates``: lags 2..N/3 (or
    ``max_period_s``) whose ACF is above the band, a local maximum and the
    highest within [lag/2, 3 lag/2] (so the multiples of a period are not
    candidates unless they stand out), and ``seasonal_periods``: the candidates
    confirmed above z(1 - 0.05/(2 L)) sd_k, a Bonferroni band over the L lags
    searched with sd_k = sqrt(B/pairs_k), B = 1 + 2 sum rho_j^2 over the lags
    within ``short_range_s`` (Bartlett: a series smoothed by measurements that
    last hours varies more than 1/N at every lag; default B = 1). A multiple of
    a confirmed shorter period must also stand above the ACF one period on
    either side by that band (a weekly peak among daily ones, not a week's
    harmonics). ``highpass_s`` first subtracts a centred moving average of that
    span (not before the convergence test), so slow wander does not raise broad
    humps at long lags; use at least twice the longest period of interest.
    Lags with fewer than ``min_pairs`` pairs are not considered.
    """
    yy, tt = _paired(values, times)
    grid_t, grid_y, filled, step_s = regular_series(tt, yy, step, fill)
    n = int(grid_y.size)
    if n < 3:
        raise ValueError("profiling needs a series of at least 3 time steps")
    observed = ~np.isnan(grid_y)
    test = convergence_test(grid_y[observed], grid_t[observed], confidence, tolerance, bounds)
    detrended = np.where(observed, grid_y, 0.0)
    weight = observed.astype(np.float64)
    if highpass_s is not None:
        width = max(1, int(round(highpass_s / step_s)))
        if width < n:
            kernel = np.ones(width)
            local = np.convolve(detrended, kernel, mode="same")
            counts = np.convolve(weight, kernel, mode="same")
            detrended = np.where(observed, detrended - local / np.maximum(counts, 1), 0.0)
    if observed.all():
        rho = acf(detrended)
        pairs = np.arange(n, 0, -1).astype(np.float64)
        lag_band = np.full(n, 1.96 / math.sqrt(n))
    else:
        rho, pairs = gappy_acf(detrended, observed)
        with np.errstate(divide="ignore"):
            lag_band = 1.96 / np.sqrt(pairs)
    band = 1.96 / math.sqrt(int(observed.sum()))
    max_lag = n // 3 if max_period_s is None else min(n // 3, int(max_period_s / step_s))
    candidates = []
    for k in seasonal_lags(rho, lag_band, max_lag):
        if pairs[k] < min_pairs:
            continue
        seconds = refined_lag(rho, k) * step_s
        candidates.append(SeasonalPeriod(int(k), seconds, period_label(seconds), float(rho[k])))
    # confirm: Bonferroni over the candidates, Bartlett's variance for short-range correlation
    z = float(sps.norm.ppf(1.0 - 0.05 / (2.0 * max(1, max_lag - 1))))
    bartlett = 1.0
    if short_range_s is not None:
        q = min(n - 1, int(short_range_s / step_s))
        bartlett += 2.0 * float(np.sum(rho[1: q + 1] ** 2))
    sd = np.sqrt(bartlett / np.maximum(pairs, 1.0))
    strict = z * math.sqrt(bartlett / observed.sum())
    kept: list[SeasonalPeriod] = []
    for c in candidates:
        if not c.acf > z * sd[c.lag]:
            continue
        bump = True
        for p in kept:  # a multiple of a kept period must stand above its neighbours
            if _is_multiple(c.period_s, p.period_s):
                near = [rho[k] for k in (c.lag - p.lag, c.lag + p.lag) if 0 < k < n]
                bump = bump and c.acf - max(near) > z * sd[c.lag]
        if bump:
            kept.append(c)
    periods = tuple(kept)
    return ProfileResult(test.converged, rho, band, periods, step_s, n, filled, test.slope,
                         test.low, test.high, tuple(candidates), strict, lag_band, pairs)


def regular_series(times: np.ndarray, values: np.ndarray, step: float | None,
                   fill: str = "interpolate") -> tuple[np.ndarray, np.ndarray, int, float]:
    """(grid times, grid values, number of filled bins, step) of an irregular series."""
    order = np.argsort(times, kind="stable")
    t, v = times[order], values[order]
    if step is None:
        gaps = np.diff(np.unique(t))
        if gaps.size == 0:
            raise ValueError("profiling needs values at 2 or more distinct times")
        step = float(np.median(gaps))
    if not step > 0:
        raise ValueError(f"step must be > 0 seconds, got {step!r}")
    slot = np.floor((t - t[0]) / step + 0.5).astype(np.int64)
    size = int(slot[-1]) + 1
    sums = np.bincount(slot, weights=v, minlength=size)
    counts = np.bincount(slot, minlength=size)
    have = counts > 0
    grid = np.empty(size)
    grid[have] = sums[have] / counts[have]
    missing = ~have
    if missing.any():
        idx = np.arange(size)
        if fill == "median":
            grid[missing] = float(np.median(v))
        elif fill == "interpolate":
            grid[missing] = np.interp(idx[missing], idx[have], grid[have])
        elif fill == "none":
            grid[missing] = np.nan
        else:
            raise ValueError(f"fill must be 'interpolate', 'median' or 'none', got {fill!r}")
    return t[0] + np.arange(size) * step, grid, int(missing.sum()), float(step)


def _is_multiple(longer: float, shorter: float, within: float = 0.05) -> bool:
    ratio = longer / shorter
    return round(ratio) >= 2 and abs(ratio - round(ratio)) <= within * ratio


def seasonal_lags(rho: np.ndarray, band: float | np.ndarray,
                  max_lag: int | None = None) -> list[int]:
    """Lags 2 <= k <= max_lag (default N/3) with rho_k > band, a local maximum, and the
    highest in [ceil(k/2), floor(3k/2)]."""
    n = rho.size
    found = []
    top = n // 3 if max_lag is None else min(max_lag, n // 3)
    bands = np.broadcast_to(np.asarray(band, dtype=np.float64), rho.shape)
    for k in range(2, top + 1):
        if not (rho[k] > bands[k] and rho[k] >= rho[k - 1] and rho[k] >= rho[k + 1]):
            continue
        lo, hi = (k + 1) // 2, min(n - 1, (3 * k) // 2)
        if rho[k] >= rho[lo: hi + 1].max():
            found.append(k)
    return found


def refined_lag(rho: np.ndarray, k: int) -> float:
    """Peak position between bins: the vertex of the parabola through lags k-1, k, k+1."""
    a, b, c = rho[k - 1], rho[k], rho[k + 1]
    curvature = a - 2 * b + c
    if curvature >= 0:
        return float(k)
    return float(k + 0.5 * (a - c) / curvature)


def period_label(seconds: float, within: float = 0.05) -> str:
    """The nearest whole number of days, hours or minutes (within 5 %), else seconds:
    '1 day', '7 days', '12 hours', '30 minutes', '45 s'."""
    for unit, name in ((86400.0, "day"), (3600.0, "hour"), (60.0, "minute")):
        count = seconds / unit
        k = int(round(count))
        if k >= 1 and abs(count - k) <= within * count:
            return f"{k} {name}{'s' if k != 1 else ''}"
    if seconds >= 86400.0:
        return f"{seconds / 86400.0:.3g} days"
    if seconds >= 3600.0:
        return f"{seconds / 3600.0:.3g} hours"
    return f"{seconds:g} s"
