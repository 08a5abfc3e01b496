"""The registry of reports (``perfwarehouse report NAME``), in the order the demo writes them.

Each report is a :class:`~perfwarehouse.reports.base.Report` defined in its page
module (``REPORT``): a name, its help, its CLI options and a ``build(data, request) ->
Page``; ``Report.write`` reads the warehouse and writes one self-contained HTML file
(see :mod:`perfwarehouse.reports.render`). :data:`CATALOG` lists them without
importing them (fast ``--help``); ``REPORTS`` and ``Request`` are imported on first use.
``REPORTS`` holds the pages that need no selection (what ``report all`` and the demo
write); ``configuration`` (one configuration's drill-down) is only in :data:`CATALOG`.
"""

from __future__ import annotations

from typing import Any

from perfwarehouse.registry import Entry, find

_R = "perfwarehouse.reports."
CATALOG: tuple[Entry, ...] = (
    Entry("order-effects", _R + "order_effects:REPORT",
          "Order effects (OrderSage): does order matter, and which test disturbs the next."),
    Entry("variability", _R + "variability:REPORT",
          "Variability (Laaber et al.): RSD, A/A false positives, detectable regressions."),
    Entry("triscale", _R + "triscale:REPORT",
          "TriScale: convergence, KPIs, variability scores, seasonal periods."),
    Entry("fleet", _R + "fleet:REPORT",
          "Fleet report for a period against the previous one: drift, order, variability."),
    Entry("history", _R + "history:REPORT",
          "History: change points of every configuration over revisions or time."),
    Entry("load", _R + "load:REPORT",
          "Load tests: peak, knee, latency under load, operational-law consistency."),
    Entry("compare", _R + "compare:REPORT",
          "Compare: the latest kept comparison, verdict first, changes with their intervals."),
    Entry("new", _R + "new:REPORT",
          "What is new: what the latest refresh found, and every refresh."),
    Entry("configuration", _R + "configuration:REPORT",
          "One configuration: what the analyses say, fixed vs random order, values over time."),
)


def get(name: str) -> Any:
    """The report called ``name`` (imports its module)."""
    return find(CATALOG, name).load()


def __getattr__(name: str) -> Any:
    if name == "REPORTS":  # the pages `report all` and the demo write (no selection needed)
        return tuple(r for r in (e.load() for e in CATALOG) if r.in_all)
    if name in ("CAMPAIGN", "OUT", "PNG", "SINCE", "UNTIL", "Report", "Request"):
        from perfwarehouse.reports import base

        return getattr(base, name)
    raise AttributeError(f"module 'perfwarehouse.reports' has no attribute {name!r}")


__all__ = ["CAMPAIGN", "CATALOG", "OUT", "PNG", "REPORTS", "SINCE", "UNTIL", "Report",
           "Request", "get"]
