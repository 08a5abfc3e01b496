"""How a report shows a number, a p-value or a table cell (units are in the headers).

The one home of these formats: tables (:mod:`perfwarehouse.reports.render`), the
drill-downs and the verdict sentences use them, so a value reads the same everywhere.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

from perfwarehouse.reports.page import Column, format_settings

P_SMALLEST = 1e-300
"""p-values below this (0 included: a float underflow, not a certainty) print as
``< 1e-300``."""


def format_number(v: float) -> str:
    """A number by its magnitude: thousands separated, about four significant digits,
    scientific notation only for the very small or very large."""
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1e9 or a < 1e-4:
        return f"{v:.3e}"
    if a >= 1e4:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:,.1f}"
    return f"{v:.4g}"


def format_pvalue(v: float) -> str:
    """A p-value: never ``0.00e+00`` (below 1e-300 it is printed as such)."""
    if v < P_SMALLEST:
        return "< 1e-300"
    if v < 1e-4:
        return f"{v:.2e}"
    return f"{v:.4f}" if v < 0.1 else f"{v:.3f}"


def p_statement(v: float) -> str:
    """"p = 0.0123" in a sentence, or "p < 1e-300" (never "p = < 1e-300")."""
    text = format_pvalue(v)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def format_value(col: Column, value: Any) -> str:
    """How a table cell shows ``value`` (units are in the column header)."""
    if col.format == "int":
        return f"{int(value):,}"
    if col.format in ("float", "pct"):
        return format_number(float(value))
    if col.format == "pvalue":
        return format_pvalue(float(value))
    if col.format == "settings":
        return format_settings(value)
    if col.format == "bool":
        return "yes" if value else "no"
    if isinstance(value, (datetime, date)):
        return value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()
    return str(value)


def settings_count(settings: int, with_hardware: int) -> str:
    """How many configurations a campaign's viewer lists, in units a reader can match
    with the pages: "446 benchmark settings, 1,880 with hardware type" (a benchmark
    setting: benchmark, settings and metric; the pages count it once per hardware type,
    issue 40)."""
    text = f"{settings:,} benchmark setting{'s' if settings != 1 else ''}"
    return text + (f", {with_hardware:,} with hardware type" if with_hardware else "")


def with_hardware(recs: dict[str, dict[str, Any]]) -> int:
    """The (benchmark setting, hardware type) pairs of a viewer's records."""
    return sum(len(r.get("hw") or ()) for r in recs.values())
