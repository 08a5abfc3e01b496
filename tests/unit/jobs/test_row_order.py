"""jobs.row_order: the rows in DuckDB's ORDER BY order, sorted only when they are not."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from perfwarehouse.jobs.row_order import in_row_order, is_sorted, sort_keys
from perfwarehouse.warehouse.store import fetch_arrow

KEYS = ("config_id", "t", "run_index", "run_id", "iteration")


def random_rows(rng: np.random.Generator, n: int, *, nulls: bool) -> pa.Table:
    """Rows with many ties in every key (few distinct values), strings with non-ASCII
    text and, with ``nulls``, NULLs in every key column."""
    def maybe_null(values: list) -> list:
        return [None if nulls and rng.random() < 0.15 else v for v in values]

    words = ["run-b", "run-a", "Run-a", "rün", "", "run-a2", "z"]
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return pa.table({
        "config_id": pa.array(maybe_null([2**63 + int(i) for i in rng.integers(0, 4, n)]),
                              pa.uint64()),  # above the largest int64
        "t": pa.array(maybe_null(rng.integers(0, 3, n).astype(float).tolist()), pa.float64()),
        "run_index": pa.array(maybe_null(rng.integers(-2, 2, n).tolist()), pa.int32()),
        "run_id": pa.array(maybe_null([words[i] for i in rng.integers(0, len(words), n)]),
                           pa.string()),
        "iteration": pa.array(maybe_null(rng.integers(0, 2, n).tolist()), pa.int32()),
        "started": pa.array(maybe_null([start + timedelta(seconds=int(s))
                                        for s in rng.integers(0, 3, n)]), pa.timestamp("us", "UTC")),
        "flag": pa.array(maybe_null(rng.random(n).round().astype(bool).tolist()), pa.bool_()),
        "row": pa.array(np.arange(n)),  # the files' order, to check stability
    })


def slow_order(table: pa.Table, columns: tuple[str, ...]) -> list[int]:
    """The obvious twin: Python's stable sort on tuples, NULLs last, text by its bytes."""
    def sql_key(value: object) -> tuple[bool, object]:
        return (value is None, value.encode() if isinstance(value, str)
                else 0 if value is None else value)

    rows = table.to_pylist()
    return sorted(range(len(rows)), key=lambda i: tuple(sql_key(rows[i][c]) for c in columns))


def duckdb_order(table: pa.Table, columns: tuple[str, ...]) -> pa.Table:
    """DuckDB's ORDER BY of the same columns (the order the jobs' queries had)."""
    con = duckdb.connect()
    con.register("rows", table)
    return fetch_arrow(con, f"SELECT * FROM rows ORDER BY {', '.join(columns)}")


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("nulls", [False, True])
@pytest.mark.parametrize("columns", [KEYS, ("run_id", "started", "flag"), ("flag", "t")])
def test_the_order_of_duckdb_and_of_a_stable_sort(seed: int, nulls: bool,
                                                   columns: tuple[str, ...]) -> None:
    rng = np.random.default_rng(seed)
    table = random_rows(rng, int(rng.integers(2, 300)), nulls=nulls)
    ordered = in_row_order(table, columns)
    assert ordered.column("row").to_pylist() == slow_order(table, columns)
    reference = duckdb_order(table, columns)  # ties may come in any order there
    assert ordered.select(list(columns)).to_pylist() == reference.select(list(columns)).to_pylist()


def test_rows_already_in_order_are_returned_as_they_are() -> None:
    table = random_rows(np.random.default_rng(1), 500, nulls=True)
    ordered = in_row_order(table, KEYS)
    assert ordered is not table
    assert in_row_order(ordered, KEYS) is ordered  # checked, not sorted again
    assert in_row_order(ordered.slice(0, 1), KEYS).num_rows == 1
    assert in_row_order(ordered, ()) is ordered


def test_one_pair_out_of_order_is_found() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        keys = [np.sort(rng.integers(0, 3, 40)), rng.integers(0, 3, 40)]
        order = np.lexsort(keys[::-1])
        keys = [k[order] for k in keys]
        assert is_sorted(keys)
        i = int(rng.integers(0, 39))
        swapped = [k.copy() for k in keys]
        for k in swapped:
            k[[i, i + 1]] = k[[i + 1, i]]
        expected = tuple(k[i] for k in keys) == tuple(k[i + 1] for k in keys)
        assert is_sorted(swapped) == expected


def test_nan_goes_last_and_is_never_taken_as_sorted() -> None:
    table = pa.table({"c": pa.array([1, 1, 1, 2], pa.int64()),
                      "t": pa.array([np.nan, 0.5, np.nan, 0.1])})
    assert not is_sorted([k for c in ("c", "t") for k in sort_keys(table.column(c))])
    ordered = in_row_order(table, ("c", "t"))
    assert ordered.column("t").to_pylist()[0] == 0.5
    assert np.isnan(ordered.column("t").to_pylist()[1:3]).all()
    assert ordered.select(["c"]).equals(duckdb_order(table, ("c", "t")).select(["c"]))


def test_chunked_columns_and_all_null_strings() -> None:
    table = pa.concat_tables([pa.table({"s": pa.array([None, None], pa.string()), "i": [2, 1]}),
                              pa.table({"s": pa.array([None], pa.string()), "i": [0]})])
    assert in_row_order(table, ("s", "i")).column("i").to_pylist() == [0, 1, 2]


def test_repeated_text_moves_with_its_rows() -> None:
    """One text on every row is rebuilt rather than moved; one text and NULLs is not."""
    table = pa.table({"i": [3, 1, 2], "same": ["c", "c", "c"], "gaps": ["a", None, "a"],
                      "empty": pa.array(["", "", ""], pa.string())})
    ordered = in_row_order(table, ("i",))
    assert ordered.to_pylist() == sorted(table.to_pylist(), key=lambda row: row["i"])
    assert ordered.schema == table.schema
