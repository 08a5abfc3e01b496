"""Statistics with scipy's numbers, numba-fast where it matters.

Every function validates its input and returns a frozen dataclass. The names below are
imported from their modules on first use (PEP 562), so that a caller of one test does not
pay for the others' imports: ``scipy.stats`` alone takes about a second to import
(``order_statistics`` needs it; ``compare``'s rank test does not). ``acf`` and
``theil_sen`` share their module's name, so they are imported at once: importing a
submodule sets the package's attribute of that name to the module, which a lazy name
would then never replace.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from perfwarehouse.stats.acf import acf
from perfwarehouse.stats.theil_sen import TheilSenResult, theil_sen

if TYPE_CHECKING:
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

_HOME = {
    "BoundResult": "order_statistics", "IntervalResult": "order_statistics",
    "median_ci": "order_statistics", "percentile_bound": "order_statistics",
    "percentile_interval": "order_statistics",
    "KruskalResult": "rank_tests", "MannWhitneyResult": "rank_tests", "kruskal": "rank_tests",
    "mannwhitneyu": "rank_tests",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'perfwarehouse.stats' has no attribute {name!r}")
    return getattr(import_module(f"perfwarehouse.stats.{home}"), name)


__all__ = ["BoundResult", "IntervalResult", "KruskalResult", "MannWhitneyResult", "TheilSenResult",
           "acf", "kruskal", "mannwhitneyu", "median_ci", "percentile_bound",
           "percentile_interval", "theil_sen"]
