"""What TriScale's analyses (:mod:`.analysis`; Jacob et al. (TriScale, JSys 2021),
sections 4.1-4.6 and 5.4) return: one frozen dataclass per analysis."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class SizingResult:
    """Minimal number of runs (or series): ``one_sided`` for a bound of P_q,
    ``two_sided`` for the median's interval (= ``one_sided`` for p != 0.5)."""

    one_sided: int
    two_sided: int
    percentile: float
    confidence: float
    robustness: int


@dataclass(frozen=True)
class ConvergenceResult:
    """Theil-Sen slope of the points mapped to [-1, 1] and its CI [low, high];
    ``converged`` when the CI lies inside [-tolerance, tolerance]."""

    converged: bool
    slope: float
    low: float
    high: float
    confidence: float
    tolerance: float
    n: int


@dataclass(frozen=True)
class MetricResult:
    """A run's metric ``value``; ``converged`` is None when convergence was not tested."""

    value: float
    converged: bool | None
    slope: float | None = None
    low: float | None = None
    high: float | None = None
    n: int = 0
    windows: int = 0


@dataclass(frozen=True)
class IndependenceResult:
    """Whether a sequence appears i.i.d.; which half failed.

    ``weakly_stationary``: the trend half (TriScale: the convergence test with
    C = 0.5, t = 0.1; default: the 1 - alpha/2 Theil-Sen CI contains 0).
    ``violating_lags``: lags whose |rho_k| is outside ``band``.
    """

    independent: bool
    weakly_stationary: bool
    violating_lags: tuple[int, ...]
    method: str
    n: int
    band: float
    max_lag: int
    trend_low: float | None = None
    trend_high: float | None = None
    note: str = ""


@dataclass(frozen=True)
class KPIResult:
    """A series' KPI: one-sided bound ``value`` of the p-quantile of its run metrics.

    ``value`` is None (with ``n_required``) when the series is too short.
    ``descriptive_only`` when the independence test failed (Jacob et al. (TriScale, JSys 2021), §4.5).
    """

    value: float | None
    independent: bool
    n_required: int | None
    side: str
    index: int
    coverage: float
    n: int
    weakly_stationary: bool
    violating_lags: tuple[int, ...]
    descriptive_only: bool


@dataclass(frozen=True)
class VariabilityScore:
    """Variability score of sequels' KPIs: [low, high] covers [P_p, P_(1-p)];
    ``score`` = high - low, ``relative`` = score / ((low + high)/2)."""

    low: float | None
    high: float | None
    score: float | None
    relative: float | None
    independent: bool
    coverage: float
    n: int
    n_required: int | None
    low_index: int
    high_index: int
    weakly_stationary: bool
    violating_lags: tuple[int, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class CDFBounds:
    """Lower-bound KPIs of the percentiles (NaN where the sample is too small)."""

    percentiles: np.ndarray
    values: np.ndarray
    confidence: float


@dataclass(frozen=True)
class SeasonalPeriod:
    """A candidate seasonal period: an ACF peak above the band at ``lag`` bins."""

    lag: int
    period_s: float
    label: str
    acf: float


@dataclass(frozen=True)
class ProfileResult:
    """Profile of an environment series (Jacob et al. (TriScale, JSys 2021), §4.6): convergence over time,
    the ACF at every lag with its 95 % band, and candidate seasonal periods."""

    converged: bool
    acf: np.ndarray
    band: float
    seasonal_periods: tuple[SeasonalPeriod, ...]
    step_s: float
    n: int
    filled: int
    slope: float
    low: float
    high: float
    candidates: tuple[SeasonalPeriod, ...] = ()
    strict_band: float = math.nan
    lag_band: np.ndarray | None = None
    pairs: np.ndarray | None = None
