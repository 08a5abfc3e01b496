"""`ingest table` against hostile cells and hostile mappings (issue 44, H6): a unix time
that is NaN, infinite or past year 9999 is a bad-timestamp problem of its row (set aside
by --quarantine), and a mapping of the wrong shape is one line naming the mapping and the
rule; never a DuckDB exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest.service import ingest_table
from perfwarehouse.warehouse.store import Warehouse

UNIX_MAPPING = """
[columns]
started_at = "ts"
run_id = "ts"
run_index = "$row"
[times]
started_at = "{how}"
[constants]
campaign = "c"
node = "n"
hardware_type = "hw"
benchmark = "b"
position = 0
order_kind = "fixed"
[melt]
metrics = ["t1"]
"""


@pytest.mark.parametrize(("how", "cell"), [
    *(("unix_s", cell) for cell in ("nan", "inf", "-inf", "1e15", "1e300", "-1e300", "-5")),
    ("unix_ms", "nan"), ("unix_ms", "1e18"), ("unix_ms", "-1e300")])
def test_a_unix_time_out_of_range_is_a_problem_of_its_row(tmp_path: Path, how: str,
                                                          cell: str) -> None:
    scale = 1000 if how == "unix_ms" else 1
    table = tmp_path / "w.csv"
    table.write_text(f"ts,t1\n{1_700_000_000 * scale},1\n{cell},2\n")
    mapping = tmp_path / "m.toml"
    mapping.write_text(UNIX_MAPPING.format(how=how))
    with pytest.raises(TrialParseError) as info:
        ingest_table(Warehouse(tmp_path / "wh"), table, mapping)
    assert (info.value.source, info.value.line, info.value.rule) == (str(table), 3,
                                                                     "bad-timestamp")
    assert f"started_at {cell!r} is not a number of" in str(info.value)
    warehouse = Warehouse(tmp_path / "wh2")
    summary = ingest_table(warehouse, table, mapping, quarantine=True)
    assert summary.quarantined == 1
    with warehouse.catalog() as con:
        assert con.execute("SELECT epoch(started_at), value FROM measurements").fetchall() == [
            (1_700_000_000.0, 1.0)]


def test_the_last_second_of_9999_is_still_a_time(tmp_path: Path) -> None:
    table = tmp_path / "w.csv"
    table.write_text("ts,t1\n253402300799,1\n")
    mapping = tmp_path / "m.toml"
    mapping.write_text(UNIX_MAPPING.format(how="unix_s"))
    warehouse = Warehouse(tmp_path / "wh")
    ingest_table(warehouse, table, mapping)
    with warehouse.catalog() as con:
        assert con.execute("SELECT epoch(started_at) FROM measurements").fetchall() == [
            (253402300799.0,)]


BASE = """
[columns]
started_at = "ts"
run_id = "ts"
run_index = "$row"
value = "v"
[constants]
campaign = "c"
node = "n"
hardware_type = "hw"
benchmark = "b"
position = 0
order_kind = "fixed"
"""

HOSTILE = {  # name: (mapping text, what the one line says)
    "columns-int": (BASE.replace('value = "v"', "value = 5"),
                    "[columns] value must name a column (a string), not 5"),
    "columns-nested": (BASE.replace('value = "v"', "[columns.value]\nx = 1\n"),
                       "[columns] value must name a column"),
    "settings-int": (BASE + "[settings]\njvm = 3\n", "[settings] jvm must name a column"),
    "settings-not-table": ("settings = 3\n" + BASE, "settings must be a table ([settings])"),
    "times-not-table": ('times = "x"\n' + BASE, "times must be a table ([times])"),
    "melt-not-table": ("melt = 5\n" + BASE, "melt must be a table ([melt])"),
    "constant-not-a-number": (BASE.replace("position = 0", 'position = "abc"'),
                              "[constants] position = 'abc' is not a number"),
    "constant-list": (BASE.replace("position = 0", "position = [1, 2]"),
                      "[constants] position must be a string, number, boolean or date"),
    "constant-table": (BASE + "[constants.seed]\nx = 1\n",
                       "[constants] seed must be a string, number, boolean or date"),
    "constant-not-a-bool": (BASE + 'higher_is_better = "maybe"\n',
                            "[constants] higher_is_better = 'maybe' is not true or false"),
    "constant-not-a-time": (BASE.replace('started_at = "ts"\n', "").replace(
        "position = 0", 'position = 0\nstarted_at = "garbage"'),
        "[constants] started_at = 'garbage' is not an RFC 3339 timestamp"),
    "strptime-unknown": (BASE + '[times]\nstarted_at = "%Q"\n',
                         "[times] started_at = '%Q' is not a strptime format"),
    "strptime-trailing": (BASE + '[times]\nstarted_at = "%"\n',
                          "[times] started_at = '%' is not a strptime format"),
    "row-as-time": (BASE.replace('started_at = "ts"', 'started_at = "$row"'),
                    '[columns] started_at = "$row": the row\'s line number is no value for'),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_mapping_is_one_line_naming_the_mapping_and_the_rule(tmp_path: Path,
                                                                        case: str) -> None:
    text, says = HOSTILE[case]
    table = tmp_path / "t.csv"
    table.write_text("ts,v\n2024-01-01T00:00:00Z,1.5\n2024-01-01T00:00:01Z,2\n")
    mapping = tmp_path / "m.toml"
    mapping.write_text(text)
    for quarantine in (False, True):
        with pytest.raises(UsageError) as info:
            ingest_table(Warehouse(tmp_path / "wh"), table, mapping, quarantine=quarantine)
        assert str(info.value).startswith(f"{mapping}: "), str(info.value)
        assert says in str(info.value)
        assert "\n" not in str(info.value)


def test_the_base_mapping_of_the_hostile_cases_is_good(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("ts,v\n2024-01-01T00:00:00Z,1.5\n2024-01-01T00:00:01Z,2\n")
    mapping = tmp_path / "m.toml"
    mapping.write_text(BASE)
    warehouse = Warehouse(tmp_path / "wh")
    ingest_table(warehouse, table, mapping)
    with warehouse.catalog() as con:
        assert con.execute("SELECT value FROM measurements ORDER BY value").fetchall() == [
            (1.5,), (2.0,)]
