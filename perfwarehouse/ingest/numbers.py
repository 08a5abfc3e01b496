"""One home for reading numbers out of source files, with the limit of
:data:`perfwarehouse.ingest.limits.NUMBER_MAX_DIGITS` digits.

Python refuses to convert an integer of more than 4,300 digits (``ValueError: Exceeds the
limit ...``, a traceback in nine importers before) and converts long ones in quadratic
time; no measurement has more than 20 significant digits. Every importer reads numbers
through these functions (JSON documents through :func:`loads`), so a huge number is one
line naming the file, the line and the rule ``huge-number``.
"""

from __future__ import annotations

import json
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.limits import NUMBER_MAX_DIGITS

RULE = "huge-number"


class HugeNumber(ValueError):
    """A number with more than :data:`NUMBER_MAX_DIGITS` digits (raised inside a JSON
    parse, where the source and line are not known; see :func:`huge_number_error`)."""

    def __init__(self, text: str) -> None:
        self.digits = digit_count(text)
        super().__init__(f"a number of {self.digits:,} digits ({text[:20]}...); a number has "
                         f"at most {NUMBER_MAX_DIGITS} digits")


def digit_count(text: str) -> int:
    """How many decimal digits the mantissa of ``text`` holds (sign, point and exponent
    aside: a huge exponent makes an infinite float, refused as ``non-finite``)."""
    mantissa = text.split("e", 1)[0].split("E", 1)[0]
    return sum(c.isdigit() for c in mantissa)


def _checked(text: str) -> str:
    if len(text) > NUMBER_MAX_DIGITS and digit_count(text) > NUMBER_MAX_DIGITS:
        raise HugeNumber(text)
    return text


def json_int(text: str) -> int:
    """``parse_int`` for :func:`json.loads`: the integer, or :class:`HugeNumber`."""
    return int(_checked(text))


def json_float(text: str) -> float:
    """``parse_float`` for :func:`json.loads`: the float, or :class:`HugeNumber`."""
    return float(_checked(text))


#: bytes -> b"0" for a digit or a point, b" " for any other byte (see :func:`loads`)
_DIGITS_AND_POINTS = bytes(ord("0") if chr(b) in "0123456789." else ord(" ")
                           for b in range(256))


def may_hold_huge_number(text: str | bytes) -> bool:
    """Whether ``text`` has a run of more than :data:`NUMBER_MAX_DIGITS` digits and points:
    a JSON number's mantissa is such a run, so without one no number is too long."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return data.translate(_DIGITS_AND_POINTS).find(b"0" * (NUMBER_MAX_DIGITS + 1)) >= 0


def loads(text: str | bytes, **kwargs: Any) -> Any:
    """:func:`json.loads` with numbers of at most :data:`NUMBER_MAX_DIGITS` digits
    (:class:`HugeNumber` otherwise).

    The per-number hooks that check the digits cost 15-50 % of a large document's parse
    (Python calls for every number), so they run only when the text may hold a number
    that long (:func:`may_hold_huge_number`, one pass in C: 0.6 s on 33 MB); otherwise
    json's C scanner converts the numbers as the hooks would (``int``, ``float``)."""
    if not may_hold_huge_number(text):
        return json.loads(text, **kwargs)
    return json.loads(text, parse_int=json_int, parse_float=json_float, **kwargs)


def huge_number_error(exc: HugeNumber, source: str, line: int = 0) -> TrialParseError:
    return TrialParseError(source, line, RULE, str(exc))


def parse_int(text: str, source: str, line: int, what: str) -> int:
    """An integer read from a text format (the caller matched its digits)."""
    try:
        return int(_checked(text.strip()))
    except HugeNumber as exc:
        raise TrialParseError(source, line, RULE, f"{what}: {exc}") from None


def parse_float(text: str, source: str, line: int, what: str) -> float:
    """A float read from a text format (``float`` accepts what Python's does)."""
    try:
        return float(_checked(text.strip()))
    except HugeNumber as exc:
        raise TrialParseError(source, line, RULE, f"{what}: {exc}") from None
