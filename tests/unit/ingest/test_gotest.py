"""go test -bench importer: mapping, counts, broken files, sniffing."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import gotest
from tests.unit.ingest.importer_checks import (
    IMPORTERS,
    OPTIONS,
    broken_cases,
    check_records,
    check_sniff,
    land,
    values_per_benchmark,
)

GOOD = sorted((IMPORTERS / "gotest" / "good").iterdir())


def count_values(path: Path) -> Counter[str]:
    """Values per benchmark, computed from the text without the parser: each line
    ``Benchmark...`` with a tab-separated iteration count holds one value per
    ``<number> <unit>`` field; the name loses its ``-<digits>`` suffix. For
    ``go test -json`` output, the text is the joined ``Output`` of the events."""
    text = path.read_text()
    if path.suffix == ".json":  # go test -json: the output events' text, one package here
        text = "".join(json.loads(x).get("Output", "") for x in text.splitlines()
                       if json.loads(x)["Action"] == "output")
    counts: Counter[str] = Counter()
    for line in text.splitlines():
        fields = line.split("\t")
        if line.startswith("Benchmark") and len(fields) > 2 and fields[1].strip().isdigit():
            name = re.sub(r"-\d+$", "", fields[0].strip())
            counts[name] += sum(1 for f in fields[2:] if re.fullmatch(r"\s*[\d.]+ \S+", f))
    return counts


def parse(path: Path) -> list[dict]:
    return gotest.parse(path.read_bytes(), str(path), OPTIONS)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_counts_agree_with_the_file(path: Path) -> None:
    records = parse(path)
    check_records(records)
    assert values_per_benchmark(records) == count_values(path)


def test_each_result_line_is_a_trial_with_one_metric_per_unit() -> None:
    records = parse(IMPORTERS / "gotest/good/bench.txt")
    assert len({r["position"] for r in records}) == 12  # 2 benchmarks x -cpu 1,2 x -count 3
    sums = [r for r in records if r["benchmark"] == "BenchmarkSum"]
    assert Counter(r["settings"]["procs"] for r in sums) == {1: 12, 2: 12}
    assert {r["settings"]["pkg"] for r in records} == {"example.invalid/gobench"}
    assert {(r["metric"], r["unit"], r["higher_is_better"]) for r in sums} == {
        ("ns/op", "ns/op", False), ("MB/s", "MB/s", True), ("B/op", "B/op", False),
        ("allocs/op", "allocs/op", False)}
    joins = [r for r in records if r["benchmark"] == "BenchmarkJoin"]
    assert {(r["metric"], r["higher_is_better"]) for r in joins} >= {("parts/op", None)}
    assert all(len(r["values"]) == 1 and r["attributes"]["iterations"] == 2000 for r in records)
    assert records[0]["env"] == {"goos": "linux", "goarch": "amd64", "cpu_model": "AMD EPYC"}
    # -count repetitions are trials at successive positions, in file order
    first = [r["position"] for r in sums if r["metric"] == "ns/op" and r["settings"]["procs"] == 1]
    assert first == [0, 1, 2]
    assert records[0]["started_at"] is None and records[0]["node"] is None


def test_a_failing_benchmark_is_a_failed_trial() -> None:
    records = parse(IMPORTERS / "gotest/good/fail.txt")
    failed = [r for r in records if r["status"] != "ok"]
    assert [(r["benchmark"], r["status"], r["values"], r["metric"]) for r in failed] == [
        ("BenchmarkFlaky", "failed", [], "ns/op")]


def test_go_test_json_is_the_same_text_with_times() -> None:
    records = parse(IMPORTERS / "gotest/good/bench.json")
    events = [json.loads(x) for x in
              (IMPORTERS / "gotest/good/bench.json").read_text().splitlines()]
    assert len({r["position"] for r in records}) == 8  # 2 benchmarks x 2 cpus x -count 2
    assert all(r["started_at"].endswith("Z") and len(r["started_at"]) <= 27 for r in records)
    stamps = {e["Time"][:26] for e in events}
    assert {r["started_at"][:26] for r in records} <= stamps
    # the line named in a record is the event that began the result line
    for r in records:
        assert events[r["attributes"]["line"] - 1]["Output"].startswith("Benchmark")
    assert records[0]["settings"] == {"procs": 1, "pkg": "example.invalid/gobench"}


def test_go_test_json_lines_split_across_events_and_packages() -> None:
    def event(package: str, output: str, second: int) -> str:
        return json.dumps({"Time": f"2024-01-01T00:00:{second:02d}.123456789Z",
                           "Action": "output", "Package": package, "Output": output})
    lines = [event("a", "pkg: a\n", 0), event("b", "pkg: b\n", 1),
             event("a", "BenchmarkX-2 \t", 2), event("b", "BenchmarkY \t 5\t 1 ns/op\n", 3),
             event("a", " 10\t 7 ns/op\n", 4)]
    records = gotest.parse("\n".join(lines).encode(), "t.json", OPTIONS)
    assert [(r["benchmark"], r["started_at"], r["attributes"]["line"]) for r in records] == [
        ("BenchmarkY", "2024-01-01T00:00:03.123456Z", 4),
        ("BenchmarkX", "2024-01-01T00:00:02.123456Z", 3)]
    with pytest.raises(TrialParseError) as info:
        gotest.parse(("\n".join(lines[:2]) + "\n{oops").encode(), "t.json", OPTIONS)
    assert (info.value.rule, info.value.line) == ("invalid-json", 3)


def test_header_lines_apply_wherever_they_appear() -> None:
    text = (b"goos: linux\npkg: a/b\nBenchmarkX-4 \t 10\t 5.0 ns/op\nok  \ta/b\t0.1s\n"
            b"pkg: a/c\ncommit: 1234\nBenchmarkX/sub=1-4 \t 20\t 7.5 ns/op\t 3 widgets/s\n"
            b"BenchmarkY \t 30\t 1e3 ns/op\n")
    records = gotest.parse(text, "t.txt", OPTIONS)
    assert [(r["benchmark"], r["settings"], r["metric"], r["values"]) for r in records] == [
        ("BenchmarkX", {"procs": 4, "pkg": "a/b"}, "ns/op", [5.0]),
        ("BenchmarkX/sub=1", {"procs": 4, "pkg": "a/c"}, "ns/op", [7.5]),
        ("BenchmarkX/sub=1", {"procs": 4, "pkg": "a/c"}, "widgets/s", [3.0]),
        ("BenchmarkY", {"procs": 1, "pkg": "a/c"}, "ns/op", [1000.0])]
    assert records[1]["attributes"]["commit"] == "1234"
    assert records[3]["higher_is_better"] is False and records[2]["higher_is_better"] is True


def test_lines_that_only_mention_benchmarks_are_not_results() -> None:
    text = (b"BenchmarkX-2 \t 10\t 5 ns/op\nBenchmarkParent\n--- BENCH: BenchmarkX-2\n"
            b"    x_test.go:3: log line\nBenchmarking is fun\nPASS\n")
    assert len(gotest.parse(text, "t.txt", OPTIONS)) == 1


@pytest.mark.parametrize("path,rule", broken_cases("gotest"), ids=lambda x: str(x)[-40:])
def test_broken_files_are_refused_naming_the_rule(path: Path, rule: str) -> None:
    with pytest.raises(TrialParseError) as info:
        parse(path)
    assert info.value.rule == rule
    assert info.value.source == str(path)
    if rule == "malformed-line":
        line = path.read_text().splitlines()[info.value.line - 1]
        assert line.startswith("Benchmark") and line.split()[0] in info.value.detail


def test_sniff_claims_go_test_output_only() -> None:
    broken = [p for p, _rule in broken_cases("gotest") if p.name != "empty.txt"]
    check_sniff(gotest.sniff, "gotest", GOOD + broken)


def test_records_land_in_a_warehouse(tmp_path: Path) -> None:
    land([r for path in GOOD for r in parse(path)], tmp_path)
