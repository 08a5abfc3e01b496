"""TriScale (Jacob et al., JSys 2021, sections 4 and 6): experiment sizing, run
metrics with convergence, KPIs, variability scores, independence and profiling.

Every function takes fractions (0.95, not 95), validates its input and returns a
frozen dataclass. ``method="triscale"`` reproduces the original tool's rules where
perfwarehouse's default is better; the manual's section (docs/analyses/triscale.md) "Where perfwarehouse differs from
TriScale (and why)" lists every difference.

* :mod:`.parameters`: the options (fractions, method, measure) and their checks;
* :mod:`.analysis`: run metrics, their convergence test and the independence test
  (sections 4.1 and 4.5);
* :mod:`.sizing`: experiment sizing (equations 2-4 and 6);
* :mod:`.kpis`: KPIs, variability scores and CDF bounds (sections 4.2, 4.3 and 5.4);
* :mod:`.profiling`: environment profiling and seasonal periods (section 4.6);
* :mod:`.results`: their frozen result types;
* :mod:`.convergence`: the convergence test's view (windows, slope and band) for a chart;
* :mod:`.planning`: the text of ``perfwarehouse plan-runs`` (experiment sizing).
"""

from __future__ import annotations

from perfwarehouse.triscale.analysis import convergence_test, independence_test, metric
from perfwarehouse.triscale.convergence import ConvergenceView, convergence_view
from perfwarehouse.triscale.kpis import cdf_bounds, kpi, variability_score
from perfwarehouse.triscale.parameters import Measure, Method, as_fraction
from perfwarehouse.triscale.planning import plan_runs_text
from perfwarehouse.triscale.profiling import profile
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
from perfwarehouse.triscale.sizing import experiment_sizing

__all__ = [
    "CDFBounds",
    "ConvergenceResult",
    "ConvergenceView",
    "IndependenceResult",
    "KPIResult",
    "Measure",
    "Method",
    "MetricResult",
    "ProfileResult",
    "SeasonalPeriod",
    "SizingResult",
    "VariabilityScore",
    "as_fraction",
    "cdf_bounds",
    "convergence_test",
    "convergence_view",
    "experiment_sizing",
    "independence_test",
    "kpi",
    "metric",
    "plan_runs_text",
    "profile",
    "variability_score",
]
