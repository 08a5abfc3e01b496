"""What leaves the warehouse as a file or a printed table: a read-only query's result in
the format asked for (``perfwarehouse sql``) and one campaign's measurements as Parquet or
CSV (``perfwarehouse export``). The cells and tables read as :mod:`perfwarehouse.output`
formats them; the connection is locked down by :mod:`perfwarehouse.warehouse.readonly`."""

from __future__ import annotations

import csv
import itertools
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import duckdb
import orjson
import pyarrow as pa

from perfwarehouse.errors import UsageError, WarehouseError
from perfwarehouse.output import FORMAT_ALIASES, csv_cell, format_table, json_cell, markdown_table
from perfwarehouse.warehouse.readonly import Limits, lock_down, refuse_output, time_limit
from perfwarehouse.warehouse.store import Warehouse

TABLE_ROW_LIMIT = 10_000


FORMATS = ("table", "csv", "json", "markdown", "parquet")
"""What ``sql`` writes (``md`` is read as ``markdown``: ``output.FORMAT_ALIASES``)."""
FORMATS_BY_SUFFIX = {".csv": "csv", ".json": "json", ".parquet": "parquet", ".md": "markdown",
                     ".markdown": "markdown", ".txt": "table"}


def output_format(fmt: str | None, out: Path | None) -> str:
    """The output format: ``fmt`` when given, else the one ``out``'s extension names
    (``.csv``, ``.json``, ``.parquet``, ``.md``), else the aligned text table."""
    if fmt is not None:
        fmt = FORMAT_ALIASES.get(fmt, fmt)
        if fmt == "parquet" and out is None:
            raise UsageError("sql: --format parquet needs --out FILE (Parquet is binary)")
        return fmt
    if out is None:
        return "table"
    return FORMATS_BY_SUFFIX.get(out.suffix.lower(), "table")


def run_query(warehouse: Warehouse, query: str, fmt: str, out: Path | None,
              limits: Limits | None = None) -> None:
    """Run ``query`` on a read-only connection and write it in ``fmt`` to ``out`` or
    stdout. The connection reads only the warehouse's files and ``limits.reads``, within
    ``limits`` (:mod:`perfwarehouse.warehouse.readonly`); ``out`` never lands in the
    warehouse."""
    limits = limits or Limits()
    require_query(query)
    if re.fullmatch(r"\s*show\s+tables\s*;?\s*", query, flags=re.IGNORECASE):
        # the catalog's tables and the session's views of their latest rows share names:
        # each name once (issue 30)
        query = "SELECT DISTINCT name FROM (SHOW TABLES) ORDER BY name"
    with warehouse.catalog() as con:
        listed = [r[0] for r in con.execute("SELECT path FROM data_files").fetchall()]
        if out is not None:
            refuse_output(warehouse.root, listed, out)
        lock_down(con, warehouse.root, listed, limits)
        with time_limit(con, limits.timeout_s) as stopped:
            try:
                relation = con.sql(query)
                if relation is None:  # a statement without rows
                    return
                batches = relation.fetch_record_batch(10_000)
                if out is not None and fmt == "parquet":
                    import pyarrow.parquet as pq  # here only: about 6 % of sql's start-up

                    with pq.ParquetWriter(out, batches.schema) as writer:
                        for batch in batches:
                            writer.write_batch(batch)
                    return
                stream: TextIO = open(out, "w", newline="") if out else sys.stdout
                try:
                    _write(batches, fmt, stream)
                finally:
                    if out:
                        stream.close()
            except (duckdb.Error, UnicodeDecodeError) as exc:
                raise _query_error(exc, stopped[0], limits) from None


def _query_error(exc: BaseException, stopped: bool, limits: Limits) -> Exception:
    """One line for a query that failed: past the time limit, out of memory, a file it
    may not read, a damaged data file (:class:`WarehouseError`, exit 1), or DuckDB's
    message (a mistake in the query: :class:`UsageError`)."""
    from perfwarehouse.warehouse.damage import damaged_file_line

    if stopped:
        return WarehouseError(f"sql: stopped after {limits.timeout_s:g} s, the time limit "
                              "(--timeout SECONDS; 0: none)")
    text = str(exc) if not isinstance(exc, UnicodeDecodeError) else ""
    if isinstance(exc, duckdb.OutOfMemoryException):
        return WarehouseError(f"sql: out of memory within the limit of {limits.memory} "
                              f"({text.strip().splitlines()[0]}); raise --memory-limit or "
                              "narrow the query")
    if isinstance(exc, duckdb.PermissionException):
        return UsageError(f"sql: {text.strip().splitlines()[0]}; sql reads only the "
                          "warehouse and the files named with --read FILE")
    damaged = damaged_file_line(exc)
    if damaged is not None:
        return WarehouseError(damaged)
    return UsageError(f"sql: {_message(exc)}")


#: what ``sql`` runs: queries (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE) and
#: EXPLAIN of one; never COPY, ATTACH, SET, EXPORT, INSTALL, CREATE ...
QUERY_TYPES = ("SELECT", "EXPLAIN")
_EXPLAIN = re.compile(r"^\s*EXPLAIN\s+(?:ANALY[SZ]E\s+|\([^)]*\)\s*)?", re.IGNORECASE)


def require_query(query: str) -> None:
    """Refuse (one line) a statement that is not a query: the warehouse is read-only
    through ``sql`` in fact, not only by the catalog's read-only connection (``COPY ...
    TO`` could overwrite a data file, ``SET threads`` exhaust the machine, ``ATTACH`` a
    database write elsewhere). ``EXPLAIN ANALYZE`` runs its statement: checked too."""
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise UsageError(f"sql: {_message(exc)}") from None
    for statement in statements:
        kind = statement.type.name
        if kind == "EXPLAIN":
            require_query(_EXPLAIN.sub("", statement.query, count=1))
            continue
        if kind not in QUERY_TYPES:
            raise UsageError(
                f"sql: only queries run here (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, "
                f"EXPLAIN); {kind} is refused: the warehouse is read-only "
                "through sql. To export a result give --out FILE (.csv, .json, .parquet, "
                ".md) or pipe --format csv")


def _message(exc: BaseException) -> str:
    """DuckDB's whole message, hints and the caret line included (as one block); one
    line for a damaged data file."""
    from perfwarehouse.warehouse.damage import damage_message

    return damage_message(exc) or str(exc).strip()


def _rows(batches: pa.RecordBatchReader) -> Iterator[list[Any]]:
    """Rows as lists, by column position (a query may repeat a column name)."""
    for batch in batches:
        yield from (list(row) for row in zip(*(c.to_pylist() for c in batch.columns)))


def _write(batches: pa.RecordBatchReader, fmt: str, stream: TextIO) -> None:
    columns = batches.schema.names
    if fmt == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([csv_cell(v) for v in row] for row in _rows(batches))
    elif fmt == "json":
        repeated = sorted({c for c in columns if columns.count(c) > 1})
        if repeated:
            raise UsageError(f"sql: --format json needs distinct column names; "
                             f"{', '.join(repeated)} appear(s) more than once (use AS)")
        data = [dict(zip(columns, (json_cell(v) for v in row))) for row in _rows(batches)]
        stream.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif fmt == "markdown":
        rows = list(itertools.islice(_rows(batches), TABLE_ROW_LIMIT + 1))
        stream.write(markdown_table(columns, rows[:TABLE_ROW_LIMIT]))
        if len(rows) > TABLE_ROW_LIMIT:
            stream.write(f"\n(more than {TABLE_ROW_LIMIT:,} rows; use --format csv)\n")
    else:
        rows = list(itertools.islice(_rows(batches), TABLE_ROW_LIMIT + 1))
        more = len(rows) > TABLE_ROW_LIMIT
        stream.write(format_table(columns, rows[:TABLE_ROW_LIMIT]))
        if more:
            stream.write(f"(more than {TABLE_ROW_LIMIT:,} rows; use --format csv or --out FILE "
                         "for all of them)\n")


def export_campaign(warehouse: Warehouse, campaign: str, out: Path) -> int:
    """Write one campaign's measurements to ``out`` (.parquet or .csv), partition by partition."""
    if out.suffix not in (".parquet", ".csv"):
        raise UsageError(f"{out}: export writes .parquet or .csv files")
    files = warehouse.data_files([campaign])
    refuse_output(warehouse.root, [f.path for f in warehouse.data_files()], out, "export")
    if not files:
        raise UsageError(f"campaign {campaign!r} has no measurements in {warehouse.root}")
    con = warehouse.reader(files)
    try:
        reader = con.sql("SELECT * FROM measurements ORDER BY hardware_type, config_id, "
                         "run_index, position, iteration").fetch_record_batch(100_000)
        n = 0
        writer: Any = None
        try:
            for batch in reader:
                if writer is None:
                    import pyarrow.csv as pacsv
                    import pyarrow.parquet as pq

                    writer = (pq.ParquetWriter(out, batch.schema) if out.suffix == ".parquet"
                              else pacsv.CSVWriter(out, batch.schema))
                writer.write_batch(batch)
                n += batch.num_rows
        finally:
            if writer is not None:
                writer.close()
        return n
    finally:
        con.close()


def is_write_error(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB failing to read or write a path (an output file that
    cannot be written: COPY ... TO), which the command line words in one line."""
    return isinstance(exc, duckdb.IOException)
