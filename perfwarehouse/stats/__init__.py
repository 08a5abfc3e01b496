"""Statistics with scipy's numbers, numba-fast where it matters.

Every function validates its input and returns a frozen dataclass.
"""

from __future__ import annotations

from perfwarehouse.stats.order_statistics import (
    BoundResult,
    IntervalResult,
    median_ci,
    percentile_bound,
    percentile_interval,
)
from perfwarehouse.stats.rank_tests import (
    KruskalResult,
    MannWhitneyResult,
    kruskal,
    mannwhitneyu,
)

__all__ = [
    "BoundResult",
    "IntervalResult",
    "KruskalResult",
    "MannWhitneyResult",
    "kruskal",
    "mannwhitneyu",
    "median_ci",
    "percentile_bound",
    "percentile_interval",
]

from perfwarehouse.stats.acf import acf  # noqa: E402
from perfwarehouse.stats.theil_sen import TheilSenResult, theil_sen  # noqa: E402

__all__ += ["TheilSenResult", "theil_sen", "acf"]
