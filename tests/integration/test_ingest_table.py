"""CSV and Parquet tables through a mapping; the native Parquet form without one."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl, ingest_table
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO

CSV = REPO / "tests" / "fixtures" / "tables" / "cloud_workbench.csv"
MAPPING = REPO / "ingest" / "mappings" / "cloud-workbench.toml"


def rows(warehouse: Warehouse, query: str) -> list[tuple]:
    with warehouse.catalog() as con:
        return con.execute(query).fetchall()


def test_measurement_rows_become_trials_in_iteration_order(warehouse: Warehouse) -> None:
    summary = ingest_table(warehouse, CSV, MAPPING)
    assert (summary.trials_added, summary.values_added) == (3, 7)
    assert rows(warehouse, """SELECT node, list(value ORDER BY iteration) FROM measurements
                              WHERE benchmark = 'log4j2-1' GROUP BY node ORDER BY node""") == [
        ("i-0a1", [181.2, 179.9, 183.4]), ("i-0b2", [176.3, 175.0])]
    assert rows(warehouse, "SELECT DISTINCT settings FROM measurements ORDER BY 1") == [
        ('{"jvm":"openjdk-8","params":"async"}',), ('{"jvm":"openjdk-8","params":null}',)]
    assert rows(warehouse, "SELECT DISTINCT hardware_type, order_kind FROM measurements") == [
        ("m4.large", "fixed")]
    assert ingest_table(warehouse, CSV, MAPPING).outcome == "unchanged"


def test_a_non_numeric_cell_is_refused_with_its_line(warehouse: Warehouse, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    lines = CSV.read_text().splitlines()
    lines[5] = lines[5].replace(",408.1,", ",n/a,")
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(TrialParseError) as info:
        ingest_table(warehouse, bad, MAPPING)
    assert (info.value.line, info.value.rule) == (6, "non-numeric")
    assert "'n/a'" in str(info.value)
    assert not (warehouse.root / "measurements").exists()


def test_a_mapping_naming_a_missing_column_is_a_usage_error(warehouse: Warehouse, tmp_path: Path) -> None:
    mapping = tmp_path / "m.toml"
    mapping.write_text(MAPPING.read_text().replace('"instance_id"', '"host"'))
    with pytest.raises(UsageError, match="no column.*host"):
        ingest_table(warehouse, CSV, mapping)


def test_native_parquet_needs_no_mapping_and_equals_the_jsonl(tmp_path: Path) -> None:
    a, b = Warehouse(tmp_path / "a"), Warehouse(tmp_path / "b")
    generate_to_file("laaber-cloud", tmp_path / "c.jsonl", seed=2, scale=0.04)
    generate_to_file("laaber-cloud", tmp_path / "c.parquet", seed=2, scale=0.04)
    ingest_jsonl(a, [tmp_path / "c.jsonl"])
    ingest_table(b, tmp_path / "c.parquet", None)
    query = ("SELECT campaign, hardware_type, node, run_id, position, config_id, iteration, "
             "value, started_at FROM measurements ORDER BY ALL")
    assert rows(a, query) == rows(b, query)
    assert rows(a, "SELECT * FROM nodes ORDER BY node") == rows(b, "SELECT * FROM nodes ORDER BY node")
