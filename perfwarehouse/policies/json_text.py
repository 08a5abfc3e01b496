"""How trial logs are read as JSON: one policy for both JSON Lines readers.

The line-by-line reference parser (:func:`perfwarehouse.ingest.formats.jsonl.parse`)
applies this policy to every line; the DuckDB fast path
(:func:`~perfwarehouse.ingest.formats.jsonl.read_fast`) accepts a file only when
DuckDB can prove the same rules hold (:data:`~perfwarehouse.policies.timestamps.FAST_TIMESTAMP_RE`, the type checks
of its SQL), and otherwise defers to the reference parser, so both end with the
same rows and the same problems. The rules, each with the rule name a problem
carries:

* strict RFC 8259 JSON (no trailing commas, comments, NaN or Infinity literals):
  ``invalid-json`` (``non-finite`` for NaN/Infinity, ``truncated-line`` for an
  unterminated last line);
* a UTF-8 byte order mark: ``bom``; bytes that are not UTF-8: ``broken-utf8``;
  an escaped lone surrogate (``"\\ud800"``): ``invalid-string``;
* a key given twice in the record or inside ``settings``/``env``:
  ``duplicate-key`` (never "the last one wins");
* nesting deeper than :data:`MAX_DEPTH` in the record's fields: ``too-deep``
  (checked without recursion, so a hostile line cannot crash the reader);
* numbers where numbers are due (``true`` is not 1): ``non-numeric`` in
  ``values``, ``wrong-type`` elsewhere; booleans where booleans are due
  (``"yes"`` is not true): ``wrong-type``;
* timestamps (``started_at``, ``revision_time``): RFC 3339 date-time (a bare date is refused), offset at most
  +-14:00, between 1970-01-01 and 9999-12-31 in UTC: ``bad-timestamp``.

Names (campaign, run, node, ...) are checked for all input formats by
``sql/staging/validate.sql`` (rule ``bad-name``).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from perfwarehouse.policies import PolicyError

MAX_DEPTH = 64  # nesting of a record (the record object itself is depth 1)


class _Object(dict):
    """A JSON object that remembers the keys it was given more than once."""

    duplicates: tuple[str, ...] = ()


def repeated_keys(pairs: list[tuple[str, Any]]) -> tuple[str, ...]:
    """The keys of a JSON object's (key, value) pairs that come again, in their order."""
    seen: set[str] = set()
    twice = []
    for key, _ in pairs:
        if key in seen:
            twice.append(key)
        seen.add(key)
    return tuple(twice)


def _pairs(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object(pairs)
    if len(obj) != len(pairs):
        obj.duplicates = repeated_keys(pairs)
    return obj


def _constant(name: str) -> Any:
    raise PolicyError("non-finite", f"{name} is not a number in a trial log")


def loads_line(raw: bytes, *, unterminated: bool = False) -> Any:
    """Parse one line (bytes) under the policy; raises :class:`PolicyError`.

    Duplicate keys are remembered (see :func:`check_value`), not yet refused,
    because only the fields a reader uses are checked.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raise PolicyError("bom", "a UTF-8 byte order mark; save the file as UTF-8 without BOM")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyError("broken-utf8", f"invalid UTF-8 at byte {exc.start} of the line") from None
    return loads_text(text, unterminated=unterminated)


def loads_text(text: str, *, unterminated: bool = False) -> Any:
    """Parse a JSON text under the policy (see :func:`loads_line`)."""
    try:
        orjson.loads(text)  # strict: trailing commas, NaN, lone surrogates, depth > 1024
    except orjson.JSONDecodeError as exc:
        message = str(exc)
        if "surrogate" in message:
            raise PolicyError("invalid-string", "a string holds a lone UTF-16 surrogate "
                              "(\\ud800-\\udfff without its pair)") from None
        if "depth" in message or "recursion" in message.lower():
            raise PolicyError("too-deep", f"nested deeper than {MAX_DEPTH} levels") from None
        if unterminated:
            raise PolicyError("truncated-line",
                              "the last line ends before its JSON object does") from None
        try:  # Python's json accepts NaN/Infinity: say so precisely
            json.loads(text)
            nan = True
        except (ValueError, RecursionError):
            nan = False
        if nan:
            raise PolicyError("non-finite", "NaN or Infinity is not a number in a trial log") \
                from None
        raise PolicyError("invalid-json", message.split(":")[0]) from None
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    except RecursionError:
        raise PolicyError("too-deep", f"nested deeper than {MAX_DEPTH} levels") from None


def check_value(value: Any, where: str, depth: int = 1) -> None:
    """Refuse duplicate keys and nesting deeper than ``MAX_DEPTH`` (counting ``value``
    as level ``depth``) anywhere in ``value``; iterative, never recursive."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            if level > MAX_DEPTH:
                raise PolicyError("too-deep", f"{where} is nested deeper than {MAX_DEPTH} levels")
            duplicates = getattr(item, "duplicates", ())
            if duplicates:
                raise PolicyError("duplicate-key", f"{where} has the key {duplicates[0]!r} "
                                  "more than once")
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            if level > MAX_DEPTH:
                raise PolicyError("too-deep", f"{where} is nested deeper than {MAX_DEPTH} levels")
            stack.extend((v, level + 1) for v in item)


def check_record_keys(obj: dict, known: tuple[str, ...]) -> None:
    """Refuse a known key given twice at the top of a record."""
    twice = [k for k in getattr(obj, "duplicates", ()) if k in known]
    if twice:
        raise PolicyError("duplicate-key", f"the key {twice[0]!r} is given more than once")
