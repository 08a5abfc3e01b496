"""`ingest table` refuses what it used to drop or misname: an empty (CSV) or null (Parquet)
value cell, a ragged row, a line that is not UTF-8 (line by line, so --quarantine keeps
the other lines) and timestamps outside RFC 3339 / 1970-9999."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.service import ingest_table
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO

pytestmark = pytest.mark.integration

CSV = REPO / "tests" / "fixtures" / "tables" / "cloud_workbench.csv"
MAPPING = REPO / "ingest" / "mappings" / "cloud-workbench.toml"


def _changed(tmp_path: Path, line: int, edit) -> Path:  # type: ignore[no-untyped-def]
    lines = CSV.read_bytes().splitlines()
    lines[line - 1] = edit(lines[line - 1])
    path = tmp_path / "t.csv"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


CSV_CASES = {
    "empty-value": (lambda b: b.replace(b",408.1,", b",,"), "missing-value"),
    "ragged-row": (lambda b: b + b",extra", "ragged-row"),
    "short-row": (lambda b: b.rsplit(b",", 3)[0], "ragged-row"),
    "not-utf8": (lambda b: b.replace(b"openjdk-8", b"openjdk-\xff\xfe"), "broken-utf8"),
    "year-10000": (lambda b: b.replace(b"2017-03-01T10:01:01Z", b"10000-03-01T10:01:01Z"),
                   "bad-timestamp"),
    "bare-date": (lambda b: b.replace(b"2017-03-01T10:01:01Z", b"2017-03-01"), "bad-timestamp"),
    "offset-25h": (lambda b: b.replace(b"2017-03-01T10:01:01Z", b"2017-03-01T10:01:01+25:00"),
                   "bad-timestamp"),
}


@pytest.mark.parametrize("case", sorted(CSV_CASES))
def test_a_bad_csv_line_is_named_and_quarantinable(tmp_path: Path, case: str) -> None:
    edit, rule = CSV_CASES[case]
    table = _changed(tmp_path, 6, edit)
    warehouse = Warehouse(tmp_path / "warehouse")
    with pytest.raises(TrialParseError) as refused:
        ingest_table(warehouse, table, MAPPING)
    assert (refused.value.rule, refused.value.line) == (rule, 6)
    summary = ingest_table(warehouse, table, MAPPING, quarantine=True)
    assert summary.quarantined == 1
    with warehouse.catalog() as con:
        assert con.execute("SELECT rule, line FROM quarantine").fetchall() == [(rule, 6)]
        # the other six measurement rows landed
        assert con.execute("SELECT count(*) FROM measurements").fetchone()[0] == 6


def test_a_null_parquet_value_or_year_10000_is_refused(tmp_path: Path) -> None:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    source = con.sql(f"SELECT * FROM read_csv('{CSV}', header = true)").to_arrow_table()
    con.register("src", source)
    for case, change, rule in [
            ("null", "CASE WHEN value = 408.1 THEN NULL ELSE value END AS value", "missing-value"),
            ("year", "CASE WHEN value = 408.1 THEN TIMESTAMPTZ '10000-01-01 00:00:00+00' "
                     "ELSE timestamp END AS timestamp", "bad-timestamp")]:
        path = tmp_path / f"{case}.parquet"
        con.execute(f"COPY (SELECT * REPLACE ({change}) FROM src) TO '{path}' (FORMAT parquet)")
        mapping = tmp_path / "m.toml"
        mapping.write_text(MAPPING.read_text())
        warehouse = Warehouse(tmp_path / f"wh-{case}")
        with pytest.raises(TrialParseError) as refused:
            ingest_table(warehouse, path, mapping)
        assert (refused.value.rule, refused.value.line) == (rule, 5)
        assert ingest_table(warehouse, path, mapping, quarantine=True).quarantined == 1
    con.close()
