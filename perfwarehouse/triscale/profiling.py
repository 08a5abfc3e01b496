"""TriScale's environment profiling (Jacob et al. (TriScale, JSys 2021), §4.6 and
Figure 5): an environment series over time (e.g. link quality) put on a regular grid,
its autocorrelation with a family-wise band, the seasonal periods it shows and their
labels in words.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from scipy import stats as sps

from perfwarehouse.stats.acf import acf
from perfwarehouse.triscale.analysis import _paired, convergence_test
from perfwarehouse.triscale.results import (
    ProfileResult,
    SeasonalPeriod,
)


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
