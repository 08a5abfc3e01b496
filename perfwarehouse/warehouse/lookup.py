"""Names a user types (campaigns, hardware types) checked against what the warehouse
holds: an unknown name is a one-line error listing the known ones and the closest match,
instead of an empty result that looks like an answer."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import duckdb

from perfwarehouse.errors import UsageError

_QUERIES = {
    "campaign": "SELECT campaign FROM campaigns ORDER BY 1",
    "hardware type": "SELECT DISTINCT hardware_type FROM nodes ORDER BY 1",
}


def unknown_name_message(kind: str, name: str, known: Sequence[str], option: str) -> str:
    """``unknown campaign 'npbench2' (did you mean 'npbench'?); known: a, b, c``."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    shown = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
    listing = f"; known: {shown}" if known else f"; the warehouse has no {kind} yet"
    return f"{option}: unknown {kind} {name!r}{hint}{listing}"


def require(con: duckdb.DuckDBPyConnection, kind: str, name: str | None,
            option: str | None = None) -> None:
    """Raise :class:`UsageError` when ``name`` (a campaign or hardware type) is not in
    the warehouse; None passes."""
    if name is None:
        return
    known = [r[0] for r in con.execute(_QUERIES[kind]).fetchall()]
    if name not in known:
        raise UsageError(unknown_name_message(kind, name, known,
                                              option or "--" + kind.replace(" ", "-")))
