"""``go test -bench`` text output (the Go benchmark format): one trial per result line.

A file is the output of one ``go test`` invocation (one or several packages), one
``fixed``-order run whose trials are the result lines in order. Mapping:

* a result line ``BenchmarkName[-N] <iterations> <value> <unit> [<value> <unit> ...]``
  is one trial; several lines of one benchmark (``-count``) are several trials, in
  order;
* benchmark = the name without the ``-N`` suffix (sub-benchmarks keep their
  ``/...`` path); settings ``procs`` = N (GOMAXPROCS; 1 when there is no suffix,
  as ``go test`` prints it) and ``pkg`` = the package from the latest ``pkg:`` line;
* one metric per unit, named by the unit, one value per trial (the mean over the
  line's iterations, which go to ``attributes``): ``ns/op`` (and other ``<time>/op``)
  lower is better, ``MB/s`` (any ``.../s``) higher, ``B/op`` and ``allocs/op`` lower,
  other custom units (``b.ReportMetric``) of unknown direction;
* configuration lines ``key: value`` apply to the results after them, wherever they
  appear: ``goos``, ``goarch`` and ``cpu`` (as ``cpu_model``) go to ``env``, ``pkg``
  to settings, other keys to ``attributes``;
* ``--- FAIL: BenchmarkName`` is a failed trial (metric ``ns/op``, no values; settings
  without ``procs``, which the line does not say); ``PASS``, ``FAIL``, ``ok``, ``?``,
  ``exit status``, ``--- BENCH``/``--- SKIP`` and indented log lines are skipped;
* a line that starts like a result (a benchmark name, then a number) but is not a
  well-formed one is refused (``malformed-line``), naming the line;
* configuration keys that carry a time or a revision are read (benchfmt has no fixed
  list; these are the names people and Go's tools write): ``runstamp``, ``date``,
  ``time``, ``timestamp``, ``start-time`` (and ``started``, ``started-at``) give the
  ``started_at`` of the results after them when the value is an ISO 8601 / RFC 3339
  time (UTC when it has no offset); ``commit-time``/``commit-date``/``revision-time``
  give ``revision_time``; ``commit``/``commit-hash``/``revision`` give ``revision``;
  ``hostname``/``host``/``machine`` give the node; all stay in ``attributes`` too;
* several invocations appended to one file (``go test -bench . >> old.txt``, a shell
  prompt or command line above each) are several runs: a new run begins where a
  package already seen in the current run appears again (``pkg:``), or where a time
  key changes value; ``run_index`` counts them in file order;
* without such keys the text names no machine and no time: node and hardware type
  come from the command line; ``started_at`` is left empty (``--started-at``, or the
  path with ``--path-pattern``, else none: never invented);
* ``go test -json`` output (test2json events, one JSON object per line) is read too:
  the ``Output`` of each package's ``output`` events, joined, is the text above, and a
  result's ``started_at`` is the ``Time`` of the event that began its line; problems
  name the line of that event.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import numbers
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "gotest"
DESCRIPTION = "go test -bench text output (one trial per result line)"

_NAME = re.compile(r"Benchmark(?![a-z])\S*")
_LOOKS_LIKE_RESULT = re.compile(r"^Benchmark(?![a-z])\S*\s+[-+.\d]")
_PROCS = re.compile(r"^(.*)-(\d+)$")
_CONFIG = re.compile(r"^([a-z][A-Za-z0-9_.-]*):(?:\s+(.*?))?\s*$")
_FAIL = re.compile(r"^--- FAIL: (Benchmark(?![a-z])\S*)")
_SNIFF_RESULT = re.compile(rb"^Benchmark(?![a-z])\S*\s+\d+\s+[-+.\deE]+ \S+", re.M)
_SNIFF_HEADER = re.compile(rb"^(goos|goarch|pkg): \S+\r?$", re.M)
_SNIFF_JSON = re.compile(rb'^\s*\{\s*"Time"\s*:\s*"[^"]*"\s*,\s*"Action"\s*:')
_SNIFF_JSON_OUTPUT = re.compile(rb'"Output"\s*:\s*"(Benchmark|goos: |pkg: )')
_FRACTION = re.compile(r"(\.\d{6})\d+")
ENV_KEYS = {"goos": "goos", "goarch": "goarch", "cpu": "cpu_model"}
TIME_KEYS = {"runstamp", "date", "time", "timestamp", "start-time", "start_time", "started",
             "started-at", "started_at"}
REVISION_TIME_KEYS = {"commit-time", "commit-date", "commit_time", "revision-time"}
REVISION_KEYS = {"commit", "commit-hash", "commit_hash", "revision"}
NODE_KEYS = {"hostname", "host", "machine"}


def sniff(head: bytes, filename: str) -> bool:
    """Text with a ``go test -bench`` result line, or the ``goos:``/``pkg:`` header (also
    as ``go test -json`` events)."""
    if _SNIFF_JSON.match(head):
        return bool(_SNIFF_JSON_OUTPUT.search(head))
    if head[:1] in (b"{", b"[") or b"\x00" in head:
        return False
    return bool(_SNIFF_RESULT.search(head)) or len(_SNIFF_HEADER.findall(head)) >= 2


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native records of one ``go test -bench`` output (see the module docstring)."""
    if not data.strip():
        raise TrialParseError(source, 0, "empty", "the file is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrialParseError(source, 0, "broken-utf8",
                              f"invalid UTF-8 at byte {exc.start}") from None
    lines = _test2json_lines(text, source) if _SNIFF_JSON.match(data) else (
        (lineno, raw, None) for lineno, raw in enumerate(text.splitlines(), 1))
    digest = p.content_id(data)
    run_id = f"gotest-{digest}"
    run_index = 0
    env: dict[str, Any] | None = None  # replaced (never mutated) when a line changes it
    extra: dict[str, Any] = {}
    keys: dict[str, str | None] = {"started_at": None, "revision": None,
                                   "revision_time": None, "node": None}
    pkg: str | None = None
    packages: set[str] = set()  # of the current run
    records: list[dict[str, Any]] = []
    record = p.record
    position = 0
    for lineno, raw, started_at in lines:
        line = raw.rstrip()
        if line.startswith("Benchmark") and _LOOKS_LIKE_RESULT.match(line):
            name, procs, iterations, metrics = _result(line, source, lineno)
            settings: dict[str, Any] = {"procs": procs}
            if pkg is not None:
                settings["pkg"] = pkg
                packages.add(pkg)
            attributes = {**extra, "iterations": iterations, "line": lineno}
            stamp = started_at or keys["started_at"]
            node, revision, revision_time = keys["node"], keys["revision"], keys["revision_time"]
            for unit, number in metrics:  # (value: the text of a configuration line)
                records.append(record(
                    run_id=run_id, run_index=run_index, position=position, benchmark=name,
                    settings=settings, metric=unit, unit=unit,
                    higher_is_better=direction(unit), values=[number], env=env,
                    started_at=stamp, node=node, revision=revision,
                    revision_time=revision_time, attributes=attributes))
            position += 1
            continue
        failed = _FAIL.match(line)
        if failed:
            records.append(record(
                run_id=run_id, run_index=run_index, position=position,
                benchmark=failed.group(1),
                settings={"pkg": pkg} if pkg is not None else {}, metric="ns/op",
                unit="ns/op", higher_is_better=False, values=[], status="failed",
                env=env, started_at=started_at or keys["started_at"], node=keys["node"],
                revision=keys["revision"], revision_time=keys["revision_time"],
                attributes={**extra, "line": lineno}))
            position += 1
            continue
        config = _CONFIG.match(line)
        if config and config.group(2) is not None:
            key, value = config.group(1), config.group(2)
            new_run = position > 0 and (
                (key == "pkg" and value in packages)
                or (key in TIME_KEYS and _time(value) not in (None, keys["started_at"])))
            if new_run:
                run_index += 1
                run_id = f"gotest-{digest}-{run_index}"
                position, packages = 0, set()
            if key in ENV_KEYS:
                env = {**(env or {}), ENV_KEYS[key]: value}
            elif key == "pkg":
                pkg = value
            else:
                extra = {**extra, key: value}
                field = ("started_at" if key in TIME_KEYS else
                         "revision_time" if key in REVISION_TIME_KEYS else
                         "revision" if key in REVISION_KEYS else
                         "node" if key in NODE_KEYS else None)
                if field in ("started_at", "revision_time"):
                    keys[field] = _time(value) or keys[field]
                elif field is not None:
                    keys[field] = value
    return p.finish(records, source)


def _time(text: str) -> str | None:
    """An ISO 8601 / RFC 3339 time of a configuration line as RFC 3339 (UTC without an
    offset), or None when it is not one."""
    return jsondoc.rfc3339(text) if text[:1].isdigit() else None


def _test2json_lines(text: str, source: str) -> list[tuple[int, str, str | None]]:
    """(line of the first event, text line, its Time) of ``go test -json`` output: the
    ``Output`` of ``output`` events joined per package (packages may interleave)."""
    partial: dict[str, tuple[int, str, str | None]] = {}
    out: list[tuple[int, str, str | None]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            event = numbers.loads(raw)
        except numbers.HugeNumber as exc:
            raise numbers.huge_number_error(exc, source, lineno) from None
        except ValueError as exc:
            raise TrialParseError(source, lineno, "invalid-json",
                                  f"not a go test -json event: {exc}") from None
        if not isinstance(event, dict):
            raise TrialParseError(source, lineno, "wrong-type",
                                  "a go test -json line must be an object")
        if event.get("Action") != "output":
            continue
        output = event.get("Output")
        if not isinstance(output, str):
            raise TrialParseError(source, lineno, "wrong-type",
                                  "$.Output of an output event must be a string")
        stamp = event.get("Time")
        stamp = _FRACTION.sub(r"\1", stamp) if isinstance(stamp, str) else None
        package = str(event.get("Package", ""))
        first, buffered, time = partial.pop(package, (lineno, "", stamp))
        pieces = (buffered + output).split("\n")
        for piece in pieces[:-1]:
            out.append((first, piece, time))
            first, time = lineno, stamp
        if pieces[-1]:
            partial[package] = (first, pieces[-1], time)
    out.extend(partial.values())
    return out


def _result(line: str, source: str, lineno: int) -> tuple[str, int, int, list[tuple[str, float]]]:
    """(name, procs, iterations, [(unit, value), ...]) of a result line, or
    ``malformed-line`` naming the line."""
    fields = line.split()
    if len(fields) >= 4 and not len(fields) % 2 and _is_count(fields[1]):
        try:  # the common case, checked in full below only if this fails
            units = fields[3::2]
            metrics = [(u, float(v)) for v, u in zip(fields[2::2], units)]
            if len(set(units)) == len(units) and all(
                    math.isfinite(v) for _u, v in metrics) and _NAME.fullmatch(fields[0]):
                suffix = _PROCS.match(fields[0])
                if suffix:
                    return suffix.group(1), int(suffix.group(2)), int(fields[1]), metrics
                return fields[0], 1, int(fields[1]), metrics
        except ValueError:
            pass

    def bad(why: str) -> TrialParseError:
        shown = line if len(line) <= 100 else line[:97] + "..."
        return TrialParseError(source, lineno, "malformed-line", f"{why}: {shown!r}")

    full = fields[0]
    if not _NAME.fullmatch(full):
        raise bad("not a benchmark name")
    suffix = _PROCS.match(full)
    name, procs = ((suffix.group(1), numbers.parse_int(suffix.group(2), source, lineno, 'procs'))
                   if suffix else (full, 1))
    if not _is_count(fields[1]):
        raise bad(f"the iteration count {fields[1]!r} is not a whole number")
    rest = fields[2:]
    if not rest:
        raise bad("a result line needs at least one 'value unit' pair")
    if len(rest) % 2:
        raise bad("values and units do not pair up")
    metrics = []
    seen = set()
    for value_text, unit in zip(rest[::2], rest[1::2]):
        try:
            value = float(value_text)
        except ValueError:
            raise bad(f"{value_text!r} is not a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise bad(f"{value_text!r} is not a finite number")
        if unit in seen:
            raise bad(f"the unit {unit!r} appears twice")
        seen.add(unit)
        metrics.append((unit, value))
    return name, procs, numbers.parse_int(fields[1], source, lineno, 'the iteration count'), metrics


@lru_cache(maxsize=1024)
def direction(unit: str) -> bool | None:
    """Whether higher is better for a Go benchmark unit (None when the unit does not say)."""
    if unit in ("B/op", "allocs/op"):
        return False
    if unit.endswith("/s"):
        return True
    if unit.split("/")[0] in ("ns", "us", "µs", "ms", "s", "sec") and unit.endswith("/op"):
        return False
    return None


def _is_count(text: str) -> bool:
    return text.isascii() and text.isdigit()
