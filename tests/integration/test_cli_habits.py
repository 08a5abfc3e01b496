"""The command line meets a user's habits: output format from the file extension, the
query from a file or stdin, readable floats, global options after the verb, unknown
names answered with the known ones, default report paths, `report all` with an index,
unambiguous percentages, DuckDB's whole error."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import ORDERSAGE_DIRS

pytestmark = pytest.mark.integration


@pytest.fixture
def filled(cli):  # type: ignore[no-untyped-def]
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["memcached"]), "--campaign", "memcached",
        check=True)
    return cli


def test_sql_format_from_the_out_extension_file_and_stdin(filled, tmp_path: Path) -> None:
    cli = filled
    query = "SELECT campaign, count(*) AS n, 0.1::DOUBLE + 0.2::DOUBLE AS x FROM measurements GROUP BY 1"
    for ext in ("csv", "json", "parquet", "md"):
        out = tmp_path / f"answer.{ext}"
        cli("sql", query, "--out", str(out), check=True)
        if ext == "csv":
            rows = list(csv.DictReader(out.open()))
            assert rows[0]["campaign"] == "memcached" and float(rows[0]["x"]) == 0.1 + 0.2
        elif ext == "json":
            assert json.loads(out.read_text())[0]["campaign"] == "memcached"
        elif ext == "parquet":
            assert pq.read_table(out).column("campaign").to_pylist() == ["memcached"]
        else:
            lines = out.read_text().splitlines()
            assert lines[0] == "| campaign | n | x |" and lines[1] == "|---|---:|---:|"
    table = cli("sql", query, check=True).stdout
    assert "0.3" in table and "0.30000000000000004" not in table
    sqlfile = tmp_path / "q.sql"
    sqlfile.write_text("SELECT count(*) AS n FROM campaigns")
    assert cli("sql", "-f", str(sqlfile), "--format", "csv", check=True).stdout == "n\n1\n"
    piped = cli("sql", "-", "--format", "csv", input="SELECT 42 AS answer", check=True)
    assert piped.stdout == "answer\n42\n"


def test_duckdb_errors_are_whole(filled) -> None:
    bad = filled("sql", "SELECT campain FROM measurements")
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert "campain" in bad.stderr and "campaign" in bad.stderr  # DuckDB's candidate hint
    assert len(bad.stderr.strip().splitlines()) > 1


def test_global_options_after_the_verb(cli, tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    ok = cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), "--campaign", "ufs",
             "--warehouse", str(home), "-q", "--lock-timeout", "5")
    assert ok.returncode == 0, ok.stderr
    assert (home / "catalog.duckdb").exists()
    out = cli("sql", "SELECT DISTINCT campaign FROM measurements", "--format", "csv",
              f"--warehouse={home}", check=True).stdout
    assert out.splitlines() == ["campaign", "ufs"]


def test_unknown_campaign_names_the_known_and_the_closest(filled) -> None:
    cli = filled
    report = cli("report", "order-effects", "--campaign", "memcache")
    assert report.returncode == 1
    assert report.stderr.strip() == ("error: --campaign: unknown campaign 'memcache' (did you "
                                     "mean 'memcached'?); known: memcached")
    job = cli("analyze", "order-effects", "--campaign", "nope")
    assert job.returncode == 1 and "unknown campaign 'nope'; known: memcached" in job.stderr


def test_report_defaults_and_report_all_with_index(filled, tmp_path: Path) -> None:
    cli = filled
    cli("analyze", "all", check=True)
    written = cli("report", "order-effects", check=True)
    assert (tmp_path / "reports" / "order-effects.html").exists(), written.stdout
    cli("report", "all", "--out-dir", str(tmp_path / "all"), check=True)
    index = (tmp_path / "all" / "index.html").read_text()
    # issue 30: the site is per campaign; memcached is an order study (no fleet page)
    for name in ("order-effects", "variability", "triscale"):
        assert (tmp_path / "all" / "memcached" / f"{name}.html").exists()
        assert f'href="memcached/{name}.html"' in index
    assert not (tmp_path / "all" / "memcached" / "fleet.html").exists()
    assert 'class="verdict' in index and "Campaign memcached: Order matters in" in index


def test_percentages_are_unambiguous(cli) -> None:
    bad = cli("plan", "runs", "-p", "50", "-c", "1.5")
    assert bad.returncode == 2 and "ambiguous" in bad.stderr
    assert "0.95" in bad.stderr and "95" in bad.stderr
    assert cli("plan", "runs", "-p", "50", "-c", "95", check=True).stdout == \
        cli("plan", "runs", "-p", "0.5", "-c", "0.95", check=True).stdout


def test_fleet_since_after_the_newest_trial_is_an_error(filled) -> None:
    late = filled("report", "fleet", "--since", "2030-01-01")
    assert late.returncode == 1 and "Traceback" not in late.stderr
    assert "is after the newest trial" in late.stderr
    assert len(late.stderr.strip().splitlines()) == 1
    helptext = filled("report", "fleet", "--help", check=True).stdout
    assert "90 days" in helptext and "30 days" not in helptext


def test_status_json_and_fail_on(filled) -> None:
    cli = filled
    before = cli("status", check=True).stdout
    assert "memcached: 1 hardware type," in before and "never run: order-effects" in before
    run = cli("analyze", "order-effects", "--format", "json", "--fail-on")
    assert run.returncode == 3, run.stderr  # Table 3: get_hits, order matters
    data = json.loads(run.stdout)
    assert data["job"] == "order-effects" and data["rows"]["order_effects"] == 3
    assert data["verdict"] == {"what": "order matters", "count": 3}
    assert cli("analyze", "order-effects", check=True).returncode == 0  # without --fail-on
    after = cli("status", check=True).stdout
    assert "up to date: order-effects" in after
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["npbench"]), "--campaign", "memcached",
        check=True)
    assert "stale (newer trials since): order-effects" in cli("status", check=True).stdout
