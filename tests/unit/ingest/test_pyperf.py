"""pyperf JSON results: one trial per worker run with values, checked against the file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import gbench, pyperf
from perfwarehouse.ingest.formats.records import ImportOptions, apply_options
from tests.unit.ingest.importer_support import FIXTURES, broken, data, expected_rule

GOOD = FIXTURES / "pyperf" / "good"


def test_a_suite_gives_one_trial_per_worker_run_with_values() -> None:
    raw = json.loads((GOOD / "suite.json").read_text())
    records = pyperf.parse((GOOD / "suite.json").read_bytes(), "suite.json", ImportOptions())
    expected = [(b["metadata"]["name"], r["values"], len(r.get("warmups", [])))
                for b in raw["benchmarks"] for r in b["runs"] if r.get("values")]
    assert [(r["benchmark"], r["values"], r["attributes"]["warmups"]) for r in records] == expected
    calibration = [r for b in raw["benchmarks"] for r in b["runs"] if not r.get("values")]
    assert calibration  # the fixture has calibration runs, and they are not trials
    assert len({r["run_id"] for r in records}) == len(records)
    first = records[0]
    assert (first["node"], first["hardware_type"]) == (raw["metadata"]["hostname"],
                                                       raw["metadata"]["cpu_model_name"])
    assert (first["metric"], first["unit"], first["higher_is_better"]) == ("time", "s", False)
    assert first["revision"] == raw["metadata"]["commit_id"]
    assert first["env"]["cpu_model"] == raw["metadata"]["cpu_model_name"]
    assert [r["run_index"] for r in records if r["benchmark"] == "sum_range"] == [0, 1, 2]
    assert all(r["position"] == 0 and r["run_size"] == 1 for r in records)
    assert records[0]["started_at"].startswith(
        raw["benchmarks"][0]["runs"][1]["metadata"]["date"].replace(" ", "T")[:19])


def test_a_single_benchmark_file_gzipped_takes_python_version_as_revision() -> None:
    raw = json.loads(gzip.decompress((GOOD / "single.json.gz").read_bytes()))
    records = pyperf.parse(data(GOOD / "single.json.gz"), "single.json.gz", ImportOptions())
    assert sum(len(r["values"]) for r in records) == sum(
        len(r.get("values", [])) for r in raw["benchmarks"][0]["runs"])
    assert {r["revision"] for r in records} == {raw["metadata"]["python_version"]}


def test_the_command_line_wins_over_the_file() -> None:
    # issue 40: the machine a file names is replaced by --force-node (no longer --node)
    options = ImportOptions(force_node="n1", hardware_type="hw", revision="r9", campaign="c",
                            settings=(("python", "3.11"), ("jit", True)))
    records = pyperf.parse((GOOD / "suite.json").read_bytes(), "suite.json", options)
    apply_options(records, options, "suite.json", "pyperf")
    assert {(r["node"], r["hardware_type"], r["revision"], r["campaign"]) for r in records} == {
        ("n1", "hw", "r9", "c")}
    assert records[0]["settings"] == {"python": "3.11", "jit": True}


def test_node_fills_in_only_where_the_file_names_no_machine() -> None:
    raw = json.loads((GOOD / "suite.json").read_text())
    named = (raw["metadata"]["hostname"], raw["metadata"]["cpu_model_name"])
    records = pyperf.parse(json.dumps(raw).encode(), "suite.json", ImportOptions())
    apply_options(records, ImportOptions(node="n1", hardware_type="hw"), "suite.json", "pyperf")
    assert {(r["node"], r["hardware_type"]) for r in records} == {named}
    del raw["metadata"]["hostname"]
    records = pyperf.parse(json.dumps(raw).encode(), "suite.json", ImportOptions())
    apply_options(records, ImportOptions(node="n1", hardware_type="hw"), "suite.json", "pyperf")
    assert {(r["node"], r["hardware_type"]) for r in records} == {("n1", "hw")}
    # a forced node without --hardware-type does not keep the type of the file's machine
    records = pyperf.parse((GOOD / "suite.json").read_bytes(), "suite.json", ImportOptions())
    apply_options(records, ImportOptions(force_node="n2"), "suite.json", "pyperf")
    assert {(r["node"], r["hardware_type"]) for r in records} == {("n2", "n2")}


def test_units_other_than_seconds_and_unknown_units() -> None:
    raw = json.loads((GOOD / "suite.json").read_text())
    raw["benchmarks"][0]["metadata"]["unit"] = "byte"
    records = pyperf.parse(json.dumps(raw).encode(), "x.json", ImportOptions())
    assert (records[0]["metric"], records[0]["unit"]) == ("memory", "B")
    raw["benchmarks"][0]["metadata"]["unit"] = "parsec"
    with pytest.raises(TrialParseError, match=r"\[unknown-unit\] \$\.benchmarks\[0\]"):
        pyperf.parse(json.dumps(raw).encode(), "x.json", ImportOptions())
    raw["benchmarks"][0]["metadata"]["unit"] = "second"
    raw["version"] = "0.9"
    with pytest.raises(TrialParseError, match="unsupported-version"):
        pyperf.parse(json.dumps(raw).encode(), "x.json", ImportOptions())


def test_sniff_claims_pyperf_files_only() -> None:
    for path in GOOD.iterdir():
        assert pyperf.sniff(data(path)[:65536], path.name)
    for path in (FIXTURES / "gbench" / "good").iterdir():
        assert not pyperf.sniff(data(path)[:65536], path.name)
        assert not gbench.sniff(data(GOOD / "suite.json")[:65536], "suite.json")


@pytest.mark.parametrize("path", broken("pyperf"), ids=lambda p: p.name)
def test_each_broken_file_is_refused_naming_where_and_the_rule(path: Path) -> None:
    with pytest.raises(TrialParseError) as info:
        pyperf.parse(data(path), str(path), ImportOptions())
    error = info.value
    assert (error.source, error.rule) == (str(path), expected_rule(path))
    # a line, a JSON path, or a rule about the whole file (empty, gzip stream cut short)
    assert error.line > 0 or "$" in error.detail or error.rule in ("empty", "truncated")
    assert "\n" not in str(error)
