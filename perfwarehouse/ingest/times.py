"""One home for reading times out of source files: epoch seconds or milliseconds to
RFC 3339, within the range the warehouse stores (1970-01-01 to 9999-12-31, as
``sql/staging/validate.sql`` checks ``started_at``).

Before, each importer called ``datetime.fromtimestamp`` itself: asv ``date`` 1e16 ms gave
a traceback (``year is out of range``), 1e20 a bare ``[Errno 75] Value too large`` with no
file, line or rule, and a JMeter sample at 1e20 ms made a trial of 1e17 seconds. Now each
is one line naming the file, the line and the rule ``bad-timestamp``.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

from perfwarehouse.errors import TrialParseError

RULE = "bad-timestamp"
#: the first and last instants stored, in seconds since 1970-01-01T00:00:00Z
EPOCH_MIN_S = 0.0
EPOCH_MAX_S = 253_402_300_799.0  # 9999-12-31T23:59:59Z (a float holds no finer here)


def check_epoch_s(seconds: float, source: str = "", line: int = 0,
                  what: str = "time") -> float:
    """``seconds`` (since 1970, UTC) if it is a time from 1970 to 9999; else one
    :class:`TrialParseError` (rule ``bad-timestamp``) naming ``what``."""
    if not (math.isfinite(seconds) and EPOCH_MIN_S <= seconds <= EPOCH_MAX_S):
        raise TrialParseError(source, line, RULE,
                              f"{what} {seconds:g} s since 1970 is outside 1970-9999")
    return seconds


def check_epoch_ms(ms: float, source: str = "", line: int = 0, what: str = "time") -> float:
    """:func:`check_epoch_s` for milliseconds (JavaScript and JMeter timestamps): the
    milliseconds, checked."""
    if not (math.isfinite(ms) and EPOCH_MIN_S <= ms / 1e3 <= EPOCH_MAX_S):
        raise TrialParseError(source, line, RULE,
                              f"{what} {ms:g} ms since 1970 is outside 1970-9999")
    return ms


def rfc3339_from_epoch_s(seconds: float, source: str = "", line: int = 0,
                         what: str = "time") -> str:
    """Seconds since 1970 (UTC) as RFC 3339 (``...Z``), checked."""
    stamp = datetime.fromtimestamp(check_epoch_s(seconds, source, line, what), tz=timezone.utc)
    return stamp.isoformat().replace("+00:00", "Z")


def rfc3339_from_epoch_ms(ms: float, source: str = "", line: int = 0,
                          what: str = "time") -> str:
    """Milliseconds since 1970 (UTC) as RFC 3339, checked."""
    return rfc3339_from_epoch_s(check_epoch_ms(ms, source, line, what) / 1e3, source, line, what)
