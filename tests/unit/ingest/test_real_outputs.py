"""Detection, times, keys from the path and directory walks on outputs of the real tools
run here (tests/fixtures/generate/real_tools.sh writes tests/fixtures/importers/*/real/):
a pyperformance suite, pyperf timeit, a hyperfine history kept by machine/time/commit,
`go test -bench -count`, Google Benchmark, and the shapes people save them in."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest.formats import gotest
from perfwarehouse.ingest.formats.records import SNIFF_BYTES, ImportOptions
from perfwarehouse.ingest.service import (
    PREAMBLE_LINES,
    Skipped,
    collect_inputs,
    detect_format,
    ingest_import,
    read_input,
    without_preamble,
)
from perfwarehouse.ingest.units import unit_factor
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import CliRunner
from tests.unit.ingest.importer_support import FIXTURES

REAL_FORMATS = ("pyperf", "gbench", "gotest", "hyperfine", "jmh")
HISTORY = FIXTURES / "hyperfine" / "real" / "history"
PATTERN = "{node}/{started_at:%Y%m%d%H%M%S}_{revision}.json"
# every real output and the format that must claim it, and only it
EXPECTED = {
    "pyperf/real/suite.json.gz": "pyperf",
    "pyperf/real/timeit.json": "pyperf",
    "gotest/real/count5.txt": "gotest",
    "gotest/real/prompt_appended.txt": "gotest",
    "gotest/real/runstamp.txt": "gotest",
    "gbench/real/same_second_a.json": "gbench",
    "gbench/real/same_second_b.json": "gbench",
    "gbench/real/console_and_json.txt": "gbench",
    "jmh/real/results.csv": "jmh",
    **{f"hyperfine/real/history/{p.parent.name}/{p.name}": "hyperfine"
       for p in sorted(HISTORY.rglob("*.json"))},
}
REAL = FIXTURES  # EXPECTED's paths are relative to it


def _runs(warehouse: Warehouse, columns: str = "node, run_index, epoch(started_at), revision"
          ) -> list[tuple]:
    with warehouse.catalog() as con:
        return con.execute(f"SELECT {columns} FROM runs ORDER BY ALL").fetchall()


def test_the_generator_wrote_every_real_output_the_tests_name() -> None:
    on_disk = {p.relative_to(REAL).as_posix() for fmt in REAL_FORMATS
               for p in (REAL / fmt / "real").rglob("*") if p.is_file()}
    assert on_disk == set(EXPECTED)


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_each_real_output_is_claimed_by_its_format_alone(rel: str) -> None:
    inputs = collect_inputs("auto", [REAL / rel])
    assert [i.format for i in inputs] == [EXPECTED[rel]]


def test_a_pyperformance_suite_is_recognised_although_version_comes_after_the_head() -> None:
    data = read_input(REAL / "pyperf" / "real" / "suite.json.gz")
    assert data.rstrip().endswith(b'"version":"1.0"}')  # pyperf writes it last
    # a full suite is longer than the head detection reads (here, 44 benchmarks)
    assert len(data) > SNIFF_BYTES and b'"version"' not in data[:SNIFF_BYTES]
    assert detect_format(data, "suite.json") == ["pyperf"]
    inputs, preview = ingest_import(Warehouse(Path("/nonexistent/wh")), "auto",
                                    [REAL / "pyperf" / "real" / "suite.json.gz"],
                                    ImportOptions(), dry_run=True)
    assert preview.trials > 44 and preview.untimed == 0  # type: ignore[union-attr]


def test_a_command_line_above_json_is_blanked_keeping_line_numbers() -> None:
    raw = (REAL / "gbench" / "real" / "console_and_json.txt").read_bytes()
    assert raw.startswith(b"$ ./sum_bench")
    stripped = without_preamble(raw)
    assert stripped is not None and stripped.count(b"\n") == raw.count(b"\n")
    assert stripped.lstrip().startswith(b"{")
    assert without_preamble(stripped) is None  # JSON from the start: nothing to do
    # more lines above than a preamble takes (issue 43: up to a few dozen, was 5)
    assert without_preamble(b"a\n" * PREAMBLE_LINES + b"{}") is not None
    assert without_preamble(b"a\n" * (PREAMBLE_LINES + 1) + b"{}") is None


def test_jmh_csv_is_refused_in_one_line_naming_rf_json(tmp_path: Path) -> None:
    with pytest.raises(TrialParseError, match=r"-rf json") as info:
        ingest_import(Warehouse(tmp_path / "wh"), "auto",
                      [REAL / "jmh" / "real" / "results.csv"], ImportOptions(node="n1"))
    assert "\n" not in str(info.value) and "read as jmh results" in str(info.value)


def test_no_node_under_auto_names_the_detected_format(tmp_path: Path) -> None:
    with pytest.raises(TrialParseError, match=r"\[no-node\].*read as hyperfine results"):
        ingest_import(Warehouse(tmp_path / "wh"), "auto",
                      [next(HISTORY.rglob("*.json"))], ImportOptions())


def test_go_test_appended_runs_are_runs_and_time_lines_are_read(tmp_path: Path) -> None:
    data = read_input(REAL / "gotest" / "real" / "prompt_appended.txt")
    records = gotest.parse(data, "x", ImportOptions())
    runs = sorted({(r["run_index"], r["run_id"]) for r in records})
    assert len(runs) == 2 and len({run_id for _i, run_id in runs}) == 2
    # each invocation printed -count 2 lines of 3 benchmarks
    for index, _run_id in runs:
        assert sum(1 for r in records if r["run_index"] == index and r["metric"] == "ns/op") \
            == data.count(b"Benchmark") // 2
    stamped = gotest.parse(read_input(REAL / "gotest" / "real" / "runstamp.txt"), "y",
                           ImportOptions())
    assert {(r["started_at"], r["revision"], r["revision_time"]) for r in stamped} == {
        ("2024-03-05T14:30:00+00:00", "9d1e0c4", "2024-03-05T09:12:44+01:00")}
    # a changed runstamp starts a run of its own, even within one package
    first, second = data.decode().split("$ go test")[1:]
    text = (f"runstamp: 2024-01-01T00:00:00Z\n$ go test{first}"
            f"runstamp: 2024-01-02T00:00:00Z\n$ go test{second}")
    restamped = gotest.parse(text.encode(), "z", ImportOptions())
    assert sorted({(r["run_index"], r["started_at"]) for r in restamped}) == [
        (0, "2024-01-01T00:00:00+00:00"), (1, "2024-01-02T00:00:00+00:00")]


def test_no_stored_start_time_is_a_modification_time(tmp_path: Path) -> None:
    """Every real output and every load-tool fixture, with modification times set to
    instants nothing else holds: none is stored as a start time; the files without a time
    are stored without one and counted."""
    root = tmp_path / "in"
    for fmt in REAL_FORMATS:
        shutil.copytree(REAL / fmt / "real", root / "real" / fmt)
    for tool in ("wrk", "hey", "sysbench", "locust", "jmeter", "k6", "redis-benchmark"):
        shutil.copytree(FIXTURES / tool / "good", root / tool)
    mtimes = set()
    for i, path in enumerate(sorted(p for p in root.rglob("*") if p.is_file())):
        stamp = 1_111_111_111 + 1000 * i
        os.utime(path, (stamp, stamp))
        mtimes.add(float(stamp))
    warehouse = Warehouse(tmp_path / "wh")
    skipped: list[Skipped] = []
    _inputs, summary = ingest_import(warehouse, "auto", [root], ImportOptions(node="n1"),
                                     skipped=skipped)
    starts = {t for (t,) in _runs(warehouse, "epoch(started_at)")}
    assert starts and not starts & mtimes
    assert None in starts and summary.untimed > 0  # hyperfine, go test text, ...
    # asked for, the modification time is what the user gets
    again = Warehouse(tmp_path / "wh2")
    ingest_import(again, "auto", [root / "real" / "hyperfine"],
                  ImportOptions(node="n1", started_at="mtime"))
    assert {t for (t,) in _runs(again, "epoch(started_at)")} <= mtimes


def test_a_history_takes_node_time_and_revision_from_its_paths(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "wh")
    _inputs, summary = ingest_import(warehouse, "auto", [HISTORY],
                                     ImportOptions(path_pattern=PATTERN))
    expected = sorted((p.parent.name, p.name[:14], p.stem.split("_")[1])
                      for p in HISTORY.rglob("*.json"))
    got = _runs(warehouse, "node, strftime(started_at AT TIME ZONE 'UTC', '%Y%m%d%H%M%S'), "
                           "revision")
    assert got == expected and summary.untimed == 0
    # runs of one machine are numbered in time order
    assert [i for (_n, i) in _runs(warehouse, "node, run_index")] == [0, 1, 2, 0, 1, 2]
    # the command line wins over the path
    other = Warehouse(tmp_path / "wh2")
    ingest_import(other, "auto", [HISTORY / "ci-arm"],
                  ImportOptions(path_pattern=PATTERN, node="pinned", campaign="c"))
    assert {n for (n, *_rest) in _runs(other)} == {"pinned"}


def test_a_path_the_pattern_does_not_match_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not match --path-pattern"):
        ingest_import(Warehouse(tmp_path / "wh"), "auto", [HISTORY],
                      ImportOptions(path_pattern="{node}/{revision}.txt"))
    with pytest.raises(UsageError, match="unknown field"):
        ingest_import(Warehouse(tmp_path / "wh"), "auto", [HISTORY],
                      ImportOptions(path_pattern="{host}/{revision}.json"))


def test_two_gbench_files_of_one_binary_in_one_second_are_two_runs(tmp_path: Path) -> None:
    a, b = (REAL / "gbench" / "real" / f"same_second_{x}.json" for x in "ab")
    assert read_input(a).split(b'"date"')[1][:30] == read_input(b).split(b'"date"')[1][:30]
    warehouse = Warehouse(tmp_path / "wh")
    ingest_import(warehouse, "gbench", [a], ImportOptions())
    ingest_import(warehouse, "gbench", [b], ImportOptions())  # no [conflict]
    assert len(_runs(warehouse, "run_id")) == 2
    ingest_import(warehouse, "gbench", [a, b], ImportOptions())  # again: nothing new
    assert len(_runs(warehouse, "run_id")) == 2
    # --revision tells them apart too
    other = Warehouse(tmp_path / "wh2")
    ingest_import(other, "gbench", [a], ImportOptions(revision="r1"))
    ingest_import(other, "gbench", [b], ImportOptions(revision="r2"))
    assert [r for (r,) in _runs(other, "revision")] == ["r1", "r2"]


def _mixed(tmp_path: Path) -> Path:
    """A folder as people keep them: real outputs of several tools, load-tool outputs,
    an asv results tree below a sub-folder with files beside it, and stray files."""
    root = tmp_path / "mixed"
    for fmt in REAL_FORMATS:
        shutil.copytree(REAL / fmt / "real", root / "real" / fmt)
    for tool in ("wrk", "hey", "sysbench", "locust", "jmeter", "k6", "redis-benchmark"):
        shutil.copytree(FIXTURES / tool / "good", root / "load" / tool)
    shutil.copytree(FIXTURES / "asv" / "good", root / "project" / "results")
    (root / "project" / "results" / "README.md").write_text("asv results of the project\n")
    shutil.copy(FIXTURES / "gbench" / "good" / "single.json", root / "project" / "gb.json")
    (root / "notes.txt").write_text("ran on the CI box\n")
    (root / "empty.json").write_text("")
    (root / "broken.json.gz").write_bytes(gzip.compress(b'{"benchmarks": [')[:-6])
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def test_a_mixed_directory_ingests_every_file_or_lists_it_with_its_reason(
        tmp_path: Path) -> None:
    root = _mixed(tmp_path)
    skipped: list[Skipped] = []
    inputs, _summary = ingest_import(Warehouse(tmp_path / "wh"), "auto", [root],
                                     ImportOptions(node="n1"), skipped=skipped)
    every = {p for p in root.rglob("*") if p.is_file()}
    ingested = set()
    for item in inputs:
        ingested |= {item.path / rel for rel in item.files} if item.files else {item.path}
    listed = {s.path for s in skipped}
    hidden = {p for p in every if ".git" in p.parts}
    assert root / ".git" in listed
    assert ingested | {p for p in listed if p.is_file()} | hidden == every
    assert not ingested & listed and all(s.reason for s in skipped)
    # the asv tree is one input and swallowed none of its neighbours
    asv = [i for i in inputs if i.format == "asv"]
    assert [i.path for i in asv] == [root / "project" / "results"]
    assert root / "project" / "gb.json" in ingested
    assert root / "project" / "results" / "README.md" in listed
    assert {"pyperf", "gbench", "gotest", "hyperfine", "asv"} <= {i.format for i in inputs}
    # every load-tool output is ingested, the saved shapes too (issue 27's acceptance: a
    # wrk2 output under its command line, a sysbench sweep in one file, a '|' JTL)
    load = {p for p in every if "load" in p.relative_to(root).parts}
    assert load and load <= ingested
    by_name = {item.path.name: item.format for item in inputs}
    assert by_name["wrk2_R2000_c100_saved.md"] == "wrk"
    assert by_name["sysbench10_cpu_t1_t2_appended.txt"] == "sysbench"
    assert by_name["jmeter_t4_pipe.jtl"] == "jmeter"
    reasons = {s.path.name: s.reason for s in skipped}
    assert "no format recognises it" in reasons["notes.txt"]
    assert "-rf json" in reasons["results.csv"]
    assert "truncated" in reasons["broken.json.gz"]


def test_strict_refuses_a_directory_with_a_skipped_file(tmp_path: Path) -> None:
    root = _mixed(tmp_path)
    warehouse = Warehouse(tmp_path / "wh")
    with pytest.raises(UsageError, match="--strict refuses"):
        ingest_import(warehouse, "auto", [root], ImportOptions(node="n1"), strict=True)
    assert not warehouse.exists()


def test_the_command_ends_with_one_line_per_directory_and_lists_skips(
        cli: CliRunner, tmp_path: Path) -> None:
    root = tmp_path / "d"
    shutil.copytree(HISTORY, root / "history")
    (root / "notes.txt").write_text("hello\n")
    result = cli("ingest", "auto", "--dry-run", "--path-pattern", "{node}/{revision}.txt",
                 str(root / "history"))
    assert result.returncode != 0 and "does not match --path-pattern" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    result = cli("ingest", "auto", "--dry-run", "--node", "n1", str(root), check=True)
    assert f"skipped {root / 'notes.txt'}: no format recognises it" in result.stderr
    assert "files: 6 read (6 hyperfine); skipped 1 (listed above on stderr)" in result.stdout
    assert "6 trial records have no start time" in result.stdout


def test_a_unit_of_another_scale_is_converted_into_the_warehouses(tmp_path: Path) -> None:
    """Google Benchmark's ->Unit() and JMH's -tu change the unit of one configuration
    between files: the later file's values land in the unit the warehouse holds."""
    a = REAL / "gbench" / "real" / "same_second_a.json"
    doc = json.loads(a.read_text())
    doc["context"]["date"] = "2024-06-01T10:00:00+00:00"
    for row in doc["benchmarks"]:
        assert row["time_unit"] == "ns"
        row.update(time_unit="us", real_time=row["real_time"] / 1000,
                   cpu_time=row["cpu_time"] / 1000)
    b = tmp_path / "micro.json"
    b.write_text(json.dumps(doc))
    warehouse = Warehouse(tmp_path / "wh")
    ingest_import(warehouse, "gbench", [a], ImportOptions())
    _inputs, summary = ingest_import(warehouse, "gbench", [b], ImportOptions())
    assert any("us converted to ns (x1000)" in note for note in summary.notes)
    with warehouse.catalog() as con:
        assert con.execute("SELECT DISTINCT unit FROM configurations WHERE metric = "
                           "'real_time'").fetchall() == [("ns",)]
        rows = con.execute("""SELECT benchmark, metric, list(value ORDER BY run_id)
                              FROM measurements WHERE metric IN ('real_time', 'cpu_time')
                              GROUP BY ALL""").fetchall()
    for _benchmark, _metric, values in rows:
        assert len(values) == 2 and values[0] == pytest.approx(values[1], rel=1e-12)
    # only other scales of one kind convert; anything else stays a one-line conflict
    assert unit_factor("ops/ms", "ops/s") == 1000 and unit_factor("us/op", "ns/op") == 1000
    assert unit_factor("ms", "s") == pytest.approx(1e-3)
    for given, stored in (("items/s", "B/s"), ("ns", "ns/op"), ("s/op", "ops/s"), (None, "s"),
                          ("ns", None), ("MB/s", "B/s")):
        assert unit_factor(given, stored) is None
