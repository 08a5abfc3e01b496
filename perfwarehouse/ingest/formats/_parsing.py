"""Helpers the tool importers (hyperfine, JMH, go test, asv) share: loading a JSON
document with precise errors, checked access to its parts by JSON path, and the
native record they all produce.

Pure: bytes and Python objects in, records out; every problem is a
:class:`~perfwarehouse.errors.TrialParseError` naming the source, the line (or 0) and
the rule, with the JSON path of the offending value in the detail.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import times


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def expect(value: Any, kind: type | tuple[type, ...], source: str, path: str,
           what: str) -> Any:
    """``value`` if it is of ``kind`` (bool never counts as a number); else ``wrong-type``."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise TrialParseError(source, 0, "wrong-type",
                              f"{path} must be {what}, got {type_name(value)} "
                              f"{json.dumps(value)[:40]}")
    return value


def key(obj: dict[str, Any], name: str, source: str, path: str) -> Any:
    """``obj[name]``; ``missing-key`` naming the JSON path when it is absent."""
    if name not in obj:
        raise TrialParseError(source, 0, "missing-key", f"{path}.{name} is missing")
    return obj[name]


def number(value: Any, source: str, path: str) -> float:
    """A finite JSON number as float; ``wrong-type`` or ``non-finite`` naming the path."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TrialParseError(source, 0, "wrong-type",
                              f"{path} must be a number, got {type_name(value)} "
                              f"{json.dumps(value)[:40]}")
    number_ = float(value)
    if not math.isfinite(number_):
        raise TrialParseError(source, 0, "non-finite", f"{path} is {value}, not a finite number")
    return number_


def numbers(value: Any, source: str, path: str) -> list[float]:
    """A list of finite numbers (``wrong-type`` / ``non-finite`` name the element's path)."""
    expect(value, list, source, path, "a list of numbers")
    out = []
    for i, item in enumerate(value):
        if type(item) is float and math.isfinite(item) or type(item) is int:
            out.append(float(item))
        else:
            out.append(number(item, source, f"{path}[{i}]"))
    return out


def content_id(data: bytes) -> str:
    """A stable 16-hex-digit id of a file's content (the same file ingested twice, under
    any name, names the same runs)."""
    return hashlib.sha256(data).hexdigest()[:16]


def rfc3339_from_ms(ms: float, source: str = "", what: str = "time") -> str:
    """A JavaScript timestamp (milliseconds since 1970, UTC) as RFC 3339; ``bad-timestamp``
    outside 1970-9999 (:mod:`perfwarehouse.ingest.times`)."""
    return times.rfc3339_from_epoch_ms(ms, source, 0, what)


def record(*, run_id: str, run_index: int, position: int, benchmark: str,
           settings: dict[str, Any], metric: str, unit: str | None,
           higher_is_better: bool | None, values: list[float], status: str = "ok",
           started_at: str | None = None, duration_s: float | None = None,
           node: str | None = None, env: dict[str, Any] | None = None,
           revision: str | None = None, revision_time: str | None = None,
           attributes: dict[str, Any] | None = None) -> dict[str, Any]:
    """One native trial-log record (one metric of one trial); ``run_size`` is filled by
    :func:`finish`, campaign/node/hardware type by ``apply_options`` at the edge.

    The records of one trial may share their ``settings``, ``env`` and ``attributes``
    dicts (millions of records): callers replace them, never mutate them in place.
    """
    return {
        "campaign": None, "run_id": run_id, "node": node, "hardware_type": None,
        "run_index": run_index, "order_kind": "fixed", "position": position,
        "run_size": None, "benchmark": benchmark, "settings": settings, "metric": metric,
        "unit": unit, "higher_is_better": higher_is_better, "values": values,
        "started_at": started_at, "duration_s": duration_s, "status": status, "env": env,
        "revision": revision, "revision_time": revision_time, "attributes": attributes or {},
    }


def finish(records: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    """Set each record's ``run_size`` (the records of its run, as the trial log defines
    it); a file that yields no trial is refused (``no-trials``)."""
    if not records:
        raise TrialParseError(source, 0, "no-trials", "the file holds no benchmark result")
    sizes = Counter(r["run_id"] for r in records)
    for r in records:
        r["run_size"] = sizes[r["run_id"]]
    return records
