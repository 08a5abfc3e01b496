"""The shipped Otava (Hunter) mapping reads every time-series CSV layout of Otava's
examples and test data (commit column or none, `;` between cells, unix seconds, one or
several branches): each file's values checked against the file read here with the csv
module and datetime (fixtures: tests/fixtures/tables/otava/make_otava_layouts.py)."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from perfwarehouse.ingest.service import ingest_table
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO

OTAVA = REPO / "ingest" / "mappings" / "otava-csv.toml"
LAYOUTS = REPO / "tests" / "fixtures" / "tables" / "otava"
NAMES = ("commit", "no_commit", "semicolons", "unix_time", "single_branch", "multi_branch")


def _expected(path: Path) -> list[tuple]:
    """(settings, metric, unix seconds, revision, value) per metric cell, read directly."""
    text = path.read_text()
    delimiter = ";" if ";" in text.splitlines()[0] else ","
    out = []
    for row in csv.DictReader(text.splitlines(), delimiter=delimiter):
        stamp = row.pop("time")
        moment = (datetime.fromtimestamp(int(stamp), timezone.utc) if stamp.isdigit()
                  else datetime.strptime(stamp, "%Y.%m.%d %H:%M:%S %z"))
        commit = row.pop("commit", None)
        branch = row.pop("branch", None)
        settings = json.dumps({"branch": branch} if branch else {}, separators=(",", ":"))
        for metric, cell in row.items():
            out.append((settings, metric, moment.timestamp(), commit, float(cell)))
    return sorted(out, key=repr)


@pytest.mark.parametrize("name", NAMES)
def test_every_otava_layout_reads_cell_for_cell(tmp_path: Path, name: str) -> None:
    path = LAYOUTS / f"{name}.csv"
    warehouse = Warehouse(tmp_path / "wh")
    summary = ingest_table(warehouse, path, OTAVA, keys={"node": "ci-box"})
    expected = _expected(path)
    assert summary.values_added == len(expected)
    with warehouse.catalog() as con:
        got = con.execute("""SELECT settings, metric, epoch(started_at), revision, value
                             FROM measurements""").fetchall()
        assert con.execute("SELECT DISTINCT benchmark, node FROM measurements").fetchall() == [
            (name, "ci-box")]
    assert sorted(got, key=repr) == expected


def test_the_fixtures_are_what_the_generator_writes(tmp_path: Path) -> None:
    from tests.fixtures.tables.otava.make_otava_layouts import write

    for path in write(tmp_path):
        assert path.read_bytes() == (LAYOUTS / path.name).read_bytes()


def test_branches_of_one_file_are_separate_series(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "wh")
    ingest_table(warehouse, LAYOUTS / "multi_branch.csv", OTAVA, keys={"node": "ci-box"})
    with warehouse.catalog() as con:
        branches = con.execute("""SELECT DISTINCT json_extract_string(settings, '$.branch')
                                  FROM measurements ORDER BY 1""").fetchall()
    assert branches == [("feature-1",), ("feature-2",), ("main",)]
