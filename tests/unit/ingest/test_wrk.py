"""wrk 4 and wrk2 text output -> load-test trials."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.unit.ingest import loadtest_common as common

VERB = "wrk"


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_good_files_follow_the_contract(path: Path) -> None:
    common.check_records(common.parse(VERB, path))


def test_wrk4_mapping() -> None:
    path = common.IMPORTERS / VERB / "good" / "wrk_c4.txt"
    text = path.read_text()
    records = common.parse(VERB, path)
    m = common.metrics_of(records)
    assert m["throughput"] == float(re.search(r"Requests/sec:\s+(\S+)", text).group(1))
    assert m["requests"] == float(re.search(r"(\d+) requests in", text).group(1))
    assert m["errors"] == 0
    # the load is clients = C; threads and connections are the generator's (issue 28)
    assert records[0]["settings"] == {"generator": "wrk", "loop": "closed", "clients": 4,
                                      "think_time_s": 0}
    assert records[0]["attributes"]["connections"] == 4
    assert records[0]["attributes"]["threads"] == 2
    assert records[0]["benchmark"].startswith("http://127.0.0.1:")
    units = {r["metric"]: (r["unit"], r["higher_is_better"]) for r in records}
    assert units["throughput"] == ("req/s", True) and units["p99"] == ("ms", False)
    # the four --latency lines, in ms
    dist = re.findall(r"^\s+(\d+)%\s+(\S+?)(us|ms|s)$", text, re.M)
    scale = {"us": 1e-3, "ms": 1.0, "s": 1e3}
    expected = [[float(q), float(v) * scale[u]] for q, v, u in dist]
    assert common.flat(records[0]["latency"]["percentiles"]) == pytest.approx(common.flat(expected))
    assert m["p50"] == pytest.approx(expected[0][1])


def test_non_2xx_responses_are_errors() -> None:
    path = common.IMPORTERS / VERB / "good" / "wrk_404_c2.txt"
    m = common.metrics_of(common.parse(VERB, path))
    assert m["errors"] == m["requests"] > 0


def test_wrk2_spectrum_is_the_distribution() -> None:
    path = common.IMPORTERS / VERB / "good" / "wrk2_R2000_c100.txt"
    text = path.read_text()
    records = common.parse(VERB, path, settings=(("rate_rps", "2000"),))
    spectrum = records[0]["latency"]["percentiles"]
    rows = re.findall(r"^\s+([0-9.]+)\s+([0-9.]+)\s+\d+\s+\S+$", text, re.M)
    expected = [[float(p) * 100, float(v)] for v, p in rows]
    assert common.flat(spectrum) == pytest.approx(common.flat(expected))
    assert records[0]["settings"]["loop"] == "open" and "clients" not in records[0]["settings"]
    assert common.metrics_of(records)["p99.9"] == 3.42


@pytest.mark.parametrize("path", common.broken(VERB), ids=lambda p: p.name)
def test_broken_files_are_refused_in_one_line(path: Path) -> None:
    common.check_broken(VERB, path)


def test_sniff_claims_its_files_only() -> None:
    common.check_sniff(VERB)


def independent_count(path: Path) -> Counter:
    """Trials per load level, read with a regex of its own."""
    text = path.read_text()
    counts: Counter = Counter()
    for _ in re.finditer(r"^\s*\d+ requests in ", text, re.M):
        connections = int(re.search(r"(\d+) connections", text).group(1))
        wrk2 = "Detailed Percentile spectrum" in text or "Thread calibration" in text
        rate = re.search(r"^\$ \S*wrk2? .*-R(\d+)", text, re.M)
        counts[("open", None, rate and int(rate.group(1))) if wrk2
               else ("closed", connections, None)] += 1
    return counts


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_trials_per_load_level_match_an_independent_count(path: Path) -> None:
    assert common.trials_per_level(common.parse(VERB, path)) == independent_count(path)


def test_wrk2_saved_with_its_command_line_gives_the_rate() -> None:
    """Issue 27 item 1: wrk2 does not print -R; the command line saved above gives it."""
    saved = common.IMPORTERS / VERB / "good" / "wrk2_R2000_c100_saved.md"
    records = common.parse(VERB, saved)
    assert records[0]["settings"] == {"generator": "wrk2", "loop": "open", "rate_rps": 2000}
    assert records[0]["attributes"]["connections"] == 100
    plain = common.parse(VERB, common.IMPORTERS / VERB / "good" / "wrk2_R2000_c100.txt")
    assert common.metrics_of(records) == common.metrics_of(plain)
    assert records[0]["latency"] == plain[0]["latency"]
