"""JMeter JTL (CSV with/without header, XML) -> one load-test trial per file."""

from __future__ import annotations

import csv
import math
import re
import statistics
from collections import Counter
from pathlib import Path

import pytest

from tests.unit.ingest import loadtest_common as common

VERB = "jmeter"
GOOD = common.IMPORTERS / VERB / "good"
HEADER = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
          "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect")


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_good_files_follow_the_contract(path: Path) -> None:
    common.check_records(common.parse(VERB, path))


def samples_of(path: Path) -> list[dict[str, str]]:
    """The samples, read without the parser: csv for CSV, a regex for XML top-level samples."""
    text = path.read_text()
    if text.lstrip().startswith("<"):
        top = re.findall(r"^<httpSample ([^>]*?)/?>$", text, re.M)
        out = []
        for attrs in top:
            a = dict(re.findall(r'(\w+)="([^"]*)"', attrs))
            out.append({"timeStamp": a["ts"], "elapsed": a["t"], "success": a["s"],
                        "allThreads": a["na"]})
        return out
    lines = text.splitlines()
    delimiter = "|" if lines[0].startswith("timeStamp|") else ","
    if not lines[0].startswith("timeStamp"):
        lines = [HEADER] + lines
    return list(csv.DictReader(lines, delimiter=delimiter))


@pytest.mark.parametrize("name", ["jmeter_t4_header.jtl", "jmeter_t8_noheader.csv",
                                  "jmeter_t2.xml"])
def test_mapping_against_a_direct_reading(name: str) -> None:
    path = GOOD / name
    samples = samples_of(path)
    records = common.parse(VERB, path)
    m = common.metrics_of(records)
    elapsed = [float(s["elapsed"]) for s in samples]
    start = min(float(s["timeStamp"]) for s in samples)
    end = max(float(s["timeStamp"]) + float(s["elapsed"]) for s in samples)
    assert m["requests"] == len(samples)
    assert m["errors"] == sum(s["success"] == "false" for s in samples)
    assert m["duration_s"] == pytest.approx((end - start) / 1e3)
    assert m["throughput"] == pytest.approx(len(samples) / ((end - start) / 1e3))
    assert m["mean"] == pytest.approx(statistics.fmean(elapsed))
    ordered = sorted(elapsed)
    for q, metric in ((50, "p50"), (90, "p90"), (99, "p99")):
        assert m[metric] == ordered[math.ceil(q / 100 * len(ordered)) - 1]
    assert records[0]["latency"] == {"unit": "ms", "samples": elapsed}
    assert records[0]["started_at"].startswith("2024-11-23T")
    threads = Counter(int(s["allThreads"]) for s in samples).most_common(1)[0][0]
    assert records[0]["settings"] == {"generator": "jmeter", "loop": "closed", "clients": threads}


@pytest.mark.parametrize("path", common.broken(VERB), ids=lambda p: p.name)
def test_broken_files_are_refused_in_one_line(path: Path) -> None:
    common.check_broken(VERB, path)


def test_sniff_claims_its_files_only() -> None:
    common.check_sniff(VERB)


def independent_count(path: Path) -> Counter:
    samples = samples_of(path)
    threads = Counter(int(s["allThreads"]) for s in samples).most_common(1)[0][0]
    return Counter({("closed", threads, None): 1 if samples else 0})


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_trials_per_load_level_match_an_independent_count(path: Path) -> None:
    assert common.trials_per_level(common.parse(VERB, path)) == independent_count(path)


def test_a_pipe_delimited_jtl_reads_as_the_comma_one() -> None:
    """Issue 27 item 7: JMeter's delimiter is configurable; ``|`` is common."""
    pipe = common.parse(VERB, GOOD / "jmeter_t4_pipe.jtl")
    comma = common.parse(VERB, GOOD / "jmeter_t4_header.jtl")
    assert common.metrics_of(pipe) == common.metrics_of(comma)
    assert pipe[0]["settings"] == comma[0]["settings"]
    assert pipe[0]["latency"] == comma[0]["latency"]
