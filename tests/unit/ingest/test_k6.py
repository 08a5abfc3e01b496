"""k6 --summary-export JSON (and handleSummary data) -> one load-test trial per file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.unit.ingest import loadtest_common as common

VERB = "k6"
GOOD = common.IMPORTERS / VERB / "good"


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_good_files_follow_the_contract(path: Path) -> None:
    common.check_records(common.parse(VERB, path))


def flat_metrics(path: Path) -> dict:
    metrics = json.loads(path.read_text())["metrics"]
    return {k: v.get("values", v) for k, v in metrics.items()}


@pytest.mark.parametrize("name", ["k6_vus10_summary.json", "k6_vus4_handlesummary.json"])
def test_mapping(name: str) -> None:
    path = GOOD / name
    doc = flat_metrics(path)
    records = common.parse(VERB, path)
    m = common.metrics_of(records)
    assert m["throughput"] == doc["http_reqs"]["rate"]
    assert m["requests"] == doc["http_reqs"]["count"]
    assert m["errors"] == doc["http_req_failed"]["passes"]
    assert m["p50"] == doc["http_req_duration"]["med"]
    assert m["p99"] == doc["http_req_duration"]["p(99)"]
    assert m["mean"] == doc["http_req_duration"]["avg"]
    assert records[0]["settings"] == {"generator": "k6", "loop": "closed",
                                      "clients": doc["vus"]["max"]}
    state = json.loads(path.read_text()).get("state")
    if state:
        assert m["duration_s"] == state["testRunDurationMs"] / 1e3


def test_arrival_rate_executor_is_an_open_loop() -> None:
    path = GOOD / "k6_rate300_summary.json"
    doc = flat_metrics(path)
    records = common.parse(VERB, path)
    m = common.metrics_of(records)
    assert records[0]["settings"] == {"generator": "k6", "loop": "open"}
    offered = doc["iterations"]["count"] + doc["dropped_iterations"]["count"]
    assert m["arrival_rate"] == pytest.approx(offered / m["duration_s"])
    assert m["arrival_rate"] > m["throughput"]


@pytest.mark.parametrize("path", common.broken(VERB), ids=lambda p: p.name)
def test_broken_files_are_refused_in_one_line(path: Path) -> None:
    common.check_broken(VERB, path)


def test_sniff_claims_its_files_only() -> None:
    common.check_sniff(VERB)


def independent_count(path: Path) -> Counter:
    doc = flat_metrics(path)
    if "dropped_iterations" in doc:
        return Counter({("open", None, None): 1})
    vus = doc["vus"]
    clients = int(vus["max"]) if vus["min"] == vus["max"] else None
    return Counter({("closed", clients, None): 1})


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_trials_per_load_level_match_an_independent_count(path: Path) -> None:
    assert common.trials_per_level(common.parse(VERB, path)) == independent_count(path)
