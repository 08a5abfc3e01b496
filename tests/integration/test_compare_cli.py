"""compare's CI conventions (issues 29 and 31, item 12): verdict status 3, nothing to
compare is an error, non-finite options refused, filters that cannot escape the campaign,
values from 1e-308 to 1e308. Real processes, a real warehouse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwarehouse.generate.revisions import revision_records
from tests.conftest import CliRunner
from tests.trial_logs import write


@pytest.fixture
def two(cli: CliRunner, tmp_path: Path) -> CliRunner:
    """Campaign 'a' (4 benchmarks, 2 revisions x 8 trials, bench001 5 % slower in r001)
    and campaign 'other' whose bench000 is 10x slower."""
    a = revision_records(campaign="a", benchmarks=4, revisions=2, trials=8, noise=0.01,
                         slowdowns={1: [(1, 0.05)]}, seed=5)
    other = revision_records(campaign="other", benchmarks=4, revisions=2, trials=8,
                             noise=0.01, seed=6)
    for r in other:
        r["values"] = [10 * v for v in r["values"]]
    cli("ingest", "jsonl", str(write(tmp_path / "a.jsonl", a)),
        str(write(tmp_path / "o.jsonl", other)), check=True)
    return cli


def test_fail_on_exits_3_and_only_on_its_verdict(two: CliRunner) -> None:
    args = ("compare", "--campaign", "a", "--baseline", "r000", "--contender", "r001",
            "--no-save")
    assert two(*args, "--fail-on", "slower").returncode == 3
    ok = two(*args, "--fail-on", "faster")
    assert ok.returncode == 0, ok.stderr


def test_nothing_on_both_sides_is_a_one_line_error(two: CliRunner) -> None:
    out = two("compare", "--campaign", "a", "--baseline", "r000", "--contender", "r001",
              "--baseline-where", "benchmark = 'bench000'",
              "--contender-where", "benchmark = 'bench001'", "--fail-on", "slower")
    assert out.returncode == 1, out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: nothing to compare")
    assert out.stdout == ""


@pytest.mark.parametrize("value", ["nan", "inf", "-nan"])
def test_non_finite_threshold_refused(two: CliRunner, value: str) -> None:
    out = two("compare", "--campaign", "a", "--baseline", "r000", "--contender", "r001",
              "--threshold", value)
    assert out.returncode == 2 and "--threshold" in out.stderr and "finite" in out.stderr


def test_non_finite_min_change_refused(two: CliRunner) -> None:
    out = two("analyze", "change-points", "--min-change", "nan")
    assert out.returncode == 1 and "--min-change" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("where", ["1=1) OR (1=1", "TRUE) OR (campaign = 'other'",
                                   "1=1; SELECT 1", "benchmark = 'bench000' ORDER BY 1",
                                   "a = 1, b = 2", "  "])
def test_filters_that_would_escape_are_refused(two: CliRunner, where: str) -> None:
    out = two("compare", "--campaign", "a", "--baseline", "r000", "--contender", "r001",
              "--baseline-where", where, "--no-save")
    assert out.returncode == 1, out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "--baseline-where" in lines[0]


def test_a_comment_cannot_reach_past_the_filter(two: CliRunner) -> None:
    # the comment would eat the closing parenthesis of a textual substitution; the filter
    # is DuckDB's rendering of the parsed expression, so it only narrows campaign 'a'
    out = two("compare", "--campaign", "a", "--baseline", "r000", "--contender", "r001",
              "--contender-where", "benchmark = 'bench000' -- ) OR (TRUE", "--format",
              "json", "--no-save")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["comparisons"]
    both = [r["benchmark"] for r in rows if r["n_baseline"] and r["n_contender"]]
    assert both == ["bench000"]
    # the contender's trials are campaign a's (the 10x slower campaign 'other' stays out)
    assert abs(rows[[r["benchmark"] for r in rows].index("bench000")]["change_pct"]) < 5


def test_values_across_the_whole_range_a_measurement_can_have(cli: CliRunner,
                                                              tmp_path: Path) -> None:
    """The ingest keeps values within 1e-100..1e100 (rule value-range, issue 31 item 6); a
    comparison from one end to the other is decided in every format without an overflow.
    (Values of 1e-308..1e308, which an older warehouse may hold, are compared in
    tests/unit/compare/test_compare.py.)"""
    recs = revision_records(campaign="huge", benchmarks=3, revisions=2, trials=6, seed=9)
    for i, r in enumerate(recs):
        scale = {0: 1e-100 if r["revision"] == "r000" else 9e99,
                 1: 9e99 if r["revision"] == "r000" else 1e-100,
                 2: 1e99}[int(r["benchmark"][5:])]
        r["values"] = [scale * (1 + 0.01 * (i % 6))]
    cli("ingest", "jsonl", str(write(tmp_path / "h.jsonl", recs)), check=True)
    for fmt in ("table", "json", "csv", "markdown"):
        out = cli("compare", "--campaign", "huge", "--baseline", "r000", "--contender",
                  "r001", "--format", fmt)
        assert out.returncode == 0, out.stderr
        assert "Traceback" not in out.stderr
    rows = json.loads(cli("compare", "--campaign", "huge", "--baseline", "r000",
                          "--contender", "r001", "--format", "json", "--no-save",
                          "--confidence", "0.95", check=True).stdout)["comparisons"]
    by = {r["benchmark"]: r for r in rows}
    assert by["bench000"]["verdict"] == "slower"   # 1e-100 -> 9e99: up by 9e199
    assert by["bench001"]["verdict"] == "faster"
    assert by["bench001"]["change_pct"] == pytest.approx(-100.0)


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "compare"


def test_two_hyperfine_exports_of_30_runs_decide(cli: CliRunner) -> None:
    # real exports (tests/fixtures/generate/compare_hyperfine.sh): one trial per command,
    # its 30 runs are hyperfine's repetitions and the sample (issue 29: always inconclusive)
    for name, rev in (("hyperfine_base.json", "a"), ("hyperfine_contender.json", "b")):
        cli("ingest", "hyperfine", str(FIXTURES / name), "--campaign", "hf", "--node", "n1",
            "--hardware-type", "box", "--revision", rev, check=True)
    out = cli("compare", "--campaign", "hf", "--baseline", "a", "--contender", "b",
              "--format", "json", "--no-save", "--fail-on", "slower",
              "--gate-single-invocation")
    assert out.returncode == 3, out.stderr
    (row,) = json.loads(out.stdout)["comparisons"]
    assert row["n_baseline"] == row["n_contender"] == 30
    assert row["verdict"] == "slower" and row["ci_low_pct"] > 0
    # issue 39: one invocation a side is noted on the row and not gated by default (its
    # runs share one machine state)
    assert row["one_invocation"] and "one invocation per side" in row["reason"]
    ungated = cli("compare", "--campaign", "hf", "--baseline", "a", "--contender", "b",
                  "--no-save", "--fail-on", "slower")
    assert ungated.returncode == 0, ungated.stderr


def test_report_compare_writes_the_page(two: CliRunner, tmp_path: Path) -> None:
    empty = tmp_path / "empty.html"
    two("report", "compare", "--out", str(empty), check=True)
    assert "No comparison kept yet" in empty.read_text()
    two("compare", "--campaign", "a", "--baseline", "r000", "--contender", "r001", check=True)
    out = tmp_path / "compare.html"
    two("report", "compare", "--out", str(out), check=True)
    html = out.read_text()
    verdict_at = html.index('class="verdict')
    assert html.index("1 of 4 configurations slower") > verdict_at  # the verdict first
    assert html.index("1 of 4 configurations slower") < html.index("Geometric mean")
    assert 'href="index.html"' in html
    assert "Change of each configuration" in html and "bench001" in html
    assert "a@r001 vs a@r000" in html


def _pyperf_golden() -> dict[str, str]:
    """pyperf compare_to's table: benchmark -> 'faster'/'slower', 'not significant'."""
    text = (FIXTURES / "pyperf_compare_to.txt").read_text()
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("Benchmark", "Geometric mean") and "x " in cells[2]:
            out[cells[0]] = cells[2].rsplit(" ", 1)[1]
        if line.startswith("Benchmark hidden because not significant"):
            for name in line.split(":", 1)[1].split(","):
                out[name.strip()] = "not significant"
    return out


def test_side_by_side_with_pyperf_compare_to(cli: CliRunner) -> None:
    # real pyperf suites (tests/fixtures/generate/compare_pyperf.sh): 8 timeit benchmarks,
    # 10 worker runs x 3 values a side; pyperf compare_to finds 3 significant changes
    golden = _pyperf_golden()
    assert len(golden) == 8
    for name, rev in (("pyperf_base.json", "a"), ("pyperf_contender.json", "b")):
        cli("ingest", "pyperf", str(FIXTURES / name), "--campaign", "pp", "--node", "n1",
            "--hardware-type", "box", "--revision", rev, check=True)
    out = cli("compare", "--campaign", "pp", "--baseline", "a", "--contender", "b",
              "--format", "json", "--no-save", check=True)
    rows = {r["benchmark"]: r for r in json.loads(out.stdout)["comparisons"]}
    agree = [(rows[b]["verdict"] if rows[b]["verdict"] in ("slower", "faster")
              else "not significant") == want for b, want in golden.items()]
    # measured: 7 of 8 (tuple: pyperf's t-test on 30 pooled values says 1.15x slower,
    # the rank test on 10 worker medians a side p = 0.063 before the correction)
    assert sum(agree) >= 7, dict(zip(golden, agree))


def test_go_test_count_lines_are_the_sample(cli: CliRunner) -> None:
    # real `go test -bench . -count 10` outputs (tests/fixtures/generate/compare_gotest.sh;
    # measured on a loaded machine, so no verdict is asserted): each result line is a trial
    for name, rev in (("gotest_base.txt", "a"), ("gotest_contender.txt", "b")):
        cli("ingest", "gotest", str(FIXTURES / name), "--campaign", "go", "--node", "n1",
            "--hardware-type", "box", "--revision", rev, check=True)
    out = cli("compare", "--campaign", "go", "--baseline", "a", "--contender", "b",
              "--format", "json", "--no-save", check=True)
    result = json.loads(out.stdout)
    rows = result["comparisons"]
    assert sorted((r["benchmark"], r["unit"]) for r in rows) == [
        ("BenchmarkCopy", "MB/s"), ("BenchmarkCopy", "ns/op"), ("BenchmarkSum", "ns/op")]
    assert all(r["n_baseline"] == r["n_contender"] == 10 for r in rows)
    assert sorted(g["unit"] for g in result["geomean"]) == ["MB/s", "ns/op"]
