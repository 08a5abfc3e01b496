"""JMH JSON importer: mapping, counts, broken files, sniffing."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import jmh
from tests.unit.ingest.importer_checks import (
    IMPORTERS,
    OPTIONS,
    broken_cases,
    check_records,
    check_sniff,
    land,
    values_per_benchmark,
)

GOOD = sorted((IMPORTERS / "jmh" / "good").iterdir())


def count_values(path: Path) -> Counter[str]:
    """Values per benchmark, computed from the file without the parser: every number of
    ``rawData`` and every count of ``rawDataHistogram``, primary and secondary metrics."""
    counts: Counter[str] = Counter()
    for entry in json.loads(path.read_bytes()):
        metrics = [entry["primaryMetric"], *entry.get("secondaryMetrics", {}).values()]
        for metric in metrics:
            counts[entry["benchmark"]] += sum(len(row) for row in metric.get("rawData", []))
            counts[entry["benchmark"]] += sum(
                count for fork in metric.get("rawDataHistogram", [])
                for iteration in fork for _value, count in iteration)
    return counts


def parse(path: Path) -> list[dict]:
    return jmh.parse(path.read_bytes(), str(path), OPTIONS)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_counts_agree_with_the_file(path: Path) -> None:
    records = parse(path)
    check_records(records)
    assert values_per_benchmark(records) == count_values(path)


def test_one_run_per_fork_one_trial_per_benchmark_params_and_fork() -> None:
    path = IMPORTERS / "jmh/good/listbench.json"
    doc = json.loads(path.read_text())
    records = parse(path)
    runs = sorted({(r["run_index"], r["run_id"]) for r in records})
    assert [i for i, _ in runs] == [0, 1] and runs[0][1].endswith("fork1")
    primary = [r for r in records if r["metric"] in ("thrpt", "avgt")]
    assert len(primary) == 2 * len(doc)
    for r in primary:
        entry = next(e for e in doc if e["benchmark"] == r["benchmark"]
                     and {**e["params"], "threads": e["threads"]} == r["settings"])
        assert r["values"] == entry["primaryMetric"]["rawData"][r["run_index"]]
        assert r["unit"] == entry["primaryMetric"]["scoreUnit"]
        assert r["metric"] == entry["mode"]
        assert r["higher_is_better"] is (entry["mode"] == "thrpt")
        assert r["attributes"]["fork"] == r["run_index"] + 1
        assert r["attributes"]["measurementIterations"] == 3
        assert r["env"]["jdkVersion"] == "17.0.9" and r["env"]["jvmArgs"] == ["-Xms1g", "-Xmx1g"]
    # positions follow the file within each fork's run
    fork0 = [(r["position"], r["benchmark"].rsplit(".", 1)[1], r["settings"]["size"])
             for r in primary if r["run_index"] == 0]
    assert fork0 == [(0, "append", "10"), (1, "append", "1000"), (2, "get", "10"),
                     (3, "get", "1000")]


def test_secondary_metrics_with_raw_data_are_metrics() -> None:
    records = parse(IMPORTERS / "jmh/good/listbench.json")
    first = [r for r in records if r["position"] == 0 and r["run_index"] == 1]
    assert {(r["metric"], r["unit"], r["higher_is_better"]) for r in first} == {
        ("thrpt", "ops/ms", True), ("gc.alloc.rate", "MB/sec", None),
        ("gc.alloc.rate.norm", "B/op", False)}
    rate = next(r for r in first if r["metric"] == "gc.alloc.rate")
    assert rate["values"] == [790.2, 801.7, 799.9]
    assert first[0]["attributes"]["secondary_metrics_without_raw_data"] == ["gc.count"]


def test_sample_mode_expands_the_histogram() -> None:
    records = parse(IMPORTERS / "jmh/good/mapbench-sample.json")
    sample = next(r for r in records if r["metric"] == "sample")
    assert sample["values"] == [1.25] * 3 + [1.5] * 2 + [1.25] * 4 + [2.0] + [1.0] * 2 + [1.25] * 3
    assert sample["settings"] == {"threads": 2} and sample["higher_is_better"] is False
    # the older "·gc.alloc.rate" is the same metric as "gc.alloc.rate"
    assert {r["metric"] for r in records} == {"sample", "gc.alloc.rate"}


def test_a_fork_without_a_profiler_row_keeps_its_primary_metric() -> None:
    doc = json.loads((IMPORTERS / "jmh/good/listbench.json").read_text())[:1]
    doc[0]["secondaryMetrics"]["gc.alloc.rate"]["rawData"] = [[1.0, 2.0, 3.0]]
    records = jmh.parse(json.dumps(doc).encode(), "x.json", OPTIONS)
    assert Counter(r["metric"] for r in records) == {
        "thrpt": 2, "gc.alloc.rate.norm": 2, "gc.alloc.rate": 1}
    check_records(records)


@pytest.mark.parametrize("path,rule", broken_cases("jmh"), ids=lambda x: str(x)[-40:])
def test_broken_files_are_refused_naming_the_rule(path: Path, rule: str) -> None:
    with pytest.raises(TrialParseError) as info:
        parse(path)
    assert info.value.rule == rule
    assert info.value.source == str(path)
    if rule not in ("empty", "truncated"):
        assert "$" in info.value.detail


def test_sniff_claims_jmh_files_only() -> None:
    broken = [p for p, _rule in broken_cases("jmh")
              if p.name not in ("empty.json", "wrong-type--not-a-list.json")]
    check_sniff(jmh.sniff, "jmh", GOOD + broken)


def test_records_land_in_a_warehouse(tmp_path: Path) -> None:
    land([r for path in GOOD for r in parse(path)], tmp_path)
