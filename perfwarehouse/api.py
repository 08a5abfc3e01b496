"""Read access to a warehouse for Python users (``perfwarehouse.connect``)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from perfwarehouse.config import resolve_warehouse_path
from perfwarehouse.warehouse.store import Warehouse


class Connection:
    """A read-only connection: the catalog tables plus the ``measurements`` view.

    Close it (or use it as a context manager) when done: while it is open, a
    writer of the same warehouse waits.
    """

    def __init__(self, warehouse: Warehouse) -> None:
        self.warehouse = warehouse
        self._stack = ExitStack()
        self.duckdb: duckdb.DuckDBPyConnection = self._stack.enter_context(warehouse.catalog())

    def sql(self, query: str, params: Sequence[Any] | dict[str, Any] | None = None) -> pl.DataFrame:
        """Run ``query`` (parameters bound, never interpolated) and return a polars frame."""
        return pl.from_arrow(self.arrow(query, params))  # type: ignore[return-value]

    def arrow(self, query: str, params: Sequence[Any] | dict[str, Any] | None = None) -> pa.Table:
        """Run ``query`` and return an Arrow table."""
        return self.duckdb.execute(query, params).to_arrow_table()

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[str]:  # table names, for discovery
        rows = self.duckdb.execute("SELECT table_name FROM information_schema.tables ORDER BY 1")
        return iter(r[0] for r in rows.fetchall())


def connect(path: str | os.PathLike[str] | None = None) -> Connection:
    """Open the warehouse at ``path`` (default ``$PERFWAREHOUSE_HOME`` or ``./warehouse``) read-only."""
    return Connection(Warehouse(resolve_warehouse_path(path)))
