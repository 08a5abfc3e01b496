"""JMeter result files (JTL): CSV of any column set (with or without header) and XML; one
file = one trial. A dashboard's ``statistics.json`` is read when named (``ingest jmeter``).

A JTL holds one line (or element) per sample: ``timeStamp`` (ms since the epoch, the
sample's start, JMeter's default ``sampleresult.timestamp.start=true``), ``elapsed``
(ms), ``success``, ``label``, ``allThreads`` ... The trial is the whole file (run JMeter
once per load level):

* ``requests`` = samples; ``errors`` = samples with ``success=false`` (without a
  ``success`` column: a response code outside 200-399, a ``Non HTTP response code: ...``
  sentence included);
* ``duration_s`` = from the first start to the last end (``timeStamp + elapsed``);
  ``throughput`` = requests / duration_s (as JMeter's own summary computes it);
* the ``elapsed`` values -> the trial's latency ``samples`` (ms) and ``mean``,
  ``min``, ``max``, ``p50``, ``p90``, ``p95``, ``p99``, ``p99.9`` (nearest rank);
* JMeter threads run a closed loop (``loop=closed``; timers are think time, which the
  JTL does not record: pass ``--setting think_time_s=Z``); ``clients`` = the most
  frequent ``allThreads`` (active threads of all groups), when the file has it;
* started_at = the first ``timeStamp`` (a date of ``timestamp_format`` has no zone: read
  as UTC, with a note); per-label counts -> attribute ``labels``, response codes ->
  ``response_codes``;
* **transaction controllers**: a row whose ``responseMessage`` is JMeter's ``Number of
  samples in transaction : N, number of failing samples : M`` sums the samples under it.
  When the file also holds other rows (the samplers'), the transaction rows are left
  out (counted in attribute ``transaction_rows``), so no request counts twice; when it
  holds only transaction rows ("Generate parent sample"), they are the samples
  (attribute ``samples_are_transactions``).

The CSV's columns and delimiter (``,``, ``|``, ``;`` or a tab) are told by
:mod:`~perfwarehouse.ingest.formats.jmeter_columns`: a header (any subset and order of
JMeter's save-service fields), else ``--columns``, else inferred from the values. In XML
only the top-level ``httpSample`` / ``sample`` elements count (nested ones are a page's
embedded resources or a transaction's samplers).
"""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import times
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats import jmeter_columns as jc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "jmeter"
DESCRIPTION = ("JMeter JTL results (CSV of any columns, with or without header, or XML; "
               "a dashboard's statistics.json when named): one trial per file")

#: JMeter 5's default columns, and those of 3.1-4 (without ``URL``)
DEFAULT_COLUMNS = ("timeStamp", "elapsed", "label", "responseCode", "responseMessage",
                   "threadName", "dataType", "success", "failureMessage", "bytes", "sentBytes",
                   "grpThreads", "allThreads", "URL", "Latency", "IdleTime", "Connect")
DEFAULT_COLUMNS_3 = tuple(c for c in DEFAULT_COLUMNS if c != "URL")
_XML_ATTRIBUTES = {"ts": "timeStamp", "t": "elapsed", "s": "success", "lb": "label",
                   "na": "allThreads", "rc": "responseCode", "rm": "responseMessage"}

#: The delimiters JMeter is commonly configured with, the default first.
DELIMITERS = (",", "|", ";", "\t")
#: distinct response codes kept in attribute ``response_codes`` (the rest summed)
_CODES_KEPT = 50


def _split(line: str, delimiter: str) -> list[str] | None:
    try:
        return next(csv.reader([line], delimiter=delimiter))
    except (csv.Error, StopIteration):
        return None


def detect(lines: list[str], columns: jc.Layout | None = None
           ) -> tuple[str, jc.Layout, bool] | str:
    """(delimiter, layout, whether the first line is a header) of a CSV JTL from its first
    lines, or why it is not one (one line). A header wins over ``columns``."""
    first = lines[0]
    for delimiter in DELIMITERS:
        if delimiter in first and (row := _split(first, delimiter)) is not None:
            layout = jc.header_layout(row)
            if layout is not None:
                return delimiter, layout, True
    reasons = []
    for delimiter in DELIMITERS:
        if delimiter not in first:
            continue
        rows = [r for ln in lines if ln.strip() and (r := _split(ln, delimiter)) is not None]
        if not rows or len(rows[0]) < 2:
            continue
        if columns is not None:
            if len(columns.columns) != len(rows[0]):
                return (f"--columns names {len(columns.columns)} columns, the rows have "
                        f"{len(rows[0])} fields")
            return delimiter, columns, False
        found = jc.infer_layout(rows)
        if isinstance(found, jc.Layout):
            return delimiter, found, False
        reasons.append(found)
    return reasons[0] if reasons else "no delimiter (, | ; or tab) splits its first line"


def _head_lines(text: str, complete: bool) -> list[str]:
    lines = text.split("\n", jc.SAMPLE_ROWS + 1)[:jc.SAMPLE_ROWS + 1]
    if not complete and len(lines) > 1:
        lines = lines[:-1]  # the last may be cut
    return [ln.rstrip("\r") for ln in lines if ln.strip()]


def sniff(head: bytes, filename: str) -> bool:
    text = head.decode("utf-8", "replace").lstrip()
    if text.startswith("<?xml") or text.startswith("<testResults"):
        return "<testResults" in text[:400]
    if not text or text[:1] in ("{", "["):
        return False  # a dashboard's statistics.json is read only when named
    lines = _head_lines(text[:16384], len(text) < 16384)
    found = detect(lines[:20]) if lines else "empty"
    return not isinstance(found, str) and (found[1].how != "header"
                                           or "elapsed" in found[1].columns)


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    text = lt.decode(data, source)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        from perfwarehouse.ingest.formats import jmeter_dashboard

        return jmeter_dashboard.parse(data, source)
    samples = _xml(text, source) if stripped.startswith("<") else _csv(text, source, options)
    if not samples.elapsed:
        raise TrialParseError(source, 0, "empty", "the file holds no samples")
    return lt.finish(_records(data, source, samples))


@dataclass
class Samples:
    """The columns of a file's samples that the trial is made of (one entry per sample)."""

    lines: list[int] = field(default_factory=list)
    start: list[float] = field(default_factory=list)  # ms since 1970
    elapsed: list[float] = field(default_factory=list)  # ms
    failed: list[bool] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    threads: list[str] = field(default_factory=list)
    transaction: list[bool] = field(default_factory=list)
    columns: jc.Layout | None = None
    notes: list[str] = field(default_factory=list)


def _csv(text: str, source: str, options: ImportOptions) -> Samples:
    named = None
    if options.columns:
        try:
            named = jc.named_layout(options.columns)
        except ValueError as exc:
            raise TrialParseError(source, 0, "missing-column", str(exc)) from None
    head = _head_lines(text.lstrip(), True)
    found = detect(head, named)
    if isinstance(found, str):
        fields = max((len(r) for d in DELIMITERS if head and (r := _split(head[0], d))),
                     default=0)
        raise TrialParseError(source, 1, "missing-column",
                              f"no header and {fields} fields: {found}; add the header or "
                              "name the columns in order with --columns (JMeter's field "
                              "names, e.g. timeStamp,elapsed,label,responseCode,success)"
                              if named is None else f"--columns: {found}")
    delimiter, layout, header = found
    rows = lt.csv_rows(text, source, delimiter)
    if header:
        missing = [c for c in ("timeStamp", "elapsed") if c not in layout.columns]
        if "success" not in layout.columns and "responseCode" not in layout.columns:
            missing.append("success")
        if missing:
            raise TrialParseError(source, rows[0][0], "missing-column",
                                  f"the header lacks column(s) {', '.join(missing)}")
        rows = rows[1:]
    elif "timeStamp" not in layout.columns:
        raise TrialParseError(source, rows[0][0], "missing-column",
                              "--columns must name timeStamp (the samples' start times)")
    samples = Samples(columns=layout)
    if layout.how == "inferred":
        samples.notes.append(f"no header: columns inferred as {'|'.join(layout.columns)} "
                             "(pass --columns to name them)")
    _fill(samples, rows, layout, source, text.endswith("\n"))
    return samples


def _fill(samples: Samples, rows: list[tuple[int, list[str]]], layout: jc.Layout,
          source: str, ends_with_newline: bool) -> None:
    """Append the samples of the CSV ``rows`` (line, fields) read in ``layout``."""
    width = len(layout.columns)
    at = {name: layout.index(name) for name in
          ("timeStamp", "elapsed", "success", "label", "responseCode", "allThreads",
           "responseMessage")}
    i_time, i_elapsed, i_success = at["timeStamp"], at["elapsed"], at["success"]
    i_label, i_code, i_threads, i_message = (at["label"], at["responseCode"],
                                             at["allThreads"], at["responseMessage"])
    assert i_time is not None and i_elapsed is not None
    to_ms = _time_reader(samples, source)
    last = len(rows) - 1
    for index, (lineno, row) in enumerate(rows):
        if len(row) != width:
            cut = index == last and len(row) < width
            raise TrialParseError(source, lineno, "truncated" if cut else "wrong-type",
                                  f"this row has {len(row)} fields, the layout has {width}")
        samples.lines.append(lineno)
        samples.start.append(to_ms(row[i_time], lineno))
        samples.elapsed.append(lt.number(row[i_elapsed], source, lineno, "elapsed"))
        code = row[i_code] if i_code is not None else ""
        if i_success is not None:
            success = row[i_success].strip().lower()
            if success not in ("true", "false"):
                raise TrialParseError(source, lineno, "wrong-type",
                                      f"success {row[i_success][:20]!r} is not true or false")
            samples.failed.append(success == "false")
        else:
            samples.failed.append(not (len(code) == 3 and code[0] in "23" and code.isdigit()))
        samples.labels.append(row[i_label] if i_label is not None else "")
        samples.codes.append(code)
        samples.threads.append(row[i_threads] if i_threads is not None else "")
        samples.transaction.append(i_message is not None and row[i_message].startswith(
            "Number of samples in transaction") and bool(jc.TRANSACTION.match(row[i_message])))
    if rows and not ends_with_newline:
        raise TrialParseError(source, rows[-1][0], "truncated",
                              "the last row has no line end: the file was cut")


def _time_reader(samples: Samples, source: str) -> Any:
    """A reader of ``timeStamp`` values: ms since 1970, or one of JMeter's date formats
    (told from the first value, read as UTC with a note)."""
    formats: list[str] = []

    def to_ms(value: str, lineno: int) -> float:
        if not formats:
            text = value.strip()
            if text.isdigit():
                formats.append("ms")
            else:
                fmt = next((f for p, f in jc.DATE_FORMATS.items() if p.fullmatch(text)), None)
                if fmt is None:
                    return lt.number(value, source, lineno, "timeStamp (ms since the epoch)")
                formats.append(fmt)
                samples.notes.append("timeStamp is a date without a zone "
                                     "(timestamp_format): read as UTC")
        if formats[0] == "ms":
            return lt.number(value, source, lineno, "timeStamp (ms since the epoch)")
        try:
            stamp = datetime.strptime(value.strip(), formats[0]).replace(tzinfo=timezone.utc)
        except ValueError:
            raise TrialParseError(source, lineno, "wrong-type",
                                  f"timeStamp {value[:30]!r} is not a time like the first "
                                  "one") from None
        return stamp.timestamp() * 1e3

    return to_ms


def _xml(text: str, source: str) -> Samples:
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
    layout = jc.Layout(tuple(_XML_ATTRIBUTES.values()), "header")
    rows: list[tuple[int, list[str]]] = []
    for position, element in enumerate(root):
        if element.tag not in ("httpSample", "sample"):
            continue
        for key in ("ts", "t", "s"):
            if element.get(key) is None:
                raise TrialParseError(source, 0, "missing-field",
                                      f"sample {position + 1} (<{element.tag}>) has no "
                                      f"{key} attribute")
        rows.append((0, [element.get(attr, "") for attr in _XML_ATTRIBUTES]))
    samples = Samples(columns=layout)
    _fill(samples, rows, layout, source, True)
    return samples


def _records(data: bytes, source: str, samples: Samples) -> list[dict[str, Any]]:
    keep = range(len(samples.elapsed))
    attributes: dict[str, Any] = {}
    transactions = [i for i in keep if samples.transaction[i]]
    if transactions and len(transactions) < len(samples.elapsed):
        attributes["transaction_rows"] = dict(Counter(samples.labels[i] for i in transactions))
        keep = [i for i in keep if not samples.transaction[i]]  # type: ignore[assignment]
    elif transactions:
        attributes["samples_are_transactions"] = True
    elapsed: list[float] = []
    starts: list[float] = []
    ends: list[float] = []
    errors = 0
    labels: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    threads: Counter[float] = Counter()
    for i in keep:
        lineno, start, took = samples.lines[i], samples.start[i], samples.elapsed[i]
        times.check_epoch_ms(start, source, lineno, "timeStamp")
        times.check_epoch_ms(start + took, source, lineno, "timeStamp + elapsed (its end)")
        errors += samples.failed[i]
        elapsed.append(took)
        starts.append(start)
        ends.append(start + took)
        labels[samples.labels[i]] += 1
        codes[samples.codes[i]] += 1
        if samples.threads[i].strip():
            threads[lt.number(samples.threads[i], source, lineno, "allThreads")] += 1
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
    attributes["labels"] = dict(labels)
    if len(threads) > 1:
        attributes["all_threads_range"] = [min(threads), max(threads)]
    if any(codes):
        kept = dict(codes.most_common(_CODES_KEPT))
        if len(codes) > _CODES_KEPT:
            kept["(other codes)"] = sum(codes.values()) - sum(kept.values())
        attributes["response_codes"] = kept
    if samples.columns is not None and samples.columns.how != "header":
        attributes["jtl_columns"] = list(samples.columns.columns)
    if samples.notes:
        attributes["notes"] = samples.notes
    return lt.trial_records(
        run=lt.run_id(NAME, data), position=0, benchmark="jmeter", settings=settings,
        metrics=metrics, started_at=lt.rfc3339(min(starts) / 1e3), duration_s=span_s,
        latency={"unit": "ms", "samples": elapsed}, attributes=attributes, source=source)
