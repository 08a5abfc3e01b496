"""Criterion.rs importer: a tree written by Criterion.rs 0.3.6 itself
(tests/fixtures/generate/criterion_real.sh), trees of the older and newer layouts and
cargo-criterion messages written from the formats, broken inputs, the directory walk."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import criterion
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

HERE = IMPORTERS / "criterion"
REAL = HERE / "generated" / "target" / "criterion"
OLD = HERE / "good" / "criterion-0.3.2"
V05 = HERE / "good" / "criterion-0.5"
MESSAGES = HERE / "good" / "cargo-criterion.json"


def files_of(tree: Path) -> dict[str, bytes]:
    return {p.relative_to(tree).as_posix(): p.read_bytes()
            for p in tree.rglob("*") if p.is_file()}


def parse_tree(tree: Path) -> list[dict]:
    return criterion.parse_directory(files_of(tree), str(tree), OPTIONS)


def per_iteration(sample_json: Path) -> list[float]:
    """The sample's time per iteration, read with json alone (both layouts)."""
    doc = json.loads(sample_json.read_bytes())
    iters, times = (doc["iters"], doc["times"]) if isinstance(doc, dict) else doc
    return [t / n for n, t in zip(iters, times, strict=True)]


def count_values(path: Path) -> Counter[str]:
    """Values per benchmark, read with json alone: each benchmark-complete message's
    measured values; in a tree, each run directory's times, under the id of its
    benchmark.json (else the directory's path), leaving out a run directory whose
    sample.json is byte-identical to its benchmark's new/ (Criterion's copy)."""
    counts: Counter[str] = Counter()
    if path.is_file():
        for line in path.read_text().splitlines():
            message = json.loads(line)
            if message["reason"] == "benchmark-complete":
                counts[message["id"]] += len(message["measured_values"])
        return counts
    for sample in path.rglob("sample.json"):
        new = sample.parent.parent / "new" / "sample.json"
        if sample.parent.name != "new" and new.exists() and \
                new.read_bytes() == sample.read_bytes():
            continue
        ids = [d / "benchmark.json" for d in (sample.parent, new.parent)
               if (d / "benchmark.json").exists()]
        name = json.loads(ids[0].read_bytes())["full_id"] if ids else \
            sample.parent.parent.relative_to(path).as_posix()
        doc = json.loads(sample.read_bytes())
        counts[name] += len(doc["times"] if isinstance(doc, dict) else doc[1])
    return counts


@pytest.mark.parametrize("path", [REAL, OLD, V05, MESSAGES], ids=lambda p: p.name)
def test_counts_agree_with_the_files(path: Path) -> None:
    records = parse_tree(path) if path.is_dir() else \
        criterion.parse(path.read_bytes(), str(path), OPTIONS)
    counts: Counter[str] = Counter()
    for r in records:
        counts[r["benchmark"]] += len(r["values"])
    assert counts == count_values(path)


def test_the_real_tree_is_three_runs_of_four_benchmarks() -> None:
    records = parse_tree(REAL)
    check_records(records)
    runs = {}
    for r in records:
        runs.setdefault(r["attributes"]["saved_as"], []).append(r)
    assert list(runs) == ["base", "main", "new"]  # base, baselines by name, new last
    assert [rs[0]["run_index"] for rs in runs.values()] == [0, 1, 2]
    for name, rows in runs.items():
        assert len({r["run_id"] for r in rows}) == 1
        ids = [r["benchmark"] for r in rows]
        # ids from benchmark.json, not the mangled directory names
        assert ids == sorted(["fib 10", 'parse: "a/b" <x>?', "sum/vec/iter/64",
                              "sum/vec/iter/512"])
        for r in rows:
            directory = json.loads((REAL / "sum_vec/iter/64/new/benchmark.json").read_bytes())
            assert directory["directory_name"] == "sum_vec/iter/64"
            folder = {"fib 10": "fib 10", 'parse: "a/b" <x>?': "parse_ _a_b_ _x__",
                      "sum/vec/iter/64": "sum_vec/iter/64",
                      "sum/vec/iter/512": "sum_vec/iter/512"}[r["benchmark"]]
            assert r["values"] == per_iteration(REAL / folder / name / "sample.json")
            assert r["unit"] == "ns" and r["metric"] == "time"
            assert r["higher_is_better"] is False and r["node"] is None
            assert r["started_at"] is None  # the tree holds no time: never invented
    by_id = {r["benchmark"]: r for r in runs["new"]}
    assert by_id["sum/vec/iter/64"]["attributes"]["throughput"] == {"Elements": 64}
    change = json.loads((REAL / "sum_vec/iter/64/change/estimates.json").read_bytes())
    assert by_id["sum/vec/iter/64"]["attributes"]["change_mean"] == \
        change["mean"]["point_estimate"]
    raw = json.loads((REAL / "fib 10/new/sample.json").read_bytes())
    assert by_id["fib 10"]["duration_s"] == pytest.approx(sum(raw["times"]) * 1e-9)


def test_a_baseline_that_copies_new_is_not_a_second_run() -> None:
    records = parse_tree(V05)
    assert len(records) == 1
    (r,) = records
    assert r["attributes"]["saved_as"] == "new"
    assert r["attributes"]["also_saved_as"] == ["base"]
    assert r["benchmark"] == "alloc/Vec/1024"
    assert r["values"] == per_iteration(V05 / "alloc/Vec/1024/new/sample.json")
    assert r["values"] == [1200000.0, 1300000.0, 1100000.0, 1250000.0, 1150000.0]
    assert r["attributes"]["sampling_mode"] == "Flat"
    assert r["unit"] == "ns"  # no raw.csv (0.4+ without csv_output): the wall clock's


def test_the_layout_before_0_3_3_and_a_tree_without_ids() -> None:
    records = parse_tree(OLD)
    check_records(records)
    got = {(r["attributes"]["saved_as"], r["benchmark"]): r for r in records}
    assert set(got) == {("base", 'parse "json"'), ("new", 'parse "json"'),
                        ("new", "legacy_bench")}
    assert got[("new", 'parse "json"')]["values"] == [500.0, 550.0, 490.0, 520.0]
    assert got[("base", 'parse "json"')]["values"] == per_iteration(
        OLD / "parse_ _json_/base/sample.json")
    # no benchmark.json (0.2): the directory's name
    assert got[("new", "legacy_bench")]["values"] == [20.0, 24.0, 22.0]
    assert got[("new", 'parse "json"')]["attributes"]["throughput"] == {"Bytes": 512}


def test_one_benchmarks_directory_is_a_tree_too(tmp_path: Path) -> None:
    records = parse_tree(REAL / "sum_vec" / "iter" / "64")
    assert [(r["attributes"]["saved_as"], r["benchmark"]) for r in records] == [
        ("base", "sum/vec/iter/64"), ("main", "sum/vec/iter/64"), ("new", "sum/vec/iter/64")]
    assert "change_mean" in records[-1]["attributes"]
    # without benchmark.json (0.2), the directory's own name
    records = parse_tree(OLD / "legacy_bench")
    assert [r["benchmark"] for r in records] == ["legacy_bench"]
    inputs = collect_inputs("auto", [REAL / "fib 10"])
    assert [(i.path.name, i.format) for i in inputs] == [("fib 10", "criterion")]


def test_cargo_criterion_messages() -> None:
    records = criterion.parse(MESSAGES.read_bytes(), str(MESSAGES), OPTIONS)
    check_records(records)
    lines = [json.loads(x) for x in MESSAGES.read_text().splitlines()]
    complete = [m for m in lines if m["reason"] == "benchmark-complete"]
    assert [r["benchmark"] for r in records] == [m["id"] for m in complete]
    for r, m in zip(records, complete, strict=True):
        assert r["values"] == [v / n for v, n in zip(m["measured_values"],
                                                     m["iteration_count"], strict=True)]
        assert r["unit"] == m["unit"]
    assert [(r["metric"], r["higher_is_better"]) for r in records] == [
        ("time", False), ("time", False), ("value", None)]  # cycles: a custom measurement
    assert records[1]["attributes"]["change_mean"] == 0.0142
    assert records[1]["attributes"]["change"] == "NoChange"
    assert records[0]["values"] == [25000.0, 26000.0, 24500.0, 25000.0]


@pytest.mark.parametrize("path,rule", broken_cases("criterion"), ids=lambda x: str(x)[-40:])
def test_broken_messages_are_refused_naming_the_rule(path: Path, rule: str) -> None:
    with pytest.raises(TrialParseError) as info:
        criterion.parse(path.read_bytes(), str(path), OPTIONS)
    assert info.value.rule == rule
    assert info.value.source == str(path)


@pytest.mark.parametrize("sample,rule", [
    (b'{"iters": [1.0, 2.0], "times": [1.0]}', "wrong-shape"),
    (b'{"iters": [], "times": []}', "no-values"),
    (b'{"iters": [0.0], "times": [1.0]}', "not-positive"),
    (b'{"iters": [1.0], "times": ["x"]}', "wrong-type"),
    (b'[[1.0]]', "wrong-type"),
    (b'{"iters": [1.0], "times": [1.0', "truncated"),
])
def test_broken_samples_are_refused_naming_the_file(sample: bytes, rule: str) -> None:
    files = {"b/new/sample.json": sample, "b/new/estimates.json": b"{}"}
    with pytest.raises(TrialParseError) as info:
        criterion.parse_directory(files, "target/criterion", OPTIONS)
    assert info.value.rule == rule
    assert info.value.source == "target/criterion/b/new/sample.json"


@pytest.mark.parametrize("rel", ["fib 10/new/sample.json", "fib 10/new/benchmark.json",
                                 "fib 10/new/estimates.json"])
def test_one_file_of_a_tree_is_refused_naming_the_tree(rel: str) -> None:
    with pytest.raises(TrialParseError) as info:
        criterion.parse((REAL / rel).read_bytes(), rel, OPTIONS)
    assert info.value.rule == "tree-file" and "target/criterion" in info.value.detail
    with pytest.raises(TrialParseError) as info:
        criterion.parse((OLD / "legacy_bench/new/sample.json").read_bytes(), "s.json", OPTIONS)
    assert info.value.rule == "tree-file"


def test_find_trees() -> None:
    paths = ["target/criterion/a/new/sample.json", "target/criterion/a/new/estimates.json",
             "target/criterion/a/change/estimates.json", "target/criterion/report/index.html",
             "target/criterion/a/report/index.html", "target/debug/x.json", "notes.txt",
             "lone/new/sample.json"]  # a sample.json alone is not Criterion's
    assert criterion.find_trees(paths) == {"target/criterion": sorted(paths[:5])}
    # the walked directory is the tree when no ancestor is named criterion
    assert criterion.find_trees(["b/base/sample.json", "b/base/benchmark.json"]) == {
        "": ["b/base/benchmark.json", "b/base/sample.json"]}


def test_a_walk_finds_the_tree_beside_other_results(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(V05, project / "target" / "criterion")
    shutil.copy(MESSAGES, project / "messages.json")
    (project / "README.md").write_text("notes\n")
    skipped: list = []
    inputs = collect_inputs("auto", [project], skipped)
    assert [(i.path.relative_to(project).as_posix(), i.format) for i in inputs] == [
        ("messages.json", "criterion"), ("target/criterion", "criterion")]
    # the reports belong to the tree: only the README is skipped
    assert [s.path.name for s in skipped] == ["README.md"]
    named = collect_inputs("criterion", [project / "target" / "criterion"])
    assert [i.path for i in named] == [project / "target" / "criterion"]
    warehouse = Warehouse(tmp_path / "wh", lock_timeout_s=5.0)
    _inputs, summary = ingest_import(warehouse, "auto", [project],
                                     ImportOptions(node="ci-box"), skipped=[])
    assert summary.trials_added == 4  # 3 messages + the tree's one run  # type: ignore[union-attr]


def test_sniff_claims_cargo_criterion_messages_only() -> None:
    broken = [p for p, _rule in broken_cases("criterion") if p.name != "empty.json"]
    check_sniff(criterion.sniff, "criterion", [MESSAGES, *broken])


def test_records_land_in_a_warehouse(tmp_path: Path) -> None:
    records = [*parse_tree(REAL), *parse_tree(OLD), *parse_tree(V05),
               *criterion.parse(MESSAGES.read_bytes(), str(MESSAGES), OPTIONS)]
    land(records, tmp_path)


def test_side_by_side_with_criterions_own_estimates(tmp_path: Path) -> None:
    """Criterion's point estimates of the mean, median and standard deviation (its
    estimates.json) are those of the per-iteration values stored in the warehouse."""
    warehouse = Warehouse(tmp_path / "wh", lock_timeout_s=5.0)
    ingest_import(warehouse, "criterion", [REAL], ImportOptions(node="box"))
    with warehouse.catalog() as con:
        rows = con.execute("""SELECT benchmark, attributes, avg(value), median(value),
                                     stddev_samp(value), count(*)
                              FROM measurements GROUP BY ALL""").fetchall()
    folders = {json.loads(p.read_bytes())["full_id"]: p.parent.parent
               for p in REAL.rglob("new/benchmark.json")}
    assert len(rows) == 12
    for benchmark, attributes, mean, median, stddev, n in rows:
        saved_as = json.loads(attributes)["saved_as"] if isinstance(attributes, str) \
            else attributes["saved_as"]
        estimates = json.loads((folders[benchmark] / saved_as / "estimates.json").read_bytes())
        assert n == 10
        assert mean == pytest.approx(estimates["mean"]["point_estimate"], rel=1e-12)
        assert median == pytest.approx(estimates["median"]["point_estimate"], rel=1e-12)
        assert stddev == pytest.approx(estimates["std_dev"]["point_estimate"], rel=1e-12)


def test_the_commands_as_a_user_runs_them(cli: CliRunner, tmp_path: Path) -> None:
    """A pytest project with its save folder and a Rust target/criterion tree, read by
    `ingest auto` of the project: one line per input, the files line, and without a
    node the criterion tree is skipped in one line that says to pass --node."""
    project = tmp_path / "project"
    shutil.copytree(HERE.parent / "pytest-benchmark" / "real" / "saves",
                    project / ".benchmarks")
    shutil.copytree(REAL, project / "target" / "criterion")
    out = cli("ingest", "auto", str(project), "--dry-run")
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert out.stdout.count(": pytest-benchmark\n") == 5
    assert "files: 5 read (5 pytest-benchmark); skipped 1" in out.stdout
    (line,) = [x for x in out.stderr.splitlines() if x.startswith("skipped")]
    assert "target/criterion: [no-node]" in line and "--node" in line
    out = cli("ingest", "auto", str(project), "--node", "laptop")
    assert out.returncode == 0, out.stderr
    assert "files: 6 read (1 criterion, 5 pytest-benchmark); skipped 0" in out.stdout
    assert "ingested 37 trials" in out.stdout  # 5 saves x 5 + 3 runs x 4 benchmarks
