"""What the load-generator parsers share: one trial -> its metric records, units, checks.

Not a format (no ``NAME``): the helpers of ``wrk``, ``hey``, ``redis-benchmark``,
``sysbench``, ``locust``, ``jmeter`` and ``k6``. A load-test trial is one run of a load
generator at one load level (the vocabulary of the essay "On Performance Evaluation":
section "Load Generator" for open and closed loops, section "Operational laws" for
T, C, X and R). Its settings say the load
(``loop`` = ``open`` with ``rate_rps``, or ``closed`` with ``clients`` and
``think_time_s``); each measured quantity is one record with ``values = [x]``:

============  ========  =================  ==============================================
metric        unit      higher_is_better   meaning
============  ========  =================  ==============================================
throughput    req/s     true               completions per second (X)
arrival_rate  req/s     null               requests sent per second (lambda), when known
requests      requests  null               completed requests (C)
errors        requests  false              failed requests (socket errors, non-2xx/3xx)
duration_s    s         null               measured period (T)
mean ... max  ms        false              response time: mean, p50, p90, p95, p99,
                                           p99.9, min, max
============  ========  =================  ==============================================

The trial's ``throughput`` record carries the latency distribution when the tool
gives one, as ``latency = {"unit": "ms", "percentiles": [[q, v], ...]}`` (q in
[0, 100]) or ``{"unit": "ms", "samples": [...]}``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
import shlex
from collections.abc import Sequence
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import times

#: metric -> (unit, higher_is_better), in the order records are emitted.
METRICS: dict[str, tuple[str, bool | None]] = {
    "throughput": ("req/s", True),
    "arrival_rate": ("req/s", None),
    "requests": ("requests", None),
    "errors": ("requests", False),
    "duration_s": ("s", None),
    "mean": ("ms", False),
    "p50": ("ms", False),
    "p90": ("ms", False),
    "p95": ("ms", False),
    "p99": ("ms", False),
    "p99.9": ("ms", False),
    "min": ("ms", False),
    "max": ("ms", False),
}

#: Percentile (in %) -> metric name, for the percentiles that get their own record.
PERCENTILE_METRICS = {50.0: "p50", 90.0: "p90", 95.0: "p95", 99.0: "p99", 99.9: "p99.9"}

# unit -> (multiply, divide) to get ms; dividing keeps 103.00us == 0.103 exactly
_TIME_UNITS_MS = {"ns": (1.0, 1e6), "us": (1.0, 1e3), "µs": (1.0, 1e3), "ms": (1.0, 1.0),
                  "s": (1e3, 1.0), "m": (60e3, 1.0), "h": (3600e3, 1.0)}


def decode(data: bytes, source: str) -> str:
    """The file as text; refuses an empty file and broken UTF-8 (naming the line)."""
    if not data.strip():
        raise TrialParseError(source, 0, "empty", "the file is empty")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TrialParseError(source, line, "broken-utf8", "invalid UTF-8 in this line") from None


def csv_rows(text: str, source: str, delimiter: str = ",") -> list[tuple[int, list[str]]]:
    """The non-empty rows of a CSV text (fields split at ``delimiter``) with their line
    numbers; ``truncated`` when a quoted field does not end."""
    reader = csv.reader(io.StringIO(text), strict=True, delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    try:
        for row in reader:
            if row:
                rows.append((reader.line_num, row))
    except csv.Error as exc:
        raise TrialParseError(source, reader.line_num, "truncated",
                              f"a quoted field does not end ({exc})") from None
    return rows


def csv_dicts(text: str, source: str, header: Sequence[str], rows: list[tuple[int, list[str]]],
              layout: str = "the header") -> list[tuple[int, dict[str, str]]]:
    """The data ``rows`` (from :func:`csv_rows`) as dicts keyed by ``header``. A row of
    another width is ``truncated`` when it is the last and shorter (the file was cut), else
    ``wrong-type`` ("this row has 3 fields, ``layout`` 5"); a text without a final line end
    is ``truncated``."""
    out: list[tuple[int, dict[str, str]]] = []
    for index, (lineno, row) in enumerate(rows):
        if len(row) != len(header):
            last = index == len(rows) - 1
            raise TrialParseError(source, lineno, "truncated" if last and len(row) < len(header)
                                  else "wrong-type",
                                  f"this row has {len(row)} fields, {layout} {len(header)}")
        out.append((lineno, dict(zip(header, row))))
    if not text.endswith("\n") and out:
        raise TrialParseError(source, out[-1][0], "truncated",
                              "the last row has no line end: the file was cut")
    return out


def run_id(name: str, data: bytes) -> str:
    """A run id that is the same whenever the same file is ingested (its content hash)."""
    return f"{name}-{hashlib.sha256(data).hexdigest()[:16]}"


def number(text: str, source: str, line: int, what: str) -> float:
    """A finite number >= 0 (every count, rate, time and percentile a load generator
    prints is one), or ``wrong-type`` / ``non-finite`` / ``negative`` naming ``what``."""
    try:
        value = float(text.strip())
    except (ValueError, AttributeError):
        raise TrialParseError(source, line, "wrong-type",
                              f"{what} {str(text).strip()[:40]!r} is not a number") from None
    if not math.isfinite(value):
        raise TrialParseError(source, line, "non-finite", f"{what} is {text.strip()!r}")
    return non_negative(value, source, line, what)


def duration_ms(text: str, source: str, line: int, what: str) -> float:
    """``'776.33us'``, ``'2.10s'``, ``'1.00m'`` ... in milliseconds."""
    m = re.fullmatch(r"\s*([-+0-9.eE]+)\s*(ns|us|µs|ms|s|m|h)\s*", text)
    if not m:
        raise TrialParseError(source, line, "wrong-type",
                              f"{what} {text.strip()[:40]!r} is not a time (number + unit)")
    multiply, divide = _TIME_UNITS_MS[m.group(2)]
    return number(m.group(1), source, line, what) * multiply / divide


def seconds_to_ms(value: float) -> float:
    """Seconds as printed (a few decimals) -> ms, without binary noise (1.7, not 1.7000000000000002)."""
    return round(value * 1e3, 9)


def integral(value: float) -> int | float:
    """Integers stay integers in settings (``clients: 4``, not ``4.0``)."""
    return int(value) if float(value).is_integer() else value


def rfc3339(epoch_s: float, source: str = "", line: int = 0, what: str = "time") -> str:
    """Seconds since 1970 as RFC 3339; ``bad-timestamp`` outside 1970-9999."""
    return times.rfc3339_from_epoch_s(epoch_s, source, line, what)


def nearest_rank(sorted_values: list[float], q: float) -> float:
    """The q-th percentile (q in [0, 100]) by the nearest-rank rule: the smallest value
    with at least q % of the values at or below it (q = 0 gives the minimum)."""
    n = len(sorted_values)
    rank = max(1, math.ceil(q / 100.0 * n - 1e-9))
    return sorted_values[min(rank, n) - 1]


#: Settings that hold the load (or the think time): never negative.
LOAD_SETTINGS = ("clients", "rate_rps", "think_time_s", "outstanding")


def closed_loop(clients: float | None, think_time_s: float | None = 0) -> dict[str, Any]:
    """The settings of a closed-loop trial: ``loop=closed``, the load ``clients`` = N
    (left out when the file does not say it: ``--setting clients=N`` adds it) and the
    think time Z in seconds (left out when unknown)."""
    out: dict[str, Any] = {"loop": "closed"}
    if clients is not None:
        out["clients"] = integral(clients)
    if think_time_s is not None:
        out["think_time_s"] = integral(think_time_s)
    return out


def open_loop(rate_rps: float | None) -> dict[str, Any]:
    """The settings of an open-loop trial: ``loop=open`` and the offered rate lambda
    (requests/s; left out when the file does not say it: ``--setting rate_rps=R``)."""
    out: dict[str, Any] = {"loop": "open"}
    if rate_rps is not None:
        out["rate_rps"] = integral(rate_rps)
    return out


def command_tokens(line: str, tools: Sequence[str]) -> list[str] | None:
    """The arguments after a ``tools`` command in a saved command line (``$ wrk -t2 ...``,
    ``Executing command: ./wrk2 -R80000 ...``, ``hey -c 8 URL``), or None when the line
    runs none of them. A token is the tool when its file name is one of ``tools``."""
    if not any(tool in line for tool in tools):
        return None
    try:
        tokens = shlex.split(line, comments=False)
    except ValueError:
        tokens = line.split()
    for index, token in enumerate(tokens):
        if token.rsplit("/", 1)[-1] in tools:
            return tokens[index + 1:]
    return None


def option_value(tokens: Sequence[str], short: str | None, long: str | None = None) -> str | None:
    """The value of an option in ``tokens``: ``-R80000``, ``-R 80000``, ``--rate=80000``,
    ``--rate 80000`` (the last one given wins, as getopt does)."""
    value = None
    for index, token in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        for name in (long, short):
            if name is None:
                continue
            if token == name:
                value = following
            elif long is not None and name == long and token.startswith(name + "="):
                value = token[len(name) + 1:]
            elif name == short and not token.startswith("--") and token.startswith(name) \
                    and len(token) > len(name):
                value = token[len(name):].lstrip("=")
    return value


def non_negative(value: float, source: str, line: int, what: str) -> float:
    """``value`` when it is >= 0, else ``negative`` naming ``what`` (a load, a count, a
    rate or a time a tool measured cannot be below zero)."""
    if value < 0:
        raise TrialParseError(source, line, "negative", f"{what} is {value:g}: it cannot be "
                              "negative")
    return value


def trial_records(
    *, run: str, position: int, benchmark: str, settings: dict[str, Any],
    metrics: dict[str, float | None], started_at: str | None = None,
    duration_s: float | None = None, latency: dict[str, Any] | None = None,
    attributes: dict[str, Any] | None = None, source: str = "", line: int = 0,
) -> list[dict[str, Any]]:
    """One trial's records: one per metric that has a value, in :data:`METRICS` order.

    The ``throughput`` record (else the first one) carries ``latency``; every record
    carries ``attributes``. A negative metric or load (``clients``, ``rate_rps``,
    ``think_time_s``) is refused (``negative``). Keys the file cannot say (campaign, node, hardware type,
    revision) are ``None`` for :func:`~perfwarehouse.ingest.formats.records.apply_options`.
    """
    unknown = set(metrics) - set(METRICS)
    if unknown:  # a programming error, not a user's
        raise ValueError(f"unknown load-test metrics {sorted(unknown)}")
    for key in LOAD_SETTINGS:
        if isinstance(settings.get(key), (int, float)):
            non_negative(settings[key], source, line, key)
    out: list[dict[str, Any]] = []
    for name, (unit, higher) in METRICS.items():
        value = metrics.get(name)
        if value is None:
            continue
        if not math.isfinite(value):
            raise TrialParseError(source, line, "non-finite", f"{name} is {value}")
        non_negative(value, source, line, name)
        out.append({
            "campaign": None, "run_id": run, "node": None, "hardware_type": None,
            "run_index": 0, "order_kind": "fixed", "seed": None, "position": position,
            "run_size": None, "benchmark": benchmark, "settings": dict(settings),
            "metric": name, "unit": unit, "higher_is_better": higher,
            "values": [float(value)], "started_at": started_at, "duration_s": duration_s,
            "status": "ok", "env": None, "revision": None, "revision_time": None,
            "attributes": dict(attributes or {}),
        })
    if not out:
        raise TrialParseError(source, line, "missing-field",
                              "this trial reports neither throughput nor latency")
    if latency is not None:
        for _q, value in latency.get("percentiles", []):
            non_negative(value, source, line, "a latency percentile")
        for value in latency.get("samples", []):
            non_negative(value, source, line, "a latency sample")
        out[0]["latency"] = latency  # throughput comes first when there is one
    return out


def finish(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Set ``run_size`` (records per run) once every trial of the file is known."""
    sizes: dict[str, int] = {}
    for record in records:
        sizes[record["run_id"]] = sizes.get(record["run_id"], 0) + 1
    for record in records:
        record["run_size"] = sizes[record["run_id"]]
    return records


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1
