"""hey's text summary -> load-test trials."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.unit.ingest import loadtest_common as common

VERB = "hey"


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_good_files_follow_the_contract(path: Path) -> None:
    common.check_records(common.parse(VERB, path))


def test_mapping() -> None:
    path = common.IMPORTERS / VERB / "good" / "hey_c8.txt"
    text = path.read_text()
    records = common.parse(VERB, path, settings=(("clients", "8"),))
    m = common.metrics_of(records)
    seconds = {k: float(v) for k, v in re.findall(r"^\s+(\w+(?:/sec)?):\t\s*([0-9.]+)", text,
                                                  re.M)}
    assert m["throughput"] == seconds["Requests/sec"]
    assert m["duration_s"] == seconds["Total"]
    assert m["mean"] == pytest.approx(seconds["Average"] * 1e3)
    assert m["max"] == pytest.approx(seconds["Slowest"] * 1e3)
    responses = sum(int(n) for n in re.findall(r"^\s+\[\d+\]\t(\d+) responses", text, re.M))
    assert m["requests"] == responses and m["errors"] == 0
    lines = re.findall(r"^\s+(\d+)% in ([0-9.]+) secs", text, re.M)
    expected = [[float(q), float(v) * 1e3] for q, v in lines]
    assert common.flat(records[0]["latency"]["percentiles"]) == pytest.approx(common.flat(expected))
    assert m["p99"] == pytest.approx(float(dict(lines)["99"]) * 1e3)
    # the command line says the load the summary does not print
    assert records[0]["settings"]["loop"] == "closed"
    assert len(records[0]["attributes"]["histogram_ms"]) == len(
        re.findall(r"^\s+[0-9.]+ \[\d+\]\t\|", text, re.M))


def test_transport_errors_are_errors_not_completions() -> None:
    path = common.IMPORTERS / VERB / "good" / "hey_refused_c2.txt"
    text = path.read_text()
    m = common.metrics_of(common.parse(VERB, path))
    failed = sum(int(n) for n in re.findall(r"^\s+\[(\d+)\]\t", text.split("Error distribution:")[1],
                                            re.M))
    assert m["errors"] == failed > 0
    assert m["requests"] == 0 and m["throughput"] == 0  # no response completed
    assert "mean" not in m and "max" not in m  # no response, no latency (hey prints NaN)


@pytest.mark.parametrize("path", common.broken(VERB), ids=lambda p: p.name)
def test_broken_files_are_refused_in_one_line(path: Path) -> None:
    common.check_broken(VERB, path)


def test_sniff_claims_its_files_only() -> None:
    common.check_sniff(VERB)


def independent_count(path: Path) -> Counter:
    """One trial per 'Summary:' block; hey does not print -c, so no clients unless the
    command line is saved above it (then -c, and -q: an offered rate of c * q)."""
    text = path.read_text()
    key: tuple = ("closed", None, None)
    if m := re.match(r"\$ hey (.*)", text):
        c = int(re.search(r"-c (\d+)", m.group(1)).group(1))
        q = re.search(r"-q (\d+)", m.group(1))
        key = ("open", None, c * int(q.group(1))) if q else ("closed", c, None)
    return Counter({key: text.count("\nSummary:\n") + text.startswith("Summary:\n")})


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_trials_per_load_level_match_an_independent_count(path: Path) -> None:
    assert common.trials_per_level(common.parse(VERB, path)) == independent_count(path)


def test_the_command_line_above_gives_the_load_and_the_url() -> None:
    """hey prints neither -c, -q nor the URL: a saved command line gives them."""
    records = common.parse(VERB, common.IMPORTERS / VERB / "good" / "hey_c2_q50_saved.txt")
    assert records[0]["settings"] == {"generator": "hey", "loop": "open", "rate_rps": 100}
    assert records[0]["benchmark"] == "http://127.0.0.1:8080/index.html"
    plain = common.parse(VERB, common.IMPORTERS / VERB / "good" / "hey_c2_q50.txt")
    assert common.metrics_of(records) == common.metrics_of(plain)
