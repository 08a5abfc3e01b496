"""The registry of reports (``perfwarehouse report NAME``), in the order the demo writes them.

Each report is a :class:`~perfwarehouse.reports.base.Report`: a name, its help, its
CLI options and a ``build(data, request) -> Page``; ``Report.write`` reads the
warehouse and writes one self-contained HTML file (see
:mod:`perfwarehouse.reports.render`).
"""

from __future__ import annotations

from pathlib import Path

import click

from perfwarehouse.reports import fleet, history, order_effects, triscale, variability
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

HISTORY = Report(
    "history",
    "History: the change points of every configuration over revisions (or time), largest "
    "first, drawn with their segment medians, and an index of every change "
    "(run `perfwarehouse analyze change-points` first).",
    history.build, options=(
        click.Option(["--out"], type=click.Path(path_type=Path, dir_okay=False),
                     default=Path("history.html"), show_default=True,
                     help="The HTML file to write (the fleet report links to history.html "
                          "next to it)."),
        CAMPAIGN, PNG))

REPORTS: tuple[Report, ...] = (ORDER_EFFECTS, VARIABILITY, TRISCALE, FLEET, HISTORY)


def get(name: str) -> Report:
    for report in REPORTS:
        if report.name == name:
            return report
    raise KeyError(name)


__all__ = ["CAMPAIGN", "OUT", "PNG", "REPORTS", "SINCE", "UNTIL", "Report", "Request", "get"]
