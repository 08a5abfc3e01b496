"""Units of a configuration: which are the same quantity in another scale, and by what factor.

Pure: the staging step (:mod:`perfwarehouse.ingest.stage_checks`) asks
:func:`conversions` which of a batch's configurations that clash with the warehouse's
unit it may bring into that unit, and applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

# in nanoseconds: integers, so that the ratio of two scales is exact
_NANOS = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "ms": 10**6, "s": 10**9, "min": 6 * 10**10}


def unit_factor(unit: str | None, into: str | None) -> float | None:
    """The factor that turns a value in ``unit`` into ``into`` when both measure the same
    thing in another scale (a time: ``ns`` ... ``s``, also per operation ``ns/op`` ...
    ``s/op``; a rate: ``ops/ns`` ... ``ops/min``), else None (not convertible)."""
    a, b = _parse(unit), _parse(into)
    if a is None or b is None or a[0] != b[0]:
        return None
    return (a[1] * b[2]) / (a[2] * b[1])


def _parse(text: str | None) -> tuple[str, int, int] | None:
    """(kind, numerator, denominator) of a unit in nanoseconds, or None if not a time or rate."""
    if text is None:
        return None
    if text.startswith("ops/") and text[4:] in _NANOS:
        return "rate", 1, _NANOS[text[4:]]
    head, slash, tail = text.partition("/")
    if head in _NANOS and (not slash or tail == "op"):
        return "time" + slash + tail, _NANOS[head], 1
    return None


class Conversion(NamedTuple):
    """Values of one configuration (benchmark, settings, metric) times ``factor`` into
    ``unit``; ``note`` says so in words."""

    benchmark: str
    settings: str
    metric: str
    factor: float
    unit: str
    note: str


def conversions(clashes: Sequence[Sequence[Any]]
                ) -> tuple[list[Conversion], tuple[Any, ...] | None]:
    """The conversions that bring a batch's configurations into the unit the warehouse
    holds for them, and the first clash none can (another kind of unit, or another
    direction: ``(benchmark, metric, stored unit, given unit)``), else None.

    ``clashes``: rows ``(benchmark, metric, stored unit, given unit, settings, stored
    higher_is_better, given higher_is_better)`` of the configurations whose unit or
    direction differs from the warehouse's (JMH ``-tu``, Google Benchmark's ``->Unit()``).
    """
    done: list[Conversion] = []
    for benchmark, metric, stored, given, settings, stored_hib, given_hib in clashes:
        factor = unit_factor(given, stored)
        if factor is None or stored_hib is not given_hib:
            return done, (benchmark, metric, stored, given)
        done.append(Conversion(
            benchmark, settings, metric, factor, stored,
            f"{benchmark} / {metric}: {given} converted to {stored} (x{factor:g}), the "
            "unit the warehouse holds for it"))
    return done, None
