"""Issue 31 item 10: a damaged data file (truncated, missing, of the wrong size or row
count) is named by `perfwarehouse check` with how to recover, and every command that meets
it says so in one line (before: a traceback, `No magic bytes found`); `sql` is read-only
in fact (before: COPY ... TO overwrote a data file, SET threads = 100000 was accepted)."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from perfwarehouse.warehouse.store import Warehouse
from perfwarehouse.warehouse.verify import ListedFile, file_problem
from tests.conftest import ORDERSAGE_DIRS, CliRunner

pytestmark = pytest.mark.integration


def two_campaigns(cli: CliRunner, home: Path) -> list[Path]:
    """A warehouse of two campaigns, one data file each; their paths (sorted)."""
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["npbench"]), warehouse=home, check=True)
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), warehouse=home, check=True)
    return sorted((home / "measurements").rglob("*.parquet"))


def one_line_error(result) -> str:  # type: ignore[no-untyped-def]
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("which", [0, 1])  # the file the views bind to, and the other
def test_a_truncated_file_is_named_in_one_line_and_by_check(cli: CliRunner, tmp_path: Path,
                                                           which: int) -> None:
    home = tmp_path / "warehouse"
    files = two_campaigns(cli, home)
    assert "ok: 2 data files, 1,000 measurements" in cli("check", warehouse=home,
                                                          check=True).stdout
    damaged = files[which]
    rel = damaged.relative_to(home).as_posix()
    with open(damaged, "r+b") as f:
        f.truncate(100)
    for args in (["sql", "SELECT count(*) FROM measurements"],
                 ["analyze", "variability"], ["sql", "SELECT * FROM measurements", "--format",
                                              "csv"]):
        line = one_line_error(cli(*args, warehouse=home))
        assert rel in line and "damaged" in line and "perfwarehouse check" in line, line
    report = cli("check", warehouse=home)
    assert report.returncode == 1
    out = report.stdout.splitlines()
    assert out[0].startswith("DAMAGED: 1 of 2 data files")
    assert any(rel in line and "size 100 bytes" in line for line in out)
    assert "backup" in report.stdout and "--forget-damaged" in report.stdout
    # without a backup: forget it; the rest is readable again
    forgot = cli("check", "--forget-damaged", warehouse=home, check=True)
    assert rel in forgot.stdout
    assert (home / "_damaged" / Path(rel).relative_to("measurements")).exists()
    assert cli("check", warehouse=home, check=True).stdout.startswith("ok: 1 data files")
    n = cli("sql", "SELECT count(*) AS n FROM measurements", "--format", "csv", warehouse=home,
            check=True).stdout.split()[1]
    assert int(n) in (400, 600)


def test_a_missing_file_is_named(cli: CliRunner, tmp_path: Path) -> None:
    home = tmp_path / "warehouse"
    files = two_campaigns(cli, home)
    os.remove(files[1])
    rel = files[1].relative_to(home).as_posix()
    line = one_line_error(cli("sql", "SELECT count(*) FROM measurements", warehouse=home))
    assert rel in line and "missing" in line
    report = cli("check", warehouse=home)
    assert report.returncode == 1 and f"{rel}: missing" in report.stdout


def test_file_problem_names_size_footer_and_row_count(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"v": [1.0, 2.0, 3.0]}), path)
    size = path.stat().st_size

    def listed(rows: int, nbytes: int) -> ListedFile:
        return ListedFile("measurements/x/f.parquet", 1, "c", "h", rows, bytes=nbytes, source=None)

    assert file_problem(path, listed(3, size)) is None
    assert file_problem(path, listed(4, size)) == "3 rows, the catalog says 4"
    assert file_problem(path, listed(3, size + 1)) == f"size {size:,} bytes, the catalog says {size + 1:,}"
    assert file_problem(tmp_path / "gone.parquet", listed(3, size)) == "missing"
    path.write_bytes(b"x" * size)  # same size, overwritten
    problem = file_problem(path, listed(3, size))
    assert problem is not None and problem.startswith("footer unreadable")


def test_sql_writes_nothing(cli: CliRunner, tmp_path: Path) -> None:
    home = tmp_path / "warehouse"
    files = two_campaigns(cli, home)
    target = files[0]
    before = target.read_bytes()
    for query in (f"COPY (SELECT 1 AS x) TO '{target}' (FORMAT parquet)",
                  f"EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{target}' (FORMAT parquet)",
                  f"SELECT 1; COPY (SELECT 1 AS x) TO '{target}' (FORMAT parquet)",
                  f"ATTACH '{tmp_path / 'other.db'}' AS other",
                  "SET threads = 100000", "PRAGMA threads = 100000", "RESET threads",
                  f"EXPORT DATABASE '{tmp_path / 'export'}'", "INSTALL httpfs",
                  "CREATE TEMP TABLE t AS SELECT 1"):
        line = one_line_error(cli("sql", query, warehouse=home))
        assert "is refused" in line and "--out FILE" in line, (query, line)
    assert target.read_bytes() == before
    assert not (tmp_path / "other.db").exists() and not (tmp_path / "export").exists()
    assert cli("check", warehouse=home, check=True).stdout.startswith("ok: 2 data files")
    # queries of every kind still run
    for query in ("SELECT count(*) FROM measurements", "FROM measurements LIMIT 1",
                  "DESCRIBE measurements", "SHOW TABLES", "SUMMARIZE SELECT 1 AS x",
                  "EXPLAIN SELECT 1", "WITH a AS (SELECT 1 AS x) SELECT * FROM a"):
        cli("sql", query, warehouse=home, check=True)
    assert Warehouse(home).exists()
