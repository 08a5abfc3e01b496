"""`ingest table` at parity with the other import commands (issue 40): several files and
directories in one batch, --dry-run, --setting, --started-at, --path-pattern, --strict,
--node filling in only where a table names no machine and --force-node replacing it;
refusals in one line under 400 characters."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.formats.table_ingest import ingest_tables
from perfwarehouse.ingest.inputs import Skipped
from perfwarehouse.ingest.stage import Preview
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO, CliRunner

pytestmark = pytest.mark.integration

OTAVA = REPO / "ingest" / "mappings" / "otava-csv.toml"
LAYOUTS = REPO / "tests" / "fixtures" / "tables" / "otava"


def _rows(warehouse: Warehouse, query: str) -> list[tuple]:
    with warehouse.catalog() as con:
        return con.execute(query).fetchall()


def test_several_files_are_one_batch_and_a_dry_run_changes_nothing(tmp_path: Path) -> None:
    files = [LAYOUTS / "commit.csv", LAYOUTS / "unix_time.csv"]
    warehouse = Warehouse(tmp_path / "wh")
    _read, preview = ingest_tables(warehouse, files, OTAVA, ImportOptions(node="n"),
                                   dry_run=True)
    assert isinstance(preview, Preview) and not warehouse.exists()
    cells = sum(len(line.split(",")) - 1 - ("commit" in f.name)
                for f in files for line in f.read_text().splitlines()[1:])
    assert preview.values == cells
    read, summary = ingest_tables(warehouse, files, OTAVA, ImportOptions(node="n"))
    assert read == files and summary.values_added == cells
    assert _rows(warehouse, "SELECT count(DISTINCT batch_id) FROM measurements") == [(1,)]


def test_a_directory_lists_what_it_skips_and_strict_refuses(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "commit.csv").write_bytes((LAYOUTS / "commit.csv").read_bytes())
    (folder / "notes.txt").write_text("not a table\n")
    (folder / "other.csv").write_text("when,x\n1,2\n")  # no "time" column: not Otava's
    skipped: list[Skipped] = []
    read, _summary = ingest_tables(Warehouse(tmp_path / "wh"), [folder], OTAVA,
                                   ImportOptions(node="n"), skipped=skipped)
    assert read == [folder / "commit.csv"]
    assert {s.path.name for s in skipped} == {"notes.txt", "other.csv"}
    assert all("\n" not in s.reason and len(s.reason) < 400 for s in skipped)
    with pytest.raises(UsageError, match="--strict refuses"):
        ingest_tables(Warehouse(tmp_path / "wh2"), [folder], OTAVA, ImportOptions(node="n"),
                      strict=True)
    assert not (tmp_path / "wh2").exists()


def test_settings_and_a_start_time_where_the_table_holds_none(tmp_path: Path) -> None:
    mapping = tmp_path / "m.toml"
    mapping.write_text(OTAVA.read_text().replace('started_at = "time"\n', ""))
    warehouse = Warehouse(tmp_path / "wh")
    _read, summary = ingest_tables(warehouse, [LAYOUTS / "commit.csv"], mapping,
                                   ImportOptions(node="n", settings=(("jvm", 17),)))
    assert summary.untimed == summary.trials_added > 0
    assert _rows(warehouse, "SELECT DISTINCT settings, started_at FROM measurements") == [
        ('{"jvm":17}', None)]
    other = Warehouse(tmp_path / "wh2")
    ingest_tables(other, [LAYOUTS / "commit.csv"], mapping,
                  ImportOptions(node="n", started_at="2025-01-02T03:04:05Z"))
    assert _rows(other, "SELECT DISTINCT epoch(started_at) FROM measurements") == [
        (1735787045.0,)]


def test_keys_from_the_path(tmp_path: Path) -> None:
    folder = tmp_path / "lab-7"
    folder.mkdir()
    (folder / "r42.csv").write_bytes((LAYOUTS / "no_commit.csv").read_bytes())
    warehouse = Warehouse(tmp_path / "wh")
    ingest_tables(warehouse, [folder / "r42.csv"], OTAVA,
                  ImportOptions(path_pattern="{node}/{revision}.csv"))
    assert _rows(warehouse, "SELECT DISTINCT node, revision FROM measurements") == [
        ("lab-7", "r42")]


def test_node_fills_in_where_the_table_names_none_and_force_node_replaces(
        tmp_path: Path) -> None:
    mapping = tmp_path / "hosts.toml"
    mapping.write_text("""layout = "measurements"
[columns]
node = "host"
hardware_type = "hw"
started_at = "time"
run_id = "time"
run_index = "$row"
value = "v"
[constants]
campaign = "c"
benchmark = "b"
position = 0
order_kind = "fixed"
""")
    table = tmp_path / "t.csv"
    table.write_text("time,host,hw,v\n"
                     "2025-01-01T00:00:00Z,a,x,1\n"
                     "2025-01-02T00:00:00Z,,,2\n"
                     "2025-01-03T00:00:00Z,b,,3\n")
    warehouse = Warehouse(tmp_path / "wh")
    ingest_tables(warehouse, [table], mapping, ImportOptions(node="spare", hardware_type="c5"))
    assert _rows(warehouse, "SELECT value, node, hardware_type FROM measurements ORDER BY 1") == [
        (1.0, "a", "x"), (2.0, "spare", "c5"), (3.0, "b", "c5")]
    forced = Warehouse(tmp_path / "wh2")
    ingest_tables(forced, [table], mapping, ImportOptions(force_node="one"))
    assert _rows(forced, "SELECT DISTINCT node, hardware_type FROM measurements") == [
        ("one", "one")]
    with pytest.raises(TrialParseError, match=r"missing-key.*node"):  # a row without one
        ingest_tables(Warehouse(tmp_path / "wh3"), [table], mapping)
    with pytest.raises(TrialParseError, match=r"no-node.*pass --node"):  # no machine at all
        ingest_tables(Warehouse(tmp_path / "wh4"), [LAYOUTS / "commit.csv"], OTAVA)


def test_refusals_are_one_line(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text((LAYOUTS / "commit.csv").read_text().replace(",10.", ",x10.", 1))
    for args in (["--force-node", "m"], ["--started-at", "yesterday"], []):
        result = cli("ingest", "table", str(bad), "--mapping", str(OTAVA), "--node", "n", *args)
        assert result.returncode in (1, 2), result.stdout
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and len(lines[0]) < 400, result.stderr
    assert not (tmp_path / "warehouse").exists()
