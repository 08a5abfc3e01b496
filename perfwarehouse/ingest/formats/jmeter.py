"""JMeter result files (JTL): CSV with a header, CSV without one, and XML. One file = one trial.

A JTL holds one line (or element) per request: ``timeStamp`` (ms since the epoch, the
request's start, JMeter's default ``sampleresult.timestamp.start=true``),
``elapsed`` (ms), ``success``, ``label``, ``allThreads`` ... The trial is the whole
file (run JMeter once per load level):

* ``requests`` = samples; ``errors`` = samples with ``success=false``;
* ``duration_s`` = from the first start to the last end (``timeStamp + elapsed``);
  ``throughput`` = requests / duration_s (as JMeter's own summary computes it);
* the ``elapsed`` values -> the trial's latency ``samples`` (ms) and ``mean``,
  ``min``, ``max``, ``p50``, ``p90``, ``p95``, ``p99``, ``p99.9`` (nearest rank);
* JMeter threads run a closed loop (``loop=closed``; timers are think time, which the
  JTL does not record: pass ``--setting think_time_s=Z``); ``clients`` = the most
  frequent ``allThreads`` (active threads of all groups), when the file has it;
* started_at = the first ``timeStamp``; per-label counts -> attribute ``labels``.

The CSV delimiter is JMeter's ``jmeter.save.saveservice.default_delimiter``: a comma by
default, else ``|``, ``;`` or a tab, told from the first line (the one that makes a
header starting ``timeStamp`` with ``elapsed``, or a default-columns sample row).

A CSV without a header must use JMeter's default columns: 17 (``timeStamp, elapsed,
label, responseCode, responseMessage, threadName, dataType, success, failureMessage,
bytes, sentBytes, grpThreads, allThreads, URL, Latency, IdleTime, Connect``) or the
16 of JMeter 3-4 (without ``URL``). In XML, only the top-level ``httpSample`` /
``sample`` elements count (nested ones are a page's embedded resources).
"""

from __future__ import annotations

import csv
import re
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import times
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "jmeter"
DESCRIPTION = "JMeter JTL results (CSV with or without header, or XML): one trial per file"

DEFAULT_COLUMNS = ("timeStamp", "elapsed", "label", "responseCode", "responseMessage",
                   "threadName", "dataType", "success", "failureMessage", "bytes", "sentBytes",
                   "grpThreads", "allThreads", "URL", "Latency", "IdleTime", "Connect")
DEFAULT_COLUMNS_3 = tuple(c for c in DEFAULT_COLUMNS if c != "URL")
_XML_ATTRIBUTES = {"ts": "timeStamp", "t": "elapsed", "s": "success", "lb": "label",
                   "na": "allThreads", "rc": "responseCode"}


#: The delimiters JMeter is commonly configured with, the default first.
DELIMITERS = (",", "|", ";", "\t")


def _first_row(first: str) -> tuple[str, list[str]] | None:
    """The delimiter of a CSV JTL and its first row split by it: a header (``timeStamp``
    first, ``elapsed`` in it) or a sample row of the default columns; None otherwise."""
    for delimiter in DELIMITERS:
        if delimiter not in first:
            continue
        try:
            row = next(csv.reader([first], delimiter=delimiter))
        except (csv.Error, StopIteration):
            continue
        if row[:1] == ["timeStamp"] and "elapsed" in row:
            return delimiter, row
        if _default_row(row) is not None:
            return delimiter, row
    return None


def sniff(head: bytes, filename: str) -> bool:
    text = head.decode("utf-8", "replace").lstrip()
    if text.startswith("<?xml") or text.startswith("<testResults"):
        return "<testResults" in text[:400]
    return _first_row(text.split("\n", 1)[0].rstrip("\r")) is not None


def _default_row(row: list[str]) -> tuple[str, ...] | None:
    """The default header a header-less row follows, if it looks like a JMeter sample."""
    columns = {17: DEFAULT_COLUMNS, 16: DEFAULT_COLUMNS_3}.get(len(row))
    if columns is None:
        return None
    looks = (re.fullmatch(r"\d{12,14}", row[0]) and re.fullmatch(r"\d+", row[1])
             and row[7] in ("true", "false"))
    return columns if looks else None


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    text = lt.decode(data, source)
    stripped = text.lstrip()
    if stripped.startswith("<"):
        samples = _xml(text, source)
    else:
        samples = _csv(text, source)
    if not samples:
        raise TrialParseError(source, 0, "empty", "the file holds no samples")
    return lt.finish(_records(data, source, samples))


def _csv(text: str, source: str) -> list[tuple[int, dict[str, str]]]:
    head = text.lstrip().split("\n", 1)[0].rstrip("\r")
    found = _first_row(head)
    rows = lt.csv_rows(text, source, found[0] if found else ",")
    first = rows[0][1]
    if first[:1] == ["timeStamp"]:
        header: tuple[str, ...] = tuple(first)
        missing = [c for c in ("timeStamp", "elapsed", "success") if c not in header]
        if missing:
            raise TrialParseError(source, rows[0][0], "missing-column",
                                  f"the header lacks column(s) {', '.join(missing)}")
        rows = rows[1:]
    else:
        default = _default_row(first)
        if default is None:
            raise TrialParseError(source, rows[0][0], "missing-column",
                                  f"no header and {len(first)} fields: a header-less JTL must "
                                  "have JMeter's 16 or 17 default columns (or add the header)")
        header = default
    return lt.csv_dicts(text, source, header, rows, "the layout has")


def _xml(text: str, source: str) -> list[tuple[int, dict[str, str]]]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else 0
        rule = "truncated" if "no element found" in str(exc) or "unclosed token" in str(exc) \
            else "invalid-xml"
        raise TrialParseError(source, line, rule, str(exc).split(":")[0]) from None
    if root.tag != "testResults":
        raise TrialParseError(source, 1, "missing-field",
                              f"the root element is <{root.tag}>, not <testResults>")
    out = []
    for position, element in enumerate(root):
        if element.tag not in ("httpSample", "sample"):
            continue
        sample = {name: value for attr, name in _XML_ATTRIBUTES.items()
                  if (value := element.get(attr)) is not None}
        for key in ("timeStamp", "elapsed", "success"):
            if key not in sample:
                raise TrialParseError(source, 0, "missing-field",
                                      f"sample {position + 1} (<{element.tag}>) has no "
                                      f"{'ts' if key == 'timeStamp' else key[0]} attribute")
        out.append((0, sample))
    return out


def _records(data: bytes, source: str,
             samples: list[tuple[int, dict[str, str]]]) -> list[dict[str, Any]]:
    elapsed: list[float] = []
    starts: list[float] = []
    ends: list[float] = []
    errors = 0
    labels: Counter[str] = Counter()
    threads: Counter[float] = Counter()
    for lineno, sample in samples:
        start = lt.number(sample["timeStamp"], source, lineno, "timeStamp (ms since the epoch)")
        took = lt.number(sample["elapsed"], source, lineno, "elapsed")
        if took < 0:
            raise TrialParseError(source, lineno, "wrong-type", f"elapsed {took} is negative")
        times.check_epoch_ms(start, source, lineno, "timeStamp")
        times.check_epoch_ms(start + took, source, lineno, "timeStamp + elapsed (its end)")
        success = sample["success"].strip().lower()
        if success not in ("true", "false"):
            raise TrialParseError(source, lineno, "wrong-type",
                                  f"success {sample['success'][:20]!r} is not true or false")
        errors += success == "false"
        elapsed.append(took)
        starts.append(start)
        ends.append(start + took)
        labels[sample.get("label", "")] += 1
        if sample.get("allThreads", "").strip():
            threads[lt.number(sample["allThreads"], source, lineno, "allThreads")] += 1
    ordered = sorted(elapsed)
    span_s = (max(ends) - min(starts)) / 1e3
    metrics: dict[str, float | None] = {
        "throughput": len(elapsed) / span_s if span_s > 0 else None,
        "requests": float(len(elapsed)), "errors": float(errors), "duration_s": span_s,
        "mean": sum(elapsed) / len(elapsed), "min": ordered[0], "max": ordered[-1]}
    for q, name in lt.PERCENTILE_METRICS.items():
        metrics[name] = lt.nearest_rank(ordered, q)
    settings: dict[str, Any] = {"generator": "jmeter", "loop": "closed"}
    if threads:
        settings["clients"] = lt.integral(threads.most_common(1)[0][0])
    attributes: dict[str, Any] = {"labels": dict(labels)}
    if len(threads) > 1:
        attributes["all_threads_range"] = [min(threads), max(threads)]
    return lt.trial_records(
        run=lt.run_id(NAME, data), position=0, benchmark="jmeter", settings=settings,
        metrics=metrics, started_at=lt.rfc3339(min(starts) / 1e3), duration_s=span_s,
        latency={"unit": "ms", "samples": elapsed}, attributes=attributes, source=source)
