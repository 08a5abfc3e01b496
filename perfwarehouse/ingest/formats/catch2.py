"""Catch2's XML reporter (``-r xml``): the ``BenchmarkResults`` of ``BENCHMARK`` and
``BENCHMARK_ADVANCED``, Catch2 v2 (``<Catch>``) and v3 (``<Catch2TestRun>``).

Catch2 (https://github.com/catchorg/Catch2, ``catch_reporter_xml.cpp``, the same in
v2.13 and v3) writes, for each benchmark, ``<BenchmarkResults name samples resamples
iterations clockResolution estimatedDuration>`` holding ``<mean value lowerBound
upperBound ci>``, ``<standardDeviation ...>`` and ``<outliers ...>`` (all times in ns),
or ``<failed message>`` when the benchmark threw. It writes no individual sample, with
or without ``--benchmark-samples N`` (which sets how many samples the mean summarises);
with ``--benchmark-no-analysis`` the bounds equal the mean and ``ci`` is 0. Mapping:

* each XML document of the file is one run (``run_id`` = the file's content id, and
  ``-k`` for the k-th of several documents; ``fixed`` order; ``run_index`` = its rank):
  runs appended to one file (``-r xml >> all.xml``) are runs, the text above each (a
  label, the command line) kept as ``attributes["label"]``; each benchmark is the trial
  at its position, in document order;
* benchmark = the test case's name, its sections' names and the benchmark's name joined
  by ``/`` (``vector sum/large/accumulate``); settings ``{}`` (plus ``--setting``);
* metric ``mean`` in ``ns`` (lower is better) with one value: the mean of the samples,
  marked as a summary (``attributes["summary"]`` = ``"mean of N samples"``, and the
  bounds of its bootstrap interval, its confidence level, the standard deviation and
  its bounds, the outlier counts and variance, ``iterations`` per sample, ``resamples``,
  the clock resolution, the test case's tags, file and line);
* a benchmark with ``<failed>`` is a failed trial without values (its message in
  ``attributes``), as is one with neither ``<mean>`` nor ``<failed>`` (said so in its
  ``error_message``): counted, and the file's other benchmarks kept;
* the root's ``name`` (the executable), ``catch2-version``, ``xml-format-version`` and
  ``rng-seed`` (v3) go to ``env``; the file names no machine and no time: node comes
  from ``--node``, ``started_at`` from ``--started-at`` or the path, else none.

Up to :data:`PREAMBLE_LINES` lines of anything above the document (the command line,
what the program printed before Catch2 started) are skipped, line numbers kept; a UTF-8
BOM and CRLF line ends are read. Nothing before the root element is kept (a DOCTYPE is
never read, so no entity is ever expanded). The console reporter's benchmark table is
recognised and refused in one line naming ``-r xml``; a Catch2 XML without any benchmark
is refused naming the tags to run.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import numbers
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "catch2"
DESCRIPTION = "Catch2 XML (-r xml) BenchmarkResults, v2 and v3: one mean per benchmark"

_ROOT = re.compile(rb"(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*\?>\s*)?"
                   rb"(?:<\?xml-stylesheet[^>]*\?>\s*)?<(Catch|Catch2TestRun)[\s>]")
#: at most this many lines of anything (the command line, the program's own prints before
#: Catch2 starts) above the XML declaration or root element
PREAMBLE_LINES = 30
_BANNER = re.compile(rb"is a Catch2? v\d+\.\d+\.\d+ host application")
_CLOSE = re.compile(rb"</(?:Catch|Catch2TestRun)\s*>")
_CONSOLE_HEADER = re.compile(rb"^benchmark name\s+samples\s+iterations", re.M)
# attributes of <mean> and <standardDeviation>: (attribute, key suffix)
_ESTIMATE = (("value", ""), ("lowerBound", "_lower"), ("upperBound", "_upper"))


def sniff(head: bytes, filename: str) -> bool:
    """An XML document whose root is ``<Catch>`` (v2) or ``<Catch2TestRun>`` (v3), or the
    console reporter's benchmark table under Catch2's banner (claimed so that it is
    refused with the way out)."""
    if _xml_start(head) is not None:
        return True
    return bool(_BANNER.search(head[:4096]) and _CONSOLE_HEADER.search(head))


def _xml_start(data: bytes, offset: int = 0) -> int | None:
    """Offset of the XML document in ``data`` from ``offset``: there, or the start of the
    first of the next :data:`PREAMBLE_LINES` + 1 lines where Catch2's document begins;
    None if none does."""
    for _ in range(PREAMBLE_LINES + 1):
        if _ROOT.match(data, offset):
            return offset
        end = data.find(b"\n", offset)
        if end < 0:
            return None
        offset = end + 1
    return None


def _documents(data: bytes, first: int) -> list[tuple[int, int, str]]:
    """(start, end, label) of each XML document in ``data``, the first starting at
    ``first``: runs appended to one file (``-r xml >> all.xml``) with up to
    :data:`PREAMBLE_LINES` lines of text (a label, the command line) between them. A
    document ends after its root's closing tag (or at the end of the file: cut short);
    ``label`` is the text above it, its lines joined by `` | ``. A few lines after the
    last document (a shell prompt) are left; more, and the last document runs to the end
    of the file, so that the XML parser names what follows it."""
    out: list[tuple[int, int, str]] = []
    start, previous = first, 0
    while True:
        closing = _CLOSE.search(data, start)
        end = closing.end() if closing else len(data)
        text = data[previous:start].decode("utf-8", "replace").replace("\ufeff", "")
        label = " | ".join(line.strip() for line in text.splitlines() if line.strip())
        rest = data[end:]
        following = _xml_start(data, end) if rest.strip() else None
        if following is None and rest.strip() and rest.count(b"\n") > PREAMBLE_LINES:
            end = len(data)
        out.append((start, end, label))
        if following is None:
            return out
        start, previous = following, end


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native records of one Catch2 XML report, one run per XML document in the file (see
    the module docstring)."""
    if not data.strip():
        raise TrialParseError(source, 0, "empty", "the file is empty")
    first = _xml_start(data)
    if first is None:
        if _BANNER.search(data[:4096]) and _CONSOLE_HEADER.search(data):
            raise TrialParseError(source, 0, "unsupported-format",
                                  "Catch2's console output is a table for people (names "
                                  "wrapped to a column, sections apart from their "
                                  "benchmarks, a unit per cell); run the benchmarks with -r "
                                  "xml (-o results.xml) and ingest that file")
        # also what keeps entity declarations (a DOCTYPE before the root) from expanding
        raise TrialParseError(source, 1, "invalid-xml",
                              "the document does not start with a <Catch> or <Catch2TestRun> "
                              "root element (Catch2 writes no DOCTYPE)")
    digest = p.content_id(data)
    documents = _documents(data, first)
    records: list[dict[str, Any]] = []
    for index, (start, end, label) in enumerate(documents):
        run_id = f"catch2-{digest}" + (f"-{index + 1}" if len(documents) > 1 else "")
        run = _run(_root(data, start, end, source), source, run_id, index)
        for record in run:
            if label:
                record["attributes"]["label"] = label
        records.extend(run)
    if not records:
        raise TrialParseError(source, 0, "no-benchmarks",
                              "the report holds no <BenchmarkResults>: Catch2 hides "
                              "[!benchmark] test cases; run them by name or tag (e.g. "
                              "'[!benchmark]') with -r xml")
    return p.finish(records, source)


def _root(data: bytes, start: int, end: int, source: str) -> ET.Element:
    """The root element of the document ``data[start:end]``; errors name the file's line."""
    document = data[start:end].removeprefix(b"\xef\xbb\xbf")
    # the declaration must come first: what is above it goes, counted for line numbers
    above = data.count(b"\n", 0, start) + document.count(b"\n", 0,
                                                        len(document) - len(document.lstrip()))
    try:
        return ET.fromstring(document.lstrip())
    except ET.ParseError as exc:
        line = exc.position[0] + above if exc.position else 0
        text = str(exc)
        rule = "truncated" if "no element found" in text or "unclosed token" in text \
            else "invalid-xml"
        raise TrialParseError(source, line, rule, text.split(":")[0]) from None
    except LookupError as exc:  # the declaration names an encoding Python does not know
        raise TrialParseError(source, above + 1, "invalid-xml",
                              f"the XML declaration's encoding: {str(exc)[:80]}") from None


def _run(root: ET.Element, source: str, run_id: str, run_index: int) -> list[dict[str, Any]]:
    """The trial records of one XML document: one run, its benchmarks in document order."""
    env = {key.replace("-", "_"): root.attrib[key] for key in
           ("name", "catch2-version", "xml-format-version", "rng-seed", "filters")
           if key in root.attrib}
    env["xml_root"] = root.tag
    records: list[dict[str, Any]] = []
    for case_index, case in enumerate(root.iter("TestCase")):
        for names, bench in _benchmarks(case, []):
            path = f"TestCase[{case_index}] {case.get('name', '')!r}: BenchmarkResults " \
                   f"{bench.get('name', '')!r}"
            records.append(_record(bench, case, names, path, source, run_id, run_index,
                                   len(records), env))
    return records


def _benchmarks(element: ET.Element, sections: list[str]
                ) -> list[tuple[list[str], ET.Element]]:
    """The ``BenchmarkResults`` below ``element`` with the section names above each, in
    document order."""
    out: list[tuple[list[str], ET.Element]] = []
    for child in element:
        if child.tag == "BenchmarkResults":
            out.append((sections, child))
        elif child.tag == "Section":
            out.extend(_benchmarks(child, [*sections, child.get("name", "")]))
    return out


def _record(bench: ET.Element, case: ET.Element, sections: list[str], path: str, source: str,
            run_id: str, run_index: int, position: int, env: dict[str, Any]
            ) -> dict[str, Any]:
    name = bench.get("name")
    if name is None:
        raise TrialParseError(source, 0, "missing-key", f"{path}: the name attribute is missing")
    benchmark = "/".join([case.get("name", ""), *sections, name])
    attributes: dict[str, Any] = {"test_case": case.get("name", "")}
    for key in ("tags", "filename", "line"):
        if case.get(key) is not None:
            attributes[key] = case.get(key)
    failed = bench.find("failed")
    if failed is not None or bench.find("mean") is None:
        attributes["error_message"] = (
            failed.get("message", "") if failed is not None
            else "no result in the report (neither <mean> nor <failed>)")
        return p.record(run_id=run_id, run_index=run_index, position=position,
                        benchmark=benchmark,
                        settings={}, metric="mean", unit="ns", higher_is_better=False,
                        values=[], status="failed", env=env, attributes=attributes)
    for key, attr in (("samples", "samples"), ("resamples", "resamples"),
                      ("iterations", "iterations"), ("clock_resolution_ns", "clockResolution"),
                      ("estimated_duration_ns", "estimatedDuration")):
        if bench.get(attr) is not None:
            attributes[key] = _count(_number(bench.get(attr), source, f"{path} @{attr}"))
    mean = _estimate(bench, "mean", path, source, required=True)
    sd = _estimate(bench, "standardDeviation", path, source, required=False)
    attributes.update({f"mean{suffix}_ns": v for suffix, v in mean.items() if suffix not in ("", "ci")})
    attributes["ci"] = mean.get("ci")
    attributes.update({f"std_dev{suffix}_ns": v for suffix, v in sd.items() if suffix != "ci"})
    outliers = bench.find("outliers")
    if outliers is not None:
        attributes["outliers"] = {k: _count(_number(v, source, f"{path} <outliers @{k}>"))
                                  for k, v in outliers.attrib.items()}
    samples = attributes.get("samples")
    attributes["summary"] = f"mean of {samples} samples" if samples is not None else "mean"
    return p.record(run_id=run_id, run_index=run_index, position=position,
                    benchmark=benchmark,
                    settings={}, metric="mean", unit="ns", higher_is_better=False,
                    values=[mean[""]], env=env, attributes=attributes)


def _estimate(bench: ET.Element, tag: str, path: str, source: str,
              required: bool) -> dict[str, float]:
    """``<tag value lowerBound upperBound ci>`` as {"": value, "_lower", "_upper", "ci"}."""
    element = bench.find(tag)
    if element is None:
        if required:
            raise TrialParseError(source, 0, "missing-key",
                                  f"{path}: no <{tag}> element (and no <failed>)")
        return {}
    out = {}
    for attr, suffix in (*_ESTIMATE, ("ci", "ci")):
        text = element.get(attr)
        if text is None:
            if attr == "value":
                raise TrialParseError(source, 0, "missing-key",
                                      f"{path} <{tag}>: the value attribute is missing")
            continue
        out[suffix] = _number(text, source, f"{path} <{tag} @{attr}>")
    return out


def _count(value: float) -> float | int:
    """A whole number as an int (sample and outlier counts), anything else unchanged."""
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _number(text: str | None, source: str, where: str) -> float:
    """A finite number written by Catch2 (``%g``-like: ``1.12002e+06``); more digits than
    a number may hold is ``huge-number``."""
    try:
        value = numbers.parse_float(text or "", source, 0, where)
    except ValueError:
        raise TrialParseError(source, 0, "wrong-type",
                              f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise TrialParseError(source, 0, "non-finite", f"{where}: {text} is not a finite number")
    return value
