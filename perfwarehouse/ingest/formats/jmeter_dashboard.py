"""A JMeter dashboard's ``statistics.json`` (``jmeter -g results.jtl -o report/``): the
aggregates of a run, read only when named (``ingest jmeter report/statistics.json``).

``ingest auto`` never claims it: a report folder usually sits beside the JTL it was made
from, and reading both would count the run twice (the rule Gatling's ``global_stats.json``
follows). One trial, from the ``Total`` entry:

* ``requests``, ``errors``: ``sampleCount``, ``errorCount``; ``throughput``: ``throughput``
  (samples per second over the run, as the report computes it);
* ``mean``, ``min``, ``max`` (ms): ``meanResTime``, ``minResTime``, ``maxResTime``;
  ``p50``: ``medianResTime`` (JMeter 5); ``pct1ResTime``..``pct3ResTime`` are kept as
  attribute ``report_percentiles`` only, not as ``p90``/``p95``/``p99``: their ranks are the
  report generator's configuration (``aggregate_rpt_pct1``..``3``, 90/95/99 by default),
  which the file does not say;
* per-label sample counts -> attribute ``labels``; no time, no samples, no load: the start
  from ``--started-at``, the load from ``--setting clients=N``.

A file without a ``Total`` object of numbers is refused in one line naming the JSON path.
"""

from __future__ import annotations

from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats import jsondoc

_METRICS = {"meanResTime": "mean", "minResTime": "min", "maxResTime": "max",
            "medianResTime": "p50"}


def is_statistics(doc: Any) -> bool:
    """A dashboard's statistics: an object of objects with ``sampleCount`` and
    ``meanResTime``."""
    return isinstance(doc, dict) and bool(doc) and all(
        isinstance(v, dict) and "sampleCount" in v and "meanResTime" in v for v in doc.values())


def parse(data: bytes, source: str) -> list[dict[str, Any]]:
    doc = jsondoc.load(data, source)
    if not is_statistics(doc):
        raise TrialParseError(source, 0, "missing-key",
                              "a JSON file that is not a JMeter dashboard's statistics.json "
                              "(an object of per-label objects with sampleCount, meanResTime)")
    total = p.expect(p.key(doc, "Total", source, "$"), dict, source, "$.Total", "an object")
    requests = p.number(p.key(total, "sampleCount", source, "$.Total"), source,
                        "$.Total.sampleCount")
    metrics: dict[str, float | None] = {
        "throughput": p.number(p.key(total, "throughput", source, "$.Total"), source,
                               "$.Total.throughput"),
        "requests": requests,
        "errors": p.number(p.key(total, "errorCount", source, "$.Total"), source,
                           "$.Total.errorCount")}
    if metrics["errors"] > requests:  # type: ignore[operator]
        raise TrialParseError(source, 0, "wrong-type",
                              f"$.Total.errorCount {metrics['errors']:g} is more than "
                              f"sampleCount {requests:g}")
    for key, metric in _METRICS.items():
        if key in total:
            metrics[metric] = p.number(total[key], source, f"$.Total.{key}")
    attributes: dict[str, Any] = {
        "labels": {name: p.number(p.key(entry, "sampleCount", source, f"$.{name}"), source,
                                  f"$.{name}.sampleCount")
                   for name, entry in doc.items() if name != "Total"},
        "report_percentiles": {key: p.number(total[key], source, f"$.Total.{key}")
                               for key in ("pct1ResTime", "pct2ResTime", "pct3ResTime")
                               if key in total},
        "source_kind": "jmeter dashboard statistics.json (aggregates, no samples)"}
    return lt.finish(lt.trial_records(
        run=lt.run_id("jmeter", data), position=0, benchmark="jmeter",
        settings={"generator": "jmeter", "loop": "closed"}, metrics=metrics,
        attributes=attributes, source=source))
