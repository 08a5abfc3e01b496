"""github-action-benchmark's data.js: every bench of every entry is a trial of one value,
with the entry's commit as revision and its date as start time; checked against the file
read here with json (the window.BENCHMARK_DATA prefix cut by hand)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import github_action_benchmark as gab
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import detect_format
from tests.unit.ingest.importer_checks import check_records, check_sniff
from tests.unit.ingest.importer_support import FIXTURES

GOOD = sorted((FIXTURES / "github-action-benchmark" / "good").iterdir())
DATA = GOOD[0]


def _doc(path: Path) -> dict:
    text = path.read_text()
    return json.loads(text[text.index("=") + 1:].strip().rstrip(";"))


def count_values(path: Path) -> Counter[str]:
    """values per benchmark: one per bench of every entry."""
    counts: Counter[str] = Counter()
    for entries in _doc(path)["entries"].values():
        for entry in entries:
            for bench in entry["benches"]:
                counts[bench["name"]] += 1
    return counts


def test_every_bench_is_a_trial_of_one_value_with_the_commit_and_date() -> None:
    records = gab.parse(DATA.read_bytes(), str(DATA), ImportOptions())
    check_records(records)
    expected = []
    for suite, entries in _doc(DATA)["entries"].items():
        for entry in entries:
            started = datetime.fromtimestamp(entry["date"] / 1000, timezone.utc)
            for bench in entry["benches"]:
                expected.append((suite, bench["name"], bench["value"], bench["unit"],
                                 entry["commit"]["id"], started))
    got = [(r["settings"]["suite"], r["benchmark"], r["values"][0], r["unit"], r["revision"],
            datetime.fromisoformat(r["started_at"].replace("Z", "+00:00"))) for r in records]
    assert sorted(got) == sorted(expected)
    assert Counter(r["benchmark"] for r in records) == count_values(DATA)
    # runs by date within a suite; directions from the tool, else the unit
    go = [r for r in records if r["settings"]["suite"] == "Go Benchmark"]
    assert sorted({(r["run_index"], r["revision"][:7]) for r in go}) == [
        (0, "5d1c0a9"), (1, "a7e3f2d")]
    assert {(r["unit"], r["higher_is_better"]) for r in records} == {
        ("ns/op", False), ("tokens/s", True)}
    assert {r["revision_time"] for r in go} == {"2024-03-04T09:12:44+01:00",
                                                "2024-03-05T08:01:02+01:00"}


def test_sniff_claims_data_js_only_and_auto_detects_it() -> None:
    check_sniff(gab.sniff, "github-action-benchmark", GOOD)
    assert detect_format(DATA.read_bytes(), "data.js") == ["github-action-benchmark"]
    plain = json.dumps(_doc(DATA)).encode()
    assert gab.sniff(plain, "data.json")
    assert gab.parse(plain, "x", ImportOptions())[0]["benchmark"] == "BenchmarkLex"


def _broken(tmp_path: Path, change) -> Path:  # type: ignore[no-untyped-def]
    doc = _doc(DATA)
    change(doc["entries"]["Go Benchmark"][1])
    path = tmp_path / "data.js"
    path.write_text("window.BENCHMARK_DATA = " + json.dumps(doc, indent=2) + ";\n")
    return path


@pytest.mark.parametrize(("change", "rule", "says"), [
    (lambda e: e.__setitem__("date", 1e20), "bad-timestamp",
     "$.entries['Go Benchmark'][1].date 1e+20 ms since 1970 is outside 1970-9999"),
    (lambda e: e.__setitem__("date", -1), "bad-timestamp",
     "$.entries['Go Benchmark'][1].date -1 ms since 1970 is outside 1970-9999"),
    (lambda e: e["commit"].__setitem__("timestamp", "not a time"), "bad-timestamp",
     "$.entries['Go Benchmark'][1].commit.timestamp: 'not a time' is not an ISO 8601"),
    (lambda e: e["commit"].__setitem__("timestamp", 1709540000), "wrong-type",
     "$.entries['Go Benchmark'][1].commit.timestamp: expected a string, got 1709540000"),
])
def test_a_bad_time_is_refused_naming_the_file_and_the_json_path(
        tmp_path: Path, change, rule: str, says: str) -> None:  # type: ignore[no-untyped-def]
    """Issue 44, H12: a date out of range named neither the file nor the entry, and a
    commit timestamp that is no time was dropped in silence."""
    path = _broken(tmp_path, change)
    with pytest.raises(TrialParseError) as info:
        gab.parse(path.read_bytes(), str(path), ImportOptions())
    assert info.value.rule == rule
    assert str(info.value).startswith(f"{path}: [{rule}] ")
    assert says in str(info.value)


def test_a_commit_without_a_timestamp_has_no_revision_time(tmp_path: Path) -> None:
    path = _broken(tmp_path, lambda e: e["commit"].pop("timestamp"))
    records = gab.parse(path.read_bytes(), str(path), ImportOptions())
    go = [r for r in records if r["settings"]["suite"] == "Go Benchmark"]
    assert {r["revision_time"] for r in go} == {"2024-03-04T09:12:44+01:00", None}
