"""BenchmarkDotNet full JSON importer: values against an independent reading of the
file, runs per launch, job settings from DisplayInfo, failed cases, refused reports."""

from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import benchmarkdotnet as bdn
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import Skipped, collect_inputs, ingest_import
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

FOLDER = IMPORTERS / "benchmarkdotnet"
GOOD = sorted((FOLDER / "good").iterdir())
LIST = FOLDER / "good" / "Demo.Collections.ListBench-report-full.json"
SPLIT = FOLDER / "good" / "Demo.Text.SplitBench-report-full-compressed.json"
REFUSED = sorted(p for p, rule in broken_cases("benchmarkdotnet")
                 if rule in ("unsupported-format", "no-measurements"))


def parse(path: Path) -> list[dict[str, Any]]:
    return bdn.parse(path.read_bytes(), str(path), OPTIONS)


def result_stage(path: Path) -> dict[tuple[int, int], list[float]]:
    """(case index, launch) -> ns/op of its Workload/Result rows, read without the parser."""
    out: dict[tuple[int, int], list[float]] = {}
    for i, case in enumerate(json.loads(path.read_text())["Benchmarks"]):
        for m in case.get("Measurements", []):
            if (m["IterationMode"], m["IterationStage"]) == ("Workload", "Result"):
                out.setdefault((i, m["LaunchIndex"]), []).append(
                    m["Nanoseconds"] / m["Operations"])
    return out


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_values_are_the_result_stage_per_launch(path: Path) -> None:
    records = parse(path)
    check_records([{**r, "hardware_type": None} for r in records])
    doc = json.loads(path.read_text())
    expected = result_stage(path)
    ok = [r for r in records if r["status"] == "ok" and r["metric"] == "time"]
    assert len(ok) == len(expected)
    for r in ok:
        case = next(i for i, c in enumerate(doc["Benchmarks"])
                    if c["DisplayInfo"] == r["attributes"]["display_info"])
        assert r["values"] == pytest.approx(expected[(case, r["run_index"] + 1)], rel=1e-12)
        assert (r["metric"], r["unit"], r["higher_is_better"]) == ("time", "ns", False)
        assert r["run_id"].endswith(f"launch{r['run_index'] + 1}")
    # BenchmarkDotNet's own statistics are computed from the same values
    for i, case in enumerate(doc["Benchmarks"]):
        if case["Statistics"] is None:
            continue
        values = [v for (c, _launch), vs in expected.items() if c == i for v in vs]
        assert len(values) == case["Statistics"]["N"]
        assert statistics.fmean(values) == pytest.approx(case["Statistics"]["Mean"], rel=1e-6)
        if "OriginalValues" in case["Statistics"]:
            assert values == pytest.approx(case["Statistics"]["OriginalValues"], rel=1e-9)


def test_the_diagnosers_metrics_are_metrics_of_the_first_launch() -> None:
    """Every finite ``Metrics`` value of an ok case, read from the JSON, is a one-value
    metric of that case's trial in the run of its first launch, with its unit and
    direction; no other record holds it."""
    doc = json.loads(LIST.read_text())
    expected = sorted(
        (c["DisplayInfo"], m["Descriptor"]["Id"], m["Descriptor"]["Unit"],
         m["Descriptor"]["TheGreaterTheBetter"], float(m["Value"]))
        for c in doc["Benchmarks"] if c["Statistics"] is not None
        for m in c.get("Metrics", []))
    assert len(expected) == 6
    got = sorted((r["attributes"]["display_info"], r["metric"], r["unit"],
                  r["higher_is_better"], r["values"][0])
                 for r in parse(LIST) if r["metric"] != "time")
    assert got == expected
    assert {r["run_index"] for r in parse(LIST) if r["metric"] != "time"} == {0}


def test_memory_without_metrics_and_metrics_without_value() -> None:
    doc = json.loads(LIST.read_text())
    case = doc["Benchmarks"][0]
    case.pop("Metrics")  # a BenchmarkDotNet that wrote Memory only
    doc["Benchmarks"][1]["Metrics"][0]["Value"] = None
    records = bdn.parse(json.dumps(doc).encode(), "x.json", OPTIONS)
    first = [r for r in records if r["attributes"]["display_info"] == case["DisplayInfo"]
             and r["metric"] != "time"]
    assert [(r["metric"], r["unit"], r["higher_is_better"], r["values"]) for r in first] == [
        ("Allocated Memory", "B", False, [float(case["Memory"]["BytesAllocatedPerOperation"])])]
    second = [r for r in records if r["attributes"]["display_info"]
              == doc["Benchmarks"][1]["DisplayInfo"]]
    assert {r["metric"] for r in second} == {"time", "Allocated Memory"}
    assert second[0]["attributes"]["metrics_without_value"] == ["Gen0Collects"]


def test_a_failed_case_is_counted_as_failed_not_dropped() -> None:
    records = parse(LIST)
    doc = json.loads(LIST.read_text())
    failed = [c for c in doc["Benchmarks"] if c["Statistics"] is None]
    assert len(failed) == 1
    bad = [r for r in records if r["status"] == "failed"]
    assert [(r["benchmark"], r["values"], r["run_index"]) for r in bad] == [
        ("Demo.Collections.ListBench.Remove", [], 0)]
    assert bad[0]["settings"] == {"Size": "10", "job": "ShortRun"}


def test_a_run_that_died_lands_every_case_as_failed(tmp_path: Path) -> None:
    """Every case of the file has Statistics null (the process died in the actual
    iterations of the first, before the pilot of the second): each is a failed trial, and
    the file lands, saying how many failed rather than refusing or dropping them."""
    path = FOLDER / "good" / "Demo.Host.StartupBench-report-full-compressed.json"
    doc = json.loads(path.read_text())
    records = parse(path)
    assert [(r["benchmark"], r["status"], r["values"]) for r in records] == [
        (f"Demo.Host.StartupBench.{c['Method']}", "failed", []) for c in doc["Benchmarks"]]
    assert any(m["IterationStage"] == "Actual" for m in doc["Benchmarks"][0]["Measurements"])
    assert records[0]["attributes"]["memory"]["BytesAllocatedPerOperation"] is None
    _inputs, summary = ingest_import(Warehouse(tmp_path / "wh"), "benchmarkdotnet", [path],
                                     ImportOptions(node="n1"))
    assert summary.trials_added == 2 and summary.values_added == 0  # type: ignore[union-attr]
    with Warehouse(tmp_path / "wh").catalog() as con:
        assert con.execute("SELECT status, count(*) FROM trials GROUP BY ALL").fetchall() == [
            ("failed", 2)]


def test_launches_are_runs_and_cases_keep_file_order() -> None:
    records = [r for r in parse(LIST) if r["metric"] == "time"]
    by_run: dict[int, list[tuple[int, str, str]]] = {}
    for r in records:
        by_run.setdefault(r["run_index"], []).append(
            (r["position"], r["benchmark"].rsplit(".", 1)[1], r["settings"]["Size"]))
    assert by_run == {0: [(0, "Add", "10"), (1, "Add", "1000"), (2, "Get", "10"),
                          (3, "Remove", "10")],
                      1: [(0, "Add", "10"), (1, "Add", "1000"), (2, "Get", "10")]}
    first = records[0]
    # the job's run shape is an attribute; the host is the hardware type and the env
    assert {k: first["attributes"][k] for k in ("iteration_count", "launch_count",
                                                "warmup_count")} == {
        "iteration_count": "6", "launch_count": "2", "warmup_count": "3"}
    assert first["hardware_type"] == "Intel Xeon Platinum 8272CL CPU 2.60GHz"
    assert (first["env"]["BenchmarkDotNetVersion"], first["env"]["RuntimeVersion"]) == (
        "0.13.12", ".NET 8.0.4 (8.0.424.16909)")
    assert first["attributes"]["memory"]["BytesAllocatedPerOperation"] == 312
    assert first["node"] is None and first["started_at"] is None


def test_runtimes_platforms_and_generated_job_ids_become_stable_settings() -> None:
    records = parse(SPLIT)
    settings = [r["settings"] for r in records]
    args = {"text": "hello world", "count": "3"}
    assert settings[0] == {**args, "job": ".NET 8.0", "runtime": ".NET 8.0"}
    # Job-QJXBHZ: a hash .NET randomises per process, replaced by what it hashes
    assert settings[1] == {**args, "job": "Job(Jit=RyuJit, Platform=X86, Runtime=.NET "
                                          "Framework 4.8, IterationCount=5)",
                           "jit": "RyuJit", "platform": "X86", "runtime": ".NET Framework 4.8"}
    assert records[1]["attributes"]["job_id"] == "Job-QJXBHZ"
    assert records[1]["attributes"]["iteration_count"] == "5"


@pytest.mark.parametrize("display,title,params,expected", [
    ("B.M: DefaultJob", "M", False, ({"job": "DefaultJob"}, {})),
    ("B.M: MediumRun(IterationCount=15, LaunchCount=2, WarmupCount=10) [amount=5500, fee=10]",
     "M", True, ({"job": "MediumRun"},
                 {"iteration_count": "15", "launch_count": "2", "warmup_count": "10"})),
    ("B.Sum of [1, 2]: Job-ABCDEF(Server=True, Toolchain=InProcessEmitToolchain)",
     "Sum of [1, 2]", False,
     ({"job": "Job(Server=True, Toolchain=InProcessEmitToolchain)", "server": "True",
       "toolchain": "InProcessEmitToolchain"}, {"job_id": "Job-ABCDEF"})),
    ("B.M: Dry(EnvironmentVariables=A=1, DOTNET_TieredPGO=0, RunStrategy=ColdStart)", "M",
     False, ({"job": "Dry", "environment_variables": "A=1, DOTNET_TieredPGO=0",
              "run_strategy": "ColdStart"}, {})),
])
def test_the_job_is_read_from_display_info(display: str, title: str, params: bool,
                                           expected: tuple[dict[str, str], dict[str, str]]
                                           ) -> None:
    assert bdn._job(display, title, params) == expected


def test_a_parameter_named_like_a_job_setting_keeps_both() -> None:
    doc = json.loads(LIST.read_text())
    case = doc["Benchmarks"][0]
    case["Parameters"] = "job=fast"
    case["DisplayInfo"] = case["DisplayInfo"].replace("[Size=10]", "[job=fast]")
    records = bdn.parse(json.dumps(doc).encode(), "x.json", OPTIONS)
    assert records[0]["settings"] == {"job": "fast", "job_job": "ShortRun"}


def test_benchmarkdotnet_0_10_result_rows_without_a_stage_are_read() -> None:
    doc = json.loads((FOLDER / "good" / "Bench.Hashing-report-full.json").read_text())
    for case in doc["Benchmarks"]:
        rows = [m for m in case["Measurements"] if m["IterationStage"] == "Result"]
        for m in rows:
            m.pop("IterationStage")
            m["IterationMode"] = "Result"
        case["Measurements"] = [{"IterationMode": "MainTarget", "LaunchIndex": 1,
                                 "IterationIndex": 1, "Operations": 4, "Nanoseconds": 9e9},
                                *rows]
    records = bdn.parse(json.dumps(doc).encode(), "old.json", OPTIONS)
    assert [len(r["values"]) for r in records] == [c["Statistics"]["N"]
                                                   for c in doc["Benchmarks"]]


@pytest.mark.parametrize("path,rule", broken_cases("benchmarkdotnet"), ids=lambda x: str(x)[-45:])
def test_broken_files_are_refused_naming_the_rule(path: Path, rule: str) -> None:
    with pytest.raises(TrialParseError) as info:
        parse(path)
    assert info.value.rule == rule
    assert info.value.source == str(path)
    assert "\n" not in str(info.value)
    if rule in ("unsupported-format", "no-measurements"):
        assert "JsonExporter.Full" in info.value.detail and "--exporters json" in info.value.detail


def test_sniff_claims_benchmarkdotnet_files_only() -> None:
    broken = [p for p, _rule in broken_cases("benchmarkdotnet")
              if p.name != "empty.json"]
    check_sniff(bdn.sniff, "benchmarkdotnet", GOOD + broken)


def test_ingest_auto_takes_full_reports_and_refuses_the_others_in_one_line(
        tmp_path: Path) -> None:
    gz = tmp_path / "Demo.Collections.ListBench-report-full.json.gz"
    gz.write_bytes(gzip.compress(LIST.read_bytes()))
    inputs = collect_inputs("auto", [*GOOD, gz])
    assert [i.format for i in inputs] == ["benchmarkdotnet"] * (len(GOOD) + 1)
    for path in REFUSED:
        [item] = collect_inputs("auto", [path])
        assert item.format == "benchmarkdotnet"
        with pytest.raises(TrialParseError, match="JsonExporter.Full"):
            ingest_import(Warehouse(tmp_path / "none"), "auto", [path],
                          ImportOptions(node="n1"), dry_run=True)
    with pytest.raises(TrialParseError, match="pass --node"):
        ingest_import(Warehouse(tmp_path / "none"), "auto", [LIST], ImportOptions(),
                      dry_run=True)


def test_an_artifacts_folder_lands_its_full_json_and_lists_the_other_reports(
        tmp_path: Path) -> None:
    """BenchmarkDotNet.Artifacts/results as the default exporters leave it, plus the full
    JSON: the JSON lands, every summary report is skipped with the way out."""
    results = tmp_path / "BenchmarkDotNet.Artifacts" / "results"
    results.mkdir(parents=True)
    (results / LIST.name).write_bytes(LIST.read_bytes())
    for name, stem in (("report.csv", "unsupported-format--report.csv"),
                       ("report-github.md", "unsupported-format--report-github.md"),
                       ("report.html", "unsupported-format--report.html")):
        (results / f"Demo.Collections.ListBench-{name}").write_bytes(
            (FOLDER / "broken" / stem).read_bytes())
    skipped: list[Skipped] = []
    inputs, preview = ingest_import(Warehouse(tmp_path / "wh"), "auto", [tmp_path],
                                    ImportOptions(node="n1"), dry_run=True, skipped=skipped)
    assert [i.path.name for i in inputs] == [LIST.name]
    assert preview.trials == len(parse(LIST))  # type: ignore[union-attr]
    assert sorted(s.path.name.rsplit("-", 1)[-1] for s in skipped) == [
        "github.md", "report.csv", "report.html"]
    assert all("[unsupported-format]" in s.reason and "JsonExporter.Full" in s.reason
               for s in skipped)


def test_the_full_and_the_compressed_report_of_one_run_are_one_run(tmp_path: Path) -> None:
    """Both JSON exporters on: two files, one run. The second is skipped as already
    present; in one command the batch is refused (never landed twice)."""
    compressed = tmp_path / "Demo.Collections.ListBench-report-full-compressed.json"
    compressed.write_text(json.dumps(json.loads(LIST.read_text()), separators=(",", ":")))
    assert compressed.read_bytes() != LIST.read_bytes()
    assert {r["run_id"] for r in parse(compressed)} == {r["run_id"] for r in parse(LIST)}
    warehouse = Warehouse(tmp_path / "wh")
    ingest_import(warehouse, "auto", [LIST], ImportOptions(node="n1"))
    _inputs, again = ingest_import(warehouse, "auto", [compressed], ImportOptions(node="n1"))
    assert again.outcome == "nothing-new"  # type: ignore[union-attr]
    with pytest.raises(TrialParseError, match="duplicate-position"):
        ingest_import(Warehouse(tmp_path / "wh2"), "auto", [LIST, compressed],
                      ImportOptions(node="n1"))
    # another run (other timings) of the same benchmarks is another run
    doc = json.loads(LIST.read_text())
    doc["Benchmarks"][0]["Measurements"][-1]["Nanoseconds"] += 1.0
    other = bdn.parse(json.dumps(doc).encode(), "other.json", OPTIONS)
    assert {r["run_id"] for r in other}.isdisjoint({r["run_id"] for r in parse(LIST)})


def test_a_bom_and_sorted_keys_are_read_the_same(tmp_path: Path) -> None:
    """Saved on Windows with a BOM, or rewritten with sorted keys (``Benchmarks`` before
    ``HostEnvironmentInfo``): still detected, the same values."""
    doc = json.loads(SPLIT.read_text())
    bom = tmp_path / "bom-report-full.json"
    bom.write_bytes(b"\xef\xbb\xbf" + SPLIT.read_bytes())
    resorted = tmp_path / "sorted-report-full.json"
    resorted.write_text(json.dumps(doc, sort_keys=True, indent=2))
    assert [i.format for i in collect_inputs("auto", [bom, resorted])] == ["benchmarkdotnet"] * 2
    want = [r["values"] for r in parse(SPLIT)]
    assert [r["values"] for r in parse(bom)] == want == [r["values"] for r in parse(resorted)]


def test_a_machines_history_goes_in_across_runtime_patches(cli: CliRunner,
                                                             tmp_path: Path) -> None:
    """One CI machine, two reports a .NET patch apart: one node, one hardware type (the
    CPU), so the later report is not refused as another hardware type of the node."""
    folder = tmp_path / "ci-1"
    folder.mkdir()
    (folder / LIST.name).write_bytes(LIST.read_bytes())
    doc = json.loads(LIST.read_text())
    doc["HostEnvironmentInfo"]["RuntimeVersion"] = ".NET 8.0.7 (8.0.724.31311)"
    doc["Title"] = doc["Title"].replace("20240501", "20240801")
    (folder / "later-report-full.json").write_text(json.dumps(doc, indent=3))
    result = cli("ingest", "auto", "--node", "ci-1", str(folder), check=True)
    assert "files: 2 read (2 benchmarkdotnet); skipped 0" in result.stdout
    assert f"ingested {2 * len(parse(LIST))} trials" in result.stdout
    assert "have no start time" in result.stdout
    refused = cli("ingest", "auto", "--node", "ci-1",
                  str(FOLDER / "broken" / "unsupported-format--report.csv"))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "JsonExporter.Full" in refused.stderr


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_records_land_in_a_warehouse(path: Path, tmp_path: Path) -> None:
    # one file per warehouse: the fixtures come from three hosts, land() names one node
    land(parse(path), tmp_path)
