"""The native trial log: JSON Lines, one self-contained trial per line.

Two readers produce the same ``raw_trials`` rows:

* :func:`parse` is the reference (:mod:`~perfwarehouse.ingest.formats.jsonl_reference`):
  pure (bytes in, records and problems out), line by line, naming the line and rule of
  every problem (broken UTF-8, truncated or invalid JSON, wrong types);
* :func:`read_fast` lets DuckDB's vectorised JSON reader load a whole file. It is
  tried first; if DuckDB cannot parse the file, or the file may break the reading
  policy (:mod:`~perfwarehouse.ingest.json_policy`), the caller falls back to
  :func:`parse` to say exactly which line is wrong and why.

Semantic rules (missing keys, order kinds, duplicates, ...) are checked once,
on the parsed rows, by ``sql/staging/validate.sql``. Top-level keys the format
does not name are kept, not dropped: merged into the record's ``attributes``
object (an explicit ``attributes`` key wins over a top-level key of the same name).
:func:`check_record` is the per-record part of :func:`parse` on an already decoded
object, so the importers of other tools' formats go through the same checks.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from perfwarehouse.ingest import json_policy
from perfwarehouse.ingest.formats.jsonl_reference import (  # noqa: F401  (callers use jsonl.X)
    DUCKDB_COLUMNS,
    FORMAT_VERSION,
    ID_FIELDS,
    KNOWN_KEYS,
    KNOWN_KEYS_ORDERED,
    NUMBER_FIELDS,
    STRING_FIELDS,
    check_record,
    check_records,
    parse,
)
from perfwarehouse.warehouse.sqlfiles import quote_literal
from perfwarehouse.warehouse.store import fetch_value


def read_fast(con: duckdb.DuckDBPyConnection, path: Path, source: str,
              on_chunk: Callable[[bytes], None] | None = None) -> int | None:
    """Load ``path`` into ``raw_trials`` with DuckDB; the number of records, or None if it can't.

    A file the byte kernel scans (from ``KERNEL_SCAN_BYTES``) whose every value has its
    plain type is read with typed columns (:func:`_insert_fast`). Otherwise every field
    is read as JSON and converted in SQL only when its JSON type is the
    one :mod:`~perfwarehouse.ingest.json_policy` allows (a string where a string
    belongs, a number - not a boolean - where a number belongs, a boolean for
    ``higher_is_better``, an RFC 3339 text for ``started_at`` and ``revision_time``);
    anything else raises inside the query, so the whole file falls back to
    :func:`parse`, which names the line and rule. DuckDB itself refuses a duplicated
    field, a BOM, broken UTF-8 and nesting deeper than 128; ``settings``, ``env`` and
    ``attributes`` are checked for duplicate keys and depth when they are canonicalised
    (``stage.land``), ``latency`` when it is converted (``ingest.latency``).
    ``line`` is the record's rank among non-blank lines; :func:`fix_line_numbers`
    corrects it when the file has blank lines.

    ``on_chunk`` (optional) is given every chunk of the file's bytes, in order, by the
    scan that runs beside DuckDB's read (the batch's content hash and line count take
    the same single pass over the bytes); it has seen the whole file when this returns.
    """
    # the scan for what DuckDB accepts but the policy refuses, and for keys without a
    # column, runs beside DuckDB's read (a pass over the bytes that DuckDB does not wait
    # for); a file with a trailing comma is rolled back and left to the reference parser
    scans: list[Scan] = []
    failed: list[OSError] = []

    def scan_file() -> None:
        try:
            scans.append(_scan(path, on_chunk))
        except OSError as exc:
            failed.append(exc)

    scan = threading.Thread(target=scan_file)
    scan.start()
    try:
        return _insert_fast(con, path, source, scan, scans)
    finally:
        scan.join()
        if failed:
            raise failed[0]


def _insert_fast(con: duckdb.DuckDBPyConnection, path: Path, source: str,
                 scan: threading.Thread, scans: list[Scan]) -> int | None:
    """The body of :func:`read_fast`, while ``scan`` runs. A file the kernel scans is read
    with typed columns first, in the hope that its every value is plain (what agents and
    most tools write); when the scan says otherwise, or the typed read fails, it is read
    again with each field as JSON and the policy's checks in SQL."""
    typed = path.stat().st_size >= KERNEL_SCAN_BYTES
    try:
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(_insert_sql(path, source, typed=typed))
        except duckdb.Error:
            if not typed:
                raise
            _restart(con, path, source)
            typed = False
        scan.join()
        if not scans or scans[0].trailing_comma:  # or the scan failed
            con.execute("ROLLBACK")
            return None
        if typed and not scans[0].plain:
            _restart(con, path, source)
        # rows keep the file's order, so a record's rank in this insert is its line
        # among the non-blank lines
        n = fetch_value(con, """UPDATE raw_trials SET line = rowid - (
                                SELECT min(rowid) FROM raw_trials WHERE line IS NULL) + 1
                             WHERE line IS NULL""")
        if scans[0].unknown_keys:
            _read_attributes(con, path, source)
        con.execute("COMMIT")
    except duckdb.Error:
        con.execute("ROLLBACK")
        return None
    return int(n)


def _restart(con: duckdb.DuckDBPyConnection, path: Path, source: str) -> None:
    """Undo the typed read and read the file again with the policy's checks in SQL."""
    con.execute("ROLLBACK")
    con.execute("BEGIN TRANSACTION")
    con.execute(_insert_sql(path, source, typed=False))


def _insert_sql(path: Path, source: str, *, typed: bool) -> str:
    """The insert of the file's records into ``raw_trials``: every field read as JSON and
    converted by :func:`_fast_field`, or, ``typed``, the fields of :data:`PLAIN` read
    with their own types (DuckDB's conversion of a plain value is the policy's: checked
    on random numbers and escaped texts in ``tests/unit/ingest/test_jsonl_typed.py``)."""
    def column_type(name: str) -> str:
        if not typed or name not in PLAIN:
            return "JSON"
        return "VARCHAR" if DUCKDB_COLUMNS[name] == "TIMESTAMPTZ" else DUCKDB_COLUMNS[name]

    columns = "{" + ", ".join(f"{quote_literal(k)}: '{column_type(k)}'"
                              for k in KNOWN_KEYS_ORDERED) + "}"
    fields = ",\n".join(_fast_field(k) if column_type(k) == "JSON" else _typed_field(k)
                         for k in KNOWN_KEYS_ORDERED)
    return f"""
        INSERT INTO raw_trials BY NAME
        SELECT {quote_literal(source)} AS source, {fields}
        FROM read_json({quote_literal(str(path))}, format = 'newline_delimited',
                       columns = {columns}, maximum_object_size = {MAX_RECORD_BYTES})"""


def _read_attributes(con: duckdb.DuckDBPyConnection, path: Path, source: str) -> None:
    """Second pass of :func:`read_fast`, when the byte scan says a record may have an
    ``attributes`` key or a key without a column: ``attributes`` of those records (before
    line numbers are fixed, so ``line`` is still the record's rank). An ``attributes``
    that is not an object, or a key given twice (at the top or in ``attributes``: a map
    refuses duplicate keys), raises: the file falls back to :func:`parse`. Nested values
    are checked for duplicate keys and depth when validated
    (``stage._canonicalise_settings``)."""
    # records of a file share a few key lists: look at each once, and parse every record
    # again only when some list has a key without a column (or "attributes")
    key_lists = con.execute(
        "SELECT DISTINCT json_keys(json) FROM read_ndjson_objects(?, maximum_object_size = "
        f"{MAX_RECORD_BYTES})", [str(path)]).fetchall()
    if all(set(keys or ()) <= KNOWN_KEYS for (keys,) in key_lists):
        return
    known = sorted(KNOWN_KEYS)
    con.execute(f"""
        UPDATE raw_trials SET attributes = a.attributes FROM (
            SELECT ordinality AS rank,
                CASE WHEN json_type(json, '$.attributes') NOT IN ('OBJECT', 'NULL')
                     THEN error('policy: attributes')
                WHEN len(json_keys(json)) <> len(list_distinct(json_keys(json)))
                     THEN error('policy: duplicate key')
                ELSE nullif(CAST(to_json(map_from_entries(list_concat(
                    list_transform(coalesce(json_keys(json, '$.attributes'), []),
                        lambda k: {{'k': k, 'v': json_extract(json -> '$.attributes',
                                                                 {_POINTER})}}),
                    list_transform(list_filter(json_keys(json), lambda k: NOT list_contains(
                            $known, k) AND k <> 'attributes'
                            AND NOT list_contains(coalesce(json_keys(json, '$.attributes'), []),
                                                  k)),
                        lambda k: {{'k': k, 'v': json_extract(json, {_POINTER})}})))) AS VARCHAR),
                    '{{}}') END AS attributes
            FROM read_ndjson_objects({quote_literal(str(path))},
                                     maximum_object_size = {MAX_RECORD_BYTES})
                 WITH ORDINALITY
            WHERE NOT list_has_all($known, json_keys(json))
        ) a
        WHERE raw_trials.source = $source AND raw_trials.line = a.rank""",
        {"known": known, "source": source})


# a JSON pointer to key k (RFC 6901 escapes), so any key text can be extracted
_POINTER = "'/' || replace(replace(k, '~', '~0'), '/', '~1')"


_TRAILING_COMMA = re.compile(rb",\s*[}\]]")
# below this size the scan is a regular expression, the keys are always asked of DuckDB
# (a second parse: 5-6 CPU s per GB) and no read is typed; from it on the kernel's scan
# and the typed read it allows repay importing numba and loading the kernel from its
# cache (about 1 CPU s, in the scan's thread, which the typed read then waits for).
# Ingest of 210 MB (2026-11-28, the project's history, 5 passes): 5.19 -> 4.86 CPU s
# but 3.03 -> 3.15 s wall, slower; of 1 GB (the demo, idle): 10.0-10.1 -> 9.7-9.8 s
# wall and 3-4 CPU s less: so from 512 MB, as when the scan alone had to pay for numba
KERNEL_SCAN_BYTES = 512 << 20
MAX_RECORD_BYTES = 16 << 20  # DuckDB's maximum_object_size: a longer record is refused


@dataclass(frozen=True)
class Scan:
    """What the pass over a file's bytes found: ``trailing_comma``, if it may hold what
    DuckDB accepts but the policy does not (a false alarm only costs the slower reader);
    ``unknown_keys``, if a record may have a top-level key without a column (then DuckDB
    is asked which: :func:`_read_attributes`); ``plain``, if every value of a field of
    :data:`PLAIN` surely has a type its mask names (the typed read then equals the
    checked one; only the kernel's scan says so)."""

    trailing_comma: bool
    unknown_keys: bool
    plain: bool = False


def _scan(path: Path, on_chunk: Callable[[bytes], None] | None = None) -> Scan:
    """Scan the file (:mod:`perfwarehouse.kernels.json_lines` from ``KERNEL_SCAN_BYTES``
    on); every chunk of it is also given to ``on_chunk``, in order."""
    if path.stat().st_size < KERNEL_SCAN_BYTES:
        found = False
        with open(path, "rb") as f:
            tail = b""
            while chunk := f.read(1 << 23):
                if on_chunk is not None:
                    on_chunk(chunk)
                found = found or _TRAILING_COMMA.search(tail + chunk) is not None
                tail = chunk[-64:]
        return Scan(trailing_comma=found, unknown_keys=True)
    from perfwarehouse.kernels import json_lines

    known = _known_keys()
    flags = 0
    rest = b""  # the start of a line that the last chunk cut
    with open(path, "rb") as f:
        while chunk := f.read(1 << 23):
            if on_chunk is not None:
                on_chunk(chunk)
            end = chunk.rfind(b"\n") + 1
            if end == 0 and len(rest) <= MAX_RECORD_BYTES:
                rest += chunk
                continue
            if len(rest) > MAX_RECORD_BYTES:  # DuckDB refuses the file: no need to look
                flags |= json_lines.TRAILING_COMMA | json_lines.UNKNOWN_KEY
                rest = b""
            piece = rest + chunk[:end] if rest else memoryview(chunk)[:end]
            flags |= json_lines.scan_lines(np.frombuffer(piece, np.uint8), *known)
            rest = chunk[end:]
    if rest:
        flags |= json_lines.scan_lines(np.frombuffer(rest, np.uint8), *known)
    return Scan(trailing_comma=bool(flags & json_lines.TRAILING_COMMA),
                unknown_keys=bool(flags & json_lines.UNKNOWN_KEY),
                plain=not flags & json_lines.ODD_TYPE)


@functools.cache
def _known_keys() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from perfwarehouse.kernels import json_lines as k

    null = k.NULL
    kinds = {"VARCHAR": k.STRING | null, "DOUBLE": k.NUMBER | null,
             "BOOLEAN": k.BOOLEAN | null, "DOUBLE[]": k.ARRAY | null,
             "TIMESTAMPTZ": k.STRING | null}
    return k.key_table(KNOWN_KEYS_ORDERED, {name: kinds[DUCKDB_COLUMNS[name]]
                                            for name in PLAIN})


_NUMBER_TYPES = "'BIGINT', 'UBIGINT', 'DOUBLE'"
# the fields read with their own types when every value is plain (the others, ``seed``,
# ``settings``, ``env``, ``latency``, are read as JSON always); a text field's plain
# value is a string (an integer id, which the policy also takes, is not plain)
PLAIN = tuple(k for k in KNOWN_KEYS_ORDERED if k not in ("seed", "settings", "env", "latency"))


def _typed_field(name: str) -> str:
    """SQL of one field of :data:`PLAIN` read with its type: the value itself, a time
    checked against the policy's pattern before it is cast."""
    x = name if name != "values" else '"values"'
    if DUCKDB_COLUMNS[name] != "TIMESTAMPTZ":
        return x
    return (f"CASE WHEN {x} IS NULL THEN NULL WHEN regexp_full_match({x}, "
            f"{quote_literal(json_policy.FAST_TIMESTAMP_RE)}) THEN CAST({x} AS TIMESTAMPTZ) "
            f"ELSE error('policy: {name}') END AS {x}")


def _fast_field(name: str) -> str:
    """SQL converting one JSON-typed field, raising (-> fallback) where the policy refuses."""
    x = name if name != "values" else '"values"'
    refuse = f"error('policy: {name}')"
    kind = DUCKDB_COLUMNS[name]
    # a JSON string: DuckDB keeps a JSON value as compact text, so a string's text starts with a
    # quote (cheaper than json_type, which parses the value: 0.28 -> 0.18 s per field)
    string = f"starts_with(CAST({x} AS VARCHAR), '\"')"
    if name in STRING_FIELDS:
        integer_ok = "'BIGINT', 'UBIGINT'" if name in ID_FIELDS else "''"
        body = (f"WHEN {string} THEN {x} ->> '$' "
                f"WHEN json_type({x}) IN ({integer_ok}) THEN CAST({x} AS VARCHAR)")
    elif kind == "DOUBLE":  # numbers, or numeric text (as the reference tolerates)
        # from the value's text, without json_type's parse: a number's text is a number,
        # numeric text is a string; true and false are refused here, an object or array
        # fails the cast (-> the reference parser). The five number fields of 230,000
        # records: 0.94-0.97 -> 0.77-0.80 CPU s (the whole read 1.28 -> 1.06-1.11)
        text = f"CAST({x} AS VARCHAR)"
        body = (f"WHEN {string} THEN CAST({x} ->> '$' AS DOUBLE) "
                f"WHEN {text} NOT IN ('true', 'false') THEN CAST({text} AS DOUBLE)")
    elif kind == "BOOLEAN":
        body = f"WHEN json_type({x}) = 'BOOLEAN' THEN CAST({x} AS BOOLEAN)"
    elif kind == "DOUBLE[]":
        body = (f"WHEN json_type({x}) = 'ARRAY' AND list_bool_and(list_transform("
                f"json_type({x}, '$[*]'), lambda t: t IN ({_NUMBER_TYPES}, 'VARCHAR'))) IS NOT FALSE "
                f"THEN CAST({x} AS DOUBLE[])")
    elif kind == "TIMESTAMPTZ":
        body = (f"WHEN {string} AND regexp_full_match({x} ->> '$', "
                f"{quote_literal(json_policy.FAST_TIMESTAMP_RE)}) "
                f"THEN CAST({x} ->> '$' AS TIMESTAMPTZ)")
    elif name == "seed":
        body = f"WHEN {string} THEN {x} ->> '$' ELSE CAST({x} AS VARCHAR)"
        return f"CASE WHEN {x} IS NULL THEN NULL {body} END AS {x}"
    else:  # settings, env: JSON text, checked when canonicalised
        return f"CAST({x} AS VARCHAR) AS {x}"
    return f"CASE WHEN {x} IS NULL THEN NULL {body} ELSE {refuse} END AS {x}"


def fix_line_numbers(con: duckdb.DuckDBPyConnection, path: Path, source: str) -> None:
    """Replace record ranks by real line numbers (only needed when there are blank lines)."""
    numbers = []
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            if raw.strip():
                numbers.append(lineno)
    mapping = pa.table({"rank": np.arange(1, len(numbers) + 1), "lineno": numbers})
    con.register("_line_map", mapping)
    con.execute("UPDATE raw_trials SET line = m.lineno FROM _line_map m "
                "WHERE raw_trials.source = ? AND raw_trials.line = m.rank", [source])
    con.unregister("_line_map")


def _timestamp(value: Any) -> datetime | None:
    """``value`` as a timestamp under the reading policy (``revision_time`` options of the
    CLI and the agent); None if the policy refuses it."""
    try:
        return json_policy.parse_timestamp(value)
    except json_policy.PolicyError:
        return None
