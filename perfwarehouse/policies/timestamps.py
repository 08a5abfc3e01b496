"""Which times the warehouse takes: an RFC 3339 date-time (a bare date is refused), an
offset of at most +-14:00 (none: UTC), between 1970-01-01 and 9999-12-31 in UTC; any
other is refused with the rule ``bad-timestamp``.

Applied to ``started_at`` and ``revision_time`` of every record by the readers
(:mod:`perfwarehouse.ingest.formats.jsonl`), and to the same options of the agent and
the CLI before they write anything (:func:`timestamp_or_none`).
"""

from __future__ import annotations

import functools
import json
import re
from datetime import datetime, timezone
from typing import Any

from perfwarehouse.policies import PolicyError

MIN_TIME = datetime(1970, 1, 1, tzinfo=timezone.utc)
MAX_TIME = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)
# RFC 3339 date-time (offset optional: a time without one is UTC), offsets <= 14:00
TIMESTAMP_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))?")
# the same pattern for DuckDB's regexp_full_match (RE2 syntax)
FAST_TIMESTAMP_RE = TIMESTAMP_RE.pattern


def parse_timestamp(value: Any, name: str = "started_at") -> datetime:
    """An RFC 3339 timestamp in [1970, 9999] UTC (no offset: UTC); raises PolicyError
    (rule ``bad-timestamp``, naming the field ``name``)."""
    if isinstance(value, str):
        parsed = _parse_timestamp_text(value)
        if isinstance(parsed, datetime):
            return parsed
        problem = parsed
    else:
        problem = "not"
    shown = json.dumps(value)[:40]
    if problem == "not":
        raise PolicyError("bad-timestamp", f"{name} {shown} is not an RFC 3339 date-time "
                          "(like 2024-05-01T12:00:00Z; offsets up to +-14:00)")
    if problem == "invalid":
        raise PolicyError("bad-timestamp", f"{name} {shown} is not a valid date-time")
    raise PolicyError("bad-timestamp", f"{name} {shown} is outside 1970-9999")


@functools.lru_cache(maxsize=4096)  # records of a run or file often share their time
def _parse_timestamp_text(value: str) -> datetime | str:
    """The UTC time of ``value``, or why not ("not", "invalid", "range")."""
    if not TIMESTAMP_RE.fullmatch(value):
        return "not"
    text = value.replace("Z", "+00:00").replace("z", "+00:00")
    fraction = re.search(r"\.(\d+)", text)
    if fraction and len(fraction.group(1)) > 6:  # Python keeps microseconds
        text = text.replace(fraction.group(0), "." + fraction.group(1)[:6])
    try:
        parsed = datetime.fromisoformat(text)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        utc = parsed.astimezone(timezone.utc) if parsed.utcoffset() else parsed
    except (ValueError, OverflowError):
        return "invalid"
    if not MIN_TIME <= utc <= MAX_TIME:
        return "range"
    return utc


def in_range(moment: datetime) -> bool:
    """Whether ``moment`` (aware) lies in the warehouse's time range."""
    return MIN_TIME <= moment <= MAX_TIME




def timestamp_or_none(value: Any) -> datetime | None:
    """``value`` as a UTC time under this policy (the ``--revision-time`` options of the
    CLI and the agent); None if the policy refuses it."""
    try:
        return parse_timestamp(value)
    except PolicyError:
        return None
