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


def loads(text: str | bytes, **kwargs: Any) -> Any:
    """:func:`json.loads` with numbers of at most :data:`NUMBER_MAX_DIGITS` digits
    (:class:`HugeNumber` otherwise)."""
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
