"""What a change-point series mixes (the ``mixed`` column of ``change_points``): the keys
that may separate its groups, and :func:`perfwarehouse.stats.mixing.detect_series` on them;
:mod:`perfwarehouse.jobs.change_points` says what the column means."""

from __future__ import annotations

from typing import Any

import pyarrow as pa


def candidates(table: pa.Table, s: int, e: int) -> dict[str, list[object]]:
    """Keys that may separate a series' groups (rows ``s:e``): the revision and every
    scalar attribute of its trials."""
    import json

    out: dict[str, list[object]] = {"revision": table.column("revision")[s:e].to_pylist()}
    if "attributes" not in table.column_names:
        return out
    docs = []
    for text in table.column("attributes")[s:e].to_pylist():
        try:
            doc = json.loads(text) if text else {}
        except ValueError:
            doc = {}
        docs.append(doc if isinstance(doc, dict) else {})
    keys = dict.fromkeys(k for d in docs for k, v in d.items()
                         if isinstance(v, str | int | float | bool))
    for key in keys:
        out[f"attribute {key}"] = [d.get(key) for d in docs]
    return out


def mixing_of(table: pa.Table, values: Any, days: Any, s: int, e: int) -> str | None:
    """What series ``s:e`` mixes (:func:`perfwarehouse.stats.mixing.detect_series`), or
    None."""
    from perfwarehouse.stats.mixing import detect_series

    if "run_id" not in table.column_names:  # a table of series without runs: no instant
        runs: list[object] = list(range(s, e))
    else:
        runs = table.column("run_id")[s:e].to_pylist()
    nodes = (table.column("node")[s:e].to_pylist() if "node" in table.column_names
             else [None] * (e - s))
    found = detect_series(values[s:e], days[s:e], runs,
                          table.column("revision")[s:e].to_pylist(), nodes,
                          lambda: candidates(table, s, e))
    return None if found is None else found.text
