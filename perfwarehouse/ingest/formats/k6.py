"""k6 end-of-test summary as JSON (``k6 run --summary-export=FILE``, and the same data as
``handleSummary`` receives it): one file = one trial.

Both shapes are read: the ``--summary-export`` one (``"metrics": {"http_reqs":
{"count": ..., "rate": ...}, ...}``) and the ``handleSummary`` one, whose metrics nest
their numbers under ``"values"`` and which has ``state.testRunDurationMs``.

* ``http_reqs`` count/rate -> ``requests``/``throughput`` (``iterations`` when the test
  makes no HTTP requests);
* ``http_req_duration`` (else ``iteration_duration``) ``avg``, ``min``, ``med``,
  ``max``, ``p(90)``, ``p(95)``, ``p(99)``, ``p(99.9)`` -> ``mean``, ``min``, ``p50``,
  ``max``, ``p90``, ``p95``, ``p99``, ``p99.9`` (ms; k6 prints only the
  ``summaryTrendStats`` it was asked for);
* ``http_req_failed`` ``passes`` (requests for which "failed" was true) -> ``errors``;
* ``duration_s`` = ``state.testRunDurationMs`` / 1000, else requests / throughput;
* the load: k6's VU executors are a closed loop (``loop=closed``; ``sleep()`` is think
  time, not in the summary: pass ``--setting think_time_s=Z``); ``clients`` = the VU
  count when ``vus`` stayed constant (min = max), else pass ``--setting clients=N``.
  A ``dropped_iterations`` metric exists only for the arrival-rate executors: then
  ``loop=open``, and when each iteration made one request, ``arrival_rate`` =
  (iterations + dropped iterations) / duration (pass ``--setting rate_rps=R`` for
  the configured rate).
"""

from __future__ import annotations

import json
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "k6"
DESCRIPTION = "k6 --summary-export JSON (or handleSummary data): one trial per file"

TREND_STATS = {"avg": "mean", "min": "min", "med": "p50", "max": "max", "p(90)": "p90",
               "p(95)": "p95", "p(99)": "p99", "p(99.9)": "p99.9"}


def sniff(head: bytes, filename: str) -> bool:
    text = head.decode("utf-8", "replace").lstrip()
    return text.startswith("{") and '"metrics"' in text and (
        '"root_group"' in text or '"testRunDurationMs"' in text)


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    doc = jsondoc.load(data, source)
    if not isinstance(doc, dict):
        raise TrialParseError(source, 1, "wrong-type", "the summary must be a JSON object")
    metrics = doc.get("metrics")
    if not isinstance(metrics, dict):
        raise TrialParseError(source, 0, "missing-key" if metrics is None else "wrong-type",
                              "$.metrics must be an object of k6 metrics")

    def stats(name: str) -> dict[str, float] | None:
        raw = metrics.get(name)
        if raw is None:
            return None
        if isinstance(raw, dict) and isinstance(raw.get("values"), dict):
            raw = raw["values"]
        if not isinstance(raw, dict):
            raise TrialParseError(source, 0, "wrong-type", f"$.metrics.{name} must be an object")
        out = {}
        for key, value in raw.items():
            if key in ("thresholds", "type", "contains"):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TrialParseError(source, 0, "wrong-type",
                                      f"$.metrics.{name}.{key} must be a number, "
                                      f"got {json.dumps(value)[:40]}")
            out[key] = float(value)
        return out

    counter_name = "http_reqs" if "http_reqs" in metrics else "iterations"
    counter = stats(counter_name)
    if counter is None or "count" not in counter or "rate" not in counter:
        raise TrialParseError(source, 0, "missing-key",
                              "$.metrics.http_reqs (or iterations) with count and rate is missing")
    trend_name = "http_req_duration" if counter_name == "http_reqs" else "iteration_duration"
    trend = stats(trend_name) or {}
    raw_state = doc.get("state")
    state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
    run_ms = state.get("testRunDurationMs")
    if run_ms is not None and (isinstance(run_ms, bool) or not isinstance(run_ms, (int, float))):
        raise TrialParseError(source, 0, "wrong-type", "$.state.testRunDurationMs must be a number")
    if run_ms is not None:
        duration = float(run_ms) / 1e3
    elif counter["rate"] > 0:
        duration = counter["count"] / counter["rate"]
    else:
        duration = None
    result: dict[str, float | None] = {"throughput": counter["rate"], "requests": counter["count"],
                                       "duration_s": duration}
    for key, name in TREND_STATS.items():
        if key in trend:
            result[name] = trend[key]
    failed = stats("http_req_failed")
    if failed is not None and "passes" in failed:
        result["errors"] = failed["passes"]
    settings: dict[str, Any] = {"generator": "k6", "loop": "closed"}
    attributes: dict[str, Any] = {"counter": counter_name, "latency_metric": trend_name}
    vus = stats("vus")
    if vus:
        attributes["vus"] = vus
        if vus.get("min") is not None and vus.get("min") == vus.get("max"):
            settings["clients"] = lt.integral(vus["max"])
    dropped = stats("dropped_iterations")
    if dropped is not None:
        settings = {"generator": "k6", "loop": "open"}
        attributes["dropped_iterations"] = dropped.get("count")
        iterations = stats("iterations")
        if iterations and duration and iterations.get("count") == counter["count"]:
            result["arrival_rate"] = (iterations["count"] + dropped.get("count", 0.0)) / duration
    return lt.finish(lt.trial_records(
        run=lt.run_id(NAME, data), position=0, benchmark="k6", settings=settings,
        metrics=result, duration_s=duration, attributes=attributes, source=source))
