"""The registry of reports (``perfwarehouse report NAME``), in the order the demo writes them.

Each report is a :class:`~perfwarehouse.reports.base.Report`: a name, its help, its
CLI options and a ``build(data, request) -> Page``; ``Report.write`` reads the
warehouse and writes one self-contained HTML file (see
:mod:`perfwarehouse.reports.render`).
"""

from __future__ import annotations

from perfwarehouse.reports import fleet, load, order_effects, triscale, variability
from perfwarehouse.reports.base import CAMPAIGN, OUT, PNG, SINCE, UNTIL, Report, Request

ORDER_EFFECTS = Report(
    "order-effects",
    "Order effects (OrderSage): p-values, effect sizes, Δ%, CI cases, predecessor effects.",
    order_effects.build)

VARIABILITY = Report(
    "variability",
    "Variability (Laaber et al.): RSD and its sources, A/A false positives, detectable "
    "regressions as heatmaps.",
    variability.build)

TRISCALE = Report(
    "triscale",
    "TriScale: run metrics with convergence, KPIs, variability scores, environment "
    "autocorrelation and seasonal periods.",
    triscale.build)

FLEET = Report(
    "fleet",
    "Fleet report for a period [--since, --until) against the previous period of the same "
    "length: per hardware type, what drifted, what became order-dependent, how variability "
    "changed.",
    fleet.build, options=(OUT, CAMPAIGN, SINCE, UNTIL, PNG))

LOAD = Report(
    "load",
    "Load tests: verdict, throughput against N with the law line, latency against the offered "
    "load with the knee and R_sat, per-trial law consistency, peak table.",
    load.build)

REPORTS: tuple[Report, ...] = (ORDER_EFFECTS, VARIABILITY, TRISCALE, FLEET, LOAD)


def get(name: str) -> Report:
    for report in REPORTS:
        if report.name == name:
            return report
    raise KeyError(name)


__all__ = ["CAMPAIGN", "OUT", "PNG", "REPORTS", "SINCE", "UNTIL", "Report", "Request", "get"]
