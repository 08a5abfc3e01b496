"""Gatling ``simulation.log`` (the text log of Gatling 2.0 to 3.x): one trial per simulation run.

Gatling writes one tab-separated record per line into
``results/<simulation>-<time>/simulation.log``: ``RUN`` (the simulation), ``USER``
(a virtual user starts or ends), ``REQUEST`` (one request: name, start and end in ms
since 1970, ``OK``/``KO``, message), ``GROUP``, ``ERROR`` (a crash outside a request)
and ``ASSERTION``. A trial is one simulation run, from its ``RUN`` record to the next
one (a file holding several runs, such as the logs of several injectors appended for
one report, gives one trial per run, ``position`` 0, 1, ... in the file's order):

* ``requests`` = ``REQUEST`` records; ``errors`` = those with status ``KO`` (Gatling's
  "ko" count);
* ``duration_s`` = from the first user start or request start to the last user end or
  request end (the span Gatling's report reads); ``throughput`` = requests / duration_s
  (Gatling's "mean requests/sec", which divides by the span rounded out to whole
  seconds);
* each request's response time (end - start, ms; in 2.0 and 2.1, which log four times,
  response end - request start) -> the trial's latency ``samples`` (ms) and ``mean``,
  ``min``, ``max``, ``p50``, ``p90``, ``p95``, ``p99``, ``p99.9`` (nearest rank over
  every request, OK and KO, exact where Gatling's report estimates them with a
  t-digest and rounds to whole ms);
* started_at = the ``RUN`` record's start (ms since 1970); Gatling 2.0 writes a local
  time without a zone there, so its runs take the first user or request start instead;
* benchmark = ``gatling <simulation class>``; settings: ``generator=gatling`` only.
  The log does not hold the injection profile (``constantUsersPerSec``,
  ``constantConcurrentUsers`` ...), so no load is set: pass ``--setting loop=closed
  --setting clients=N`` (closed model) or ``--setting loop=open --setting rate_rps=R``
  (open model, in requests/s). What the log
  shows of the users is kept as attributes: ``users`` (users started),
  ``max_active_users`` (most users alive at one instant) and ``scenarios`` (users
  started per scenario);
* attributes also hold ``simulation_id``, ``description`` (``-rd``, when given),
  ``gatling_version`` (as the ``RUN`` record writes it: every 2.x writes ``2.0``),
  ``log_columns`` (the column layout read, below), ``requests_by_name``, ``groups``
  (``GROUP`` records, not counted as requests) and ``error_records`` (``ERROR``
  records: crashes outside a request, which Gatling's report lists but does not count
  as requests).

The columns changed with Gatling's versions; each run's layout is told from its
``RUN`` record and its first ``REQUEST`` record (where the ``OK``/``KO`` status sits):

==========  ==============================================================
columns     ``REQUEST`` record
==========  ==============================================================
2.0         ``scenario, user, REQUEST, groups, name, request start, request
            end, response start, response end, status, message`` (the type
            third; ``RUN`` has a local ``yyyyMMddHHmmss`` time)
2.1         ``REQUEST, scenario, user, groups, name, request start, request
            end, response start, response end, status, message``
2.2         ``REQUEST, scenario, user, groups, name, start, end, status,
            message`` (2.2 and 2.3; 2.3's ``RUN`` has one more field)
3.0         ``REQUEST, user, groups, name, start, end, status, message``
            (3.0 to 3.3)
3.4         ``REQUEST, groups, name, start, end, status, message`` (3.4 on;
            ``USER`` records hold one time)
==========  ==============================================================

Refused in one line: a record of another type or with other columns, a status other
than ``OK``/``KO``, an end before its start, a time outside 1970-9999, a ``REQUEST``
before any ``RUN``, a run without requests, and a last line without its line end (the
run was killed while writing: remove that line to read the rest). Since late 2024
(gatling/gatling#4596) Gatling writes a binary ``simulation.log``: it is recognised
and refused in one line naming the Gatling version that wrote it.

**The report's numbers** (``js/global_stats.json`` or ``js/stats.json``, when named):
:mod:`perfwarehouse.ingest.formats.gatling_report`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import times
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats.gatling_report import report_records
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "gatling"
DESCRIPTION = ("Gatling simulation.log (text log of Gatling 2.0-3.x): one trial per "
               "simulation run; or the report's global_stats.json, when named")

STATUSES = ("OK", "KO")
RECORD_TYPES = ("RUN", "USER", "REQUEST", "GROUP", "ERROR", "ASSERTION")

#: column layout -> indices of (name, start, end, status) in a REQUEST record's fields
LAYOUTS: dict[str, tuple[int, int, int, int]] = {
    "3.4": (2, 3, 4, 5),
    "3.0": (3, 4, 5, 6),
    "2.2": (4, 5, 6, 7),
    "2.1": (4, 5, 8, 9),
}
LAYOUT_20 = (4, 5, 8, 9)  # the scenario-first layout of Gatling 2.0

_VERSION = re.compile(rb"\d+\.\d+(?:\.\d+)?[\w.\-]*")
_LOCAL_STAMP = re.compile(r"[0-9]{14}")


def binary_version(head: bytes) -> str | None:
    """The Gatling version a binary ``simulation.log`` starts with (its ``RUN`` record:
    header byte 0, then the version as a big-endian int32 length and its bytes), or None
    when ``head`` is not one."""
    if len(head) < 8 or head[0] != 0:
        return None
    length = int.from_bytes(head[1:5], "big")
    version = head[5:5 + length]
    if not 3 <= length <= 32 or _VERSION.fullmatch(version) is None:
        return None
    return version.decode("ascii")


def _digits(text: str) -> bool:
    """Whether ``text`` is ASCII digits only (``str.isdigit`` also takes "²" and "٣",
    which ``float`` then refuses)."""
    return text.isascii() and text.isdigit()


def _is_run(fields: list[str]) -> bool:
    """Whether the fields of a line make a ``RUN`` record of any version."""
    if fields[0] == "RUN" and len(fields) in (6, 7):
        return _digits(fields[len(fields) - 3])
    return len(fields) >= 5 and fields[2] == "RUN" and _LOCAL_STAMP.fullmatch(fields[3]) is not None


def sniff(head: bytes, filename: str) -> bool:
    if binary_version(head) is not None:
        return True
    for line in head[:8192].decode("utf-8", "replace").splitlines():
        if not line.strip() or line.startswith("ASSERTION\t"):
            continue
        return _is_run(line.rstrip("\r").split("\t"))
    return False


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    if data.lstrip()[:1] == b"{":
        return lt.finish(report_records(data, source))  # the report's numbers
    version = binary_version(data[:64])
    if version is not None:
        raise TrialParseError(source, 0, "unsupported-format",
                              f"this is Gatling's binary simulation.log (written by Gatling "
                              f"{version}), which perfwarehouse cannot read: it reads the text "
                              "simulation.log Gatling wrote before its binary one "
                              "(gatling/gatling#4596, late 2024)")
    text = lt.decode(data, source)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    elif lines[-1].strip():
        raise TrialParseError(source, len(lines), "truncated",
                              "the last line has no line end: the run was killed while "
                              "writing it; remove that line to read the rest")
    run = lt.run_id(NAME, data)
    runs: list[_Run] = []
    for index, raw in enumerate(lines):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip():
            continue
        fields = line.split("\t")
        lineno = index + 1
        kind = fields[2] if len(fields) > 2 and fields[2] in ("RUN", "USER", "REQUEST", "GROUP") \
            and fields[0] not in RECORD_TYPES else fields[0]
        if kind == "RUN":
            if not _is_run(fields):
                raise TrialParseError(source, lineno, "wrong-type",
                                      f"this RUN record ({len(fields)} fields) is not one of "
                                      "Gatling's RUN layouts (6 or 7 fields, the start in ms "
                                      "since 1970 third from the end)")
            runs.append(_Run(fields, lineno, source))
        elif kind == "ASSERTION":
            continue  # written before its RUN record; Gatling's pass/fail criteria
        elif kind not in RECORD_TYPES:
            raise TrialParseError(source, lineno, "wrong-type",
                                  f"unknown record type {kind[:40]!r} (Gatling writes "
                                  f"{', '.join(RECORD_TYPES)})")
        elif not runs:
            raise TrialParseError(source, lineno, "missing-field",
                                  f"a {kind} record before any RUN record: is the start of "
                                  "the log missing?")
        else:
            runs[-1].add(kind, fields, lineno)
    if not runs:
        raise TrialParseError(source, 0, "missing-field", "no RUN record: not a Gatling "
                              "simulation.log")
    records: list[dict[str, Any]] = []
    for position, one in enumerate(runs):
        records += one.records(run, position)
    return lt.finish(records)


class _Run:
    """The records of one simulation run, read line by line."""

    def __init__(self, fields: list[str], lineno: int, source: str) -> None:
        self.source = source
        self.lineno = lineno
        self.scenario_first = fields[0] != "RUN"  # Gatling 2.0
        self.layout: str | None = "2.0" if self.scenario_first else None
        self.columns: tuple[int, int, int, int] | None = LAYOUT_20 if self.scenario_first \
            else None
        if self.scenario_first:
            self.simulation, self.simulation_id = fields[0], fields[1]
            self.start_ms: float | None = None
            self.description = fields[4] if len(fields) > 4 else ""
            self.version = "2.0"
            self.local_stamp = fields[3]
        else:
            self.simulation = fields[1]
            self.simulation_id = fields[-4] if len(fields) == 7 else fields[2]
            self.start_ms = times.check_epoch_ms(float(fields[-3]), source, lineno,
                                                 "the RUN record's start")
            self.description = fields[-2]
            self.version = fields[-1].strip()
        self.elapsed: list[float] = []
        self.errors = 0
        self.first_ms = float("inf")
        self.last_ms = float("-inf")
        self.names: Counter[str] = Counter()
        self.scenarios: Counter[str] = Counter()
        self.user_events: list[tuple[float, int]] = []  # (ms, +1 start / -1 end)
        self.groups = 0
        self.error_records = 0

    def _time(self, text: str, lineno: int, what: str) -> float:
        if not _digits(text):
            raise TrialParseError(self.source, lineno, "wrong-type",
                                  f"{what} {text[:40]!r} is not a time in ms since 1970")
        return times.check_epoch_ms(float(text), self.source, lineno, what)

    def _span(self, start: float, end: float) -> None:
        if start < self.first_ms:
            self.first_ms = start
        if end > self.last_ms:
            self.last_ms = end

    def add(self, kind: str, fields: list[str], lineno: int) -> None:
        if kind == "REQUEST":
            self._request(fields, lineno)
        elif kind == "USER":
            self._user(fields, lineno)
        elif kind == "GROUP":
            self.groups += 1
        else:
            self.error_records += 1

    def _request(self, fields: list[str], lineno: int) -> None:
        if self.columns is None:
            self.layout = next((name for name, (_n, s, e, st) in LAYOUTS.items()
                                if len(fields) > st and fields[st] in STATUSES
                                and _digits(fields[s]) and _digits(fields[e])), None)
            if self.layout is None:
                raise TrialParseError(self.source, lineno, "wrong-type",
                                      f"this REQUEST record ({len(fields)} fields) has none "
                                      "of Gatling's column layouts (no OK/KO status after "
                                      "two times)")
            self.columns = LAYOUTS[self.layout]
        name_at, start_at, end_at, status_at = self.columns
        if len(fields) <= status_at:
            raise TrialParseError(self.source, lineno, "wrong-type",
                                  f"this REQUEST record has {len(fields)} fields, Gatling "
                                  f"{self.layout}'s have at least {status_at + 1}")
        status = fields[status_at]
        if status not in STATUSES:
            raise TrialParseError(self.source, lineno, "wrong-type",
                                  f"status {status[:40]!r} is not OK or KO (the columns of "
                                  f"Gatling {self.layout})")
        start = self._time(fields[start_at], lineno, "the request's start")
        end = self._time(fields[end_at], lineno, "the request's end")
        if end < start:
            raise TrialParseError(self.source, lineno, "negative",
                                  f"the request ends {start - end:g} ms before it starts")
        self.elapsed.append(end - start)
        self.errors += status == "KO"
        self.names[fields[name_at]] += 1
        self._span(start, end)

    def _user(self, fields: list[str], lineno: int) -> None:
        if self.scenario_first:  # scenario, user, USER, START|END, start, end
            event, scenario, at = (fields[3] if len(fields) > 5 else ""), fields[0], 4
        elif len(fields) >= 4 and fields[2] in ("START", "END"):  # USER, scenario, event, time
            event, scenario, at = fields[2], fields[1], 3
        else:  # USER, scenario, user, event, start, end
            event, scenario, at = (fields[3] if len(fields) > 5 else ""), fields[1], 4
        if event not in ("START", "END"):
            raise TrialParseError(self.source, lineno, "wrong-type",
                                  f"this USER record ({len(fields)} fields) has no START or "
                                  "END event where Gatling writes it")
        if at == 4 and event == "END":
            at = 5  # the user's end; field 4 repeats its start
        moment = self._time(fields[at], lineno, f"the user's {event.lower()}")
        if event == "START":
            self.scenarios[scenario] += 1
            self.user_events.append((moment, 1))
        else:
            self.user_events.append((moment, -1))
        self._span(moment, moment)

    def max_active_users(self) -> int:
        """The most users alive at one instant (an end at the instant of a start first)."""
        active = peak = 0
        for _moment, step in sorted(self.user_events):
            active += step
            peak = max(peak, active)
        return peak

    def records(self, run: str, position: int) -> list[dict[str, Any]]:
        if not self.elapsed:
            raise TrialParseError(self.source, self.lineno, "empty",
                                  "this run (its RUN record here) holds no REQUEST record")
        span_s = (self.last_ms - self.first_ms) / 1e3
        ordered = sorted(self.elapsed)
        metrics: dict[str, float | None] = {
            "throughput": len(ordered) / span_s if span_s > 0 else None,
            "requests": float(len(ordered)), "errors": float(self.errors),
            "duration_s": span_s, "mean": sum(ordered) / len(ordered),
            "min": ordered[0], "max": ordered[-1]}
        for q, name in lt.PERCENTILE_METRICS.items():
            metrics[name] = lt.nearest_rank(ordered, q)
        attributes: dict[str, Any] = {
            "simulation_id": self.simulation_id, "gatling_version": self.version,
            "log_columns": self.layout, "users": sum(self.scenarios.values()),
            "max_active_users": self.max_active_users(), "scenarios": dict(self.scenarios),
            "requests_by_name": dict(self.names), "groups": self.groups,
            "error_records": self.error_records}
        if self.description.strip():
            attributes["description"] = self.description.strip()
        if self.scenario_first:
            attributes["run_local_time"] = self.local_stamp
        start_ms = self.start_ms if self.start_ms is not None else self.first_ms
        return lt.trial_records(
            run=run, position=position, benchmark=f"gatling {self.simulation}",
            settings={"generator": "gatling"}, metrics=metrics,
            started_at=times.rfc3339_from_epoch_ms(start_ms, self.source, self.lineno),
            duration_s=span_s, latency={"unit": "ms", "samples": self.elapsed},
            attributes=attributes, source=self.source, line=self.lineno)
