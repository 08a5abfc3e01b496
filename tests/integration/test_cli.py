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


def test_sql_keeps_repeated_column_names_in_place(cli) -> None:
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), check=True)
    as_csv = cli("sql", "SELECT 1 AS a, 2 AS a, 3 AS b", "--format", "csv", check=True).stdout
    assert as_csv.splitlines() == ["a,a,b", "1,2,3"]
    joined = cli("sql", "SELECT m.config_id, c.config_id FROM measurements m JOIN configurations c "
                 "USING (config_id) LIMIT 1", check=True).stdout.splitlines()
    assert joined[0].split() == ["config_id", "config_id"] and joined[-1] == "(1 row)"
    assert joined[2].split()[0] == joined[2].split()[1]
    as_json = cli("sql", "SELECT 1 AS a, 2 AS a", "--format", "json")
    assert as_json.returncode == 1 and "distinct column names" in as_json.stderr
    blob = cli("sql", "SELECT '\\xAA\\x01'::BLOB AS b", "--format", "json", check=True).stdout
    assert json.loads(blob) == [{"b": "aa01"}]


def test_unwritable_outputs_are_one_line_errors(cli, tmp_path: Path) -> None:
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), check=True)
    not_a_dir = tmp_path / "plain-file"
    not_a_dir.write_text("x")
    for args in (["sql", "SELECT 1", "--out", str(not_a_dir / "q.csv")],
                 ["sql", "SELECT 1", "--out", str(tmp_path)],
                 ["report", "order-effects", "--out", str(not_a_dir / "r.html")],
                 ["export", "--campaign", ORDERSAGE_DIRS["ufs"].name, "--out",
                  str(not_a_dir / "e.csv")],
                 ["generate", "laaber-cloud", "--scale", "0.01", "--out", str(not_a_dir / "g.jsonl")]):
        result = cli(*args)
        assert result.returncode == 1, (args, result.stderr)
        assert "Traceback" not in result.stderr, args
        errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1 and result.stderr.strip().endswith(errors[0]), (args, result.stderr)


@pytest.mark.parametrize("args, message", [
    (["profile", "--bin-hours", "0"], "--bin-hours must be positive"),
    (["profile", "--min-bins", "1", "--bin-hours", "2000"], None),
    (["aa-fpr", "--n-nodes", "", "--draws", "5"], "node counts must be given"),
    (["aa-fpr", "--strategies", ""], "--strategies: give at least one"),
    (["convergence", "--min-values", "1"], "--min-values must be at least 2"),
])
def test_job_options_out_of_range(cli, args: list[str], message: str | None) -> None:
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), check=True)
    result = cli("analyze", *args)
    assert "Traceback" not in result.stderr
    if message is None:  # too few bins for any profile: nothing to profile, no error
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 1 and message in result.stderr
