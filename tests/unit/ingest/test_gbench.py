"""Google Benchmark JSON: iteration rows are trials, aggregates are not, one metric each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import gbench
from perfwarehouse.ingest.formats.records import ImportOptions
from tests.unit.ingest.importer_support import FIXTURES, broken, data, expected_rule

GOOD = FIXTURES / "gbench" / "good"
FIXED = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
         "repetitions", "repetition_index", "threads", "iterations", "time_unit"}


def test_iteration_rows_are_trials_with_one_record_per_metric() -> None:
    raw = json.loads((GOOD / "repetitions.json").read_text())
    records = gbench.parse((GOOD / "repetitions.json").read_bytes(), "r.json", ImportOptions())
    rows = [b for b in raw["benchmarks"] if b["run_type"] == "iteration"]
    assert any(b["run_type"] == "aggregate" for b in raw["benchmarks"])
    expected = [(i, b["run_name"], key, [float(b[key])]) for i, b in enumerate(rows)
                for key in b if key not in FIXED]
    got = [(r["position"], r["benchmark"], r["metric"], r["values"]) for r in records]
    assert sorted(got) == sorted(expected)
    assert {r["run_size"] for r in records} == {len(records)}
    assert len({r["run_id"] for r in records}) == 1
    by_metric = {r["metric"]: r for r in records}
    assert (by_metric["items_per_second"]["unit"], by_metric["items_per_second"]
            ["higher_is_better"]) == ("items/s", True)
    assert (by_metric["cpu_time"]["unit"], by_metric["cpu_time"]["higher_is_better"]) == (
        "ns", False)
    assert by_metric["elements"]["higher_is_better"] is None
    assert records[0]["node"] == raw["context"]["host_name"]
    assert records[0]["started_at"] == "2026-11-23T16:46:06+00:00"
    assert records[0]["env"]["num_cpus"] == raw["context"]["num_cpus"]


def test_old_files_without_run_type_and_failed_rows() -> None:
    doc = {"context": {"date": "2019-10-09 12:00:00", "host_name": "h"}, "benchmarks": [
        {"name": "BM_a", "iterations": 10, "real_time": 5, "cpu_time": 4, "time_unit": "us"},
        {"name": "BM_a_mean", "iterations": 10, "real_time": 5, "cpu_time": 4,
         "time_unit": "us"},
        {"name": "BM_b", "error_occurred": True, "error_message": "boom", "iterations": 0,
         "real_time": 0, "cpu_time": 0, "time_unit": "ns"}]}
    records = gbench.parse(json.dumps(doc).encode(), "old.json", ImportOptions())
    assert [(r["benchmark"], r["metric"], r["status"], r["values"]) for r in records] == [
        ("BM_a", "real_time", "ok", [5.0]), ("BM_a", "cpu_time", "ok", [4.0]),
        ("BM_b", "real_time", "failed", [])]
    assert records[2]["attributes"]["error_message"] == "boom"
    assert records[0]["started_at"] == "2019-10-09T12:00:00+00:00"


def test_sniff_claims_gbench_files() -> None:
    for path in GOOD.iterdir():
        assert gbench.sniff(data(path)[:65536], path.name)


@pytest.mark.parametrize("path", broken("gbench"), ids=lambda p: p.name)
def test_each_broken_file_is_refused_naming_where_and_the_rule(path: Path) -> None:
    with pytest.raises(TrialParseError) as info:
        gbench.parse(data(path), str(path), ImportOptions())
    error = info.value
    assert (error.source, error.rule) == (str(path), expected_rule(path))
    # a line, a JSON path, or a rule about the whole file (empty, gzip stream cut short)
    assert error.line > 0 or "$" in error.detail or error.rule in ("empty", "truncated")
    assert "\n" not in str(error)
