"""hyperfine --export-json importer: mapping, counts, broken files, sniffing."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import hyperfine
from tests.unit.ingest.importer_checks import (
    IMPORTERS,
    OPTIONS,
    broken_cases,
    check_records,
    check_sniff,
    land,
    values_per_benchmark,
)

GOOD = sorted((IMPORTERS / "hyperfine" / "good").iterdir())


def count_values(path: Path) -> Counter[str]:
    """Values per benchmark, computed from the file without the parser: each result's
    ``times`` (and ``memory_usage_byte``); a command that differs between the parameter
    values of a scan is named by its common prefix and suffix around ``{name}``."""
    results = json.loads(path.read_bytes())["results"]
    rounds: list[list[dict]] = []
    for r in results:
        if rounds and rounds[-1][0].get("parameters") == r.get("parameters"):
            rounds[-1].append(r)
        else:
            rounds.append([r])
    counts: Counter[str] = Counter()
    for j in range(max(len(r) for r in rounds)):
        group = [r[j] for r in rounds if j < len(r)]
        commands = [g["command"] for g in group]
        name = commands[0]
        if len(set(commands)) > 1:
            prefix = os.path.commonprefix(commands)
            suffix = os.path.commonprefix([c[::-1] for c in commands])[::-1]
            (param,) = group[0]["parameters"]
            name = prefix + "{" + param + "}" + suffix
        for g in group:
            counts[name] += len(g["times"]) + len(g.get("memory_usage_byte") or [])
    return counts


def parse(path: Path) -> list[dict]:
    return hyperfine.parse(path.read_bytes(), str(path), OPTIONS)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_counts_agree_with_the_file(path: Path) -> None:
    records = parse(path)
    check_records(records)
    assert values_per_benchmark(records) == count_values(path)


def test_a_parameter_scan_is_one_benchmark_with_the_parameter_as_setting() -> None:
    records = parse(IMPORTERS / "hyperfine/good/scan.json")
    doc = json.loads((IMPORTERS / "hyperfine/good/scan.json").read_text())["results"]
    assert [r["position"] for r in records] == list(range(len(doc)))
    sleeps = [r for r in records if r["benchmark"] == "sleep 0.00{n}"]
    assert [r["settings"] for r in sleeps] == [{"n": "1"}, {"n": "2"}, {"n": "3"}]
    assert [r["attributes"]["command"] for r in sleeps] == [
        "sleep 0.001", "sleep 0.002", "sleep 0.003"]
    assert all(r["status"] == "ok" and r["metric"] == "time" and r["unit"] == "s"
               and r["higher_is_better"] is False for r in sleeps)
    assert [r["values"] for r in records] == [d["times"] for d in doc]
    # a command without the parameter keeps its name (and is not turned into "exit {n}")
    failing = [r for r in records if r["benchmark"] == 'sh -c "exit 3"']
    assert len(failing) == 3 and all(r["status"] == "failed" for r in failing)
    assert all(r["attributes"]["exit_codes"] == [3, 3, 3, 3] for r in failing)
    assert all(r["values"] for r in failing)  # a failed trial keeps its times
    # one run, named by the content: the same file under another name is the same run
    assert {r["run_id"] for r in records} == {records[0]["run_id"]}
    assert records[0]["node"] is None and records[0]["started_at"] is None


def test_templates() -> None:
    names = hyperfine.benchmark_names(
        ["make -j1", "sort -k1 x1", "make -j10", "sort -k10 x1", "make -j20", "sort -k20 x1"],
        [{"j": "1"}, {"j": "1"}, {"j": "10"}, {"j": "10"}, {"j": "20"}, {"j": "20"}])
    assert names[0] == names[2] == names[4] == "make -j{j}"
    # "sort -k{j} x{j}" (from j=1) does not give "sort -k10 x1": the template from
    # j=10 does, for every value
    assert names[1] == names[3] == names[5] == "sort -k{j} x1"
    # no template reproduces every command: the commands stay as they are
    assert hyperfine.benchmark_names(["a 1", "b 2"], [{"j": "1"}, {"j": "2"}]) == ["a 1", "b 2"]
    assert hyperfine.benchmark_names(["a", "b"], [{}, {}]) == ["a", "b"]
    # two parameters, longest value first
    assert hyperfine._template("run 1 10", {"a": "1", "b": "10"}) == "run {a} {b}"


def test_memory_and_null_exit_codes() -> None:
    doc = {"results": [{"command": "x", "times": [0.1, 0.2], "exit_codes": [0, None],
                        "memory_usage_byte": [1024, 2048]}]}
    records = hyperfine.parse(json.dumps(doc).encode(), "m.json", OPTIONS)
    assert [(r["metric"], r["unit"], r["values"], r["status"]) for r in records] == [
        ("time", "s", [0.1, 0.2], "failed"), ("memory", "B", [1024.0, 2048.0], "failed")]


@pytest.mark.parametrize("path,rule", broken_cases("hyperfine"), ids=lambda x: str(x)[-40:])
def test_broken_files_are_refused_naming_the_rule(path: Path, rule: str) -> None:
    with pytest.raises(TrialParseError) as info:
        parse(path)
    assert info.value.rule == rule
    assert info.value.source == str(path)
    if rule not in ("empty", "truncated"):
        assert "$" in info.value.detail  # the JSON path of the offending value


def test_sniff_claims_hyperfine_files_only() -> None:
    # broken files still look like hyperfine's, except the empty one and the one
    # without "results"
    broken = [p for p, _rule in broken_cases("hyperfine")
              if p.name not in ("empty.json", "missing-key--results.json")]
    check_sniff(hyperfine.sniff, "hyperfine", GOOD + broken)


def test_records_land_in_a_warehouse(tmp_path: Path) -> None:
    records = [r for path in GOOD for r in parse(path)]
    land(records, tmp_path)
