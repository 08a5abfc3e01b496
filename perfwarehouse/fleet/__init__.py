"""The periodic fleet analysis (``perfwarehouse report fleet``): drift, new order
dependence and variability of every configuration in a period against the previous one.

It combines three papers' methods: the Theil-Sen trend with Sen's interval (Sen, JASA 1968, eq. 2.6) of
each configuration with a family-wise CI; the fixed- against random-order comparison of
OrderSage (Duplyakin et al., USENIX ATC 2023, section 5); the RSD after the outlier rule
of Laaber et al. (PeerJ Preprints 2018, section 4.1).

* :mod:`.parameters`: the decision rules (:class:`FleetParams`) and the period;
* :mod:`.analysis`: the pure entry points (:func:`analyse`, :func:`summarise`);
* :mod:`.results`: :class:`FleetSummary` and the per-configuration statistics.
"""

from __future__ import annotations

from perfwarehouse.fleet.analysis import (
    KEYS,
    analyse,
    bin_medians,
    kruskal_two,
    relative_values,
    summarise,
    trend,
)
from perfwarehouse.fleet.parameters import (
    DAY_S,
    DEFAULT_PERIOD_DAYS,
    FleetParams,
    Period,
    choose_period,
)
from perfwarehouse.fleet.results import FleetSummary, Trend, TwoGroupTest

__all__ = ["DAY_S", "DEFAULT_PERIOD_DAYS", "KEYS", "FleetParams", "FleetSummary", "Period",
           "Trend", "TwoGroupTest", "analyse", "bin_medians", "choose_period", "kruskal_two",
           "relative_values", "summarise", "trend"]
