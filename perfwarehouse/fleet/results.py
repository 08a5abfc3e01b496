"""What the fleet analysis (:mod:`.analysis`) returns besides its rows (one polars row
per configuration): the fleet-wide summary and the two statistics per configuration."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class FleetSummary:
    """What the fleet report shows about the whole fleet, from :func:`analyse`'s rows."""

    by_type: pl.DataFrame
    """Per hardware type: configurations and trials in each period, drifting, order-
    dependent (new, resolved) counts, the median RSD of its configurations before and
    now, and the change of that median in %."""
    rsd_by_type: pl.DataFrame
    """``hardware_type``, ``period`` (previous | this), ``rsd_pct``: the median RSD over
    the configurations with an RSD in both periods."""
    rsd_prev_median: float | None
    """The median RSD, over every configuration with an RSD in both periods, before and
    now (None when there is none)."""
    rsd_now_median: float | None


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
