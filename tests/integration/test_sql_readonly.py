"""Issue 44, H2 and H10: the read-only `sql` could destroy the warehouse (`--out
WAREHOUSE/catalog.duckdb` exited 0 and left every command failing; `--out` onto a data
file overwrote it) and read without bound (`read_blob('/dev/urandom')` ran past 30 s at
4.5 GB; external access and extension autoinstall were on). Now `--out` never lands in
the warehouse, the query reads only the warehouse and the files named with `--read`
(regular files, up to a limit), installs and loads nothing, and runs within a memory
and a time limit. Each test fails on d99f738."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from perfwarehouse.errors import UsageError, WarehouseError
from perfwarehouse.ingest.service import ingest_ordersage
from perfwarehouse.warehouse.export import run_query
from perfwarehouse.warehouse.readonly import Limits, named_reads
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import ORDERSAGE_DIRS, CliRunner

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("readonly") / "warehouse"
    ingest_ordersage(Warehouse(home, lock_timeout_s=5.0), [ORDERSAGE_DIRS["ufs"]])
    return home


@pytest.fixture
def home(base: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(base, tmp_path / "warehouse", copy_function=shutil.copy2))


def query(home: Path, sql: str, out: Path | None = None, fmt: str = "csv",
          limits: Limits | None = None) -> None:
    run_query(Warehouse(home, lock_timeout_s=5.0), sql, fmt, out, limits)


def test_out_onto_the_catalog_is_refused_and_the_warehouse_keeps_working(
        cli: CliRunner, home: Path) -> None:
    catalog = home / "catalog.duckdb"
    before = catalog.read_bytes()
    result = cli("sql", "SELECT 1 AS x", "--out", str(catalog), warehouse=home)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    line, = result.stderr.strip().splitlines()
    assert "refused" in line and "inside the warehouse" in line
    assert catalog.read_bytes() == before
    assert cli("status", warehouse=home, check=True).stdout.startswith(f"warehouse {home}")


def test_out_never_lands_in_the_warehouse_by_any_path(home: Path, tmp_path: Path) -> None:
    data = next((home / "measurements").rglob("*.parquet"))
    before = data.read_bytes()
    outside = tmp_path / "outside"
    outside.mkdir()
    os.link(data, outside / "hard.parquet")  # the same inode, outside the directory
    (outside / "into").symlink_to(home / "measurements")
    for out in (data, home / "new.csv", home / "measurements" / ".." / "x.json",
                outside / "hard.parquet", outside / "into" / "y.parquet"):
        with pytest.raises(WarehouseError, match="refused, it would write"):
            query(home, "SELECT 1 AS x", out, fmt="parquet" if out.suffix == ".parquet"
                  else "csv")
    assert data.read_bytes() == before and not (home / "new.csv").exists()
    from perfwarehouse.warehouse.export import export_campaign

    campaign = Warehouse(home).data_files()[0].campaign
    with pytest.raises(WarehouseError, match="export --out"):
        export_campaign(Warehouse(home), campaign, home / "export.parquet")
    query(home, "SELECT 1 AS x", outside / "fine.csv")  # outside: written
    assert (outside / "fine.csv").read_text() == "x\n1\n"


def test_the_query_reads_only_the_warehouse_and_named_files(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine.csv"
    mine.write_text("a,b\n1,2\n")
    for sql in (f"SELECT * FROM read_csv('{mine}')", "SELECT count(*) FROM read_blob('/dev/urandom')",
                "SELECT * FROM read_csv('/etc/passwd')", f"SELECT * FROM glob('{tmp_path}/*')",
                f"SELECT * FROM read_text('{home}/measurements/../../mine.csv')",
                "SELECT * FROM read_csv('https://example.com/a.csv')"):
        with pytest.raises(UsageError, match="reads only the warehouse and the files named "
                                             "with --read FILE"):
            query(home, sql)
    capsys.readouterr()
    query(home, f"SELECT * FROM read_csv('{mine}')", limits=Limits(reads=(mine,)))
    assert capsys.readouterr().out == "a,b\n1,2\n"
    query(home, "SELECT name, value FROM duckdb_settings() WHERE name IN "
                "('enable_external_access', 'autoinstall_known_extensions', "
                "'autoload_known_extensions', 'lock_configuration') ORDER BY name")
    assert capsys.readouterr().out.splitlines()[1:] == [
        "autoinstall_known_extensions,false", "autoload_known_extensions,false",
        "enable_external_access,false", "lock_configuration,true"]
    query(home, "SELECT count(*) AS n FROM measurements")  # the warehouse itself: read
    assert capsys.readouterr().out == "n\n400\n"


def test_named_reads_refuse_devices_directories_and_large_files(tmp_path: Path) -> None:
    small = tmp_path / "small.csv"
    small.write_text("a\n1\n")
    assert str(small) in named_reads([small])
    for path, said in ((Path("/dev/zero"), "a character device"), (tmp_path, "a directory"),
                       (tmp_path / "none.csv", "No such file")):
        with pytest.raises(UsageError, match=said):
            named_reads([path])
    with pytest.raises(UsageError, match="over the limit of 3 bytes"):
        named_reads([small], limit=3)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="a FIFO"):
        named_reads([fifo])


def test_time_and_memory_limits_stop_a_query(home: Path) -> None:
    with pytest.raises(WarehouseError, match="stopped after 0.5 s, the time limit"):
        query(home, "SELECT count(*) FROM range(10000000000) t, range(10) u",
              limits=Limits(timeout_s=0.5))
    with pytest.raises(WarehouseError, match="out of memory within the limit of 64MB"):
        query(home, "SELECT list(range) FROM range(100000000)", limits=Limits(memory="64MB"))
