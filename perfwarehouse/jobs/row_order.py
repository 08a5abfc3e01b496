"""A job's rows in the order its ``compute`` needs, sorted only when the files do not
already hold them so.

A job that needs its rows in an order names the columns (``Job.row_order``) instead of
an ``ORDER BY`` in its query. DuckDB returns the rows of a scan or a filter in the order
of the Parquet files (``preserve_insertion_order``, on by default; a join does not keep
it), and a compacted partition is written in the series jobs' order
(:data:`perfwarehouse.warehouse.compact_plan.SORT_KEY`), so one vectorised pass over the
key columns finds them in order and nothing is sorted. Otherwise (files as ingested, in
time order; an aggregate's rows) the rows are sorted here with ``np.lexsort`` on the key
columns as numbers, then taken: on the demo's largest partition 0.74 CPU s where DuckDB's
``ORDER BY`` took 1.06 (``benchmarks/bench_row_order.py``).

The order is DuckDB's ``ORDER BY`` of the same columns: ascending, NULLs last, strings
by their bytes (UTF-8, which is code-point order); rows equal in every key keep the
files' order.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def in_row_order(table: pa.Table, columns: Sequence[str]) -> pa.Table:
    """``table``'s rows ordered by ``columns`` (the same rows; the table itself when
    they already are)."""
    if table.num_rows < 2 or not columns:
        return table
    keys = table_keys(table, columns)
    if is_sorted(keys):
        return table
    return take(table, np.lexsort(keys[::-1]))


def in_order(table: pa.Table, columns: Sequence[str]) -> bool:
    """Whether ``table``'s rows are already ordered by ``columns`` (nothing to sort)."""
    return table.num_rows < 2 or is_sorted(table_keys(table, columns))


def table_keys(table: pa.Table, columns: Sequence[str]) -> list[np.ndarray]:
    """The :func:`sort_keys` of ``columns``, most significant first."""
    return [key for name in columns for key in sort_keys(table.column(name))]


def take(table: pa.Table, rows: np.ndarray) -> pa.Table:
    """``table.take(rows)``, text columns through a dictionary (their distinct values
    are few; moving 4-byte codes and casting back is about twice as fast as moving the
    text: 0.03 instead of 0.06 s per column of 1M rows), one text repeated (a partition's
    campaign and hardware type) rebuilt (7 ms)."""
    indices = pa.array(rows)

    def moved(column: pa.ChunkedArray) -> pa.ChunkedArray:
        if not pa.types.is_string(column.type):
            return column.take(indices)
        if column.null_count == 0 and pc.all(pc.equal(column, column[0])).as_py():
            return pa.chunked_array([pa.repeat(column[0], len(column))])
        return pc.dictionary_encode(column).take(indices).cast(column.type)

    with ThreadPoolExecutor(2) as pool:  # Arrow's kernels release the interpreter lock
        columns = list(pool.map(moved, table.columns))
    return pa.Table.from_arrays(columns, schema=table.schema)


def sort_keys(column: pa.ChunkedArray) -> list[np.ndarray]:
    """Numeric arrays that order like ``column`` does in SQL: a NULL flag first when the
    column has NULLs (NULLs last), then the values (strings by the rank of their text)."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    keys: list[np.ndarray] = []
    if column.null_count:
        keys.append(column.is_null().to_numpy(zero_copy_only=False).astype(np.int8))
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        encoded = pc.dictionary_encode(column)  # rank the distinct texts only
        words = encoded.dictionary.to_numpy(zero_copy_only=False).astype(str)
        rank = np.zeros(max(words.size, 1), np.int64)  # NULLs: code 0, after the flag
        rank[np.argsort(words)] = np.arange(words.size)
        keys.append(rank[encoded.indices.fill_null(0).to_numpy(zero_copy_only=False)])
        return keys
    if pa.types.is_boolean(kind):
        values = column.fill_null(False).to_numpy(zero_copy_only=False).astype(np.int8)
    elif pa.types.is_timestamp(kind) or pa.types.is_date(kind):
        values = pc.cast(column, pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
    else:
        values = column.fill_null(0).to_numpy(zero_copy_only=False)
    keys.append(values)
    return keys


def is_sorted(keys: Sequence[np.ndarray]) -> bool:
    """Whether the rows are in non-decreasing lexicographic order of ``keys`` (most
    significant first). A NaN never compares in order, so rows with NaN keys count as
    unsorted unless an earlier key decides (``np.lexsort`` then puts NaN last)."""
    in_order = np.ones(keys[0].size - 1, dtype=bool)  # rows i, i+1 equal so far
    decided = np.zeros(keys[0].size - 1, dtype=bool)  # row i < row i+1 already
    for key in keys:
        before, after = key[:-1], key[1:]
        decided |= in_order & (before < after)
        in_order &= before == after
    return bool((decided | in_order).all())
