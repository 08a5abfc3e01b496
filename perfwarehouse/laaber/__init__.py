"""Variability, A/A false positives and minimal detectable regressions after Laaber,
Scheuner and Leitner, "Performance Testing in the Cloud. How Bad is it Really?"
(PeerJ Preprints, 2018), section 4 (4.1 variability, 4.2.1 A/A tests, 4.2.2 and
Algorithm 1 the minimal detectable regression).

* :mod:`.parameters`: the regressions scanned, the sampling strategies, their checks;
* :mod:`.analysis`: the pure entry points (its docstring states the method); its
  kernels are in :mod:`perfwarehouse.kernels.laaber`;
* :mod:`.layout`: the measurements as flat arrays (configuration -> node -> trial), the
  outlier rule applied, and a job's partition read from Arrow;
* :mod:`.results`: what one configuration gets.

The jobs ``analyze variability``, ``aa-fpr`` and ``detectable-regression`` feed it.
"""

from __future__ import annotations

from perfwarehouse.laaber.analysis import (
    Eligibility,
    aa_false_positive_rate,
    detectable_regression,
    eligibility,
    insufficient_reason,
    none_reason,
    regression_counts,
    sample_medians,
    scan_detectable,
    variability,
    variability_columns,
    variability_reason,
)
from perfwarehouse.laaber.layout import (
    META_COLUMNS,
    Layout,
    Partition,
    config_key,
    dense_ranks,
    layout_from_breaks,
    layout_of_one,
    partition_from_arrow,
)
from perfwarehouse.laaber.parameters import (
    HIGHER_IS_BETTER_MODES,
    REGRESSIONS_PCT,
    STRATEGIES,
    HigherIsBetterMode,
    Strategy,
    check_higher_is_better_mode,
    check_strategy,
)
from perfwarehouse.laaber.results import (
    AAResult,
    DetectableRegressionResult,
    VariabilityBreakdown,
)

__all__ = [
    "HIGHER_IS_BETTER_MODES", "META_COLUMNS", "REGRESSIONS_PCT", "STRATEGIES", "AAResult",
    "DetectableRegressionResult", "Eligibility", "HigherIsBetterMode", "Layout", "Partition",
    "Strategy", "VariabilityBreakdown", "aa_false_positive_rate", "check_higher_is_better_mode",
    "check_strategy", "config_key", "dense_ranks", "detectable_regression", "eligibility",
    "insufficient_reason", "layout_from_breaks", "layout_of_one", "none_reason",
    "partition_from_arrow", "regression_counts", "sample_medians", "scan_detectable",
    "variability", "variability_columns", "variability_reason",
]
