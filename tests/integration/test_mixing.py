"""Issue 39, item 2: series and load families that mix what should be apart are flagged,
through the command line, on real-shaped inputs (tests/fixtures/mixing/make_mixing.py):
Go benchseries nights (tip and baseline at one runstamp), an asv environment run by two
runners named ``ubuntu-22.04``, three database servers' sysbench sweeps under one node."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CliRunner
from tests.fixtures.mixing.make_mixing import make


def _rows(cli: CliRunner, sql: str) -> list[str]:
    return cli("sql", sql, "--format", "csv", check=True).stdout.splitlines()[1:]


def test_the_three_mixing_cases_are_flagged_and_name_what_splits_them(
        cli: CliRunner, tmp_path: Path) -> None:
    fx = make(tmp_path / "fx")
    cli("init", check=True)
    cli("ingest", "gotest", str(fx / "gotest"), "--node", "gobuilder", "--campaign", "go",
        check=True)
    cli("ingest", "auto", str(fx / "asv"), "--campaign", "asv", check=True)
    cli("ingest", "sysbench", str(fx / "sysbench"), "--node", "db", "--campaign", "db",
        check=True)

    out = cli("analyze", "change-points", "--campaign", "go", check=True).stdout
    assert "3 series mix what should be apart" in out
    assert "several runs at one start time (16 of 16 start times); split by attribute " \
           "toolchain" in out
    # their change points are kept but need no action
    assert _rows(cli, "SELECT count(*) FILTER (WHERE action), count(*) FILTER (WHERE mixed "
                      "IS NULL) FROM change_points") == ["0,0"]

    out = cli("analyze", "change-points", "--campaign", "asv", check=True).stdout
    assert "2 series mix what should be apart" in out
    assert "two interleaved groups on node ubuntu-22.04" in out
    assert "split by attribute cpu" in out

    out = cli("analyze", "load", "--campaign", "db", check=True).stdout
    assert "(MIXED: the peak mixes several systems): peak" in out
    assert "fall into 3 groups far beyond their own spread" in out

    # the history verdict names the mixed series and the key, and counts no regression
    cli("report", "history", "--campaign", "go", check=True)
    page = next((tmp_path / "reports").rglob("*history*.html")).read_text()
    assert "series mix what should be apart" in page and "attribute toolchain" in page


def test_promoting_the_toolchain_splits_the_series_and_pairs_tip_with_baseline(
        cli: CliRunner, tmp_path: Path) -> None:
    fx = make(tmp_path / "fx")
    cli("init", check=True)
    cli("ingest", "gotest", str(fx / "gotest"), "--node", "gobuilder", "--campaign", "go",
        "--setting-from-attribute", "toolchain", check=True)
    out = cli("analyze", "change-points", "--campaign", "go", "--baseline",
              "toolchain=baseline", check=True).stdout
    assert "mix what should be apart" not in out
    assert "0 trials without one left out" in out
    rows = _rows(cli, "SELECT json_extract_string(settings, '$.toolchain') AS t, paired_with, "
                      "count(position), min(n_points) FROM change_points GROUP BY ALL "
                      "ORDER BY t")
    # tip / that night's baseline cancels the machine drift the raw baseline shows
    assert [r.split(",")[:2] for r in rows] == [["baseline", ""],
                                                ["experiment", "toolchain=baseline"]]
    experiment = rows[1].split(",")
    assert experiment[2:] == ["0", "80"]
