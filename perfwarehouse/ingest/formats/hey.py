"""hey's text summary (``hey -z 10s -c 8 URL``): one file = one trial at one load level.

hey runs ``-c`` workers (50 by default), each sending its next request when the
previous one is answered: a closed loop without think time (``loop=closed,
clients=C, think_time_s=0``). With ``-q Q`` each worker sends at most Q requests per
second: the load is then the offered rate, an open loop (``loop=open, rate_rps=C*Q``;
it stays open only while the server answers within a worker's 1/Q s). The summary does
not print ``-c``, ``-q`` nor the URL: they are read from the command line saved above
``Summary:`` (``$ hey -z 10s -c 8 -q 50 URL``, also inside a Markdown code fence; the
URL becomes the benchmark, else ``hey``); without it pass ``--setting clients=C`` (or
``--setting loop=open --setting rate_rps=R``). Mapping:

* ``Summary``: ``Total`` -> ``duration_s``; ``Requests/sec`` -> ``throughput``;
  ``Average``/``Fastest``/``Slowest`` -> ``mean``/``min``/``max`` (seconds -> ms);
* ``Latency distribution`` (``10% in 0.0002 secs`` ...) -> ``p50``, ``p90``, ``p95``,
  ``p99`` and the trial's latency percentiles (ms);
* ``Response time histogram`` -> attribute ``histogram_ms`` (bucket upper bound in ms,
  count); ``Details`` -> attribute ``details_s``;
* ``Status code distribution`` -> ``requests`` (responses, whatever their status, as
  wrk counts them); ``errors`` = responses outside 200-399 plus the ``Error
  distribution`` (transport errors: no response). hey's ``Requests/sec`` counts
  transport errors too: when there are any, ``throughput`` = responses / ``Total``
  (hey's figure stays in attribute ``hey_requests_per_s``), and when no request got a
  response the trial has no latency metrics.
"""

from __future__ import annotations

import re
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats import _text as text
from perfwarehouse.ingest.formats import wrk
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "hey"
DESCRIPTION = "hey's text summary: one trial (load level) per file"

_SECTIONS = {"Summary:": "summary", "Response time histogram:": "histogram",
             "Latency distribution:": "latency", "Details (average, fastest, slowest):": "details",
             "Status code distribution:": "status", "Error distribution:": "error"}
_SUMMARY = re.compile(r"\s+(Total|Slowest|Fastest|Average|Requests/sec|Total data|Size/request):"
                      r"\s*(\S*)(?:\s+(secs|bytes))?\s*")
_HISTOGRAM = re.compile(r"\s+(\S+) \[(\S+)\]\s*\|.*")
_LATENCY = re.compile(r"\s+(\S+)% in (\S+) secs\s*")
_DETAIL = re.compile(r"\s+([^:]+):\s+(.*)")
_STATUS = re.compile(r"\s+\[(\d+)\]\s+(\S+) responses\s*")
_ERROR = re.compile(r"\s+\[(\S+)\]\s+(.*)")
_SUMMARY_KEYS = {"Total": "duration_s", "Slowest": "max", "Fastest": "min", "Average": "mean",
                 "Requests/sec": "throughput"}


_DEFAULT_WORKERS = 50  # hey's -c default


_TOTAL = re.compile(r"\s+Total:\s*\S+ secs\s*")
_OWN = (_SUMMARY, _HISTOGRAM, _LATENCY, _DETAIL, _STATUS, _ERROR)


def _is_summary(lines: list[str], index: int) -> bool:
    return lines[index].strip() == "Summary:"


def _is_start(lines: list[str], index: int) -> bool:
    """``Summary:`` with its ``Total: S secs`` line next."""
    following = text.next_nonblank(lines, index) if _is_summary(lines, index) else None
    return following is not None and _TOTAL.fullmatch(following) is not None


def _is_own(line: str) -> bool:
    return line.strip() in _SECTIONS or any(p.fullmatch(line) for p in _OWN)


def _command(line: str) -> list[str] | None:
    return wrk.command_of(line, ("hey",))


def sniff(head: bytes, filename: str) -> bool:
    return text.starts_within(text.lines_of(head), _is_start) is not None


def _load(command: list[str] | None, source: str, line: int) -> tuple[dict[str, Any], str]:
    """The load settings and the benchmark (the URL) from hey's command line."""
    if command is None:
        return lt.closed_loop(None, 0), "hey"
    url = next((t for t in reversed(command) if "://" in t), "hey")
    workers = lt.option_value(command, "-c")
    c = lt.number(workers, source, line, "-c") if workers is not None else _DEFAULT_WORKERS
    qps = lt.option_value(command, "-q")
    if qps is not None and lt.number(qps, source, line, "-q") > 0:
        return lt.open_loop(c * lt.number(qps, source, line, "-q")), url
    return lt.closed_loop(c, 0), url


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    lines, bad = text.decode(data, source)
    runs, notes = text.split_runs(lines, bad, source, _is_summary, _is_own,
                                  "no 'Summary:' section: is this hey output?",
                                  marker="Summary:")
    records: list[dict[str, Any]] = []
    run_id = lt.run_id(NAME, data)
    for position, run in enumerate(runs):
        records += _parse_run(lines, run, source, run_id, position, notes)
    return lt.finish(records)


def _parse_run(lines: list[str], run: text.Run, source: str, run_id: str, position: int,
               notes: list[str]) -> list[dict[str, Any]]:
    section = None
    seen: set[str] = set()
    summary: dict[str, float] = {}
    percentiles: list[list[float]] = []
    histogram: list[list[float]] = []
    details: dict[str, str] = {}
    statuses: dict[str, int] = {}
    transport_errors: dict[str, int] = {}
    command, command_line = None, 0
    for lineno, above in run.preamble:
        if (tokens := _command(above)) is not None:
            command, command_line = tokens, lineno
    for index in range(run.start, run.end):
        lineno = index + 1
        raw = lines[index]
        if not raw.strip():
            continue
        if raw.strip() in _SECTIONS:
            section = _SECTIONS[raw.strip()]
            seen.add(section)
            continue
        if section == "summary" and (m := _SUMMARY.fullmatch(raw)):
            key = m.group(1)
            if m.group(2).lower() == "nan":  # hey's average when no request got a response
                continue
            value = lt.number(m.group(2), source, lineno, key)
            if key in _SUMMARY_KEYS:
                in_ms = key in ("Slowest", "Fastest", "Average")
                summary[_SUMMARY_KEYS[key]] = lt.seconds_to_ms(value) if in_ms else value
            else:
                details[key] = m.group(2)
        elif section == "histogram" and (m := _HISTOGRAM.fullmatch(raw)):
            histogram.append([lt.seconds_to_ms(lt.number(m.group(1), source, lineno,
                                                         "histogram bound")),
                              lt.number(m.group(2), source, lineno, "histogram count")])
        elif section == "latency" and (m := _LATENCY.fullmatch(raw)):
            percentiles.append([lt.number(m.group(1), source, lineno, "percentile"),
                                lt.seconds_to_ms(lt.number(m.group(2), source, lineno,
                                                           "latency"))])
        elif section == "details" and (m := _DETAIL.fullmatch(raw)):
            details[m.group(1).strip()] = m.group(2).strip()
        elif section == "status" and (m := _STATUS.fullmatch(raw)):
            statuses[m.group(1)] = int(lt.number(m.group(2), source, lineno, "response count"))
        elif section == "error" and (m := _ERROR.fullmatch(raw)):
            transport_errors[m.group(2)] = int(lt.number(m.group(1), source, lineno,
                                                         "error count"))
        elif section in ("summary", "latency", "status", "histogram"):
            raise TrialParseError(source, lineno, "wrong-type",
                                  f"unexpected line in hey's {section} section: "
                                  f"{raw.strip()[:40]!r}")
    if "summary" not in seen:
        raise TrialParseError(source, 1, "missing-field", "no 'Summary:' section: is this hey output?")
    if "status" not in seen:
        raise TrialParseError(source, len("\n".join(lines).splitlines()), "truncated",
                              "the output ends before hey's 'Status code distribution:'")
    for key in ("duration_s", "throughput"):
        if key not in summary:
            name = next(k for k, v in _SUMMARY_KEYS.items() if v == key)
            raise TrialParseError(source, 0, "missing-field", f"the summary has no '{name}:' line")
    if not statuses:  # no response at all: hey prints 0 (or NaN) for the latencies
        for key in ("mean", "min", "max"):
            summary.pop(key, None)
    bad_status = sum(n for code, n in statuses.items() if not 200 <= int(code) < 400)
    metrics: dict[str, float | None] = dict(summary)
    responses = float(sum(statuses.values()))
    metrics["requests"] = responses
    metrics["errors"] = float(bad_status + sum(transport_errors.values()))
    if transport_errors:  # hey's Requests/sec counts them; a completion is a response
        metrics["throughput"] = responses / summary["duration_s"]
    for q, value in percentiles:
        if q in lt.PERCENTILE_METRICS:
            metrics[lt.PERCENTILE_METRICS[q]] = value
    attributes: dict[str, Any] = {"status_codes": statuses, "histogram_ms": histogram,
                                  "details_s": details, "hey_requests_per_s": summary["throughput"]}
    if transport_errors:
        attributes["error_distribution"] = transport_errors
    load, benchmark = _load(command, source, command_line)
    if command is not None:
        attributes["command"] = " ".join(command)
    label = run.label(lambda line: _command(line) is not None)
    if label:
        attributes["label"] = label
    if notes:
        attributes["notes"] = notes
    settings = {"generator": "hey", **load}
    return lt.trial_records(
        run=run_id, position=position, benchmark=benchmark, settings=settings,
        metrics=metrics, duration_s=summary["duration_s"],
        latency={"unit": "ms", "percentiles": percentiles} if percentiles else None,
        attributes=attributes, source=source)
