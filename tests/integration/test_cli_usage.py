"""The command line's usage conventions (issue 40): option checks before any heavy import
(a bad ``--confidence`` refused without loading the job, the statistics or DuckDB), usage
errors exit 2 in one line, ``--format md`` and ``markdown`` one format, compare's terminal
table within ``COLUMNS`` with one section per unit, counts that name their unit. Real
processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CliRunner

pytestmark = pytest.mark.integration

PYPERFORMANCE = Path(__file__).resolve().parents[1] / "fixtures" / "compare_pyperformance"
HEAVY = ("duckdb", "pyarrow", "scipy", "numba", "polars", "perfwarehouse.jobs.triscale_jobs",
         "perfwarehouse.jobs.framework", "perfwarehouse.comparison")


def _in_process(argv: list[str], tmp_path: Path) -> tuple[int, list[str], str]:
    """(exit status, the heavy modules loaded, stderr) of ``perfwarehouse ARGV`` run by
    :func:`perfwarehouse.cli.main.main` in a fresh interpreter."""
    code = ("import sys\nfrom perfwarehouse.cli.main import main\nrc = main(sys.argv[1:])\n"
            f"print(rc, *[m for m in {HEAVY!r} if m in sys.modules])\n")
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path,
                         env={**os.environ, "PERFWAREHOUSE_HOME": str(tmp_path / "none")})
    rc, *loaded = out.stdout.split()
    return int(rc), loaded, out.stderr


@pytest.mark.parametrize("argv", [
    ["analyze", "kpi", "--confidence", "1.5"],
    ["analyze", "variability-score", "--kpi-percentile", "0"],
    ["compare", "--campaign", "c", "--confidence", "1.5"],
    ["compare", "--campaign", "c", "--confidence", "0.3"],
    ["compare", "--baseline", "v1"],
    ["sql", "SELECT 1", "--format", "xml"],
    ["report", "compare", "--comparison-id", "x"],
])
def test_a_bad_option_is_a_one_line_usage_error_before_any_heavy_import(
        argv: list[str], tmp_path: Path) -> None:
    rc, loaded, stderr = _in_process(argv, tmp_path)
    assert rc == 2 and "Traceback" not in stderr, stderr
    if argv[0] != "report":  # a page's options are read from its module (pages: polars)
        assert loaded == [], loaded
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("Error: Invalid value for '--" if argv[-1] != "v1"
                           else "Error: give --campaign"), stderr
    if "--confidence" in argv:
        assert "--confidence" in last and ("ambiguous" in last or "at least 0.5" in last)


def test_md_and_markdown_are_one_format(cli: CliRunner) -> None:
    cli("init", check=True)
    as_md = cli("sql", "SELECT 1 AS a, 'x' AS b", "--format", "md", check=True).stdout
    assert as_md == cli("sql", "SELECT 1 AS a, 'x' AS b", "--format", "markdown",
                        check=True).stdout
    assert as_md.startswith("| a | b |\n|---:|---|\n| 1 | x |")
    helptext = cli("sql", "--help", check=True).stdout
    assert "markdown" in helptext and "[table|csv|json|markdown|parquet]" in helptext


@pytest.fixture
def suites(cli: CliRunner) -> CliRunner:
    """The two real pyperformance suites (12 benchmarks, 20 values each) in campaign pp."""
    for name in ("default", "malloc"):
        cli("ingest", "pyperf", str(PYPERFORMANCE / f"{name}.json"), "--campaign", "pp",
            "--node", "n1", "--hardware-type", "box", "--revision", name, check=True)
    return cli


def test_compare_formats_width_and_counts(suites: CliRunner) -> None:
    args = ("compare", "--campaign", "pp", "--baseline", "default", "--contender", "malloc",
            "--no-save")
    md = suites(*args, "--format", "md", check=True).stdout
    assert md == suites(*args, "--format", "markdown", check=True).stdout
    assert md.startswith("**7 of 12 configurations slower")
    assert "configurations: 12 benchmark settings x 1 metric (time)" in md
    for width in (60, 80, 200):
        out = suites(*args, extra_env={"COLUMNS": str(width)}, check=True).stdout
        lines = out.splitlines()
        assert max(len(line) for line in lines) <= width, (width, out)
        assert lines[0].startswith("7 of 12 configurations slower")
        sections = [line for line in lines if line.endswith("is better)")]
        assert sections == ["s (lower is better)"]  # one section per unit
        assert any("float" in line for line in lines) and "geomean of 12 rows" in out
    wide = suites(*args, extra_env={"COLUMNS": "200"}, check=True).stdout
    assert any(line.startswith("float ") and "slower" in line for line in wide.splitlines())


def test_status_counts_name_their_unit(suites: CliRunner) -> None:
    lines = suites("status", check=True).stdout.splitlines()
    assert lines[0].endswith(": 1 campaign, 480 measurements")
    assert lines[1].startswith("pp: 1 hardware type, 480 measurements, last ingest ")
