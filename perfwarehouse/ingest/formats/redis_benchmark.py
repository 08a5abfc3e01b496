"""redis-benchmark ``--csv`` output: one trial per test line (``PING_INLINE``, ``SET`` ...).

Two layouts:

* redis 7 (and 6.2): a header ``"test","rps","avg_latency_ms","min_latency_ms",
  "p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"`` and one row
  per test -> ``throughput`` (rps) and the latency metrics ``mean``, ``min``, ``p50``,
  ``p95``, ``p99``, ``max`` (ms);
* older versions: no header, two columns ``"TEST","rps"`` -> ``throughput`` only.

benchmark = the test name; each row is one trial (position = its rank in the file).
redis-benchmark's clients are a closed loop without think time (``loop=closed,
think_time_s=0``), but ``--csv`` does not print ``-c``, ``-P`` or ``-n``: pass
``--setting clients=C`` (and ``--setting pipeline=P`` when ``-P`` > 1).
"""

from __future__ import annotations

import re
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _loadtest as lt
from perfwarehouse.ingest.formats import _text as text
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "redis-benchmark"
DESCRIPTION = "redis-benchmark --csv output (redis 7 header or the old 2-column form): one trial per test"

#: redis 7 column -> metric
COLUMNS = {"rps": "throughput", "avg_latency_ms": "mean", "min_latency_ms": "min",
           "p50_latency_ms": "p50", "p95_latency_ms": "p95", "p99_latency_ms": "p99",
           "max_latency_ms": "max"}
_HEADER = re.compile(r'"test","rps"(,"[a-z0-9_]+")*\s*')
_OLD_ROW = re.compile(r'"[^"]+","[0-9.]+"\s*')


def _is_header(lines: list[str], index: int) -> bool:
    return _HEADER.fullmatch(lines[index]) is not None


def _first_row(lines: list[str], complete: bool) -> int | None:
    """Where the CSV starts: its ``"test","rps",...`` header within the first
    :data:`~perfwarehouse.ingest.formats._text.PREAMBLE_LINES` lines, else the first old
    two-column row when every non-blank line from there on is one (the last may be cut
    unless ``complete``)."""
    at = text.starts_within(lines, _is_header)
    if at is not None:
        return at
    first = text.starts_within(lines, lambda ls, i: _OLD_ROW.fullmatch(ls[i]) is not None)
    if first is None:
        return None
    rest = [ln for ln in lines[first:] if ln.strip()]
    rest = rest if complete else rest[:-1]
    return first if rest and all(_OLD_ROW.fullmatch(ln) for ln in rest) else None


def sniff(head: bytes, filename: str) -> bool:
    return _first_row(text.lines_of(head), len(head) < 64 * 1024) is not None


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    label, notes = "", []
    if _HEADER.fullmatch(data[:512].split(b"\n", 1)[0].decode("utf-8", "replace")):
        content = lt.decode(data, source)  # the CSV from its first line (no copy)
    else:
        lines, bad = text.decode(data, source)
        first = _first_row(lines, True) or 0
        if any(n > first for n in bad):
            raise TrialParseError(source, min(n for n in bad if n > first), "broken-utf8",
                                  "invalid UTF-8 in this line")
        label = " / ".join(ln.strip() for ln in lines[:first] if ln.strip())
        notes = [f"line {n}: bytes that are not UTF-8 replaced by U+FFFD (in a label)"
                 for n in sorted(bad)]
        # the lines above the CSV (a label, the command line) blanked: line numbers kept
        content = "\n" * first + "\n".join(lines[first:])
    rows = lt.csv_rows(content, source)
    header = rows[0][1] if rows else []
    if header[:1] == ["test"]:
        if "rps" not in header:
            raise TrialParseError(source, rows[0][0], "missing-column",
                                  "the header lacks the column rps")
        columns = header
        rows = rows[1:]
    else:
        columns = ["test", "rps"]
    if not rows:
        raise TrialParseError(source, 0, "empty", "the file has no test rows")
    run = lt.run_id(NAME, data)
    attributes: dict[str, Any] = {"label": label} if label else {}
    if notes:
        attributes["notes"] = notes
    settings = {"generator": "redis-benchmark", "loop": "closed", "think_time_s": 0}
    records: list[dict[str, Any]] = []
    ends_with_newline = content.endswith("\n")
    for position, (lineno, row) in enumerate(rows):
        if len(row) != len(columns):
            last = position == len(rows) - 1
            rule = "truncated" if last and (len(row) < len(columns) or not ends_with_newline) \
                else "wrong-type"
            raise TrialParseError(source, lineno, rule,
                                  f"this row has {len(row)} fields, the layout has "
                                  f"{len(columns)}")
        fields = dict(zip(columns, row))
        if not fields["test"].strip():
            raise TrialParseError(source, lineno, "missing-field", "the test name is empty")
        metrics: dict[str, float | None] = {COLUMNS[c]: lt.number(v, source, lineno, c)
                                            for c, v in fields.items() if c in COLUMNS}
        records += lt.trial_records(run=run, position=position, benchmark=fields["test"],
                                    settings=settings, metrics=metrics, source=source,
                                    line=lineno, attributes=attributes)
    if not ends_with_newline:
        # redis-benchmark ends every row with a newline; a cut inside a number would
        # still parse, so an unterminated last row is refused
        raise TrialParseError(source, rows[-1][0], "truncated",
                              "the last row has no line end: the file was cut")
    return lt.finish(records)
