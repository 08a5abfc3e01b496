"""The numbers of a Gatling report (``js/global_stats.json``, or ``js/stats.json`` whose
``stats`` are the same), read by ``perfwarehouse ingest gatling`` when the file is named.

For example ``perfwarehouse ingest gatling
results/RUN/js/global_stats.json`` (never by ``ingest auto``, which would count a
run twice beside its ``simulation.log``). One trial: ``requests`` and ``errors`` =
``numberOfRequests`` ``total`` and ``ko``; ``throughput`` =
``meanNumberOfRequestsPerSecond``; ``mean``, ``min``, ``max`` = the
``...ResponseTime`` totals (whole ms, as Gatling rounded them). Its ``percentiles1`` to
``percentiles4`` are kept as attribute ``report_percentiles`` only: their ranks are
Gatling's configuration (``charting.indicators``, 50, 75, 95 and 99 by default), not
in the file. ``standardDeviation`` and the response-time ranges (``group1`` ...) are
attributes too. The file holds no time, no simulation name and no samples: benchmark =
``gatling``, start time from ``--started-at`` or ``--path-pattern`` (else none).
"""

from __future__ import annotations

from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats import jsondoc

#: report key -> metric (the ``total`` of each, all requests OK and KO)
REPORT_METRICS = {"meanNumberOfRequestsPerSecond": "throughput", "numberOfRequests": "requests",
                  "meanResponseTime": "mean", "minResponseTime": "min",
                  "maxResponseTime": "max"}


def report_records(data: bytes, source: str) -> list[dict[str, Any]]:
    """The trial of a Gatling report's ``global_stats.json`` (or ``stats.json``)."""
    doc = jsondoc.load(data, source)
    d = jsondoc.Doc(source)
    if not isinstance(doc, dict):
        raise d.fail("wrong-type", "$", "expected an object (Gatling's global_stats.json)")
    stats, path = doc, "$"
    if "stats" in doc and "contents" in doc:  # stats.json: the global numbers under "stats"
        stats, path = d.get(doc, "stats", "$", dict), "$.stats"

    def number(key: str, field: str = "total") -> float:
        return d.get(d.get(stats, key, path, dict), field, f"{path}.{key}", float)

    def optional(key: str) -> dict[str, Any] | None:
        return d.get(stats, key, path, dict, required=False)

    metrics: dict[str, float | None] = {metric: number(key)
                                        for key, metric in REPORT_METRICS.items()}
    requests, errors = number("numberOfRequests"), number("numberOfRequests", "ko")
    metrics["errors"] = errors
    if not requests:
        raise TrialParseError(source, 0, "empty", f"{path}.numberOfRequests.total is 0: the "
                              "report counts no request")
    if requests < 0 or errors < 0:
        raise TrialParseError(source, 0, "negative", f"{path}.numberOfRequests counts "
                              f"{requests:g} requests, {errors:g} KO: a count is never negative")
    if errors > requests:
        raise TrialParseError(source, 0, "inconsistent",
                              f"{path}.numberOfRequests.ko ({errors:g}) is more than its total "
                              f"({requests:g}): KO requests are among all requests")
    attributes: dict[str, Any] = {"report": "global_stats"}
    if all(optional(f"percentiles{i}") is not None for i in range(1, 5)):
        attributes["report_percentiles"] = [number(f"percentiles{i}") for i in range(1, 5)]
    if optional("standardDeviation") is not None:
        attributes["standard_deviation_ms"] = number("standardDeviation")
    ranges = {}
    for i in range(1, 5):
        group = optional(f"group{i}")
        if group is not None:
            ranges[d.get(group, "name", f"{path}.group{i}", str)] = number(f"group{i}", "count")
    if ranges:
        attributes["response_time_ranges"] = ranges
    return lt.trial_records(
        run=lt.run_id("gatling", data), position=0, benchmark="gatling",
        settings={"generator": "gatling"}, metrics=metrics, attributes=attributes,
        source=source)
