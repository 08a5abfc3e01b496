"""Acceptance of compare, analyze change-points and report history on generated campaigns
(real processes, a real warehouse)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwarehouse.generate.revisions import revision_records
from tests.conftest import CliRunner
from tests.trial_logs import write

SLOWED = (3, 9, 14, 22, 37, 41, 58, 64, 79, 95)  # 14 and 79 report throughput


def _campaign(tmp_path: Path, name: str, slowdown: float) -> Path:
    recs = revision_records(campaign=name, benchmarks=100, revisions=2, trials=20, noise=0.01,
                            slowdowns={b: [(1, slowdown)] for b in SLOWED} if slowdown else {},
                            seed=7)
    return write(tmp_path / f"{name}.jsonl", recs)


@pytest.fixture
def ingested(cli: CliRunner, tmp_path: Path) -> CliRunner:
    cli("ingest", "jsonl", str(_campaign(tmp_path, "planted", 0.05)),
        str(_campaign(tmp_path, "unchanged", 0.0)), check=True)
    return cli


def test_exactly_the_planted_slowdowns_are_slower(ingested: CliRunner) -> None:
    out = ingested("compare", "--campaign", "planted", "--baseline", "r000", "--contender",
                   "r001", "--format", "json", "--fail-on", "slower",
                   "--threshold", "1")  # at the default 0 a +0.73 % row is significant too
    assert out.returncode == 3, out.stderr  # the verdict's status (issue 29: was 1)
    result = json.loads(out.stdout)
    rows = result["comparisons"]
    assert len(rows) == 100
    slower = sorted(int(r["benchmark"][5:]) for r in rows if r["verdict"] == "slower")
    assert slower == list(SLOWED)
    assert not [r for r in rows if r["verdict"] == "faster"]
    for r in rows:
        if r["verdict"] == "slower":
            assert r["higher_is_better"] == (int(r["benchmark"][5:]) % 5 == 4)
            assert 3.5 < abs(r["change_pct"]) < 6.5
    assert result["summary"].startswith("10 of 100 configurations slower, 0 faster")
    changes = [abs(r["change_pct"]) for r in rows]
    assert changes == sorted(changes, reverse=True)
    # the comparison is kept
    kept = ingested("sql", "SELECT count(*), count(DISTINCT comparison_id), "
                    "sum(CAST(verdict = 'slower' AS INT)) FROM comparisons", "--format", "csv",
                    check=True)
    assert kept.stdout.splitlines()[1] == "100,1,10"


def test_no_planted_change_exits_zero_and_table_starts_with_verdict(
        ingested: CliRunner) -> None:
    out = ingested("compare", "--campaign", "unchanged", "--baseline", "r000", "--contender",
                   "r001", "--fail-on", "slower", "--threshold", "1")
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("0 of 100 configurations slower, 0 faster")
    md = ingested("compare", "--baseline-campaign", "unchanged", "--contender-campaign",
                  "planted", "--baseline-where", "revision = 'r001'",
                  "--contender-where", "revision = 'r001'", "--format", "markdown",
                  "--no-save", "--threshold", "1", check=True)
    assert md.stdout.startswith("**10 of 100 configurations slower")
    assert "| hardware_type | benchmark |" in md.stdout


def test_user_errors_are_one_line(ingested: CliRunner) -> None:
    bad = ingested("compare", "--campaign", "planted", "--baseline", "nope", "--contender",
                   "r001")
    assert bad.returncode == 1
    assert bad.stderr.strip() == ("error: baseline: no successful trials of planted@nope; "
                                  "its revisions: r000, r001")
    same = ingested("compare", "--campaign", "planted")
    assert same.returncode == 1 and "both sides are the same trials" in same.stderr
    where = ingested("compare", "--campaign", "planted", "--baseline", "r000", "--contender",
                     "r001", "--contender-where", "no_such_column = 1")
    assert where.returncode == 1 and "--contender-where" in where.stderr
    assert len(where.stderr.strip().splitlines()) == 1


def test_change_points_job_and_history_report(cli: CliRunner, tmp_path: Path) -> None:
    # 12 revisions x 5 trials; benchmarks 3 and 14 slow down by 6 % from revision 6 on
    recs = revision_records(campaign="hist", benchmarks=20, revisions=12, trials=5,
                            noise=0.01, slowdowns={3: [(6, 0.06)], 14: [(6, 0.06)]}, seed=3)
    short = revision_records(campaign="tiny", benchmarks=2, revisions=2, trials=3, seed=4)
    cli("ingest", "jsonl", str(write(tmp_path / "h.jsonl", recs)),
        str(write(tmp_path / "t.jsonl", short)), check=True)
    run = cli("analyze", "change-points", "--min-change", "3", check=True)
    assert "change-points: 22 series" in run.stdout
    got = cli("sql", "SELECT campaign, benchmark, position, revision, revision_before, "
              "direction, round(change_pct) AS pct FROM change_points WHERE position IS NOT NULL "
              "ORDER BY benchmark", "--format", "csv", check=True).stdout.splitlines()
    assert got[1:] == ["hist,bench003,30,r006,r005,regression,6.0",
                       "hist,bench014,30,r006,r005,regression,-6.0"]
    reasons = cli("sql", "SELECT count(*) FROM change_points WHERE campaign = 'tiny' AND "
                  "reason LIKE 'too short: 6 points%'", "--format", "csv", check=True)
    assert reasons.stdout.splitlines()[1] == "2"
    out = tmp_path / "history.html"
    cli("report", "history", "--campaign", "hist", "--out", str(out), check=True)
    html = out.read_text()
    assert "2 change points in 2 of 20 series: 2 regressions" in html
    fleet = tmp_path / "fleet.html"
    # two campaigns over revisions, neither a long-term one: the fleet page is asked by name
    cli("report", "fleet", "--campaign", "hist", "--out", str(fleet), check=True)
    assert 'href="history.html"' in fleet.read_text()


def test_change_points_with_a_paired_baseline(cli: CliRunner, tmp_path: Path) -> None:
    """--baseline B divides every other series by B's trial of the same run and metric:
    the planted slowdown of a runtime series is still found; the throughput series (every
    fifth benchmark, bench014 among them) have no runtime baseline: each gets a row that
    says so and its 60 trials are counted, never dropped in silence; an unknown baseline
    is a one-line error."""
    recs = revision_records(campaign="hist", benchmarks=20, revisions=12, trials=5,
                            noise=0.01, slowdowns={3: [(6, 0.06)], 14: [(6, 0.06)]}, seed=3)
    cli("ingest", "jsonl", str(write(tmp_path / "h.jsonl", recs)), check=True)
    run = cli("analyze", "change-points", "--baseline", "bench000", "--min-change", "3",
              check=True)
    assert ("divided run by run by bench000's median; 240 trials without a baseline"
            in run.stdout)
    got = cli("sql", "SELECT benchmark, position, paired_with, n_unpaired FROM change_points "
              "WHERE position IS NOT NULL ORDER BY benchmark", "--format", "csv",
              check=True).stdout.splitlines()
    assert got[1:] == ["bench003,30,bench000,0"]
    unpaired = cli("sql", "SELECT benchmark, n_points, n_unpaired, reason FROM change_points "
                   "WHERE n_unpaired > 0 ORDER BY benchmark", "--format", "csv",
                   check=True).stdout.splitlines()
    assert [r.split(",")[:3] for r in unpaired[1:]] == [
        [f"bench{b:03d}", "0", "60"] for b in (4, 9, 14, 19)]
    assert all("no trial has a baseline (bench000, same metric)" in r for r in unpaired[1:])
    paired = cli("sql", "SELECT count(*) FILTER (paired_with = 'bench000'), "
                 "count(*) FILTER (paired_with IS NULL AND benchmark = 'bench000') "
                 "FROM change_points", "--format", "csv", check=True)
    assert paired.stdout.splitlines()[1] == "19,1"
    bad = cli("analyze", "change-points", "--baseline", "nope")
    assert bad.returncode != 0
    assert len(bad.stderr.strip().splitlines()) == 1 and "nope" in bad.stderr
