"""pytest-benchmark importer: real outputs of 3.0.0 (Python 2.7), 3.2.3, 3.4.1, 4.0.0 and 5.1.0
(tests/fixtures/generate/pytest_benchmark_real.sh), files written from the format (a 2.5
save, a hook-written file), broken files, sniffing, a save folder as a history."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import pytest_benchmark as pb
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import collect_inputs, ingest_import
from perfwarehouse.warehouse.store import Warehouse
from tests.unit.ingest.importer_checks import (
    IMPORTERS,
    OPTIONS,
    broken_cases,
    check_records,
    check_sniff,
    land,
)

HERE = IMPORTERS / "pytest-benchmark"
REAL = sorted((HERE / "real").rglob("*.json"))
SAVES = HERE / "real" / "saves" / "Linux-CPython-3.11-64bit"
#: the real files of versions that write ``params`` (3.2 on; 3.0 names the id only)
WITH_PARAMS = [p for p in REAL if "params" in json.loads(p.read_bytes())["benchmarks"][0]]
GOOD = sorted((HERE / "good").iterdir())


def parse(path: Path) -> list[dict]:
    return pb.parse(path.read_bytes(), str(path), OPTIONS)


def independent(path: Path) -> list[tuple[str, str, list[float]]]:
    """(test name, metric, values) of each entry, read with json alone: ``stats.data``
    where the file has it, else the mean."""
    out = []
    for entry in json.loads(path.read_bytes())["benchmarks"]:
        stats = entry["stats"]
        if "data" in stats:
            out.append((entry["fullname"], "time", [float(v) for v in stats["data"]]))
        else:
            out.append((entry["fullname"], "time_mean", [float(stats["mean"])]))
    return out


def count_values(path: Path) -> Counter[str]:
    """Values per benchmark (the test's path without its [id]), read with json alone:
    the rounds of stats.data, else one (the mean)."""
    counts: Counter[str] = Counter()
    for entry in json.loads(path.read_bytes())["benchmarks"]:
        name = (entry.get("fullname") or entry["name"]).split("[")[0]
        counts[name] += len(entry["stats"].get("data") or [0])
    return counts


@pytest.mark.parametrize("path", REAL + GOOD, ids=lambda p: p.name[:24])
def test_counts_agree_with_the_file(path: Path) -> None:
    counts: Counter[str] = Counter()
    for r in parse(path):
        counts[r["benchmark"]] += len(r["values"])
    assert counts == count_values(path)


def test_the_generator_wrote_the_real_outputs() -> None:
    names = {p.relative_to(HERE / "real").as_posix() for p in REAL}
    assert {n for n in names if n.startswith("json/")} == {
        "json/pb-3.0.0.json", "json/pb-3.2.3.json", "json/pb-3.4.1.json", "json/pb-4.0.0.json",
        "json/pb-5.1.0.json"}
    saves = sorted(p.name for p in SAVES.iterdir())
    assert [s[:5] for s in saves] == ["0001_", "0002_", "0003_", "0004_"]
    versions = {json.loads(p.read_bytes())["version"] for p in REAL}
    assert versions == {"3.0.0", "3.2.3", "3.4.1", "4.0.0", "5.1.0"}
    assert len(WITH_PARAMS) == len(REAL) - 2  # all but 3.0.0's json and save


@pytest.mark.parametrize("path", REAL + GOOD, ids=lambda p: p.name[:24])
def test_values_are_the_files_rounds_or_its_mean(path: Path) -> None:
    records = parse(path)
    # the shared invariants, on copies: this format names the hardware type itself
    check_records([{**r, "hardware_type": None} for r in records])
    expected = independent(path)
    assert [(r["metric"], r["values"]) for r in records] == [(m, v) for _n, m, v in expected]
    for record, (fullname, _m, _v) in zip(records, expected, strict=True):
        assert fullname.startswith(record["benchmark"])
        assert record["unit"] == "s" and record["higher_is_better"] is False
    assert len({r["run_id"] for r in records}) == 1
    assert [r["position"] for r in records] == list(range(len(records)))


def test_a_lambda_parameter_does_not_split_the_series() -> None:
    configs = [{(r["benchmark"], json.dumps(r["settings"], sort_keys=True)) for r in parse(p)}
               for p in WITH_PARAMS]
    assert all(c == configs[0] for c in configs)  # the same 5 configurations in 8 files
    raw = {json.loads(p.read_bytes())["benchmarks"][3]["params"]["key"] for p in WITH_PARAMS}
    assert len(raw) == len(WITH_PARAMS)  # ... although the file's value differs in every run
    assert all(re.search(r" at 0x[0-9a-f]+>", v) for v in raw)
    sort = [r for r in parse(WITH_PARAMS[0]) if r["benchmark"] == "test_suite.py::test_sort"]
    assert [r["settings"] for r in sort] == [
        {"key": None}, {"key": "UNSERIALIZABLE[<function <lambda>>]"}]
    assert [r["settings"] for r in parse(WITH_PARAMS[0])][:2] == [{"n": 5}, {"n": 12}]
    # 3.0 wrote no params: the pytest id is the setting
    old = parse(HERE / "real" / "json" / "pb-3.0.0.json")
    assert [(r["benchmark"], r["settings"]) for r in old][:2] == [
        ("test_suite.py::test_fib", {"param": "5"}), ("test_suite.py::test_fib", {"param": "12"})]


def test_parameters_that_still_collide_keep_the_test_id() -> None:
    records = parse(HERE / "good" / "hook-written.json")
    assert [r["settings"] for r in records] == [
        {"size": "small", "codec": "utf8", "key": "<function by_len>",
         "param": "small-utf8"},
        {"size": "small", "codec": "utf8", "key": "<function by_len>",
         "param": "small-utf8-other"},
        {}]
    assert [r["benchmark"] for r in records] == ["bench/test_codec.py::test_encode"] * 2 + [
        "bench/test_codec.py::test_decode"]
    # a file a hook wrote without machine_info names no machine: --node decides
    assert records[0]["node"] is None and records[0]["revision"] is None
    # duration: the timed rounds (per-iteration total x iterations)
    assert records[0]["duration_s"] == pytest.approx(6.0e-06 * 8)
    assert records[0]["attributes"]["extra_info"] == {"bytes": 64}


def test_a_2_5_save_is_read_from_its_summary() -> None:
    path = GOOD[0]
    records = parse(path)
    assert [r["benchmark"] for r in records] == ["tests/test_parser.py::test_parse"] * 2 + [
        "tests/test_func/test_perf.py::test_engine"]
    # 2.x has no params: the id in the name is the setting
    assert [r["settings"] for r in records] == [{"param": "0"}, {"param": "1"}, {}]
    assert all(r["metric"] == "time_mean" for r in records)
    assert records[0]["attributes"]["summary"]["median"] == 2.4e-07
    assert "stats.data" in records[0]["attributes"]["values"]
    assert records[0]["run_index"] == 6  # save 0007
    assert records[0]["revision"] == "5b78858eb718649a31fb93d8dc96ca2cee41a4cd"
    assert records[0]["revision_time"] is None  # 2.5 saved no commit time
    assert records[0]["attributes"]["dirty"] is True
    assert records[0]["node"] == "minibox" and records[0]["hardware_type"] is None
    assert records[0]["env"]["kernel"] == "Linux 3.13.0-55-generic"


def test_an_unknown_cpu_is_no_hardware_type() -> None:
    path = HERE / "real" / "json" / "pb-3.2.3.json"
    # 3.2 asks py-cpuinfo for keys it no longer has
    assert json.loads(path.read_bytes())["machine_info"]["cpu"]["brand"] == "unknown"
    records = parse(path)
    assert records[0]["hardware_type"] is None and "cpu_model" not in records[0]["env"]


def test_times_revisions_and_machine_of_the_real_saves() -> None:
    for path in sorted(SAVES.iterdir()):
        doc = json.loads(path.read_bytes())
        records = parse(path)
        started = datetime.fromisoformat(records[0]["started_at"])
        stamp = datetime.fromisoformat(doc["datetime"])
        if stamp.tzinfo is None:  # before 5.0: UTC without saying so
            assert "read as UTC" in records[0]["attributes"]["started_at_note"]
            stamp = stamp.replace(tzinfo=timezone.utc)
        else:
            assert "started_at_note" not in records[0]["attributes"]
        assert started == stamp
        assert {r["revision"] for r in records} == {doc["commit_info"]["id"]}
        assert datetime.fromisoformat(records[0]["revision_time"]) == \
            datetime.fromisoformat(doc["commit_info"]["time"])
        assert records[0]["node"] == doc["machine_info"]["node"]
        assert records[0]["hardware_type"].startswith(doc["machine_info"]["cpu"]["brand_raw"])
        assert records[0]["run_index"] == int(path.name[:4]) - 1
    assert Counter(json.loads(p.read_bytes())["version"] for p in SAVES.iterdir()) == {
        "3.4.1": 1, "4.0.0": 1, "5.1.0": 2}


def test_a_save_folder_is_a_history_in_one_command(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(SAVES, project / ".benchmarks" / SAVES.name)
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    skipped: list = []
    inputs = collect_inputs("auto", [project], skipped)
    assert [i.format for i in inputs] == ["pytest-benchmark"] * 4
    assert [s.path.name for s in skipped] == [".git"]  # .benchmarks is walked, .git is not
    warehouse = Warehouse(tmp_path / "wh", lock_timeout_s=5.0)
    ingest_import(warehouse, "auto", [project / ".benchmarks"], ImportOptions())
    with warehouse.catalog() as con:
        runs = con.execute("SELECT run_index, revision, revision_time, started_at FROM runs "
                           "ORDER BY run_index").fetchall()
    docs = [json.loads(p.read_bytes()) for p in sorted(SAVES.iterdir())]
    assert [r[0] for r in runs] == [0, 1, 2, 3]
    assert [r[1] for r in runs] == [d["commit_info"]["id"] for d in docs]
    assert [r[2] for r in runs] == [datetime.fromisoformat(d["commit_info"]["time"])
                                    for d in docs]
    assert len({r[3] for r in runs}) == 4


@pytest.mark.parametrize("path,rule", broken_cases("pytest-benchmark"),
                         ids=lambda x: str(x)[-40:])
def test_broken_files_are_refused_naming_the_rule(path: Path, rule: str) -> None:
    with pytest.raises(TrialParseError) as info:
        parse(path)
    assert info.value.rule == rule
    assert info.value.source == str(path)
    if rule not in ("empty", "truncated"):
        assert "$" in info.value.detail


def test_a_commit_time_that_is_not_a_time_leaves_the_run_in() -> None:
    doc = json.loads((HERE / "good" / "hook-written.json").read_bytes())
    doc["commit_info"] = {"id": "abc", "time": "Fri Aug 14 19:03:43 2015 +0300"}
    records = pb.parse(json.dumps(doc).encode(), "x.json", OPTIONS)
    assert records[0]["revision"] == "abc" and records[0]["revision_time"] is None
    assert "not a time" in records[0]["attributes"]["revision_time_note"]
    doc["commit_info"] = {"id": "abc", "time": "2015-08-14 19:03:43 +0300"}  # git's %ci
    records = pb.parse(json.dumps(doc).encode(), "x.json", OPTIONS)
    assert records[0]["revision_time"] == "2015-08-14T19:03:43+03:00"


def test_an_id_with_brackets_is_taken_off_the_name() -> None:
    doc = json.loads((HERE / "good" / "hook-written.json").read_bytes())
    entry = doc["benchmarks"][2]
    entry.update(fullname="t.py::test_x[a[1]-b]", param="a[1]-b", params={"v": "a[1]"})
    records = pb.parse(json.dumps(doc).encode(), "x.json", OPTIONS)
    assert (records[2]["benchmark"], records[2]["settings"]) == ("t.py::test_x", {"v": "a[1]"})


def test_normalise() -> None:
    assert pb.normalise("<object object at 0x7F00AA>") == "<object object>"
    assert pb.normalise(["<function f at 0x1>", 3, {"k": "<C at 0xdead>"}]) == [
        "<function f>", 3, {"k": "<C>"}]
    assert pb.normalise("at 0x10 in text") == "at 0x10 in text"  # no leading space: kept


def test_sniff_claims_pytest_benchmark_files_only() -> None:
    broken = [p for p, _rule in broken_cases("pytest-benchmark")
              if p.name not in ("empty.json", "missing-key--benchmarks.json")]
    check_sniff(pb.sniff, "pytest-benchmark", GOOD + broken)


def test_records_land_in_a_warehouse(tmp_path: Path) -> None:
    # one node for all (land's --node): the files' hardware types differ, so leave them out
    records = [{**r, "hardware_type": None} for path in REAL + GOOD for r in parse(path)]
    land(records, tmp_path)


def test_side_by_side_with_pytest_benchmarks_own_statistics(tmp_path: Path) -> None:
    """pytest-benchmark's min, max, mean, median and stddev of each benchmark (its stats,
    what `pytest-benchmark compare` prints) are those of the values in the warehouse."""
    files = sorted((HERE / "real" / "json").iterdir())
    warehouse = Warehouse(tmp_path / "wh", lock_timeout_s=5.0)
    ingest_import(warehouse, "pytest-benchmark", files, ImportOptions())
    with warehouse.catalog() as con:
        rows = con.execute("""SELECT run_id, position, min(value), max(value), avg(value),
                                     median(value), stddev_samp(value), count(*)
                              FROM measurements GROUP BY ALL ORDER BY ALL""").fetchall()
    stats = {}
    for path in files:
        run_id = pb.parse(path.read_bytes(), str(path), OPTIONS)[0]["run_id"]
        for i, entry in enumerate(json.loads(path.read_bytes())["benchmarks"]):
            stats[(run_id, i)] = entry["stats"]
    assert len(rows) == len(stats) == 25
    for run_id, position, low, high, mean, median, stddev, n in rows:
        s = stats[(run_id, position)]
        assert n == s["rounds"]
        assert (low, high) == (s["min"], s["max"])
        for got, theirs in ((mean, s["mean"]), (median, s["median"]), (stddev, s["stddev"])):
            assert got == pytest.approx(theirs, rel=1e-9)


def test_a_3_0_save_from_python_2() -> None:
    (path,) = (HERE / "real" / "saves" / "Linux-CPython-2.7-64bit").iterdir()
    doc = json.loads(path.read_bytes())
    assert doc["version"] == "3.0.0" and set(doc["commit_info"]) == {"id", "dirty"}
    records = parse(path)
    assert {r["revision"] for r in records} == {doc["commit_info"]["id"]}
    assert records[0]["revision_time"] is None  # 3.0 saved no commit time
    assert records[0]["hardware_type"] is None  # nor a CPU
    assert records[0]["env"]["python_version"].startswith("2.7")
    assert all(r["metric"] == "time_mean" for r in records)  # a save without its rounds
