"""The native trial log's fields, and its reference parser: line by line, in Python.

:func:`parse` is pure (bytes in, ``raw_trials`` records and problems out) and names the
line and rule of every problem (broken UTF-8, truncated or invalid JSON, wrong types);
:func:`check_record` is its per-record part on an already decoded object, so the
importers of other tools' formats go through the same checks. The DuckDB reader of
:mod:`perfwarehouse.ingest.formats.jsonl` loads the same rows from a whole file, and
falls back to :func:`parse` to word the error of a file that breaks a rule.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson
import pyarrow as pa

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import json_policy

FORMAT_VERSION = 1
STRING_FIELDS = ("campaign", "run_id", "node", "hardware_type", "order_kind", "benchmark",
                 "metric", "unit", "status", "revision")
ID_FIELDS = ("campaign", "run_id", "node")  # integers are accepted as ids
NUMBER_FIELDS = ("v", "run_index", "position", "run_size", "duration_s")
# DuckDB types for read_json; numbers are read as DOUBLE so validation can see
# fractions and non-finite values instead of DuckDB rounding them away.
DUCKDB_COLUMNS = {
    "v": "DOUBLE", "campaign": "VARCHAR", "run_id": "VARCHAR", "node": "VARCHAR",
    "hardware_type": "VARCHAR", "run_index": "DOUBLE", "order_kind": "VARCHAR",
    "seed": "VARCHAR", "position": "DOUBLE", "run_size": "DOUBLE", "benchmark": "VARCHAR",
    "settings": "JSON", "metric": "VARCHAR", "unit": "VARCHAR", "higher_is_better": "BOOLEAN",
    "values": "DOUBLE[]", "started_at": "TIMESTAMPTZ", "duration_s": "DOUBLE",
    "status": "VARCHAR", "env": "JSON", "revision": "VARCHAR", "revision_time": "TIMESTAMPTZ",
    "attributes": "JSON",
    "latency": "JSON",  # a load-test trial's latency distribution, kept as JSON text
}
# Keys with a column of their own; every other top-level key goes to ``attributes``.
KNOWN_KEYS = frozenset(DUCKDB_COLUMNS) - {"attributes"}
KNOWN_KEYS_ORDERED = tuple(k for k in DUCKDB_COLUMNS if k != "attributes")


def parse(data: bytes, source: str) -> tuple[pa.Table, list[TrialParseError]]:
    """Parse native trial-log bytes: records (``raw_trials`` columns) and problems."""
    columns: dict[str, list[Any]] = {name: [] for name in
                                     ("line", *DUCKDB_COLUMNS)}
    problems: list[TrialParseError] = []
    lines = data.split(b"\n")
    ends_with_newline = data.endswith(b"\n")
    for index, raw in enumerate(lines):
        lineno = index + 1
        if not raw.strip():
            continue
        is_last = index == len(lines) - 1
        record, problem = _parse_line(raw, source, lineno, is_last and not ends_with_newline)
        if problem:
            problem.raw = raw.decode("utf-8", "replace")  # type: ignore[attr-defined]
            problems.append(problem)
            continue
        columns["line"].append(lineno)
        for name in DUCKDB_COLUMNS:
            columns[name].append(record.get(name))
    table = pa.table({
        "source": pa.array([source] * len(columns["line"]), pa.string()),
        "line": pa.array(columns["line"], pa.int64()),
        **{name: pa.array(columns[name], _ARROW_TYPES[name]) for name in DUCKDB_COLUMNS},
    })
    return table, problems


def check_records(
    records: list[dict[str, Any]], source: str
) -> tuple[pa.Table, list[TrialParseError]]:
    """:func:`check_record` on each decoded record (numbered 1, 2, ... as its ``line``):
    the ``raw_trials`` rows and the problems, as :func:`parse` gives for a file."""
    rows: list[dict[str, Any]] = []
    problems: list[TrialParseError] = []
    for lineno, obj in enumerate(records, 1):
        record, problem = check_record(obj, source, lineno)
        if problem:
            problem.raw = json.dumps(obj, default=str)[:10000]  # type: ignore[attr-defined]
            problems.append(problem)
            continue
        record["line"] = lineno
        rows.append(record)
    schema = pa.schema([("line", pa.int64()),
                        *((name, _ARROW_TYPES[name]) for name in DUCKDB_COLUMNS)])
    table = pa.Table.from_pylist(rows, schema=schema)
    return table.add_column(0, "source", pa.array([source] * len(rows), pa.string())), problems


_ARROW_TYPES = {
    name: {"DOUBLE": pa.float64(), "VARCHAR": pa.string(), "JSON": pa.string(),
           "BOOLEAN": pa.bool_(), "DOUBLE[]": pa.list_(pa.float64()),
           "TIMESTAMPTZ": pa.timestamp("us", tz="UTC")}[kind]
    for name, kind in DUCKDB_COLUMNS.items()
}


def _parse_line(
    raw: bytes, source: str, lineno: int, unterminated: bool
) -> tuple[dict[str, Any], TrialParseError | None]:
    def problem(rule: str, detail: str) -> tuple[dict[str, Any], TrialParseError]:
        return {}, TrialParseError(source, lineno, rule, detail)

    try:
        obj = json_policy.loads_line(raw, unterminated=unterminated)
    except json_policy.PolicyError as exc:
        return problem(exc.rule, exc.detail)
    if not isinstance(obj, dict):
        return problem("not-an-object", "each line must be one JSON object (a trial)")
    return check_record(obj, source, lineno)


def check_record(
    obj: dict[str, Any], source: str, lineno: int
) -> tuple[dict[str, Any], TrialParseError | None]:
    """Types of one decoded record: its ``raw_trials`` columns, or the problem (line ``lineno``).

    The reference parser calls it on every line; importers of other formats call it on
    the records their parser returns, so every input meets the same per-record rules
    (:mod:`~perfwarehouse.ingest.json_policy`: duplicate keys, depth, types, timestamps).
    """
    def problem(rule: str, detail: str) -> tuple[dict[str, Any], TrialParseError]:
        return {}, TrialParseError(source, lineno, rule, detail)

    attributes = obj.get("attributes")
    try:
        # every top-level key is used (unknown ones go to attributes): none twice
        json_policy.check_record_keys(obj, tuple(obj))
        for name in KNOWN_KEYS_ORDERED:
            value = obj.get(name)
            if name == "values" and isinstance(value, list) \
                    and all(type(v) is float or type(v) is int for v in value):
                continue  # the usual case: nothing nested
            json_policy.check_value(value, name, depth=2)
        if isinstance(attributes, dict):
            json_policy.check_record_keys(attributes, tuple(attributes))
    except json_policy.PolicyError as exc:
        return problem(exc.rule, exc.detail)
    record: dict[str, Any] = {}
    for name in STRING_FIELDS:
        value = obj.get(name)
        if value is not None and not isinstance(value, str):
            if name in ID_FIELDS and isinstance(value, int) \
                    and not isinstance(value, bool):
                value = str(value)
            else:
                return problem("wrong-type", f"{name} must be a string, got {_shown(value)}")
        record[name] = value
    for name in NUMBER_FIELDS:
        value = obj.get(name)
        if value is not None:
            number = _number(value)
            if number is None:
                return problem("wrong-type", f"{name} must be a number, got {_shown(value)}")
            record[name] = number
    seed = obj.get("seed")
    record["seed"] = None if seed is None else (seed if isinstance(seed, str) else _dumps(seed))
    hib = obj.get("higher_is_better")
    if hib is not None and not isinstance(hib, bool):
        return problem("wrong-type",
                       f"higher_is_better must be true, false or null, got {_shown(hib)}")
    record["higher_is_better"] = hib
    values = obj.get("values")
    if values is not None:
        if not isinstance(values, list):
            return problem("wrong-type", "values must be a list of numbers")
        if all(type(v) is float or type(v) is int for v in values):  # the usual case, fast
            numbers: list[float | None] = [float(v) for v in values]
        else:
            numbers = [_number(v) for v in values]
        if any(n is None for n in numbers):
            bad = next(v for v, n in zip(values, numbers) if n is None)
            return problem("non-numeric", f"values contain {_shown(bad)}, not a number")
        record["values"] = numbers
    for name in ("settings", "env", "latency"):
        value = obj.get(name)
        record[name] = None if value is None else _dumps(value)
    for name in ("started_at", "revision_time"):
        stamp = obj.get(name)
        if stamp is not None:
            try:
                record[name] = json_policy.parse_timestamp(stamp, name)
            except json_policy.PolicyError as exc:
                return problem(exc.rule, exc.detail)
    if attributes is not None and not isinstance(attributes, dict):
        return problem("wrong-type", "attributes must be a JSON object")
    extra_keys = obj.keys() - _COLUMN_KEYS
    extra = {k: obj[k] for k in extra_keys} if extra_keys else {}
    if extra or attributes:
        merged = {**extra, **(attributes or {})}
        try:  # the merged object stands at the record's level (as the fast path checks it)
            json_policy.check_value(merged, "attributes", depth=1)
        except json_policy.PolicyError as exc:
            return problem(exc.rule, exc.detail)
        record["attributes"] = _dumps(merged) if merged else None
    return record, None


def _shown(value: Any) -> str:
    return json.dumps(value)[:40]


def _number(value: Any) -> float | None:
    """A JSON number (numeric strings tolerated, as DuckDB's reader does); None if not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) or value.strip().lower() in ("nan", "inf", "-inf") else None
    return None


_COLUMN_KEYS = KNOWN_KEYS | {"attributes"}


def _dumps(value: Any) -> str:
    """Compact JSON text with sorted keys (orjson; json for what orjson refuses)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
