"""The trial values of the two sides of a comparison (``perfwarehouse compare``), read
from the warehouse with one catalog read, one reader over both campaigns' files and one
query per side (``sql/queries/compare_trials.sql``).

A side is a campaign, a revision (None: every revision) and a SQL filter over the
columns of ``measurements``; the filter is parsed alone by DuckDB and can narrow a
side's trials, never reach past its campaign and revision (:func:`parse_where`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from perfwarehouse.errors import UsageError
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow


@dataclass(frozen=True)
class Side:
    """One side of a comparison: its ``name`` (baseline or contender), a campaign, a
    revision (None = all) and a filter (None = every successful trial)."""

    name: str
    campaign: str
    revision: str | None
    where: str | None

    def describe(self) -> str:
        text = self.campaign + (f"@{self.revision}" if self.revision else "")
        return text + (f" where {self.where}" if self.where else "")


def parse_where(name: str, where: str | None) -> str:
    """The --NAME-where filter as one SQL expression, re-rendered by DuckDB's parser.

    The text is parsed alone as a single expression (``duckdb.SQLExpression``): a filter
    that closes the query's parentheses (``1=1) OR (1=1``), holds several expressions or
    statements, or a modifier (ORDER BY, LIMIT), is refused in one line; comments are
    dropped by the re-rendering. What goes into the query is DuckDB's rendering of the
    parsed expression, inside parentheses and ANDed with the campaign filter, so it can
    narrow a side's trials but never reach past its campaign and revision.
    """
    if where is None:
        return "TRUE"
    if not where.strip():
        raise UsageError(f"{name}: --{name}-where is empty; give a SQL condition such as "
                         "\"node = 'c220g2-000001'\" or leave the option out")
    try:
        expression = str(duckdb.SQLExpression(where))
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0]
        raise UsageError(f"{name}: --{name}-where {where!r} is not one SQL condition: "
                         f"{first}") from None
    return f"({expression})"


def read_sides(warehouse: Warehouse, sides: Sequence[Side]) -> pa.Table:
    """Every side's trial values (one row per successful trial: its key, the median of its
    values and the values in iteration order), a column ``side`` naming the side: one read
    of the catalog, one reader over the sides' campaigns, one query per side. A side with
    no campaign data or no successful trial is refused in one line naming its revisions."""
    wheres = [parse_where(s.name, s.where) for s in sides]  # refused before any read
    files = warehouse.data_files(sorted({s.campaign for s in sides}))
    for side in sides:
        if not any(f.campaign == side.campaign for f in files):
            raise UsageError(f"{side.name}: campaign {side.campaign!r} has no measurements in "
                             f"{warehouse.root} (see `perfwarehouse sql \"SELECT * FROM "
                             "campaigns\"`)")
    con = warehouse.reader(files)
    try:
        tables = [_side_trials(con, side, where) for side, where in zip(sides, wheres)]
    finally:
        con.close()
    return pa.concat_tables(tables, promote_options="permissive")


def _side_trials(con: duckdb.DuckDBPyConnection, side: Side, where: str) -> pa.Table:
    """One side's trials, with ``side`` added (one query)."""
    query = sqlfiles.load("queries/compare_trials").replace("{where}", where)
    try:
        table = fetch_arrow(con, query, {"campaign": side.campaign, "revision": side.revision})
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0]
        raise UsageError(f"{side.name}: --{side.name}-where {side.where!r}: {first}") from None
    if table.num_rows == 0:
        revisions = [r[0] for r in con.execute(
            "SELECT DISTINCT revision FROM measurements WHERE campaign = ? "
            "AND revision IS NOT NULL ORDER BY 1", [side.campaign]).fetchall()]
        known = (f"; its revisions: {', '.join(revisions[:20])}"
                 f"{' ...' if len(revisions) > 20 else ''}" if revisions
                 else "; it has no revisions recorded")
        raise UsageError(f"{side.name}: no successful trials of {side.describe()}{known}")
    return table.append_column("side", pa.array([side.name] * table.num_rows, pa.string()))
