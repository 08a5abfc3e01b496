"""sysbench 0.5 and 1.0 text output -> load-test trials."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.unit.ingest import loadtest_common as common

VERB = "sysbench"
GOOD = common.IMPORTERS / VERB / "good"


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_good_files_follow_the_contract(path: Path) -> None:
    common.check_records(common.parse(VERB, path))


def test_oltp_10_mapping() -> None:
    path = GOOD / "sysbench10_oltp_t4.txt"
    text = path.read_text()
    records = common.parse(VERB, path)
    m = common.metrics_of(records)
    tx, tps = re.search(r"transactions:\s+(\d+)\s+\(([0-9.]+) per sec", text).groups()
    assert m["throughput"] == float(tps)
    assert m["requests"] == float(re.search(r"total number of events:\s+(\d+)", text).group(1))
    assert m["errors"] == float(re.search(r"ignored errors:\s+(\d+)", text).group(1))
    assert m["duration_s"] == float(re.search(r"total time:\s+([0-9.]+)s", text).group(1))
    assert m["p95"] == float(re.search(r"95th percentile:\s+([0-9.]+)", text).group(1))
    assert m["mean"] == float(re.search(r"avg:\s+([0-9.]+)", text).group(1))
    assert records[0]["benchmark"] == "sysbench oltp"
    assert records[0]["settings"] == {"generator": "sysbench", "sysbench_version": "1.0.20",
                                      "threads": 4, "clients": 4, "loop": "closed",
                                      "think_time_s": 0}
    intervals = records[0]["attributes"]["intervals"]
    lines = re.findall(r"^\[ (\d+)s \] thds: \d+ tps: ([0-9.]+)", text, re.M)
    assert [(i["t_s"], i["tps"]) for i in intervals] == [(float(t), float(v)) for t, v in lines]


def test_cpu_rate_is_an_open_loop() -> None:
    path = GOOD / "sysbench10_cpu_rate200.txt"
    text = path.read_text()
    records = common.parse(VERB, path)
    m = common.metrics_of(records)
    assert records[0]["settings"]["loop"] == "open"
    assert records[0]["settings"]["rate_rps"] == 200
    assert m["throughput"] == float(re.search(r"events per second:\s+([0-9.]+)", text).group(1))
    assert "errors" not in m  # the cpu test has no error count
    assert {"queue_length", "concurrency"} <= set(records[0]["attributes"]["intervals"][0])


def test_sysbench_05_mapping() -> None:
    path = GOOD / "sysbench05_oltp_t8.txt"
    text = path.read_text()
    m = common.metrics_of(records := common.parse(VERB, path))
    assert m["p95"] == float(re.search(r"approx\.\s+95 percentile:\s+([0-9.]+)ms", text).group(1))
    assert m["max"] == float(re.search(r"max:\s+([0-9.]+)ms", text).group(1))
    assert m["throughput"] == float(re.search(r"\(([0-9.]+) per sec", text).group(1))
    assert len(records[0]["attributes"]["intervals"]) == text.count("] threads: ")
    cpu = common.metrics_of(common.parse(VERB, GOOD / "sysbench05_cpu_t2.txt"))
    assert cpu["throughput"] == pytest.approx(cpu["requests"] / cpu["duration_s"])


@pytest.mark.parametrize("path", common.broken(VERB), ids=lambda p: p.name)
def test_broken_files_are_refused_in_one_line(path: Path) -> None:
    common.check_broken(VERB, path)


def test_sniff_claims_its_files_only() -> None:
    common.check_sniff(VERB)


def independent_count(path: Path) -> Counter:
    text = path.read_text()
    threads = int(re.search(r"Number of threads: (\d+)", text).group(1))
    rate = re.search(r"Target transaction rate: (\d+)/sec", text)
    key = ("open", None, int(rate.group(1))) if rate else ("closed", threads, None)
    return Counter({key: text.count("Threads fairness:")})


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_trials_per_load_level_match_an_independent_count(path: Path) -> None:
    assert common.trials_per_level(common.parse(VERB, path)) == independent_count(path)
