"""Reading one JSON document of another tool, with errors that name a JSON path.

Helpers for the importers whose input is one JSON document (pyperf, Google
Benchmark, ...): :func:`load` decodes (``empty``, ``broken-utf8``, ``truncated``,
``invalid-json`` with the line of the problem) and :class:`Doc` reads typed keys
(``missing-key``, ``wrong-type`` naming the JSON path, e.g. ``$.benchmarks[2].runs``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import numbers
from perfwarehouse.ingest.json_policy import repeated_keys

_TYPE_NAMES = {dict: "an object", list: "a list", str: "a string", float: "a number",
               bool: "true or false"}


def load(data: bytes, source: str) -> Any:
    """The decoded document; one-line errors for empty, broken, cut-short or hostile input
    (``empty``, ``broken-utf8``, ``truncated``, ``invalid-json`` with the line,
    ``too-deep``) and for an object that gives a key twice (``duplicate-key`` with the
    object's JSON path: which of the two values a tool meant is unknowable, so neither is
    taken, as the native trial log refuses it too).

    Python's ``json`` with a hook on every object (about twice orjson's time, which cannot
    see a repeated key); it reads what tools write besides strict JSON (a UTF-8 BOM;
    ``NaN`` and ``Infinity``, e.g. in asv files: the formats' value checks decide where
    those are allowed).
    """
    if not data.strip():
        raise TrialParseError(source, 0, "empty", "the file is empty")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise TrialParseError(source, 0, "broken-utf8",
                              f"invalid UTF-8 at byte {exc.start} (line {line})") from None
    twice: list[tuple[dict[str, Any], str]] = []  # the first object with a repeated key

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs) and not twice:
            twice.append((obj, repeated_keys(pairs)[0]))
        return obj

    try:
        doc = numbers.loads(text, object_pairs_hook=unique_keys)
    except numbers.HugeNumber as exc:
        raise numbers.huge_number_error(exc, source) from None
    except RecursionError:  # nesting deeper than the interpreter's stack
        raise TrialParseError(source, 0, "too-deep",
                              "the JSON document is nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        unterminated = exc.msg.startswith("Unterminated string") \
            and '"' not in text[exc.pos + 1:]
        if exc.pos >= len(text.rstrip()) or unterminated:
            raise TrialParseError(source, exc.lineno, "truncated",
                                  "the JSON document ends before it is complete") from None
        raise TrialParseError(source, exc.lineno, "invalid-json",
                              f"{exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if twice:
        obj, key = twice[0]
        raise TrialParseError(source, 0, "duplicate-key",
                              f"{json_path(doc, obj)}: the key {key!r} is given more than once "
                              "in one object")
    return doc


def json_path(doc: Any, target: object) -> str:
    """The JSON path (``$.benchmarks[2]``) of the object ``target`` (by identity) in ``doc``;
    iterative, so any depth is fine."""
    stack: list[tuple[Any, str]] = [(doc, "$")]
    while stack:
        item, path = stack.pop()
        if item is target:
            return path
        if isinstance(item, dict):
            stack.extend((v, f"{path}.{k}") for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(item))
    return "$"


class Doc:
    """Typed access to a decoded document, naming ``source`` and the JSON path in errors."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, rule: str, path: str, detail: str) -> TrialParseError:
        return TrialParseError(self.source, 0, rule, f"{path}: {detail}")

    def get(self, obj: dict[str, Any], key: str, path: str, kind: type,
            required: bool = True, default: Any = None) -> Any:
        """``obj[key]`` checked to be of ``kind`` (float accepts ints, not booleans)."""
        where = f"{path}.{key}"
        if key not in obj or obj[key] is None:
            if required:
                raise self.fail("missing-key", where, f"required key {key!r} is missing")
            return default
        return self.check(obj[key], where, kind)

    def check(self, value: Any, path: str, kind: type) -> Any:
        if kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self.fail("wrong-type", path, f"expected a number, got {_show(value)}")
            if not math.isfinite(value):
                raise self.fail("non-finite", path, f"{value} is not a finite number")
            return float(value)
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise self.fail("wrong-type", path, f"expected an integer, got {_show(value)}")
            return value
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise self.fail("wrong-type", path,
                            f"expected {_TYPE_NAMES.get(kind, kind.__name__)}, got {_show(value)}")
        return value

    def numbers(self, value: Any, path: str) -> list[float]:
        """A list of finite numbers."""
        self.check(value, path, list)
        if all(type(v) is float or type(v) is int for v in value):  # the usual case, fast
            numbers = [float(v) for v in value]
            if math.isfinite(math.fsum(numbers)):
                return numbers
        return [self.check(v, f"{path}[{i}]", float) for i, v in enumerate(value)]


def _show(value: Any) -> str:
    return json.dumps(value)[:40]


def rfc3339(value: str) -> str | None:
    """``value`` as an RFC 3339 text (UTC when it has no offset), or None if not a time.

    Accepts the ISO forms tools write (``2024-05-01 10:00:00.5``, ``...T...Z``)."""
    from datetime import datetime, timezone

    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.isoformat()
