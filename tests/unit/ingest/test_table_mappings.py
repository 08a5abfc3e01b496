"""`ingest table` mappings: key options over the mapping, revision columns, wide tables
melted into one value per metric, times read with a strptime format or as unix
seconds / milliseconds; the shipped Otava (Hunter) CSV mapping, checked against the
file read here with the csv module and datetime.strptime."""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.service import ingest_table
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO

OTAVA = REPO / "ingest" / "mappings" / "otava-csv.toml"
SAMPLES = REPO / "tests" / "fixtures" / "tables" / "otava_local_samples.csv"


def _rows(warehouse: Warehouse, query: str) -> list[tuple]:
    with warehouse.catalog() as con:
        return con.execute(query).fetchall()


def test_the_otava_mapping_melts_every_metric_cell_into_a_value(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "wh")
    ingest_table(warehouse, SAMPLES, OTAVA, keys={"node": "ci-box", "hardware_type": "ci-box"})
    expected = []
    with open(SAMPLES, newline="") as f:
        for row in csv.DictReader(f):
            stamp = datetime.strptime(row.pop("time"), "%Y.%m.%d %H:%M:%S %z")
            commit = row.pop("commit")
            for metric, cell in row.items():
                if cell.strip():
                    expected.append((metric, stamp.timestamp(), commit, float(cell)))
    got = _rows(warehouse, """SELECT metric, epoch(started_at), revision, value
                              FROM measurements ORDER BY ALL""")
    assert got == sorted(expected)
    assert _rows(warehouse, "SELECT DISTINCT benchmark, campaign, node FROM measurements") == [
        ("otava_local_samples", "otava", "ci-box")]
    # one run per row, numbered by its line
    assert _rows(warehouse, "SELECT count(*), min(run_index), max(run_index) FROM runs") == [
        (5, 2, 6)]


def test_key_options_hold_for_every_row_over_the_mapping(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "wh")
    ingest_table(warehouse, SAMPLES, OTAVA,
                 keys={"campaign": "nightly", "node": "n7", "hardware_type": "c5.large",
                       "revision": "v1.2", "revision_time": "2024-02-01T00:00:00Z"})
    assert _rows(warehouse, """SELECT DISTINCT campaign, node, hardware_type, revision,
                                      epoch(revision_time) FROM measurements""") == [
        ("nightly", "n7", "c5.large", "v1.2", 1706745600.0)]


def _mapping(tmp_path: Path, times: str, metrics: str = '["t1", "t2"]') -> Path:
    path = tmp_path / "m.toml"
    path.write_text(f"""
[columns]
started_at = "ts"
run_id = "ts"
run_index = "$row"
revision = "sha"
revision_time = "committed"
[times]
{times}
[constants]
campaign = "c"
node = "n"
hardware_type = "hw"
benchmark = "{{file}}"
position = 0
order_kind = "fixed"
[melt]
metrics = {metrics}
""")
    return path


@pytest.mark.parametrize(("how", "scale"), [("unix_s", 1.0), ("unix_ms", 1000.0)])
def test_unix_times_in_seconds_or_milliseconds(tmp_path: Path, how: str, scale: float) -> None:
    table = tmp_path / "wide.csv"
    table.write_text("ts,sha,committed,t1,t2\n"
                     f"{1_700_000_000.5 * scale:.1f},a1,{1_699_999_000 * scale:.0f},1.5,2.5\n"
                     f"{1_700_000_100 * scale:.0f},b2,{1_699_999_100 * scale:.0f},1.25,\n")
    mapping = _mapping(tmp_path, f'started_at = "{how}"\nrevision_time = "{how}"')
    warehouse = Warehouse(tmp_path / "wh")
    ingest_table(warehouse, table, mapping)
    assert _rows(warehouse, """SELECT metric, epoch(started_at), revision, epoch(revision_time),
                                      value, benchmark FROM measurements ORDER BY ALL""") == [
        ("t1", 1_700_000_000.5, "a1", 1_699_999_000.0, 1.5, "wide"),
        ("t1", 1_700_000_100.0, "b2", 1_699_999_100.0, 1.25, "wide"),
        ("t2", 1_700_000_000.5, "a1", 1_699_999_000.0, 2.5, "wide")]


def test_a_time_not_of_the_format_is_refused_naming_the_line_and_format(
        tmp_path: Path) -> None:
    table = tmp_path / "wide.csv"
    table.write_text("ts,sha,committed,t1,t2\n"
                     "2024-01-01 10:00,a1,2024-01-01 09:00,1,2\n"
                     "01/02/2024 10:00,b2,2024-01-01 09:00,1,2\n")
    mapping = _mapping(tmp_path, 'started_at = "%Y-%m-%d %H:%M"\n'
                                 'revision_time = "%Y-%m-%d %H:%M"', metrics='"*"')
    with pytest.raises(TrialParseError) as info:
        ingest_table(Warehouse(tmp_path / "wh"), table, mapping)
    assert info.value.line == 3 and info.value.rule == "bad-timestamp"
    assert "'01/02/2024 10:00' is not a time of the form %Y-%m-%d %H:%M" in str(info.value)


def test_a_node_alone_is_its_own_hardware_type_unless_the_mapping_names_one(
        tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "wh")
    ingest_table(warehouse, SAMPLES, OTAVA, keys={"node": "ci-box"})
    assert _rows(warehouse, "SELECT DISTINCT node, hardware_type FROM measurements") == [
        ("ci-box", "ci-box")]
    mapping = tmp_path / "typed.toml"
    mapping.write_text(OTAVA.read_text().replace('campaign = "otava"',
                                                 'campaign = "otava"\nhardware_type = "m5"'))
    other = Warehouse(tmp_path / "wh2")
    ingest_table(other, SAMPLES, mapping, keys={"node": "ci-box"})
    assert _rows(other, "SELECT DISTINCT node, hardware_type FROM measurements") == [
        ("ci-box", "m5")]
