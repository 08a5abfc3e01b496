"""Statistics with scipy's numbers, numba-fast where it matters.

Every function validates its input and returns a frozen dataclass. The names below are
imported from their modules on first use (PEP 562), so that importing a light module of
the package (:mod:`.fractions`, which reads a command line's ``--confidence``) or one test
does not pay for the others' imports: ``scipy.stats`` alone takes about a second to
import (``order_statistics`` needs it; ``compare``'s rank test does not), numpy a tenth.

``acf`` and ``theil_sen`` share their module's name: importing the submodule sets the
package's attribute of that name to the module (``importlib`` does ``setattr(package,
name, module)``), which would then hide the function. The package's module class keeps
those two names for the functions (:class:`_Package`).
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from perfwarehouse.stats.acf import acf
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
    from perfwarehouse.stats.theil_sen import TheilSenResult, theil_sen

_HOME = {
    "acf": "acf", "TheilSenResult": "theil_sen", "theil_sen": "theil_sen",
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


class _Package(ModuleType):
    """This package's module: a submodule named like one of its functions (``acf``,
    ``theil_sen``) is not bound over the function's name when it is imported; the name
    keeps resolving to the function (:func:`__getattr__`)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, ModuleType) and _HOME.get(name) == name:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = ["BoundResult", "IntervalResult", "KruskalResult", "MannWhitneyResult", "TheilSenResult",
           "acf", "kruskal", "mannwhitneyu", "median_ci", "percentile_bound",
           "percentile_interval", "theil_sen"]
