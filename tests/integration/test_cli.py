"""The command line as a user meets it: help, exit codes, one-line errors, sql output."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.conftest import ORDERSAGE_DIRS

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("args", [[], ["ingest"], ["ingest", "jsonl"], ["sql"], ["analyze"],
                                  ["generate"], ["demo"], ["report"], ["export"]])
def test_help_everywhere(cli, args: list[str]) -> None:
    result = cli(*args, "--help")
    assert result.returncode == 0, result.stderr
    assert "Usage: perfwarehouse" in result.stdout


def test_bad_usage_exits_2_and_user_errors_exit_1_without_traceback(cli, tmp_path: Path) -> None:
    usage = cli("ingest", "jsonl")
    assert usage.returncode == 2 and "Missing argument" in usage.stderr
    missing = cli("sql", "SELECT 1", warehouse=tmp_path / "nowhere")
    assert missing.returncode == 1
    assert missing.stderr.strip().startswith("error: no warehouse at")
    assert "Traceback" not in missing.stderr
    nofile = cli("ingest", "jsonl", str(tmp_path / "absent.jsonl"))
    assert nofile.returncode == 1 and "is not a file" in nofile.stderr


def test_sql_formats_and_read_only(cli) -> None:
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["memcached"]), check=True)
    query = ("SELECT benchmark, count(*) AS n, round(median(value), 1) AS median FROM measurements "
             "GROUP BY 1 ORDER BY 1")
    as_csv = cli("sql", query, "--format", "csv", check=True).stdout
    table = list(csv.reader(io.StringIO(as_csv)))
    assert table[0] == ["benchmark", "n", "median"]
    assert [r[:2] for r in table[1:]] == [["./cmd_get_test.sh", "100"], ["./cmd_set_test.sh", "100"],
                                          ["./get_hits_test.sh", "100"]]
    as_json = json.loads(cli("sql", query, "--format", "json", check=True).stdout)
    assert as_json[0]["benchmark"] == "./cmd_get_test.sh" and as_json[0]["n"] == 100
    aligned = cli("sql", query, check=True).stdout.splitlines()
    assert aligned[0].split() == ["benchmark", "n", "median"] and aligned[-1] == "(3 rows)"
    write = cli("sql", "DELETE FROM valueless_trials")
    assert write.returncode == 1 and "read-only" in write.stderr
    syntax = cli("sql", "SELEC 1")
    assert syntax.returncode == 1 and syntax.stderr.startswith("error: sql: Parser Error")


def test_sql_out_file_and_export(cli, tmp_path: Path) -> None:
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), check=True)
    cli("sql", "SELECT * FROM measurements", "--format", "csv", "--out", str(tmp_path / "m.csv"), check=True)
    assert len((tmp_path / "m.csv").read_text().splitlines()) == 401
    cli("export", "--campaign", ORDERSAGE_DIRS["ufs"].name, "--out", str(tmp_path / "e.parquet"), check=True)
    import pyarrow.parquet as pq

    assert pq.read_metadata(tmp_path / "e.parquet").num_rows == 400


def test_ingest_summary_line_and_repeat(cli) -> None:
    first = cli("ingest", "ordersage", str(ORDERSAGE_DIRS["npbench"]), check=True)
    assert first.stdout.startswith("ingested 600 trials (600 values) into 20221005_12:13:03_results")
    again = cli("ingest", "ordersage", str(ORDERSAGE_DIRS["npbench"]), check=True)
    assert "already ingested as batch 1; nothing added" in again.stdout


def test_warehouse_option_comes_before_the_verb(cli, tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    result = cli("--warehouse", str(home), "ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]),
                 "--campaign", "ufs")
    assert result.returncode == 0, result.stderr
    assert (home / "catalog.duckdb").exists()
    out = cli("--warehouse", str(home), "sql", "SELECT DISTINCT campaign FROM measurements",
              "--format", "csv", check=True).stdout
    assert out.splitlines() == ["campaign", "ufs"]
