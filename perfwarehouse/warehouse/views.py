"""The views every reader sees: ``measurements`` over a list of data files (with a
refusal in place of a damaged one), and the views built on it (``sql/views``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.columns import HISTORY
from perfwarehouse.warehouse.connection import memory_connection
from perfwarehouse.warehouse.layout import EMPTY_FILE, DataFile

#: the warehouses this process has read (a failed query that names no file is explained
#: by examining theirs: :func:`perfwarehouse.warehouse.damage.damaged_file_line`)
OPENED: set[Path] = set()
_VIEW_COLUMNS: dict[str, list[tuple[str, str]]] = {}  # root -> the view's (name, type)


def measurements_sql(
    root: Path, files: Sequence[DataFile], config_slice: tuple[int, int] | None = None, *,
    verify: bool = True,
) -> str:
    """The ``measurements`` view over ``files`` (an empty typed view if there are none).

    ``config_slice=(i, k)`` keeps only the configurations with ``config_id mod k
    = i``: one of k slices of whole configurations (config ids are hashes, so the
    slices are about equal), for jobs that split a large partition.

    With ``verify`` (readers), each file is verified first
    (:func:`~perfwarehouse.warehouse.integrity.damaged_for_reading`: a ``stat``, a
    hash when its time changed); a damaged one is never opened: in its place the
    view holds one row of its campaign and hardware type (the other columns NULL)
    whose filter raises DuckDB's ``error()`` with the one line naming the file. A query
    that would read the file fails with that line; one that filters its partition out
    (or reads only the catalog's tables) answers.
    """
    damaged: dict[str, str] = {}
    if verify:
        from perfwarehouse.warehouse.integrity import damaged_for_reading

        damaged = damaged_for_reading(root, files)
        OPENED.add(root)
    sql = parquet_sql(root, [f for f in files if f.path not in damaged])
    if config_slice is not None:
        i, k = (int(x) for x in config_slice)
        sql = f"SELECT * FROM (\n{sql}\n) WHERE config_id % {k} = {i}"
    for f in files:
        if f.path in damaged:
            sql += "\nUNION ALL BY NAME " + _refusal_sql(root, f, damaged[f.path])
    return sql


def _refusal_sql(root: Path, f: DataFile, line: str) -> str:
    """One row in place of the damaged file ``f``: its campaign and hardware type (so
    a query filtering its partition out answers), every other column an expression
    that raises ``line`` (so no filter on a column can be folded away before it is
    evaluated), and a filter that raises it too (for ``count(*)``)."""
    quote = sqlfiles.quote_literal
    raised = f"error({quote(line)})"
    columns = [f"{quote(f.campaign)} AS campaign", f"{quote(f.hardware_type)} AS hardware_type"]
    columns += [f"{raised}::{kind} AS {name}" for name, kind in view_columns(root)
                if name not in ("campaign", "hardware_type")]
    return f"SELECT {', '.join(columns)} FROM range(1) WHERE {raised} IS NULL"


def view_columns(root: Path) -> list[tuple[str, str]]:
    """(name, type) of the ``measurements`` view's columns (from the empty file)."""
    key = str(root)
    if key not in _VIEW_COLUMNS:
        con = memory_connection()
        try:
            _VIEW_COLUMNS[key] = [(r[0], r[1]) for r in con.execute(
                f"DESCRIBE {parquet_sql(root, [])}").fetchall()]
        finally:
            con.close()
    return _VIEW_COLUMNS[key]


def parquet_sql(root: Path, files: Sequence[DataFile]) -> str:
    """The ``measurements`` view's SQL reading ``files`` as they are."""
    paths = [root / f.path for f in files] or [root / EMPTY_FILE]
    old_layout = any(f.file_version < 2 for f in files)
    if old_layout:  # the empty file gives the newer columns; older files read them as NULL
        paths.insert(0, root / EMPTY_FILE)
    literal = "[" + ", ".join(sqlfiles.quote_literal(str(p)) for p in paths) + "]"
    return (sqlfiles.load("views/measurements").replace("{parquet_files}", literal)
            .replace("{union_by_name}", ", union_by_name = true" if old_layout else ""))


def create_views(
    root: Path, con: duckdb.DuckDBPyConnection, files: Sequence[DataFile], *, temporary: bool
) -> None:
    """``measurements`` over ``files`` and the views built on it (``sql/views``).

    perfwarehouse's own connections use temporary views (so a moved warehouse
    works); writers also refresh persistent copies for users of the raw DuckDB file.
    Temporary views are for reading: their files are verified (:func:`measurements_sql`).
    """
    kind = "TEMP VIEW" if temporary else "VIEW"
    con.execute(f"CREATE OR REPLACE {kind} measurements AS "
                f"{measurements_sql(root, files, verify=temporary)}")
    con.execute(f"CREATE OR REPLACE {kind} trials AS {sqlfiles.load('views/trials')}")
    con.execute(f"CREATE OR REPLACE {kind} latest_job_runs AS "
                f"{sqlfiles.load('views/latest_job_runs')}")
    for table in result_tables(con):
        con.execute(f"CREATE OR REPLACE {kind} {table} AS "
                    + sqlfiles.load("views/latest_results").replace("{table}", table))


def result_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The analysis tables by name (``order_effects`` ...): each a view over the latest
    job run per campaign of its physical table ``<name>_history``."""
    rows = con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
                       "AND suffix(table_name, ?) ORDER BY 1", [HISTORY]).fetchall()
    return [r[0][: -len(HISTORY)] for r in rows]


def reader(root: Path, files: Sequence[DataFile], configurations: object = None,
           config_slice: tuple[int, int] | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection (:func:`memory_connection`) whose temporary
    ``measurements`` view reads ``files`` (only the configurations of ``config_slice``,
    if given) and, when given, sees a ``configurations`` table (an Arrow table).

    It holds no lock on the catalog, so a long job never blocks a writer.
    """
    con = memory_connection()
    con.execute(f"CREATE TEMP VIEW measurements AS {measurements_sql(root, files, config_slice)}")
    if configurations is not None:
        con.register("configurations", configurations)
    return con
