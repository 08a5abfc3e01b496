"""Locust ``--csv`` output: ``*_stats.csv`` (one trial) and ``*_stats_history.csv`` (one
trial per user-count plateau).

Locust users wait for each response, then for their ``wait_time``: a closed loop
(``loop=closed``); the think time is in the locustfile, not in the CSV (pass
``--setting think_time_s=Z``).

``*_stats.csv`` (``Type,Name,Request Count,...``): the ``Aggregated`` row is the
trial: ``Requests/s`` -> ``throughput``, ``Request Count`` -> ``requests``, ``Failure
Count`` -> ``errors``, ``Average``/``Min``/``Max Response Time`` -> ``mean``/``min``/
``max`` and the percentile columns (``50%`` ... ``100%``) -> ``p50``, ``p90``, ``p95``,
``p99``, ``p99.9`` and the trial's latency percentiles (ms). The file does not say the
user count: pass ``--setting clients=N``. Per-endpoint rows -> attribute ``endpoints``.

``*_stats_history.csv`` (``Timestamp,User Count,...``, one ``Aggregated`` row per
second with cumulative totals): each run of consecutive rows with the same non-zero
``User Count`` (at least two rows, a plateau) is one trial with ``clients`` = that
count, measured between its first and last row: ``requests`` and ``errors`` = the
growth of ``Total Request Count`` / ``Total Failure Count``, ``duration_s`` = the
time between the rows, ``throughput`` = requests / duration, ``mean`` = the growth
of the response-time sum (``Total Average Response Time`` x count) / requests.
Locust's percentile columns there are cumulative since the start (or a rolling
window with ``--csv-full-history``), so they become the trial's percentiles only
when the file holds a single plateau; the per-row ``Requests/s`` go to attribute
``intervals``. Rows between plateaus (ramp-up) are not a load level and are skipped.
"""

from __future__ import annotations

import csv
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "locust"
DESCRIPTION = "Locust --csv *_stats.csv (one trial) or *_stats_history.csv (one trial per user count)"

STATS_COLUMNS = ("Type", "Name", "Request Count", "Failure Count", "Average Response Time",
                 "Min Response Time", "Max Response Time", "Requests/s")
HISTORY_COLUMNS = ("Timestamp", "User Count", "Name", "Requests/s", "Total Request Count",
                   "Total Failure Count", "Total Average Response Time")


def sniff(head: bytes, filename: str) -> bool:
    first = head.decode("utf-8", "replace").lstrip().split("\n", 1)[0]
    try:
        header = next(csv.reader([first]))
    except (csv.Error, StopIteration):
        return False
    return header[:3] == ["Type", "Name", "Request Count"] or \
        header[:4] == ["Timestamp", "User Count", "Type", "Name"]


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    text = lt.decode(data, source)
    rows = lt.csv_rows(text, source)
    header = rows[0][1]
    history = header[:2] == ["Timestamp", "User Count"]
    required = HISTORY_COLUMNS if history else STATS_COLUMNS
    missing = [c for c in required if c not in header]
    if missing:
        raise TrialParseError(source, rows[0][0], "missing-column",
                              f"the header lacks column(s) {', '.join(missing)}")
    body = lt.csv_dicts(text, source, header, rows[1:])
    percentile_columns = [c for c in header if c.endswith("%")]
    records = (_history(data, source, body, percentile_columns) if history
               else _stats(data, source, body, percentile_columns))
    return lt.finish(records)


def _percentiles(row: dict[str, str], columns: list[str], source: str,
                 line: int) -> list[list[float]]:
    out = []
    for column in columns:
        if row[column].strip() in ("N/A", ""):
            continue
        out.append([lt.number(column[:-1], source, line, "percentile column"),
                    lt.number(row[column], source, line, column)])
    return out


def _stats(data: bytes, source: str, body: list[tuple[int, dict[str, str]]],
           percentile_columns: list[str]) -> list[dict[str, Any]]:
    aggregated = [(n, r) for n, r in body if r["Name"] == "Aggregated"]
    if not aggregated:
        raise TrialParseError(source, 0, "missing-field",
                              "no 'Aggregated' row (locust writes it last)")
    lineno, row = aggregated[-1]
    requests = lt.number(row["Request Count"], source, lineno, "Request Count")
    metrics: dict[str, float | None] = {
        "throughput": lt.number(row["Requests/s"], source, lineno, "Requests/s"),
        "requests": requests,
        "errors": lt.number(row["Failure Count"], source, lineno, "Failure Count"),
    }
    if requests > 0:
        metrics["mean"] = lt.number(row["Average Response Time"], source, lineno,
                                    "Average Response Time")
        metrics["min"] = lt.number(row["Min Response Time"], source, lineno, "Min Response Time")
        metrics["max"] = lt.number(row["Max Response Time"], source, lineno, "Max Response Time")
    percentiles = _percentiles(row, percentile_columns, source, lineno)
    for q, value in percentiles:
        if q in lt.PERCENTILE_METRICS:
            metrics[lt.PERCENTILE_METRICS[q]] = value
    endpoints = {}
    for n, r in body:
        if r["Name"] != "Aggregated":
            endpoints[f"{r['Type']} {r['Name']}".strip()] = {
                "requests": lt.number(r["Request Count"], source, n, "Request Count"),
                "failures": lt.number(r["Failure Count"], source, n, "Failure Count"),
                "requests_per_s": lt.number(r["Requests/s"], source, n, "Requests/s")}
    return lt.trial_records(
        run=lt.run_id(NAME, data), position=0, benchmark="locust",
        settings={"generator": "locust", "loop": "closed"}, metrics=metrics,
        latency={"unit": "ms", "percentiles": percentiles} if percentiles else None,
        attributes={"endpoints": endpoints}, source=source, line=lineno)


def _history(data: bytes, source: str, body: list[tuple[int, dict[str, str]]],
             percentile_columns: list[str]) -> list[dict[str, Any]]:
    parsed = []
    for lineno, row in body:
        if row["Name"] != "Aggregated":
            continue
        parsed.append((lineno, row, {
            key: lt.number(row[key], source, lineno, key)
            for key in ("Timestamp", "User Count", "Requests/s", "Total Request Count",
                        "Total Failure Count", "Total Average Response Time")}))
    if not parsed:
        raise TrialParseError(source, 0, "missing-field", "no 'Aggregated' rows")
    plateaus: list[list[tuple[int, dict[str, str], dict[str, float]]]] = []
    for item in parsed:
        if plateaus and plateaus[-1][-1][2]["User Count"] == item[2]["User Count"]:
            plateaus[-1].append(item)
        else:
            plateaus.append([item])
    plateaus = [p for p in plateaus if p[0][2]["User Count"] > 0 and len(p) >= 2
                and p[-1][2]["Timestamp"] > p[0][2]["Timestamp"]]
    if not plateaus:
        raise TrialParseError(source, 0, "missing-field",
                              "no user count held for two rows: no load level to measure")
    run = lt.run_id(NAME, data)
    records: list[dict[str, Any]] = []
    for position, plateau in enumerate(plateaus):
        (line0, _, first), (line1, last_row, last) = plateau[0], plateau[-1]
        duration = last["Timestamp"] - first["Timestamp"]
        requests = last["Total Request Count"] - first["Total Request Count"]
        if requests < 0:
            raise TrialParseError(source, line1, "wrong-type",
                                  "Total Request Count decreases within a user-count plateau")
        metrics: dict[str, float | None] = {
            "throughput": requests / duration, "requests": requests, "duration_s": duration,
            "errors": last["Total Failure Count"] - first["Total Failure Count"]}
        if requests > 0:
            total_ms = (last["Total Average Response Time"] * last["Total Request Count"]
                        - first["Total Average Response Time"] * first["Total Request Count"])
            metrics["mean"] = total_ms / requests
        latency = None
        if len(plateaus) == 1:
            percentiles = _percentiles(last_row, percentile_columns, source, line1)
            for q, value in percentiles:
                if q in lt.PERCENTILE_METRICS:
                    metrics[lt.PERCENTILE_METRICS[q]] = value
            latency = {"unit": "ms", "percentiles": percentiles} if percentiles else None
        clients = lt.integral(first["User Count"])
        records += lt.trial_records(
            run=run, position=position, benchmark="locust",
            settings={"generator": "locust", "loop": "closed", "clients": clients},
            metrics=metrics, started_at=lt.rfc3339(first["Timestamp"], source, line0, "Timestamp"),
            duration_s=duration,
            latency=latency, source=source, line=line0,
            attributes={"rows": [line0, line1],
                        "intervals": [{"t": p[2]["Timestamp"], "requests_per_s": p[2]["Requests/s"]}
                                      for p in plateau]})
    return records
