"""Compare two sets of trials (a baseline and a contender) per configuration:
``perfwarehouse compare``.

The change is the Hodges-Lehmann shift of the log values (Hodges & Lehmann, Annals of
Mathematical Statistics 34, 1963) with its distribution-free interval (Hollander, Wolfe &
Chicken, "Nonparametric Statistical Methods", 3rd ed., 2014, section 4.3), the p-value
the Mann-Whitney rank-sum test adjusted over the rows (Benjamini & Hochberg 1995), the
verdict benchstat's rule with an interval (docs/compare.md).

* :mod:`.parameters`: the defaults (chosen by measurement) and option checks;
* :mod:`.analysis`: the pure entry points (:func:`compare_table`, :func:`compare_samples`);
* :mod:`.results`: :class:`Comparison`, the table's :data:`FIELDS` and :data:`VERDICTS`;
* :mod:`.summary`: what a person reads beside the rows (geometric means, notes).
"""

from __future__ import annotations

from perfwarehouse.compare.analysis import (
    adjust,
    change_interval,
    compare_samples,
    compare_table,
    judge,
    more_trials,
    trials_for_power,
    verdict_line,
)
from perfwarehouse.compare.parameters import (
    CORRECTIONS,
    DEFAULT_CONFIDENCE,
    DEFAULT_CORRECTION,
    DEFAULT_THRESHOLD,
)
from perfwarehouse.compare.results import FIELDS, VERDICTS, Comparison

__all__ = ["CORRECTIONS", "DEFAULT_CONFIDENCE", "DEFAULT_CORRECTION", "DEFAULT_THRESHOLD",
           "FIELDS", "VERDICTS", "Comparison", "adjust", "change_interval", "compare_samples",
           "compare_table", "judge", "more_trials", "trials_for_power", "verdict_line"]
