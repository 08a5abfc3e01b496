"""Catch2 XML importer: real v2.13.10 outputs (tests/fixtures/generate/catch2_real.sh),
v3 written from its reporter's source, each value against a reading of the text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import catch2
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import collect_inputs, ingest_import
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import CliRunner
from tests.unit.ingest.importer_checks import (
    IMPORTERS,
    OPTIONS,
    broken_cases,
    check_records,
    check_sniff,
    land,
)

FOLDER = IMPORTERS / "catch2"
REAL = sorted((FOLDER / "real").glob("*.xml"))
CONSOLE = FOLDER / "real" / "console.txt"
V3 = FOLDER / "good" / "v3_sections.xml"
NO_RESULT = FOLDER / "good" / "v3_no_result.xml"
XML = [*REAL, V3, NO_RESULT]
_BENCH = re.compile(r'<BenchmarkResults name="([^"]*)"(.*?)</BenchmarkResults>', re.S)
_MEAN = re.compile(r'<mean value="([^"]+)" lowerBound="([^"]+)" upperBound="([^"]+)"')


def parse(path: Path) -> list[dict[str, Any]]:
    return catch2.parse(path.read_bytes(), str(path), OPTIONS)


def read_text(path: Path) -> list[tuple[str, float | None, str | None]]:
    """(benchmark name, mean, failure message) of each BenchmarkResults, by regex."""
    out = []
    for name, body in _BENCH.findall(path.read_text()):
        mean = _MEAN.search(body)
        failed = re.search(r'<failed message="([^"]*)"', body)
        out.append((name, float(mean.group(1)) if mean else None,
                    failed.group(1) if failed else None if mean else "no result"))
    return out


def test_the_generator_wrote_the_real_outputs_the_tests_name() -> None:
    names = {p.name for p in (FOLDER / "real").iterdir()}
    assert names == {"v2_samples20.xml", "v2_failed.xml", "v2_no_analysis.xml", "console.txt",
                     "v2_appended.xml"}
    assert all(b'<Catch name="bench"' in p.read_bytes() for p in REAL)  # Catch2 v2's root


@pytest.mark.parametrize("path", XML, ids=lambda p: p.name)
def test_each_benchmark_is_a_trial_with_its_mean(path: Path) -> None:
    records = parse(path)
    check_records(records)
    expected = read_text(path)
    assert [r["benchmark"].rsplit("/", 1)[1] for r in records] == [e[0] for e in expected]
    per_run: dict[int, int] = {}
    for r in records:  # positions count up within each run
        assert r["position"] == per_run.get(r["run_index"], 0)
        per_run[r["run_index"]] = r["position"] + 1
    for r, (_name, mean, failure) in zip(records, expected, strict=True):
        assert (r["metric"], r["unit"], r["higher_is_better"]) == ("mean", "ns", False)
        if failure is None:
            assert r["status"] == "ok" and r["values"] == [mean]
            assert r["attributes"]["summary"] == f"mean of {r['attributes']['samples']} samples"
            assert r["attributes"]["mean_lower_ns"] <= mean <= r["attributes"]["mean_upper_ns"]
        else:
            assert r["status"] == "failed" and r["values"] == []
            assert r["attributes"]["error_message"].startswith(failure)
    runs = path.read_text().count("<?xml")
    assert len({r["run_id"] for r in records}) == runs
    assert {r["run_index"] for r in records} == set(range(runs))


def test_runs_appended_to_one_file_are_runs_with_their_labels() -> None:
    path = FOLDER / "real" / "v2_appended.xml"
    records = parse(path)
    labels = [line for line in path.read_text().splitlines() if line.startswith("=== run")]
    assert len(labels) == 2
    assert [(r["run_index"], r["position"], r["benchmark"], r["attributes"]["label"])
            for r in records] == [
        (run, position, f"Fibonacci/fib {n}", labels[run])
        for run in (0, 1) for position, n in enumerate((15, 20))]
    assert records[0]["run_id"].endswith("-1") and records[-1]["run_id"].endswith("-2")
    # a document cut short, then text: the parser names the line
    text = path.read_bytes()
    cut = text[:text.index(b"</Catch>")] + b"\n=== run 2\n" + text[text.index(b"<?xml", 10):]
    with pytest.raises(TrialParseError) as info:
        catch2.parse(cut, "cut.xml", OPTIONS)
    assert info.value.rule == "invalid-xml" and info.value.line > 1


def test_a_few_lines_after_the_last_document_are_left_more_are_refused() -> None:
    path = FOLDER / "real" / "v2_samples20.xml"
    prompt = path.read_bytes() + b"$ echo done\ndone\n"
    assert [r["values"] for r in catch2.parse(prompt, "p.xml", OPTIONS)] == [
        r["values"] for r in parse(path)]
    junk = path.read_bytes() + b"log line\n" * (catch2.PREAMBLE_LINES + 1)
    with pytest.raises(TrialParseError, match="junk after document element"):
        catch2.parse(junk, "j.xml", OPTIONS)


def test_sections_name_the_benchmark_and_v3_facts_go_to_env() -> None:
    records = parse(V3)
    assert [r["benchmark"] for r in records] == [
        "json parse/small document/dom", "json parse/small document/with comments/dom",
        "json parse/large document/dom", "json parse/large document/sax", "itoa/std::to_chars"]
    assert [r["status"] for r in records].count("failed") == 1
    assert records[0]["env"] == {"name": "parser-bench", "catch2_version": "3.5.2",
                                 "xml_format_version": "3", "rng_seed": "2786521017",
                                 "filters": '"[!benchmark]"', "xml_root": "Catch2TestRun"}
    attributes = records[0]["attributes"]
    assert attributes["samples"] == 100 and attributes["iterations"] == 14
    assert attributes["ci"] == 0.95 and attributes["std_dev_ns"] == 43.4211
    assert attributes["outliers"] == {"variance": 0.221951, "lowMild": 2, "lowSevere": 0,
                                      "highMild": 4, "highSevere": 1}
    assert attributes["tags"] == "[!benchmark][json]"
    assert records[0]["node"] is None and records[0]["started_at"] is None


def test_v2_sections_and_no_analysis() -> None:
    records = parse(FOLDER / "real" / "v2_samples20.xml")
    assert [r["benchmark"] for r in records] == [
        "Fibonacci/fib 15", "Fibonacci/fib 20", "vector sum/small/accumulate",
        "vector sum/large/accumulate"]
    assert {r["attributes"]["samples"] for r in records} == {20}
    plain = parse(FOLDER / "real" / "v2_no_analysis.xml")
    for r in plain:  # --benchmark-no-analysis: the bounds are the mean, no interval
        a = r["attributes"]
        assert a["mean_lower_ns"] == a["mean_upper_ns"] == r["values"][0] and a["ci"] == 0


@pytest.mark.parametrize("wrap", [
    lambda d: b"\xef\xbb\xbf" + d,                                    # a UTF-8 BOM
    lambda d: b"\r\n".join(d.split(b"\n")),                           # CRLF
    lambda d: b"$ ./bench '[!benchmark]' -r xml\nloading fixtures...\n\n" + d,  # text above
], ids=["bom", "crlf", "preamble"])
def test_saved_shapes_read_the_same(wrap: Any, tmp_path: Path) -> None:
    path = FOLDER / "real" / "v2_samples20.xml"
    saved = tmp_path / "bench.xml"
    saved.write_bytes(wrap(path.read_bytes()))
    assert [i.format for i in collect_inputs("auto", [saved])] == ["catch2"]
    assert [r["values"] for r in parse(saved)] == [r["values"] for r in parse(path)]


def test_a_problem_below_a_preamble_names_the_files_line() -> None:
    broken = FOLDER / "broken" / "invalid-xml--mismatched-tag.xml"
    data = b"$ ./bench -r xml\nwarming up\n" + broken.read_bytes()
    with pytest.raises(TrialParseError) as info:
        catch2.parse(data, "saved.xml", OPTIONS)
    closing = next(i for i, line in enumerate(data.splitlines(), 1) if b"</TestCase>" in line)
    assert (info.value.rule, info.value.line) == ("invalid-xml", closing)
    # more than PREAMBLE_LINES lines above: not Catch2's file any more
    assert not catch2.sniff(b"log line\n" * (catch2.PREAMBLE_LINES + 1)
                            + broken.read_bytes(), "saved.xml")


@pytest.mark.parametrize("path,rule", broken_cases("catch2"), ids=lambda x: str(x)[-40:])
def test_broken_files_are_refused_naming_the_rule(path: Path, rule: str) -> None:
    with pytest.raises(TrialParseError) as info:
        parse(path)
    assert info.value.rule == rule
    assert info.value.source == str(path)
    assert "\n" not in str(info.value)


def test_the_console_report_is_refused_naming_the_xml_reporter() -> None:
    with pytest.raises(TrialParseError, match="-r xml") as info:
        parse(CONSOLE)
    assert info.value.rule == "unsupported-format"


def test_sniff_claims_catch2_files_only() -> None:
    claimed = [*XML, CONSOLE, *(p for p, _rule in broken_cases("catch2")
                               if p.name != "empty.xml")]
    check_sniff(catch2.sniff, "catch2", claimed)


def test_ingest_auto_detects_catch2_and_needs_only_a_node(tmp_path: Path) -> None:
    inputs = collect_inputs("auto", XML)
    assert [i.format for i in inputs] == ["catch2"] * len(XML)
    _inputs, preview = ingest_import(Warehouse(tmp_path / "wh"), "auto", XML,
                                     ImportOptions(node="n1"), dry_run=True)
    assert preview.trials == sum(len(parse(p)) for p in XML)  # type: ignore[union-attr]
    assert preview.untimed == preview.trials  # type: ignore[union-attr]


def test_the_command_line_ingests_and_refuses_in_one_line(cli: CliRunner) -> None:
    result = cli("ingest", "catch2", "--node", "dev-1", *map(str, REAL), check=True)
    trials = sum(len(parse(p)) for p in REAL)
    assert f"ingested {trials} trials" in result.stdout
    refused = cli("ingest", "auto", "--node", "dev-1", str(CONSOLE))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "-r xml" in refused.stderr


def test_records_land_in_a_warehouse(tmp_path: Path) -> None:
    land([r for path in XML for r in parse(path)], tmp_path)
