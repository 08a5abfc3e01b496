"""wrk 4 and wrk2 text output (``--latency``): one file = one trial at one load level.

* ``Running 2s test @ URL`` -> benchmark = the URL (the system under test and its
  workload: trials of one URL from several files form one curve);
* ``T threads and C connections``: wrk 4 is a closed loop (each connection waits for its
  response, no think time): the load is ``clients`` = C (``loop=closed, clients=C,
  think_time_s=0``). wrk2 (recognised by its ``Thread calibration`` lines, its
  HdrHistogram distribution, its ``Detailed Percentile spectrum`` or ``-R`` on its
  command line) sends at a constant rate: an open loop, the load is ``rate_rps`` = R
  (``loop=open``). T and C are the generator's, not the load's: attributes ``threads``
  and ``connections`` (so they never split a sweep into one family per level);
* the command line saved above ``Running`` (``$ wrk2 -t2 -c100 -R80000 URL``, ``Executing
  command: ./wrk ...``, inside a Markdown code fence): wrk2 does not print its rate, so
  ``-R``/``--rate`` there gives ``rate_rps``; without it pass ``--setting rate_rps=R``;
* ``Thread Stats Latency`` Avg/Max -> ``mean``/``max`` (ms); Stdev and the ``Req/Sec``
  row -> attributes;
* ``Latency Distribution`` lines -> ``p50``, ``p90``, ``p99`` (and ``p99.9`` from wrk2)
  and the trial's latency percentiles; wrk2's ``Detailed Percentile spectrum`` (the
  HdrHistogram percentile spectrum, values in ms) replaces them as the distribution;
* ``N requests in 2.10s`` -> ``requests``, ``duration_s``; ``Requests/sec`` ->
  ``throughput``; ``Socket errors`` + ``Non-2xx or 3xx responses`` -> ``errors``
  (wrk prints them only when non-zero, so absent means 0). A negative number is refused.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import numbers
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats import _text as text
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "wrk"
DESCRIPTION = "wrk 4 / wrk2 text output (with --latency): one trial (load level) per file"

_RUNNING = re.compile(r"Running (\S+) test @ (\S+)\s*")
_THREADS = re.compile(r"\s*(\d+) threads and (\d+) connections\s*")
_STAT = re.compile(r"\s*(Latency|Req/Sec)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)%\s*")
_DISTRIBUTION = re.compile(r"\s*(\d+(?:\.\d+)?)%\s+(\S+)\s*")
_SPECTRUM_ROW = re.compile(r"\s*(\S+)\s+(\S+)\s+(\d+)\s+(\S+)\s*")
_TOTAL = re.compile(r"\s*(\d+) requests in (\S+), (\S+) read\s*")
_SOCKET = re.compile(r"\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)\s*")
_NON_2XX = re.compile(r"\s*Non-2xx or 3xx responses: (\d+)\s*")
_RPS = re.compile(r"Requests/sec:\s*(\S*)\s*")
_TRANSFER = re.compile(r"Transfer/sec:\s*(\S*)\s*")


_TOOLS = ("wrk", "wrk2")
_OWN = (_RUNNING, _THREADS, _STAT, _DISTRIBUTION, _TOTAL, _SOCKET, _NON_2XX, _RPS, _TRANSFER,
        re.compile(r"\s*[0-9.]+\s+[0-9.]+\s+\d+\s+\S+\s*"))  # a spectrum row
_OWN_PREFIXES = ("Thread Stats", "Thread calibration", "Latency Distribution",
                 "Detailed Percentile spectrum", "Value ", "#[", "----")


def _is_running(lines: list[str], index: int) -> bool:
    return _RUNNING.fullmatch(lines[index].strip()) is not None


def _is_start(lines: list[str], index: int) -> bool:
    """``Running ... test @ URL`` with ``T threads and C connections`` next (or nothing:
    a file cut there)."""
    if not _is_running(lines, index):
        return False
    following = text.next_nonblank(lines, index)
    return following is None or _THREADS.fullmatch(following) is not None


def _is_own(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(_OWN_PREFIXES) or any(p.fullmatch(line) for p in _OWN)


def command_of(line: str, tools: tuple[str, ...] = _TOOLS) -> list[str] | None:
    """The arguments in a saved command line that runs one of ``tools`` (``$ wrk2 -R2000
    ...``), or in a line of bare arguments (``-t64 -c64 -d60s -R2000 --latency
    http://...``: options first, a URL among them); None otherwise. After the tool's name
    comes an option or a URL (``hey against nginx`` is a label, not a command)."""
    tokens = lt.command_tokens(line, tools)
    if tokens is not None and (not tokens or tokens[0].startswith("-") or "://" in tokens[0]):
        return tokens
    words = line.split()
    if words and words[0].startswith("-") and any("://" in w for w in words):
        try:
            return shlex.split(line)
        except ValueError:
            return words
    return None


def sniff(head: bytes, filename: str) -> bool:
    return text.starts_within(text.lines_of(head), _is_start) is not None


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    lines, bad = text.decode(data, source)
    runs, notes = text.split_runs(lines, bad, source, _is_running, _is_own,
                                  "'Running ... test @ URL' line: is this wrk output?",
                                  marker="Running")
    records: list[dict[str, Any]] = []
    run = lt.run_id(NAME, data)
    for position, found_run in enumerate(runs):
        records += _parse_run(lines, found_run, source, run, position, notes)
    return lt.finish(records)


def _parse_run(lines: list[str], run: text.Run, source: str, run_id: str, position: int,
               notes: list[str]) -> list[dict[str, Any]]:
    found: dict[str, Any] = {}
    distribution: list[tuple[float, float]] = []
    spectrum: list[list[float]] = []
    attributes: dict[str, Any] = {}
    section = None
    errors = 0.0
    command = None
    for lineno, above in run.preamble:
        if (tokens := command_of(above)) is not None:
            command, found["command_line"] = tokens, lineno
    label = run.label(lambda line: command_of(line) is not None)
    if label:
        attributes["label"] = label
    if notes:
        attributes["notes"] = notes
    for index in range(run.start, run.end):
        lineno = index + 1
        line = lines[index].rstrip()
        if not line.strip():
            if section == "distribution":
                section = None
            continue
        if m := _RUNNING.fullmatch(line.strip()):
            found["url"], attributes["nominal_duration"] = m.group(2), m.group(1)
            found["running_line"] = lineno
        elif m := _THREADS.fullmatch(line):
            found["threads"], found["connections"] = (
                numbers.parse_int(m.group(1), source, lineno, "threads"),
                numbers.parse_int(m.group(2), source, lineno, "connections"))
        elif "Thread calibration" in line:
            found["wrk2"] = True
        elif m := _STAT.fullmatch(line):
            if m.group(1) == "Latency":
                found["mean"] = lt.duration_ms(m.group(2), source, lineno, "latency avg")
                attributes["latency_stdev_ms"] = lt.duration_ms(m.group(3), source, lineno,
                                                                "latency stdev")
                found["max"] = lt.duration_ms(m.group(4), source, lineno, "latency max")
            else:
                attributes["thread_req_per_s"] = {"avg": m.group(2), "stdev": m.group(3),
                                                  "max": m.group(4)}
        elif line.strip().startswith("Latency Distribution"):
            section = "distribution"
            if "HdrHistogram" in line:
                found["wrk2"] = True
        elif line.strip().startswith("Detailed Percentile spectrum"):
            section, found["wrk2"] = "spectrum", True
        elif section == "distribution" and (m := _DISTRIBUTION.fullmatch(line)):
            q = lt.number(m.group(1), source, lineno, "percentile")
            distribution.append((q, lt.duration_ms(m.group(2), source, lineno, f"p{m.group(1)}")))
        elif section == "spectrum" and line.strip().startswith("Value"):
            continue
        elif section == "spectrum" and (m := _SPECTRUM_ROW.fullmatch(line)):
            value = lt.number(m.group(1), source, lineno, "spectrum value")
            fraction = lt.number(m.group(2), source, lineno, "spectrum percentile")
            if not 0.0 <= fraction <= 1.0:
                raise TrialParseError(source, lineno, "wrong-type",
                                      f"spectrum percentile {m.group(2)} is not in [0, 1]")
            spectrum.append([fraction * 100.0, value])
        elif line.startswith("#[") or line.startswith("----"):
            section = None
            attributes.setdefault("hdr_summary", []).append(line.strip())
        elif m := _TOTAL.fullmatch(line):
            found["requests"] = float(m.group(1))
            found["duration_s"] = lt.duration_ms(m.group(2), source, lineno, "duration") / 1e3
            attributes["bytes_read"] = m.group(3)
        elif m := _SOCKET.fullmatch(line):
            counts = [numbers.parse_int(g, source, lineno, "socket errors") for g in m.groups()]
            attributes["socket_errors"] = dict(zip(("connect", "read", "write", "timeout"),
                                                   counts))
            errors += sum(counts)
        elif m := _NON_2XX.fullmatch(line):
            attributes["non_2xx_3xx"] = numbers.parse_int(m.group(1), source, lineno,
                                                          "non-2xx or 3xx responses")
            errors += attributes["non_2xx_3xx"]
        elif m := _RPS.fullmatch(line):
            found["throughput"] = lt.number(m.group(1), source, lineno, "Requests/sec")
        elif m := _TRANSFER.fullmatch(line):
            attributes["transfer_per_s"] = m.group(1)
        elif section == "spectrum":
            raise TrialParseError(source, lineno, "wrong-type",
                                  f"a spectrum row must be 'value percentile count 1/(1-p)', "
                                  f"got {line.strip()[:40]!r}")
    if command is not None:
        rate = lt.option_value(command, "-R", "--rate")
        if rate is not None:
            found["rate"] = lt.number(rate, source, found["command_line"], "the rate -R")
            found["wrk2"] = True
        attributes["command"] = " ".join(command)
    return _records(lines, source, run_id, position, found, distribution, spectrum,
                    attributes, errors)




def _records(lines: list[str], source: str, run_id: str, position: int, found: dict[str, Any],
             distribution: list[tuple[float, float]], spectrum: list[list[float]],
             attributes: dict[str, Any], errors: float) -> list[dict[str, Any]]:
    if "running_line" not in found:
        raise TrialParseError(source, 1, "missing-field",
                              "no 'Running ... test @ URL' line: is this wrk output?")
    if "requests" not in found or "throughput" not in found:
        raise TrialParseError(source, len("\n".join(lines).splitlines()), "truncated",
                              "the output ends before wrk's summary "
                              "('N requests in ...' and 'Requests/sec:')")
    if "threads" not in found:
        raise TrialParseError(source, found["running_line"] + 1, "missing-field",
                              "no 'T threads and C connections' line")
    if "mean" not in found:
        raise TrialParseError(source, 0, "missing-field", "no 'Thread Stats ... Latency' line")
    wrk2 = found.get("wrk2", False)
    attributes.update(threads=found["threads"], connections=found["connections"])
    settings: dict[str, Any] = {"generator": "wrk2" if wrk2 else "wrk"}
    if wrk2:
        settings.update(lt.open_loop(found.get("rate")))
    else:
        settings.update(lt.closed_loop(found["connections"], 0))
    metrics: dict[str, float | None] = {
        "throughput": found["throughput"], "requests": found["requests"], "errors": errors,
        "duration_s": found["duration_s"], "mean": found["mean"], "max": found["max"],
    }
    for q, value in distribution:
        if q in lt.PERCENTILE_METRICS:
            metrics[lt.PERCENTILE_METRICS[q]] = value
    latency = None
    if spectrum:
        latency = {"unit": "ms", "percentiles": spectrum}
    elif distribution:
        latency = {"unit": "ms", "percentiles": [[q, v] for q, v in distribution]}
    return lt.trial_records(
        run=run_id, position=position, benchmark=found["url"], settings=settings,
        metrics=metrics, duration_s=found["duration_s"], latency=latency,
        attributes=attributes, source=source)
