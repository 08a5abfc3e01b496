"""JMH JSON results (``-rf json``): one run per fork, one trial per (benchmark and
parameters, fork).

The file is a list of result objects, one per benchmark, mode and parameter
combination, each with ``primaryMetric.rawData`` holding one row per fork (the
measurement iterations of that fork, warmups excluded). JMH runs every fork of a
benchmark in a fresh JVM; fork k of every benchmark is gathered into run k (a
``fixed``-order run, positions in file order). Mapping:

* benchmark = ``benchmark`` (fully qualified method name); settings = ``params``
  (JMH's ``@Param`` values, strings) plus ``threads`` (number of benchmark threads: a
  different thread count measures a different thing);
* metric = ``mode`` (``thrpt``, ``avgt``, ``sample``, ``ss``) with unit ``scoreUnit``;
  throughput (``thrpt``, or a unit ``ops/...``) is higher-is-better, the time modes
  lower-is-better; values = the fork's row of ``rawData`` (one value per measurement
  iteration); for ``sample`` mode the fork's ``rawDataHistogram`` expanded (each
  sampled time repeated as often as it was counted), iterations in order;
* each entry of ``secondaryMetrics`` with raw data (``gc.alloc.rate``,
  ``gc.alloc.rate.norm``, ``@AuxCounters`` ...) is a metric of its own (leading ``·``
  of older JMH versions dropped; direction: ``ops/...`` higher, ``.../op`` lower, else
  unknown); secondary metrics with only a score (``gc.count``) are not values: their
  names go to ``attributes``;
* JVM facts (``jvm``, ``jvmArgs``, ``jdkVersion``, ``vmName``, ``vmVersion``,
  ``jmhVersion``) go to ``env``; the run's shape (``forks``, ``warmupIterations``,
  ``warmupTime``, ``warmupBatchSize``, ``measurementIterations``, ``measurementTime``,
  ``measurementBatchSize``) and the fork number (1-based) to ``attributes``; the
  summary (``score``, ``scoreError``, percentiles) is recomputed, not ingested;
* JMH's JSON names no machine and no time: node, hardware type and revision come from
  the command line; ``started_at`` is left empty (``--started-at``, or the path with
  ``--path-pattern``, else none: never invented);
* JMH's CSV (``-rf csv``/``scsv``) is recognised and refused in one line naming ``-rf
  json``: it holds the scores, not the values.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any, Literal, overload

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.limits import VALUES_PER_TRIAL_MAX

NAME = "jmh"
DESCRIPTION = "JMH JSON results (-rf json; one run per fork, values = rawData)"

ENV_KEYS = ("jvm", "jvmArgs", "jdkVersion", "vmName", "vmVersion", "jmhVersion")
ATTRIBUTE_KEYS = ("forks", "warmupIterations", "warmupTime", "warmupBatchSize",
                  "measurementIterations", "measurementTime", "measurementBatchSize")
_HEAD = re.compile(rb'^\s*\[\s*\{')
# JMH's -rf csv (and -rf scsv) header: summary scores only, no measured values
_CSV_HEAD = re.compile(rb'^\s*"Benchmark"[,;]"Mode"[,;]"Threads"[,;]"Samples"[,;]"Score"')


def sniff(head: bytes, filename: str) -> bool:
    """A JSON list of objects with ``primaryMetric`` and ``mode`` (and ``benchmark``), or
    JMH's CSV header (claimed so that it is refused with the way out, see :func:`parse`)."""
    if _CSV_HEAD.match(head):
        return True
    return bool(_HEAD.match(head)) and b'"primaryMetric"' in head and (
        b'"mode"' in head and b'"benchmark"' in head)


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native records of one JMH JSON result file (see the module docstring); JMH's CSV
    is refused in one line: it holds each benchmark's score, not its measured values."""
    if _CSV_HEAD.match(data[:4096]):
        raise TrialParseError(source, 0, "unsupported-format",
                              "JMH CSV (-rf csv) holds only each benchmark's score and error, "
                              "not the measured values; run JMH with -rf json (-rff "
                              "results.json) and ingest that file")
    doc = jsondoc.load(data, source)
    p.expect(doc, list, source, "$", "a list of benchmark results")
    digest = p.content_id(data)
    next_position: dict[int, int] = defaultdict(int)
    records: list[dict[str, Any]] = []
    for i, entry in enumerate(doc):
        path = f"$[{i}]"
        p.expect(entry, dict, source, path, "an object")
        benchmark = p.expect(p.key(entry, "benchmark", source, path), str, source,
                             f"{path}.benchmark", "a string")
        mode = p.expect(p.key(entry, "mode", source, path), str, source, f"{path}.mode",
                        "a string")
        threads = p.expect(entry.get("threads", 1), int, source, f"{path}.threads",
                           "an integer")
        params = p.expect(entry.get("params") or {}, dict, source, f"{path}.params",
                          "an object")
        for name, value in params.items():
            p.expect(value, (str, int, float), source,
                     f"{path}.params[{json.dumps(name)}]", "a string or number")
        settings = {**params, "threads": threads}
        primary = p.expect(p.key(entry, "primaryMetric", source, path), dict, source,
                           f"{path}.primaryMetric", "an object")
        unit = p.expect(p.key(primary, "scoreUnit", source, f"{path}.primaryMetric"), str,
                        source, f"{path}.primaryMetric.scoreUnit", "a string")
        forks = _fork_rows(primary, source, f"{path}.primaryMetric", required=True)
        secondary = p.expect(entry.get("secondaryMetrics") or {}, dict, source,
                             f"{path}.secondaryMetrics", "an object")
        metrics: list[tuple[str, str | None, bool | None, list[list[float]]]] = [
            (mode, unit, mode == "thrpt" or _direction(unit) is True, forks)]
        score_only = []
        for name, metric in secondary.items():
            mpath = f"{path}.secondaryMetrics[{json.dumps(name)}]"
            p.expect(metric, dict, source, mpath, "an object")
            rows = _fork_rows(metric, source, mpath, required=False)
            if rows is None:
                score_only.append(name.lstrip("\u00b7 "))
                continue
            sunit = p.expect(p.key(metric, "scoreUnit", source, mpath), str, source,
                             f"{mpath}.scoreUnit", "a string")
            metrics.append((name.lstrip("\u00b7 "), sunit, _direction(sunit), rows))
        env = {k: entry[k] for k in ENV_KEYS if k in entry}
        shape = {k: entry[k] for k in ATTRIBUTE_KEYS if k in entry}
        if score_only:
            shape["secondary_metrics_without_raw_data"] = score_only
        for fork in range(len(forks)):
            position = next_position[fork]
            next_position[fork] += 1
            for name, metric_unit, higher, rows in metrics:
                if fork >= len(rows):
                    continue  # a profiler that did not report in this fork
                records.append(p.record(
                    run_id=f"jmh-{digest}-fork{fork + 1}", run_index=fork, position=position,
                    benchmark=benchmark, settings=dict(settings), metric=name,
                    unit=metric_unit, higher_is_better=higher, values=rows[fork],
                    env=env, attributes={**shape, "fork": fork + 1}))
    return p.finish(records, source)


@overload
def _fork_rows(metric: dict[str, Any], source: str, path: str,
               required: Literal[True]) -> list[list[float]]: ...
@overload
def _fork_rows(metric: dict[str, Any], source: str, path: str,
               required: bool) -> list[list[float]] | None: ...
def _fork_rows(metric: dict[str, Any], source: str, path: str,
               required: bool) -> list[list[float]] | None:
    """The metric's values, one list per fork: ``rawData`` rows, or the expanded
    ``rawDataHistogram`` (fork -> iteration -> [[value, count], ...])."""
    if "rawData" in metric:
        rows = p.expect(metric["rawData"], list, source, f"{path}.rawData",
                        "a list (one row per fork)")
        out = [p.numbers(row, source, f"{path}.rawData[{f}]") for f, row in enumerate(rows)]
    elif "rawDataHistogram" in metric:
        hist = p.expect(metric["rawDataHistogram"], list, source, f"{path}.rawDataHistogram",
                        "a list (one entry per fork)")
        out = [_expand(fork, source, f"{path}.rawDataHistogram[{f}]")
               for f, fork in enumerate(hist)]
    elif required:
        raise TrialParseError(source, 0, "missing-key",
                              f"{path}.rawData is missing (and no rawDataHistogram): JMH "
                              "wrote no per-iteration data")
    else:
        return None
    if required and not out:
        raise TrialParseError(source, 0, "no-values", f"{path}.rawData holds no fork")
    for f, row in enumerate(out):
        if required and not row:
            raise TrialParseError(source, 0, "no-values", f"{path}.rawData[{f}] is empty")
    return out


def _expand(fork: Any, source: str, path: str) -> list[float]:
    p.expect(fork, list, source, path, "a list (one histogram per iteration)")
    values: list[float] = []
    for it, iteration in enumerate(fork):
        p.expect(iteration, list, source, f"{path}[{it}]", "a list of [value, count] pairs")
        for b, pair in enumerate(iteration):
            where = f"{path}[{it}][{b}]"
            if not (isinstance(pair, list) and len(pair) == 2):
                raise TrialParseError(source, 0, "wrong-type",
                                      f"{where} must be a [value, count] pair")
            value = p.number(pair[0], source, f"{where}[0]")
            count = p.number(pair[1], source, f"{where}[1]")
            if count < 0 or count != int(count):
                raise TrialParseError(source, 0, "wrong-type",
                                      f"{where}[1] must be a count (a whole number >= 0)")
            if len(values) + count > VALUES_PER_TRIAL_MAX:  # before expanding: memory
                raise TrialParseError(source, 0, "too-many-values",
                                      f"{where}[1]: the histogram of {path} holds more than "
                                      f"{VALUES_PER_TRIAL_MAX:,} values")
            values.extend([value] * int(count))
    return values


def _direction(unit: str) -> bool | None:
    """``ops/<time>`` is a rate (higher is better), ``<x>/op`` a cost (lower)."""
    if unit.startswith("ops/"):
        return True
    if unit.endswith("/op"):
        return False
    return None
