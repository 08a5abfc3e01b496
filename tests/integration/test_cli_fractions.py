"""Fraction/percentage options follow one rule (perfwarehouse.stats.fractions): a value
that could be a fraction or a small percentage is refused with one line saying the rule,
never read silently as a percentage."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def _error_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return lines[-1]


def test_an_ambiguous_confidence_is_refused(cli, small_longterm: Path) -> None:  # type: ignore[no-untyped-def]
    # plan runs: a click option, so bad usage (exit 2, as tests/integration/test_cli_habits.py asserts)
    bad = cli("plan", "runs", "-p", "95", "-c", "1.5")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and not bad.stdout
    assert ("confidence 1.5 is ambiguous: give a fraction 0 < x < 1 (0.95) or a percentage "
            "50 <= x < 100 (95); for 1.5 % give 0.015") in _error_line(bad.stderr)

    cli("ingest", "jsonl", str(small_longterm), check=True)
    for argv in (["analyze", "kpi", "--confidence", "1.5"],
                 ["analyze", "variability-score", "--confidence", "1.5"],
                 ["analyze", "trends", "--confidence", "1.5"]):
        bad = cli(*argv)
        # issue 40: a usage error (exit 2, as the docs say), checked before the job loads
        assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr
        assert bad.stderr.startswith("Error: Invalid value for '--confidence': 1.5 is "
                                     "ambiguous: give a fraction 0 < x < 1 (0.95) or a "
                                     "percentage 50 <= x < 100 (95)")
    ok = cli("analyze", "kpi", "--percentile", "1.5", "--confidence", "0.9", check=True)
    assert "kpi:" in ok.stdout  # a percentile of 1.5 is the 1.5th percentile
    res = cli("sql", "SELECT DISTINCT percentile, confidence FROM triscale_kpi", "--format",
              "csv", check=True)
    assert "0.015,0.9" in res.stdout
