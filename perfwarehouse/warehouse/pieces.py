"""The pieces of a snapshot: what a job computes at once, and how one piece is read.

A :class:`Snapshot` is the catalog as of one moment (its data files and the small
``configurations`` table). :meth:`Snapshot.pieces` cuts it into :class:`Piece` s: one
per partition (campaign x hardware type, or campaign), and a partition too large to
compute at once into slices ``config_id mod k = i`` of whole configurations, sized by
rows (``slice_rows`` measurements) and by configurations (``slice_configurations``,
counted from the files' recorded configuration counts where known, else from the
snapshot's configurations). :func:`read_piece` reads one piece with a query, bound with
the piece's key: the result is a pure function of the piece's files, so the same piece
read here or on a Dask worker gives the same table. Nothing here rebuilds a
:class:`~perfwarehouse.warehouse.store.Warehouse`: a piece needs only the root.

Commands that read some campaigns' measurements with their own queries (``compare``)
use :mod:`perfwarehouse.warehouse.sides`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import pyarrow as pa

from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.connection import fetch_arrow
from perfwarehouse.warehouse.layout import DataFile
from perfwarehouse.warehouse.views import reader

T = TypeVar("T")
#: what :func:`open_piece` returns: a DuckDB connection whose ``measurements`` view
#: holds a piece's rows (close it)
Reader = duckdb.DuckDBPyConnection


@dataclass(frozen=True)
class Piece:
    """One unit of a job's work: a partition (campaign x hardware type, or campaign), or
    one slice ``config_id mod k = i`` of its configurations, and the exact Parquet files
    (of the snapshot) that hold the partition. Its result is a pure function of the
    files, the key, the slice and the job's parameters: computed here or on a worker,
    the tables are the same."""

    index: int
    partition_by: tuple[str, ...]
    key: tuple[str, ...]
    config_slice: tuple[int, int] | None
    files: tuple[DataFile, ...]

    @property
    def label(self) -> str:
        """``campaign=C hardware_type=H slice 2/5``: how errors and logs name the piece."""
        text = " ".join(f"{k}={v}" for k, v in zip(self.partition_by, self.key))
        if self.config_slice is not None:
            text += f" slice {self.config_slice[0] + 1}/{self.config_slice[1]}"
        return text

    @property
    def file_rows(self) -> int:
        """Measurements in the piece's files (all slices of the partition)."""
        return sum(f.row_count for f in self.files)

    @property
    def campaigns(self) -> list[str]:
        """The campaigns of the piece's files, sorted."""
        return sorted({f.campaign for f in self.files})


def cut(files: Sequence[DataFile], partition_by: tuple[str, ...], *,
        slice_rows: int | None = None, slice_configurations: int | None = None,
        configurations: int | None = None) -> tuple[Piece, ...]:
    """The pieces of ``files``: one per partition (sorted by key) and, with
    ``slice_rows``, a partition of more rows than that in slices of whole
    configurations; with ``slice_configurations`` too, enough slices that none holds
    more than that many configurations (a partition is taken to hold at most
    ``configurations`` of them, or one per row when that is not given)."""
    by_key: dict[tuple[str, ...], list[DataFile]] = {}
    for f in files:
        by_key.setdefault(tuple(getattr(f, k) for k in partition_by), []).append(f)
    pieces: list[Piece] = []
    for key in sorted(by_key):
        part = tuple(by_key[key])
        k = 1
        if slice_rows is not None:
            rows = sum(f.row_count for f in part)
            k = -(-rows // max(1, slice_rows))
            if slice_configurations is not None:
                configs = rows if configurations is None else min(rows, configurations)
                k = max(k, -(-configs // max(1, slice_configurations)))
        for i in range(max(k, 1)):
            pieces.append(Piece(len(pieces), partition_by, key,
                                (i, k) if k > 1 else None, part))
    return tuple(pieces)


@dataclass(frozen=True)
class Snapshot:
    """The data files and the (small) configurations table, as of one moment."""

    files: list[DataFile]
    configurations: pa.Table

    @property
    def campaigns(self) -> list[str]:
        """The campaigns that have data files, sorted."""
        return sorted({f.campaign for f in self.files})

    @property
    def batches(self) -> list[int]:
        """The batches whose files the snapshot holds, sorted."""
        return sorted({f.batch_id for f in self.files})

    def pieces(self, partition_by: tuple[str, ...], *, slice_rows: int | None = None,
               slice_configurations: int | None = None) -> tuple[Piece, ...]:
        """:func:`cut` of the snapshot's files (the configurations it holds bound the
        configurations of a partition)."""
        return cut(self.files, partition_by, slice_rows=slice_rows,
                   slice_configurations=slice_configurations,
                   configurations=self.configurations.num_rows
                   if self.configurations.num_columns else None)

    def without_batches(self, batches: Collection[int]) -> Snapshot:
        """The snapshot's files of the batches not in ``batches`` (what landed after a
        job run that read those)."""
        return Snapshot([f for f in self.files if f.batch_id not in batches],
                        self.configurations)

    def whole(self) -> Piece:
        """One piece of every file (no partition key): what a query over all the
        snapshot's measurements reads."""
        return Piece(0, (), (), None, tuple(self.files))


def open_piece(root: str | Path, piece: Piece,
               configurations: pa.Table | None = None) -> duckdb.DuckDBPyConnection:
    """A reader whose ``measurements`` view holds exactly the piece's rows (its files,
    only its configuration slice) and, when given, a ``configurations`` table. Close it."""
    return reader(Path(root), piece.files, configurations, piece.config_slice)


def query_piece(con: duckdb.DuckDBPyConnection, piece: Piece, query: str,
                values: Mapping[str, Any] | None = None) -> pa.Table:
    """``query`` on a reader of ``piece`` (:func:`open_piece`), bound with the piece's
    key (``$campaign``, ``$hardware_type``) and ``values``; of those, only the names the
    query uses are bound (DuckDB refuses unused ones)."""
    bound = dict(zip(piece.partition_by, piece.key)) | dict(values or {})
    used = {k: v for k, v in bound.items() if f"${k}" in query}
    return fetch_arrow(con, query, used or None)


def read_piece(root: str | Path, piece: Piece, query: str,
               values: Mapping[str, Any] | None = None,
               configurations: pa.Table | None = None) -> pa.Table:
    """:func:`query_piece` on a reader opened and closed here."""
    con = open_piece(root, piece, configurations)
    try:
        return query_piece(con, piece, query, values)
    finally:
        con.close()


def read_ahead(pieces: Sequence[Piece], read: Callable[[Piece], T]) -> Iterator[T]:
    """``read`` of each piece in order, the next piece read on a thread while the
    caller works on this one: the reads (DuckDB, 6 % of ``change-points`` on the 10x
    campaign) overlap the statistics, and at most two pieces are held at once."""
    with ThreadPoolExecutor(max_workers=1) as reader_thread:
        pending = None
        for piece in pieces:
            following = reader_thread.submit(read, piece)
            if pending is not None:
                yield pending.result()
            pending = following
        if pending is not None:
            yield pending.result()


def catalog_table_ddl(table: str) -> str:
    """The DDL of a catalog table (``sql/schema/NNN_<table>.sql``, or a result table's
    contract): a reader creates it (``TEMP``) empty when a snapshot has none."""
    for name, statement in sqlfiles.schema_statements():
        if name.split("_", 1)[1] == table:
            return statement
    raise KeyError(table)
