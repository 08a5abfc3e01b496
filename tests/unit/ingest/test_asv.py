"""asv results importer: mapping, counts, broken files, sniffing."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import asv
from tests.unit.ingest.importer_checks import (
    IMPORTERS,
    OPTIONS,
    broken_cases,
    check_records,
    check_sniff,
    land,
    values_per_benchmark,
)

GOOD = IMPORTERS / "asv" / "good"  # a results directory
V2 = GOOD / "bench-host-1" / "4b8f2a91-virtualenv-py3.11-numpy.json"
V1 = GOOD / "bench-host-1" / "1c2d3e4f-py2.7-numpy.json"
RESULT_FILES = [V1, V2]


def directory_files(root: Path) -> dict[str, bytes]:
    """What the ingest edge passes to :func:`asv.parse_directory`."""
    return {f.relative_to(root).as_posix(): f.read_bytes()
            for f in sorted(root.rglob("*")) if f.is_file()}


def count_values(root: Path) -> Counter[str]:
    """Values per benchmark of a results directory, computed without the parser: per
    result file and parameter combination, the samples if recorded, else 1 for a
    numeric (not NaN) result, 0 for a failed (null) one."""
    counts: Counter[str] = Counter()
    for path in root.rglob("*.json"):
        if path.name not in ("machine.json", "benchmarks.json"):
            counts += count_file(path)
    return counts


def count_file(path: Path) -> Counter[str]:
    """Values per benchmark of one result file (see :func:`count_values`)."""
    counts: Counter[str] = Counter()
    doc = json.loads(path.read_text())
    for name, row in doc["results"].items():
        if doc.get("version") == 2:
            row = dict(zip(doc["result_columns"], row))
        elif not isinstance(row, dict):
            row = {"result": [row]}
        results = row.get("result")
        if results is None:
            continue
        results = results if isinstance(results, list) else [results]
        samples = row.get("samples") or [None] * len(results)
        for result, sample in zip(results, samples):
            if result is not None and not math.isnan(result):
                counts[name] += len(sample) if sample is not None else 1
    return counts


def test_counts_agree_with_the_directory() -> None:
    records = asv.parse_directory(directory_files(GOOD), str(GOOD), OPTIONS)
    check_records(records)
    assert +values_per_benchmark(records) == +count_values(GOOD)


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_one_result_file_alone(path: Path) -> None:
    records = asv.parse(path.read_bytes(), str(path), OPTIONS)
    check_records(records)
    assert records[0]["node"] == "bench-host-1"  # from the file's params.machine
    assert +values_per_benchmark(records) == +count_file(path)


def test_version_2_mapping() -> None:
    records = asv.parse_directory(directory_files(GOOD), str(GOOD), OPTIONS)
    v2 = [r for r in records if r["revision"].startswith("4b8f2a91")]
    v1 = [r for r in records if r["revision"].startswith("1c2d3e4f")]
    assert {r["run_index"] for r in v1} == {0} and {r["run_index"] for r in v2} == {1}
    sort = [r for r in v2 if r["benchmark"] == "benchmarks.TimeSuite.time_sort"]
    # product order, last parameter fastest; names from benchmarks.json; quotes removed
    assert [r["settings"] for r in sort] == [
        {"n": n, "dtype": d, "asv_env": "virtualenv-py3.11-numpy"}
        for n in ("10", "1000") for d in ("int", "float")]
    assert [r["values"] for r in sort][2] == [4.09e-05, 4.12e-05, 4.16e-05]  # the samples
    assert [r["attributes"]["number"] for r in sort] == [20000, 20000, 250, 250]
    assert all(r["duration_s"] is None and r["attributes"]["benchmark_duration_s"] == 6.2041
               for r in sort)
    first = v2[0]
    assert first["revision"] == "4b8f2a91c0d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1"
    assert first["revision_time"] == "2023-11-14T22:13:20Z"  # date 1700000000000 ms
    assert first["node"] == "bench-host-1"
    assert first["env"]["cpu_model"].startswith("Intel") and first["env"]["memory"] == "32658412"
    by_name = {r["benchmark"]: r for r in v2}
    mem = by_name["benchmarks.MemSuite.mem_list"]
    assert (mem["metric"], mem["unit"], mem["values"], mem["started_at"], mem["duration_s"]) == (
        "mem", "B", [4152.0], "2023-11-14T23:13:20Z", 0.41513)
    failing = by_name["benchmarks.TimeSuite.time_failing"]
    assert failing["status"] == "failed" and failing["values"] == []
    track = [r for r in v2 if r["metric"] == "track"]  # NaN (skipped) is not a trial
    assert [(r["settings"]["workers"], r["values"], r["unit"], r["higher_is_better"])
            for r in track] == [("1", [3.0], "items", None)]
    keys = by_name["benchmarks.TimeSuite.time_keys"]
    assert len(keys["values"]) == 10 and keys["higher_is_better"] is False


def test_version_1_mapping() -> None:
    records = asv.parse(V1.read_bytes(), str(V1), OPTIONS)
    by = {(r["benchmark"], r["settings"].get("param1")): r for r in records}
    assert by[("benchmarks.MemSuite.mem_list", None)]["values"] == [4144.0]  # bare number
    assert by[("benchmarks.MemSuite.mem_list", None)]["started_at"] is None
    keys = by[("benchmarks.TimeSuite.time_keys", None)]
    assert len(keys["values"]) == 5 and keys["started_at"] == "2018-01-01T01:00:00Z"
    assert keys["duration_s"] == 1.95 and keys["attributes"]["benchmark_version"] == "8a4e2f1b7c90"
    # no benchmarks.json given: parameters are param1, param2, ...
    assert by[("benchmarks.TimeSuite.time_range", "100")]["values"] == [1.305e-06]
    assert records[0]["revision_time"] == "2018-01-01T00:00:00Z"


def test_machine_json_and_directory_detection() -> None:
    info = asv.machine_info((GOOD / "bench-host-1/machine.json").read_bytes())
    assert info["machine"] == "bench-host-1" and info["env"]["num_cpu"] == "12"
    assert asv.is_results_directory(list(directory_files(GOOD)))
    assert asv.is_results_directory(["machine.json", "abc-py3.json"])  # one machine's dir
    assert not asv.is_results_directory(["results.json", "x/y.json"])
    with pytest.raises(TrialParseError) as info_:
        asv.parse_directory({"benchmarks.json": b"{}"}, "d", OPTIONS)
    assert info_.value.rule == "no-results"


@pytest.mark.parametrize("path,rule", broken_cases("asv"), ids=lambda x: str(x)[-40:])
def test_broken_files_are_refused_naming_the_rule(path: Path, rule: str) -> None:
    with pytest.raises(TrialParseError) as info:
        asv.parse(path.read_bytes(), str(path), OPTIONS)
    assert info.value.rule == rule
    if rule not in ("empty", "truncated"):
        assert "$" in info.value.detail


def test_a_broken_file_in_a_directory_is_named_by_its_path() -> None:
    files = directory_files(GOOD)
    files["bench-host-1/4b8f2a91-virtualenv-py3.11-numpy.json"] = (
        IMPORTERS / "asv/broken/wrong-shape--result.json").read_bytes()
    with pytest.raises(TrialParseError) as info:
        asv.parse_directory(files, "results", OPTIONS)
    assert info.value.source == "results/bench-host-1/4b8f2a91-virtualenv-py3.11-numpy.json"


def test_a_broken_machine_json_is_named() -> None:
    files = directory_files(GOOD)
    files["bench-host-1/machine.json"] = b'{"arch": "x86_64", "version": 1}'
    with pytest.raises(TrialParseError) as info:
        asv.parse_directory(files, "results", OPTIONS)
    assert (info.value.source, info.value.rule) == ("results/bench-host-1/machine.json",
                                                    "missing-key")
    assert "$.machine" in info.value.detail


def test_sniff_claims_asv_result_files_only() -> None:
    broken = [p for p, _rule in broken_cases("asv")
              if p.name not in ("empty.json", "missing-key--commit-hash.json")]
    check_sniff(asv.sniff, "asv", RESULT_FILES + broken)


def test_records_land_in_a_warehouse(tmp_path: Path) -> None:
    land(asv.parse_directory(directory_files(GOOD), str(GOOD), OPTIONS), tmp_path)
