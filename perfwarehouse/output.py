"""How values read in every output, terminal and page alike: the one home of formats that
the command line, the reports and the refusals share (settings as ``k=v``, a file's
kind, the cells of a text, Markdown, CSV or JSON table and the aligned table itself).
Light: no third-party imports, so a verb can use it before any heavy import."""

from __future__ import annotations

import json
import math
import stat
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any


def format_settings(value: Any) -> str:
    """Settings (canonical JSON text or a dict) as ``k=v k=v``, the one settings format of
    every page, chart and terminal table; text that is not a JSON object is shown as it
    is."""
    parsed = value
    if isinstance(value, str):
        if not value:
            return ""
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
    if isinstance(parsed, dict):
        return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, sort_keys=True)}"
                        for k, v in parsed.items())
    return "" if parsed in (None, [], {}) else str(value)


def count(n: int, unit: str, units: str | None = None) -> str:
    """A count with its unit, in the singular or plural as the number needs: ``1 node``,
    ``2,924 nodes``, ``1 batch`` / ``2 batches`` (``units``: the plural when it is not
    ``unit`` + s)."""
    return f"{n:,} {unit if n == 1 else units or unit + 's'}"


def file_kind(mode: int) -> str:
    """What a path that should be a regular file is, in words for a one-line refusal
    ("a FIFO", "a character device", ...), from its ``st_mode``."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


# ------------------------------------------------------------------ tables
#: Another spelling of an output format that every ``--format`` option accepts (one
#: spelling is shown: ``markdown``; ``md`` is read as it, as the ``.md`` extension is).
FORMAT_ALIASES = {"md": "markdown", "text": "table", "txt": "table"}


def format_float(value: float) -> str:
    """A float for reading: up to 10 significant digits (no 0.30000000000000004), in
    scientific notation only when very small or very large; exact values (CSV, JSON,
    Parquet) keep every digit."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0.0" if math.copysign(1, value) > 0 else "-0.0"
    a = abs(value)
    if 1e-4 <= a < 1e15:
        text = f"{value:.10g}"
        return text if ("." in text or "e" in text) else text + ".0"
    return f"{value:.6e}"


def text_cell(value: Any) -> str:
    """A value in an aligned text or Markdown table (NULL for a missing one)."""
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    return str(value)


def csv_cell(value: Any) -> Any:
    """A value in a CSV file: every digit of a float, ISO times, lists and maps as JSON."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (list, dict)):
        return json.dumps(json_cell(value), separators=(",", ":"), ensure_ascii=False)
    return value


def json_cell(value: Any) -> Any:
    """A value JSON can hold: decimals as floats, NaN and infinities as null, times in
    ISO 8601, bytes in hex."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, tuple)):
        return [json_cell(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: json_cell(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return value.hex()
    return value


def _numeric(rows: Sequence[Sequence[Any]], n: int) -> list[bool]:
    """Per column: every value a number (or missing), so the column is right-aligned."""
    return [bool(rows) and all(isinstance(row[i], (int, float, Decimal)) or row[i] is None
                               for row in rows) for i in range(n)]


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An aligned text table (numbers right-aligned) with a header rule and a row count."""
    cells = [[text_cell(v) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    numeric = _numeric(rows, len(columns))
    out = []

    def line(values: Sequence[str]) -> None:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]
        out.append("  ".join(parts).rstrip() + "\n")

    line(list(columns))
    line(["-" * w for w in widths])
    for row in cells:
        line(row)
    out.append(f"({len(rows):,} row{'s' if len(rows) != 1 else ''})\n")
    return "".join(out)


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table (numbers right-aligned, ``|`` escaped)."""
    numeric = _numeric(rows, len(columns))

    def cell(v: Any) -> str:
        return (v if isinstance(v, str) else text_cell(v)).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(c.replace("|", "\\|") for c in columns) + " |",
           "|" + "|".join("---:" if num else "---" for num in numeric) + "|"]
    out += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, an ellipsis marking the cut."""
    return text if len(text) <= width else text[:max(1, width - 1)] + "…"


def terminal_width(default: int = 100) -> int:
    """The terminal's width: ``COLUMNS`` when set, else the terminal's, else ``default``
    (at least 60)."""
    import shutil

    return max(60, shutil.get_terminal_size((default, 24)).columns)
