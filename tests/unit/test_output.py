"""The public cells and tables of perfwarehouse.output (sql's, export's and compare's)."""

from __future__ import annotations

import json
import math
from datetime import date, datetime
from decimal import Decimal

from perfwarehouse.output import (
    count,
    csv_cell,
    fit,
    format_float,
    format_table,
    json_cell,
    markdown_table,
    text_cell,
)


def test_floats_read_to_ten_digits_and_exact_values_keep_every_digit() -> None:
    assert format_float(0.1 + 0.2) == "0.3"
    assert format_float(5.0) == "5.0" and format_float(-0.0) == "-0.0"
    assert format_float(1.5e-5) == "1.500000e-05" and format_float(2e15) == "2.000000e+15"
    assert format_float(math.inf) == "inf"
    assert csv_cell(0.1 + 0.2) == "0.30000000000000004"  # csv: every digit
    assert float(csv_cell(1 / 3)) == 1 / 3


def test_cells_of_each_format() -> None:
    when = datetime(2026, 11, 28, 10, 0, 1)
    assert text_cell(None) == "NULL" and text_cell(when) == "2026-11-28 10:00:01"
    assert csv_cell(None) == "" and csv_cell(date(2026, 1, 2)) == "2026-01-02"
    assert json.loads(csv_cell([1, {"k": "é"}])) == [1, {"k": "é"}]
    assert json_cell([math.nan, Decimal("1.5"), b"\x01\xff", {"t": when}]) == [
        None, 1.5, "01ff", {"t": "2026-11-28T10:00:01"}]


def test_aligned_table_right_aligns_numbers_and_counts_rows() -> None:
    text = format_table(["name", "n"], [["a", 1], ["bbb", 22.5], ["c", None]])
    assert text.splitlines() == ["name     n", "----  ----", "a        1", "bbb   22.5",
                                 "c     NULL", "(3 rows)"]
    assert format_table(["x"], [[1]]).endswith("(1 row)\n")


def test_markdown_escapes_pipes_and_newlines() -> None:
    md = markdown_table(["a|b", "n"], [["x|y\nz", 3]])
    assert md.splitlines() == ["| a\\|b | n |", "|---|---:|", "| x\\|y z | 3 |"]


def test_counts_name_their_unit_and_cut_text_is_marked() -> None:
    assert count(1, "node") == "1 node" and count(2924, "node") == "2,924 nodes"
    assert count(2, "batch", "batches") == "2 batches" and count(0, "campaign") == "0 campaigns"
    assert fit("abcdef", 4) == "abc…" and fit("abc", 3) == "abc"
