"""sysbench 0.5 and 1.0 text output -> load-test trials."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats.records import ImportOptions
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
    # the load is clients = N; the thread count is an attribute, not a setting (issue 28)
    assert records[0]["settings"] == {"generator": "sysbench", "sysbench_version": "1.0.20",
                                      "clients": 4, "loop": "closed", "think_time_s": 0}
    assert records[0]["attributes"]["threads"] == 4
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
    """Per run (a banner line starts each of the runs appended to one file)."""
    counts: Counter = Counter()
    for text in re.split(r"^(?=sysbench \d)", path.read_text(), flags=re.M)[1:]:
        threads = int(re.search(r"Number of threads: (\d+)", text).group(1))
        rate = re.search(r"Target transaction rate: (\d+)/sec", text)
        key = ("open", None, int(rate.group(1))) if rate else ("closed", threads, None)
        counts[key] += text.count("Threads fairness:")
    return counts


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_trials_per_load_level_match_an_independent_count(path: Path) -> None:
    assert common.trials_per_level(common.parse(VERB, path)) == independent_count(path)


def test_every_run_of_an_appended_log_is_a_trial() -> None:
    """Issue 27 item 3: a thread sweep appended to one file gives every run, in order."""
    path = GOOD / "sysbench10_cpu_t1_t2_appended.txt"
    text = path.read_text()
    records = common.parse(VERB, path)
    by_trial = common.trials(records)
    assert len(by_trial) == text.count("Threads fairness:") == 2
    got = [(recs[0]["position"], recs[0]["settings"]["clients"],
            next(r["values"][0] for r in recs if r["metric"] == "throughput"))
           for recs in sorted(by_trial.values(), key=lambda r: r[0]["position"])]
    threads = [int(t) for t in re.findall(r"Number of threads: (\d+)", text)]
    eps = [float(v) for v in re.findall(r"events per second:\s+([0-9.]+)", text)]
    assert got == [(i, t, e) for i, (t, e) in enumerate(zip(threads, eps))]
    # one family: the thread count is the load, never a setting
    assert len({json.dumps({k: v for k, v in recs[0]["settings"].items() if k != "clients"},
                           sort_keys=True) for recs in by_trial.values()}) == 1


def test_a_cut_second_run_is_refused_naming_its_line() -> None:
    text = (GOOD / "sysbench10_cpu_t1_t2_appended.txt").read_text()
    second = text.index("sysbench 1.0", 10)
    cut = text[: text.index("General statistics:", second)]
    with pytest.raises(TrialParseError) as info:
        common.module(VERB).parse(cut.encode(), "log.txt", ImportOptions())
    assert info.value.rule == "truncated"
    assert f"line {text[:second].count(chr(10)) + 1}" in str(info.value)
