"""TriScale (Jacob et al., JSys 2021, sections 4 and 6): experiment sizing, run
metrics with convergence, KPIs, variability scores, independence and profiling.

Every function takes fractions (0.95, not 95), validates its input and returns a
frozen dataclass. ``method="triscale"`` reproduces the original tool's rules where
perfwarehouse's default is better; the manual's section (docs/analyses/triscale.md) "Where perfwarehouse differs from
TriScale (and why)" lists every difference.
"""

from __future__ import annotations

from perfwarehouse.triscale.analysis import (
    ConvergenceResult,
    IndependenceResult,
    KPIResult,
    MetricResult,
    ProfileResult,
    SizingResult,
    VariabilityScore,
    as_fraction,
    cdf_bounds,
    convergence_test,
    experiment_sizing,
    independence_test,
    kpi,
    metric,
    profile,
    variability_score,
)

__all__ = [
    "ConvergenceResult",
    "IndependenceResult",
    "KPIResult",
    "MetricResult",
    "ProfileResult",
    "SizingResult",
    "VariabilityScore",
    "as_fraction",
    "cdf_bounds",
    "convergence_test",
    "experiment_sizing",
    "independence_test",
    "kpi",
    "metric",
    "profile",
    "variability_score",
]
