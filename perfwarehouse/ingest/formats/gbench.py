"""Google Benchmark JSON output (``--benchmark_out_format=json``: ``context`` + ``benchmarks``).

Google Benchmark (https://github.com/google/benchmark, docs/user_guide.md, "Output
Formats" and "Statistics: Reporting the Mean, Median and Standard Deviation / Coefficient
of Variation of Repeated Benchmarks") writes one row per repetition (``run_type``
``iteration``) and, with repetitions or complexity, aggregate rows (``_mean``,
``_median``, ``_stddev``, ``_cv``, ``_BigO``, ``_RMS``).

Mapping:

* the file is one run (``run_id`` = executable name ``@`` ``context.date`` ``#`` the
  file's CRC-32 in 8 hex digits, so that two files of one binary written in
  one second are two runs, and the same file ingested again is the same run;
  ``order_kind`` fixed); its iteration rows are its trials, in file order (``position`` = rank of the
  row; the records of a row's metrics share it);
* aggregates are not ingested (perfwarehouse recomputes statistics from the trials);
  files older than ``run_type`` are read the same way, aggregates told by their name
  suffix;
* benchmark = the row's ``run_name`` (else ``name``): the family with its arguments,
  e.g. ``BM_Copy/64``; settings ``{}`` (plus ``--setting``);
* metrics, one value per row each: ``real_time`` and ``cpu_time`` in the row's
  ``time_unit`` (lower is better), and each user counter (every other numeric key) as
  its own metric: ``items_per_second`` (unit ``items/s``) and ``bytes_per_second``
  (``B/s``) higher is better, other counters of unknown direction;
* a row with ``error_occurred`` is a failed trial (no values; ``error_message`` in
  ``attributes``); ``iterations``, ``repetition_index``, ``threads`` and ``label`` go to
  ``attributes``;
* node = ``context.host_name``, started_at = ``context.date`` (UTC when it has no
  offset), env = the rest of ``context`` (CPUs, caches, load average, build type).
"""

from __future__ import annotations

import zlib
from typing import Any

from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "gbench"
DESCRIPTION = "Google Benchmark JSON output (context + benchmarks; repetitions, counters)."

_AGGREGATE_SUFFIXES = ("_mean", "_median", "_stddev", "_cv", "_BigO", "_RMS")
# keys of a row that are not user counters
_ROW_KEYS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
             "repetitions", "repetition_index", "threads", "iterations", "real_time",
             "cpu_time", "time_unit", "aggregate_name", "aggregate_unit", "error_occurred",
             "error_message", "label", "big_o", "rms", "complexity_n", "skipped", "manual_time"}
_ATTRIBUTE_KEYS = ("iterations", "repetition_index", "repetitions", "threads", "label",
                   "family_index", "per_family_instance_index")
_COUNTERS = {"items_per_second": ("items/s", True), "bytes_per_second": ("B/s", True)}


def sniff(head: bytes, filename: str) -> bool:
    """A JSON object with a ``context`` and a ``benchmarks`` list of rows with ``run_name``
    or ``real_time``."""
    text = head.lstrip()
    return (text[:1] == b"{" and b'"context"' in head and b'"benchmarks"' in head
            and (b'"real_time"' in head or b'"run_name"' in head or b'"library_build_type"' in head
                 or b'"num_cpus"' in head))


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native trial-log records of a Google Benchmark JSON file (see the module docstring)."""
    doc = jsondoc.Doc(source)
    top = doc.check(jsondoc.load(data, source), "$", dict)
    context = doc.get(top, "context", "$", dict)
    rows = doc.get(top, "benchmarks", "$", list)
    date = doc.get(context, "date", "$.context", str)
    started = jsondoc.rfc3339(date)
    if started is None:
        raise doc.fail("bad-timestamp", "$.context.date", f"date {date!r} is not a time")
    host = doc.get(context, "host_name", "$.context", str, required=False)
    executable = doc.get(context, "executable", "$.context", str, required=False) or "benchmark"
    # the content in the identity: two files of one binary in one second are two runs
    # (CRC-32: 0.1 s for a 1M-value file, where SHA-256 took 0.8 s of a 12 s parse)
    run_id = f"{executable.rsplit('/', 1)[-1]}@{started}#{zlib.crc32(data):08x}"
    env = {k: v for k, v in context.items() if k not in ("date", "host_name")}
    if host:
        env["hostname"] = host

    trials: list[tuple[dict[str, Any], str]] = []
    for i, row in enumerate(rows):
        path = f"$.benchmarks[{i}]"
        doc.check(row, path, dict)
        name = doc.get(row, "name", path, str)
        run_type = doc.get(row, "run_type", path, str, required=False)
        if run_type == "aggregate" or (run_type is None and name.endswith(_AGGREGATE_SUFFIXES)):
            continue
        if run_type not in (None, "iteration"):
            raise doc.fail("unknown-run-type", f"{path}.run_type",
                           f"{run_type!r}; expected iteration or aggregate")
        trials.append((row, path))

    records: list[dict[str, Any]] = []
    for position, (row, path) in enumerate(trials):
        benchmark = doc.get(row, "run_name", path, str, required=False) or row["name"]
        failed = doc.get(row, "error_occurred", path, bool, required=False, default=False)
        attributes = {k: row[k] for k in _ATTRIBUTE_KEYS if row.get(k) is not None}
        base = {
            "campaign": None, "run_id": run_id, "node": host or None, "hardware_type": None,
            "run_index": 0, "order_kind": "fixed", "position": position,
            "benchmark": benchmark, "settings": {},
            "started_at": started, "status": "failed" if failed else "ok",
        }
        if failed:
            attributes["error_message"] = row.get("error_message")
            metrics: list[tuple[str, str | None, bool | None, list[float]]] = [
                ("real_time", _time_unit(doc, row, path), False, [])]
        else:
            unit: str | None = _time_unit(doc, row, path)
            metrics = [
                ("real_time", unit, False, [doc.get(row, "real_time", path, float)]),
                ("cpu_time", unit, False, [doc.get(row, "cpu_time", path, float)]),
            ]
            for key, value in row.items():
                if key in _ROW_KEYS or isinstance(value, (str, dict, list)) or value is None:
                    continue
                counter_unit, higher = _COUNTERS.get(key, (None, None))
                metrics.append((key, counter_unit, higher,
                                [doc.check(value, f"{path}.{key}", float)]))
        for metric, unit, higher, values in metrics:
            record = {**base, "metric": metric, "unit": unit, "higher_is_better": higher,
                      "values": values, "attributes": attributes}
            if not records:
                record["env"] = env
            records.append(record)
    for record in records:  # a run's size counts its records (one per metric of a row)
        record["run_size"] = len(records)
    return records


def _time_unit(doc: jsondoc.Doc, row: dict[str, Any], path: str) -> str:
    unit = doc.get(row, "time_unit", path, str, required=False, default="ns")
    if unit not in ("ns", "us", "ms", "s"):
        raise doc.fail("unknown-unit", f"{path}.time_unit", f"{unit!r}; expected ns, us, ms or s")
    return unit
