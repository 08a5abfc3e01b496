"""Locust --csv stats and stats_history -> load-test trials."""

from __future__ import annotations

import csv
import itertools
from collections import Counter
from pathlib import Path

import pytest

from tests.unit.ingest import loadtest_common as common

VERB = "locust"
GOOD = common.IMPORTERS / VERB / "good"


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_good_files_follow_the_contract(path: Path) -> None:
    common.check_records(common.parse(VERB, path))


def test_stats_mapping() -> None:
    path = GOOD / "locust_u10_stats.csv"
    rows = list(csv.DictReader(path.read_text().splitlines()))
    total = next(r for r in rows if r["Name"] == "Aggregated")
    records = common.parse(VERB, path)
    m = common.metrics_of(records)
    assert m["throughput"] == float(total["Requests/s"])
    assert m["requests"] == float(total["Request Count"])
    assert m["errors"] == float(total["Failure Count"])
    assert m["mean"] == float(total["Average Response Time"])
    assert m["p99.9"] == float(total["99.9%"])
    percentiles = records[0]["latency"]["percentiles"]
    assert percentiles == [[float(c[:-1]), float(total[c])] for c in total if c.endswith("%")]
    assert len(records[0]["attributes"]["endpoints"]) == len(rows) - 1
    assert "clients" not in records[0]["settings"]  # the stats file does not say


def test_history_plateaus_are_load_levels() -> None:
    path = GOOD / "locust_step_stats_history.csv"
    rows = [r for r in csv.DictReader(path.read_text().splitlines()) if r["Name"] == "Aggregated"]
    records = common.parse(VERB, path)
    by_trial = common.trials(records)
    assert len(by_trial) == 3
    for recs in by_trial.values():
        users = recs[0]["settings"]["clients"]
        level = [r for r in rows if int(r["User Count"]) == users]
        n0, n1 = (float(level[i]["Total Request Count"]) for i in (0, -1))
        t0, t1 = (float(level[i]["Timestamp"]) for i in (0, -1))
        m = {r["metric"]: r["values"][0] for r in recs}
        assert m["requests"] == n1 - n0 and m["duration_s"] == t1 - t0
        assert m["throughput"] == pytest.approx((n1 - n0) / (t1 - t0))
        a0, a1 = (float(level[i]["Total Average Response Time"]) for i in (0, -1))
        assert m["mean"] == pytest.approx((a1 * n1 - a0 * n0) / (n1 - n0))
        assert "p99" not in m  # cumulative percentiles would mix the levels


def test_single_plateau_history_keeps_the_percentiles() -> None:
    records = common.parse(VERB, GOOD / "locust_u8_stats_history.csv")
    m = common.metrics_of(records)
    assert records[0]["settings"]["clients"] == 8
    assert m["p99"] == 31.0 and records[0]["started_at"].endswith("Z")


@pytest.mark.parametrize("path", common.broken(VERB), ids=lambda p: p.name)
def test_broken_files_are_refused_in_one_line(path: Path) -> None:
    common.check_broken(VERB, path)


def test_sniff_claims_its_files_only() -> None:
    common.check_sniff(VERB)


def independent_count(path: Path) -> Counter:
    rows = list(csv.DictReader(path.read_text().splitlines()))
    if "User Count" not in rows[0]:
        return Counter({("closed", None, None): sum(r["Name"] == "Aggregated" for r in rows)})
    counts: Counter = Counter()
    aggregated = [r for r in rows if r["Name"] == "Aggregated"]
    for users, group in itertools.groupby(aggregated, key=lambda r: int(r["User Count"])):
        if users > 0 and len(list(group)) >= 2:
            counts[("closed", users, None)] += 1
    return counts


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_trials_per_load_level_match_an_independent_count(path: Path) -> None:
    assert common.trials_per_level(common.parse(VERB, path)) == independent_count(path)
