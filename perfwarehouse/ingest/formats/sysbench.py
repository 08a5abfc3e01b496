"""sysbench 0.4/0.5 and 1.0 text output (OLTP, cpu and other tests): one trial per run.

* a file may hold several runs (a thread sweep appended to one log with ``>>``): each
  run starts with sysbench's banner line and is one trial (``position`` 0, 1, ... in
  the file's order);
* ``Number of threads: N`` -> the load of a closed loop without think time
  (``loop=closed, clients=N, think_time_s=0``); with ``Target transaction rate: R/sec``
  (``--rate``, ``--tx-rate``) an open loop (``loop=open, rate_rps=R``). The thread count
  is also attribute ``threads``, never a setting: the runs of a sweep share one family
  (the test and sysbench's version) and form one curve;
* benchmark = ``sysbench oltp`` (``SQL statistics`` / ``OLTP test statistics``),
  ``sysbench cpu`` (``Prime numbers limit``), ``sysbench memory``, ``sysbench fileio``,
  else ``sysbench`` (sysbench does not print the Lua script's name: add
  ``--setting test=oltp_read_write`` if several scripts share a campaign);
* ``throughput``: transactions per second (OLTP), ``events per second`` (cpu, 1.0),
  else events / total time; ``requests`` = total number of events; ``errors`` =
  ``ignored errors`` (0.5, 1.0) or ``deadlocks`` (0.4), OLTP only; ``duration_s`` =
  total time;
* latency (ms): 1.0's ``Latency (ms)`` block and 0.5's ``response time`` block ->
  ``min``, ``mean``, ``max`` and the ``Nth percentile`` -> ``pN`` (sysbench prints one
  percentile, 95 by default);
* the per-interval lines (``--report-interval``; 1.0 ``[ 1s ] thds: 4 tps: ...``, 0.5
  ``[   1s] threads: 4, tps: ...``) -> attribute ``intervals``, one dict per interval
  (``t_s``, ``threads``, ``tps``/``eps``, ``qps``, ``lat_ms`` at ``lat_percentile``,
  ``err_per_s``, ``reconn_per_s``, ``queue_length``, ``concurrency``).
"""

from __future__ import annotations

import re
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats import _text as text
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "sysbench"
DESCRIPTION = "sysbench 0.5 / 1.0 text output (OLTP, cpu, ...): one trial (load level) per file"

_BANNER = re.compile(r"sysbench (\d+\.\d+[\w.\-]*)(?::|\s|$).*")
_THREADS = re.compile(r"Number of threads:\s*(\S+)\s*")
_RATE = re.compile(r"Target transaction rate:\s*(\S+?)/sec\s*")
_INTERVAL = re.compile(r"\[\s*(\d+(?:\.\d+)?)s\s*\]\s*(.*)")
_INTERVAL_FIELDS = {
    "threads": re.compile(r"(?:thds|threads):\s*([0-9.]+)"),
    "tps": re.compile(r"\btps:\s*([0-9.]+)"),
    "eps": re.compile(r"\beps:\s*([0-9.]+)"),
    "qps": re.compile(r"\bqps:\s*([0-9.]+)"),
    "reads": re.compile(r"\breads:\s*([0-9.]+)"),
    "writes": re.compile(r"\bwrites:\s*([0-9.]+)"),
    "err_per_s": re.compile(r"(?:err/s|errors):\s*([0-9.]+)"),
    "reconn_per_s": re.compile(r"(?:reconn/s|reconnects):\s*([0-9.]+)"),
    "queue_length": re.compile(r"queue length:\s*([0-9.]+)"),
    "concurrency": re.compile(r"concurrency:\s*([0-9.]+)"),
}
_LAT_10 = re.compile(r"lat \(ms,(\d+(?:\.\d+)?)%\):\s*([0-9.]+)")
_LAT_05 = re.compile(r"response time:\s*([0-9.]+)ms \((\d+(?:\.\d+)?)%\)")
_COUNT_RATE = re.compile(r"\s*(transactions|queries|ignored errors|deadlocks|reconnects):"
                         r"\s*(\S+)\s+\(\s*(\S+) per sec\.\)\s*")
_VALUE = re.compile(r"\s*(total time|total number of events|events per second|min|avg|max|sum|"
                    r"(\d+(?:\.\d+)?)th percentile|approx\.\s+(\d+(?:\.\d+)?) percentile):"
                    r"\s*(\S+)\s*")
_KINDS = (("SQL statistics:", "oltp"), ("OLTP test statistics:", "oltp"),
          ("Prime numbers limit", "cpu"), ("Primer numbers limit", "cpu"),
          ("Total operations:", "memory"), ("File operations:", "fileio"))


def _is_banner(lines: list[str], index: int) -> bool:
    return _BANNER.fullmatch(lines[index].strip()) is not None


def _is_own(line: str) -> bool:
    """sysbench's summary ends with indented lines (``Threads fairness:`` and its rows); a
    line that is neither indented nor an interval line after them is the next run's label."""
    return line[:1] in (" ", "\t") or line.startswith("[")


def sniff(head: bytes, filename: str) -> bool:
    lines = text.lines_of(head)
    at = text.starts_within(lines, _is_banner)
    if at is None:
        return False
    rest = "\n".join(lines[at:])
    return "Running the test with following options" in rest or len(rest.strip()) < 200


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    lines, bad = text.decode(data, source)
    runs, notes = text.split_runs(lines, bad, source, _is_banner, _is_own,
                                  "no 'sysbench <version>' banner: is this sysbench output?",
                                  marker="sysbench")
    run = lt.run_id(NAME, data)
    records: list[dict[str, Any]] = []
    for position, found in enumerate(runs):
        trial = _parse_run(lines, found.start, found.end, source, run, position)
        label = found.label()
        for record in trial:
            if label:
                record["attributes"]["label"] = label
            if notes:
                record["attributes"]["notes"] = notes
        records += trial
    return lt.finish(records)


def _parse_run(all_lines: list[str], first: int, end: int, source: str, run: str,
               position: int) -> list[dict[str, Any]]:
    """The trial of the run in ``all_lines[first:end]`` (``first`` is its banner)."""
    lines = all_lines  # indices stay below end (a slice copied the file up to it: quadratic)
    version = _BANNER.fullmatch(lines[first].strip()).group(1)  # type: ignore[union-attr]
    found: dict[str, Any] = {}
    intervals: dict[float, dict[str, float]] = {}
    block = None  # "latency" inside the latency block of the summary
    sections: set[str] = set()
    kind = "sysbench"
    for index in range(first + 1, end):
        raw = lines[index]
        lineno = index + 1
        line = raw.strip()
        if not line:
            continue
        for marker, name in _KINDS:
            if line.startswith(marker):
                kind = f"sysbench {name}"
        if line in ("General statistics:", "Test execution summary:", "Threads fairness:",
                    "SQL statistics:", "OLTP test statistics:"):
            sections.add(line)
            block = None
        if m := _THREADS.fullmatch(line):
            found["threads"] = lt.number(m.group(1), source, lineno, "number of threads")
        elif m := _RATE.fullmatch(line):
            found["rate"] = lt.number(m.group(1), source, lineno, "target transaction rate")
        elif m := _INTERVAL.fullmatch(line):
            t = lt.number(m.group(1), source, lineno, "interval time")
            entry = intervals.setdefault(t, {"t_s": t})
            rest = m.group(2)
            for key, pattern in _INTERVAL_FIELDS.items():
                if f := pattern.search(rest):
                    entry[key] = lt.number(f.group(1), source, lineno, key)
            if f := _LAT_10.search(rest):
                entry["lat_percentile"] = float(f.group(1))
                entry["lat_ms"] = lt.number(f.group(2), source, lineno, "interval latency")
            elif f := _LAT_05.search(rest):
                entry["lat_ms"] = lt.number(f.group(1), source, lineno, "interval latency")
                entry["lat_percentile"] = float(f.group(2))
        elif line in ("Latency (ms):", "response time:", "per-request statistics:"):
            block = "latency"
            found["latency_unit_in_header"] = line == "Latency (ms):"
        elif m := _COUNT_RATE.fullmatch(raw):
            key = m.group(1).replace(" ", "_")
            found[key] = lt.number(m.group(2), source, lineno, m.group(1))
            found[key + "_per_s"] = lt.number(m.group(3), source, lineno, m.group(1) + " per sec")
        elif m := _VALUE.fullmatch(raw):
            key, value = m.group(1), m.group(4)
            if key in ("total time",):
                found["total_time_s"] = lt.duration_ms(value, source, lineno, key) / 1e3
            elif key in ("total number of events", "events per second"):
                found[key] = lt.number(value, source, lineno, key)
            elif block == "latency":
                q = m.group(2) or m.group(3)
                if found.get("latency_unit_in_header"):
                    ms = lt.number(value, source, lineno, key)
                else:
                    ms = lt.duration_ms(value, source, lineno, key)
                if q is not None:
                    found["percentile"] = (float(q), ms)
                elif key in ("min", "avg", "max"):
                    found["lat_" + key] = ms
    summary = {"General statistics:", "Test execution summary:"} & sections
    if not summary or "Threads fairness:" not in sections:
        raise TrialParseError(source, end, "truncated",
                              f"the run starting at line {first + 1} ends before sysbench's "
                              "final summary ('General statistics:' ... 'Threads fairness:')")
    return _records(run, position, source, first + 1, version, kind, found,
                    list(intervals.values()))


def _records(run: str, position: int, source: str, banner_line: int, version: str, kind: str,
             found: dict[str, Any], intervals: list[dict[str, float]]) -> list[dict[str, Any]]:
    for key, label in (("threads", "'Number of threads:'"), ("total_time_s", "'total time:'"),
                       ("total number of events", "'total number of events:'")):
        if key not in found:
            raise TrialParseError(source, banner_line, "missing-field",
                                  f"the run starting at this line has no {label} line")
    threads = lt.integral(found["threads"])
    settings: dict[str, Any] = {"generator": "sysbench", "sysbench_version": version}
    if "rate" in found and found["rate"] > 0:
        settings.update(lt.open_loop(found["rate"]))
    else:
        settings.update(lt.closed_loop(threads, 0))
    duration = found["total_time_s"]
    events = found["total number of events"]
    if kind == "sysbench oltp" and "transactions_per_s" in found:
        throughput = found["transactions_per_s"]
    elif "events per second" in found:
        throughput = found["events per second"]
    else:
        throughput = events / duration if duration > 0 else None
    metrics: dict[str, float | None] = {
        "throughput": throughput, "requests": events, "duration_s": duration,
        "mean": found.get("lat_avg"), "min": found.get("lat_min"), "max": found.get("lat_max"),
    }
    if kind == "sysbench oltp":
        metrics["errors"] = found.get("ignored_errors", found.get("deadlocks", 0.0))
    if "percentile" in found:
        q, value = found["percentile"]
        name = lt.PERCENTILE_METRICS.get(q)
        if name:
            metrics[name] = value
    attributes: dict[str, Any] = {"threads": threads, "intervals": intervals}
    for key in ("queries", "queries_per_s", "reconnects", "transactions"):
        if key in found:
            attributes[key] = found[key]
    if "percentile" in found:
        attributes["latency_percentile"] = found["percentile"][0]
    return lt.trial_records(run=run, position=position, benchmark=kind,
                            settings=settings, metrics=metrics, duration_s=duration,
                            attributes=attributes, source=source, line=banner_line)
