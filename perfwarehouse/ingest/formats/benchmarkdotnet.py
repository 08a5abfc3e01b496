"""BenchmarkDotNet's full JSON report (``*-report-full.json``, ``*-report-full-compressed.json``):
one run per launch, one trial per (benchmark case, launch).

BenchmarkDotNet (https://benchmarkdotnet.org, ``JsonExporterBase``) writes ``{"Title",
"HostEnvironmentInfo", "Benchmarks": [...]}``; a benchmark case (method x job x
parameters) holds ``Statistics`` (null when the case failed), optional ``Memory`` and
``Metrics`` (diagnosers) and, in the *full* exporters only, ``Measurements``: every
iteration of every launch (a fresh process), each ``{"IterationMode", "IterationStage",
"LaunchIndex", "IterationIndex", "Operations", "Nanoseconds"}``. The result stage
(``IterationMode`` Workload, ``IterationStage`` Result) is what BenchmarkDotNet's own
statistics are computed from: the actual workload iterations minus the overhead, with the
outliers its ``OutlierMode`` removes (by default the upper ones) left out. Mapping:

* launch k of every case is gathered into run k (``run_id`` = a digest of what the
  file measured, so that the indented and the compressed report of one run are the same
  runs, and ``launch<k>``, ``run_index`` k - 1, ``fixed`` order, positions in file order), as
  JMH's forks are: each launch is one process;
* benchmark = ``Namespace.Type.Method``; settings = the case's ``Parameters`` (``[Params]``
  and ``[Arguments]``, values as BenchmarkDotNet prints them: strings) and the job's:
  ``job`` (its id; for an unnamed job, whose id ``Job-XXXXXX`` is a hash that .NET
  randomises per process, its characteristics instead, so that a series does not split
  per run) and each environment characteristic of the job (``Runtime`` -> ``runtime``,
  ``Platform`` -> ``platform``, ``Jit``, ``Toolchain``, GC modes, ..., snake_case) taken
  from ``DisplayInfo`` (the JSON has no job object); the run-shape characteristics
  (``IterationCount``, ``LaunchCount``, ``WarmupCount``, ...) go to ``attributes``;
* metric ``time`` in ``ns`` per operation (lower is better), values = ``Nanoseconds /
  Operations`` of each result-stage measurement of the launch, in iteration order;
* a case whose ``Statistics`` is null is a failed trial (in run 1, with whatever
  result-stage values it has, usually none): counted, never dropped;
* hardware type = the host's CPU (``ProcessorName``); the whole ``HostEnvironmentInfo``
  (OS, runtime, SDK, core counts, timer) goes to ``env``, per run. Not the OS and runtime
  in the hardware type: a node has one hardware type in the warehouse, and every .NET or
  OS patch of a CI machine would change it, so its next report would be refused; a job
  that names its runtime has it in its settings, and the host's runtime of a default job
  changing over a history is a change of the series to see, not a new series;
* the diagnosers' ``Metrics`` (one value per case, measured once, not per iteration)
  are metrics of the case's trial in its first launch's run, one value each: metric =
  ``Descriptor.Id`` (``Allocated Memory``, ``Gen0Collects``, ...), unit = its ``Unit``,
  direction = ``TheGreaterTheBetter``; a report of a BenchmarkDotNet without ``Metrics``
  gives ``Memory.BytesAllocatedPerOperation`` as ``Allocated Memory`` in ``B``; a metric
  without a finite value is named in ``attributes["metrics_without_value"]``;
  ``Memory`` (GC counts, allocated bytes), ``Title``, ``DisplayInfo``,
  ``HardwareIntrinsics`` and the launch go to ``attributes``;
* the file names no machine and no time (the title's stamp is the local time of an
  unknown zone): node comes from ``--node``, ``started_at`` from ``--started-at`` or the
  path, else none (never invented).

The other reports of BenchmarkDotNet (the brief JSON without measurements, the CSV and
Markdown/HTML/text tables, the XML) hold each case's summary, not its measurements: they
are recognised and refused in one line that names the full JSON exporter.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "benchmarkdotnet"
DESCRIPTION = ("BenchmarkDotNet *-report-full.json (one run per launch; values = "
               "result-stage ns/op)")

USE_FULL_JSON = ("ingest the full JSON (--exporters json or JsonExporter.Full: "
                 "*-report-full-compressed.json)")

# characteristics of a job that shape the run, not the thing measured (RunMode,
# AccuracyMode and the meta flags of BenchmarkDotNet's Job): attributes, not settings
RUN_SHAPE = frozenset({
    "LaunchCount", "InvocationCount", "UnrollFactor", "IterationCount", "MinIterationCount",
    "MaxIterationCount", "IterationTime", "WarmupCount", "MinWarmupIterationCount",
    "MaxWarmupIterationCount", "MemoryRandomization", "MaxRelativeError", "MaxAbsoluteError",
    "MinIterationTime", "MinInvokeCount", "EvaluateOverhead", "OutlierMode",
    "AnalyzeLaunchVariance", "Baseline", "IsBaseline", "IsMutator", "IsDefault"})

_HEAD = re.compile(rb'^(?:\xef\xbb\xbf)?\s*\{')  # a UTF-8 BOM (files saved on Windows) allowed
_GENERATED_ID = re.compile(r"^Job-[A-Z]{6}$")
_JOB = re.compile(r"^(?P<id>[^()]*?)(?:\((?P<chars>.*)\))?$", re.S)
# characteristics are "Name=Value" joined by ", "; names are CamelCase, so a ", " inside a
# value (environment variables: "A=1, DOTNET_gcServer=1") is not taken for a separator
_CHAR_SPLIT = re.compile(r", (?=[A-Z][a-z][A-Za-z0-9]*=)")
# the CSV report's header (separator: the culture's list separator, ',' or ';')
_CSV_HEAD = re.compile(rb'^\s*(?:"?Type"?[,;])?"?Method"?[,;]"?Job"?[,;]')
_MEASUREMENTS_CSV = re.compile(rb'^\s*"?(?:Target|Benchmark)"?[,;].*Measurement_IterationStage')
# the environment caption that heads the Markdown, HTML and text reports
_CAPTION = re.compile(rb"BenchmarkDotNet(?:=v| v)\d+\.\d+")
_XML_HEAD = re.compile(rb"^\s*(?:<\?xml[^>]*>\s*)?<Summary[\s>]")


def sniff(head: bytes, filename: str) -> bool:
    """A JSON object holding ``HostEnvironmentInfo`` with BenchmarkDotNet's caption or
    version (BenchmarkDotNet writes it second, after ``Title``), or, for a file whose keys
    were sorted again, benchmark cases with ``DisplayInfo``, ``FullName`` and
    ``Statistics``; or one of BenchmarkDotNet's other reports (claimed so that it is
    refused with the way out, see :func:`parse`)."""
    if _HEAD.match(head):
        return (b'"HostEnvironmentInfo"' in head and (
            b'"BenchmarkDotNetCaption"' in head or b'"BenchmarkDotNetVersion"' in head)) or (
            b'"Benchmarks"' in head and b'"DisplayInfo"' in head and b'"FullName"' in head
            and b'"Statistics"' in head)
    return _report_kind(head) is not None


def _report_kind(head: bytes) -> str | None:
    """Which summary-only report of BenchmarkDotNet ``head`` starts, if any."""
    first = head[:head.find(b"\n")] if b"\n" in head else head
    if _CSV_HEAD.match(first) and (b"Mean" in first or b"LaunchCount" in first):
        return "CSV report (-report.csv)"
    if _MEASUREMENTS_CSV.match(first):
        return "measurements CSV (-measurements.csv)"
    if _XML_HEAD.match(head) and b"<HostEnvironmentInfo" in head:
        return "XML report"
    if head.lstrip()[:1] not in (b"{", b"[") and _CAPTION.search(head[:4096]) and (
            b"| Method" in head or b"Method |" in head or b"<table" in head
            or b"Method" in head and b"Mean" in head):
        return "Markdown/HTML report"
    return None


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native records of one BenchmarkDotNet full JSON report (see the module docstring);
    the summary-only reports are refused in one line naming the full JSON exporter."""
    kind = _report_kind(data[:64 * 1024])
    if kind is not None:
        raise TrialParseError(source, 0, "unsupported-format",
                              f"BenchmarkDotNet's {kind} holds summaries, not measurements; "
                              f"{USE_FULL_JSON}")
    doc = jsondoc.Doc(source)
    top = doc.check(jsondoc.load(data, source), "$", dict)
    host = doc.get(top, "HostEnvironmentInfo", "$", dict)
    cases = doc.get(top, "Benchmarks", "$", list)
    title = doc.get(top, "Title", "$", str, required=False)
    cpu = host.get("ProcessorName")
    hardware = cpu.strip() if isinstance(cpu, str) and cpu.strip() else None
    env = dict(host)
    parsed = [_case(doc, case, f"$.Benchmarks[{i}]") for i, case in enumerate(cases)]
    digest = _run_digest(title, host, parsed)
    if parsed and all(c["launches"] is None for c in parsed):
        raise TrialParseError(source, 0, "no-measurements",
                              "$.Benchmarks[*].Measurements is missing: a brief JSON report "
                              "(statistics only); " + USE_FULL_JSON)
    next_position: dict[int, int] = {}
    records: list[dict[str, Any]] = []
    for case in parsed:
        launches: dict[int, list[float]] = case["launches"] or {}
        failed = case["failed"]
        if failed and not launches:
            launches = {1: []}
        if not launches:
            raise TrialParseError(source, 0, "no-values",
                                  f"{case['path']}: the case has statistics but no result-stage "
                                  "measurement (IterationMode Workload, IterationStage Result)")
        for launch in sorted(launches):
            position = next_position.get(launch, 0)
            next_position[launch] = position + 1
            attributes = {**case["attributes"], "launch": launch}
            if title:
                attributes["title"] = title
            record = p.record(
                run_id=f"benchmarkdotnet-{digest}-launch{launch}", run_index=launch - 1,
                position=position, benchmark=case["benchmark"], settings=case["settings"],
                metric="time", unit="ns", higher_is_better=False, values=launches[launch],
                status="failed" if failed else "ok", env=env, attributes=attributes)
            record["hardware_type"] = hardware
            records.append(record)
            if launch == min(launches) and not failed:
                for name, unit, higher, value in case["metrics"]:
                    extra = p.record(
                        run_id=record["run_id"], run_index=launch - 1, position=position,
                        benchmark=case["benchmark"], settings=case["settings"], metric=name,
                        unit=unit, higher_is_better=higher, values=[value], env=env,
                        attributes=attributes)
                    extra["hardware_type"] = hardware
                    records.append(extra)
    return p.finish(records, source)


def _run_digest(title: str | None, host: dict[str, Any], cases: list[dict[str, Any]]) -> str:
    """16 hex digits naming the run by what was measured, not by the file's bytes: the
    full and the full-compressed report of one run (both exporters on) are the same runs,
    so the second is skipped as already present (or, in the same command, refused as a
    duplicate), never landed twice."""
    what = [title, host, [(c["benchmark"], c["settings"], c["failed"],
                           sorted((c["launches"] or {}).items())) for c in cases]]
    text = json.dumps(what, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _case(doc: jsondoc.Doc, case: Any, path: str) -> dict[str, Any]:
    """One benchmark case: its name, settings, attributes, and its result-stage values per
    launch (None when the file holds no ``Measurements``: a brief report)."""
    doc.check(case, path, dict)
    namespace = doc.get(case, "Namespace", path, str, required=False)
    type_name = doc.get(case, "Type", path, str)
    method = doc.get(case, "Method", path, str)
    benchmark = ".".join(part for part in (namespace, type_name, method) if part)
    display = doc.get(case, "DisplayInfo", path, str, required=False) or ""
    title = doc.get(case, "MethodTitle", path, str, required=False) or method
    params = _parameters(doc.get(case, "Parameters", path, str, required=False) or "")
    job_settings, shape = _job(display, title, bool(params))
    settings = dict(params)
    for key, value in job_settings.items():
        settings[key if key not in settings else f"job_{key}"] = value
    statistics = case.get("Statistics")
    if statistics is not None:
        doc.check(statistics, f"{path}.Statistics", dict)
    attributes: dict[str, Any] = {**shape, "display_info": display}
    if title != method:
        attributes["method_title"] = title
    for key, name in (("HardwareIntrinsics", "hardware_intrinsics"), ("Memory", "memory")):
        if case.get(key) not in (None, ""):
            attributes[name] = case[key]
    metrics, unvalued = _metrics(doc, case, path)
    if unvalued:
        attributes["metrics_without_value"] = unvalued
    if isinstance(statistics, dict) and isinstance(statistics.get("N"), int):
        attributes["statistics_n"] = statistics["N"]
    launches = None
    if case.get("Measurements") is not None:
        launches = _result_values(doc, doc.get(case, "Measurements", path, list),
                                  f"{path}.Measurements")
    return {"path": path, "benchmark": benchmark, "settings": settings,
            "attributes": attributes, "launches": launches, "failed": statistics is None,
            "metrics": metrics}


def _result_values(doc: jsondoc.Doc, measurements: list[Any], path: str) -> dict[int, list[float]]:
    """Nanoseconds per operation of each result-stage workload measurement, by launch
    (BenchmarkDotNet 0.10 wrote no stage: its result rows have ``IterationMode`` Result)."""
    out: dict[int, list[float]] = {}
    for i, m in enumerate(measurements):
        if type(m) is dict and type(m.get("IterationMode")) is str and (
                type(m.get("IterationStage")) is str and m["IterationStage"] != "Result"):
            continue  # the usual case, fast: two thirds of the rows are other stages
        where = f"{path}[{i}]"
        doc.check(m, where, dict)
        mode = doc.get(m, "IterationMode", where, str)
        stage = doc.get(m, "IterationStage", where, str, required=False)
        if not ((mode == "Workload" and stage == "Result") or (stage is None and mode == "Result")):
            continue
        launch = doc.get(m, "LaunchIndex", where, int)
        operations = doc.get(m, "Operations", where, float)
        nanoseconds = doc.get(m, "Nanoseconds", where, float)
        if operations <= 0:
            raise doc.fail("non-positive", f"{where}.Operations",
                           f"{operations:g}: a measurement must count at least one operation")
        out.setdefault(launch, []).append(nanoseconds / operations)
    return out


def _parameters(text: str) -> dict[str, str]:
    """``Parameters`` (``a=1&b=x``: BenchmarkDotNet's ``PrintInfo``) as a dict of strings."""
    out: dict[str, str] = {}
    for item in text.split("&") if text else []:
        name, sep, value = item.partition("=")
        if sep and name:
            out[name] = value
    return out


def _job(display: str, method_title: str, has_params: bool) -> tuple[dict[str, str], dict[str, str]]:
    """(settings, run-shape attributes) of the job named in ``DisplayInfo``
    (``Type.MethodTitle: JobId(Name=Value, ...) [params]``)."""
    marker = f".{method_title}: "
    at = display.find(marker)
    if at < 0:
        return {}, {}
    job = display[at + len(marker):]
    if has_params and job.endswith("]") and " [" in job:
        job = job[:job.rfind(" [")]
    m = _JOB.match(job.strip())
    if m is None:  # pragma: no cover - the pattern matches any text
        return {"job": job}, {}
    chars = [c for c in _CHAR_SPLIT.split(m.group("chars") or "") if c]
    settings: dict[str, str] = {}
    shape: dict[str, str] = {}
    environment = []
    for item in chars:
        name, _sep, value = item.partition("=")
        if name in RUN_SHAPE:
            shape[_snake(name)] = value
        else:
            environment.append(item)
            settings[_snake(name)] = value
    job_id = m.group("id").strip()
    if _GENERATED_ID.match(job_id):
        shape["job_id"] = job_id
        job_id = f"Job({', '.join(chars)})"
    return {"job": job_id, **settings}, shape


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _metrics(doc: jsondoc.Doc, case: dict[str, Any], path: str
             ) -> tuple[list[tuple[str, str | None, bool | None, float]], list[str]]:
    """The diagnosers' figures of a case, one value each: ``Metrics`` (``Descriptor.Id``,
    its ``Unit`` and ``TheGreaterTheBetter``), else ``Memory.BytesAllocatedPerOperation``
    as ``Allocated Memory`` in ``B`` (BenchmarkDotNet before ``Metrics``); and the ids of
    the metrics without a finite value (NaN, null)."""
    out: list[tuple[str, str | None, bool | None, float]] = []
    unvalued: list[str] = []
    metrics = case.get("Metrics") or []
    doc.check(metrics, f"{path}.Metrics", list)
    for i, metric in enumerate(metrics):
        where = f"{path}.Metrics[{i}]"
        doc.check(metric, where, dict)
        descriptor = doc.get(metric, "Descriptor", where, dict)
        name = doc.get(descriptor, "Id", f"{where}.Descriptor", str)
        value = metric.get("Value")
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            unvalued.append(name)
            continue
        unit = descriptor.get("Unit")
        higher = descriptor.get("TheGreaterTheBetter")
        out.append((name, unit if isinstance(unit, str) and unit else None,
                    higher if isinstance(higher, bool) else None, float(value)))
    memory = case.get("Memory")
    allocated = memory.get("BytesAllocatedPerOperation") if isinstance(memory, dict) else None
    if not metrics and isinstance(allocated, (int, float)) and not isinstance(allocated, bool) \
            and math.isfinite(allocated):
        out.append(("Allocated Memory", "B", False, float(allocated)))
    return out, unvalued
