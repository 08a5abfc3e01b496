"""Engines reading measurements/ directly (DuckDB's glob, polars' directory scan,
pyarrow's hive dataset) see exactly what the catalog lists: an ingest or a pull killed
at any step never shows them an uncommitted row, and after any open of the warehouse
(read-only too) they count what `perfwarehouse sql` counts; empty partition
directories are removed."""

from __future__ import annotations

import signal
from pathlib import Path

import duckdb
import pytest

from perfwarehouse.generate import generate_to_file
from tests.conftest import ORDERSAGE_DIRS, CliRunner
from tests.integration.agent_support import agent_server, write_sources, write_token, write_trials

pytestmark = pytest.mark.integration

KILL_POINTS = ["validated", "parquet-staged", "parquet-moved", "before-commit", "after-commit",
               "published-one", "after-publish"]
# killed after its commit but before every file is renamed, a batch is in the catalog
# and not (wholly) in measurements/: external readers lag, never lead, until the next open
PUBLISH_WINDOW = {"after-commit", "published-one"}


def external_counts(home: Path) -> tuple[int, int, int]:
    """Rows of measurements/ as duckdb, polars and pyarrow see them (hive partitioning)."""
    import polars as pl
    import pyarrow.dataset as ds

    data = home / "measurements"
    if not any(data.rglob("*.parquet")):
        return (0, 0, 0)
    con = duckdb.connect()
    try:
        by_duckdb = con.execute(f"SELECT count(*) FROM read_parquet('{data}/**/*.parquet', "
                                "hive_partitioning = 1)").fetchone()[0]
    finally:
        con.close()
    by_polars = pl.scan_parquet(str(data), hive_partitioning=True).select(pl.len()).collect()
    by_pyarrow = ds.dataset(str(data), format="parquet", partitioning="hive").count_rows()
    return (int(by_duckdb), int(by_polars.item()), int(by_pyarrow))


def catalog_count(home: Path) -> int:
    """Values the catalog lists, read without perfwarehouse (so without its recovery)."""
    con = duckdb.connect(str(home / "catalog.duckdb"), read_only=True)
    try:
        return int(con.execute("SELECT coalesce(sum(row_count), 0) FROM data_files").fetchone()[0])
    finally:
        con.close()


def sql_count(cli: CliRunner, home: Path) -> int:
    out = cli("sql", "SELECT count(*) AS n FROM measurements", "--format", "csv", warehouse=home,
              check=True)
    return int(out.stdout.split()[1])


def check_after_kill(cli: CliRunner, home: Path, point: str, before: int) -> None:
    seen = external_counts(home)
    listed = catalog_count(home)
    assert len(set(seen)) == 1, seen  # the three engines agree
    if point in PUBLISH_WINDOW:
        assert before <= seen[0] <= listed  # some files renamed, never one unlisted
    else:
        assert seen[0] == listed  # never a row the catalog does not list
    counted = sql_count(cli, home)  # a read-only open: finishes a committed batch
    assert counted == listed
    assert external_counts(home) == (counted,) * 3
    empty = [p for p in (home / "measurements").rglob("*") if p.is_dir() and not any(p.iterdir())]
    assert not empty


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("external") / "c.jsonl"
    generate_to_file("ordersage-longterm", out, seed=3, scale=0.01)
    return out


@pytest.mark.parametrize("point", KILL_POINTS)
def test_ingest_killed_at_each_point(cli: CliRunner, tmp_path: Path, campaign: Path,
                                     point: str) -> None:
    home = tmp_path / "warehouse"
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["npbench"]), warehouse=home, check=True)
    before = catalog_count(home)
    killed = cli("ingest", "jsonl", str(campaign), warehouse=home,
                 extra_env={"PERFWAREHOUSE_KILL_AT": point})
    assert killed.returncode == -signal.SIGKILL
    check_after_kill(cli, home, point, before)
    cli("ingest", "jsonl", str(campaign), warehouse=home, check=True)
    assert external_counts(home) == (sql_count(cli, home),) * 3


@pytest.mark.parametrize("point", KILL_POINTS)
def test_pull_killed_at_each_point(cli: CliRunner, tmp_path: Path, point: str) -> None:
    home = tmp_path / "warehouse"
    spool = tmp_path / "spool"
    spool.mkdir()
    write_trials(spool / "s-0001.jsonl", 400, run_size=50)
    write_trials(spool / "s-0002.jsonl", 100, run_size=50, campaign="other", node="n-2")
    token = tmp_path / "agent.token"
    write_token(token)
    with agent_server(spool, token) as url:
        sources = write_sources(tmp_path / "sources.toml", [("a", url, token)])
        killed = cli("ingest", "pull", "--sources", str(sources), warehouse=home,
                     extra_env={"PERFWAREHOUSE_KILL_AT": point})
        assert killed.returncode == -signal.SIGKILL
        if (home / "catalog.duckdb").exists():
            check_after_kill(cli, home, point, 0)
        cli("ingest", "pull", "--sources", str(sources), warehouse=home, check=True)
    assert sql_count(cli, home) == 500
    assert external_counts(home) == (500, 500, 500)


def test_a_reader_never_removes_what_a_live_writer_stages(tmp_path: Path) -> None:
    """A read-only open finds an uncommitted batch in _staging/: while the write lock is
    held it is left alone; once the lock is free, the next open removes it."""
    from perfwarehouse.ingest.service import ingest_ordersage
    from perfwarehouse.warehouse.lock import write_lock
    from perfwarehouse.warehouse.store import Warehouse

    home = tmp_path / "warehouse"
    warehouse = Warehouse(home)
    ingest_ordersage(warehouse, [ORDERSAGE_DIRS["npbench"]])
    staged = warehouse.batch_staging(99) / "campaign=x" / "hardware_type=y" / "b000099-0.parquet"
    staged.parent.mkdir(parents=True)
    staged.write_bytes(b"not yet committed")
    (home / "measurements" / "campaign=gone" / "hardware_type=y").mkdir(parents=True)
    with write_lock(home, "a live writer", 5):
        with warehouse.catalog():
            pass
        assert staged.exists()
    with warehouse.catalog():
        pass
    assert not staged.exists() and not (home / "measurements" / "campaign=gone").exists()
