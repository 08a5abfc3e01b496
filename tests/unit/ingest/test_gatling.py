"""Gatling simulation.log -> one load-test trial per simulation run.

The fixtures are written by tests/fixtures/generate/gatling_logs.py in the columns of each
Gatling version; the values are checked against a slow independent reading of the same
lines (``twin``), which finds each request's times by where the OK/KO status sits rather
than by the parser's per-version column table.
"""

from __future__ import annotations

import gzip
import math
import statistics
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import gatling
from perfwarehouse.ingest.formats.records import SNIFF_BYTES, ImportOptions
from tests.unit.ingest import loadtest_common as common

VERB = "gatling"
HERE = common.IMPORTERS / VERB
GOOD = HERE / "good"
SHAPES = HERE / "shapes"
STATUS = ("OK", "KO")


def text_of(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()


def twin(path: Path) -> list[dict]:
    """The runs of a log, read without the parser: a RUN line (the word RUN first or
    third) starts a run; a request is any line with the word REQUEST whose OK/KO field
    follows a block of 13-digit times: its start is the first time of that block, its end
    the last; users are the lines with the word USER and START/END."""
    runs: list[dict] = []
    for line in text_of(path).replace("\r\n", "\n").splitlines():
        f = line.split("\t")
        if "RUN" in f[:3]:
            at = f.index("RUN")
            start = None if at == 2 else int(f[-3])
            runs.append({"simulation": f[1] if at == 0 else f[0], "start": start,
                         "elapsed": [], "ko": 0, "moments": [], "users": []})
        elif "REQUEST" in f[:3]:
            i = next(i for i in range(len(f)) if f[i] in STATUS and f[i - 1].isdigit()
                     and len(f[i - 1]) == 13)
            j = i - 1
            while len(f[j - 1]) == 13 and f[j - 1].isdigit():
                j -= 1
            start, end = int(f[j]), int(f[i - 1])
            runs[-1]["elapsed"].append(end - start)
            runs[-1]["ko"] += f[i] == "KO"
            runs[-1]["moments"] += [start, end]
        elif "USER" in f[:3]:
            times = [int(x) for x in f if len(x) == 13 and x.isdigit()]
            event = "START" if "START" in f else "END"
            moment = times[0] if event == "START" else times[-1]
            runs[-1]["moments"].append(moment)
            runs[-1]["users"].append((event, moment))
    return runs


def peak_users(users: list[tuple[str, int]]) -> int:
    """Most users alive at once, by brute force: at each start, the starts up to it less
    the ends up to it (an end at that instant counted as gone)."""
    starts = [m for e, m in users if e == "START"]
    ends = [m for e, m in users if e == "END"]
    return max(sum(s <= t for s in starts) - sum(e <= t for e in ends) for t in starts)


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100 * len(ordered) - 1e-9)) - 1]


def parse(path: Path) -> list[dict]:
    return gatling.parse(text_of(path).encode(), str(path), ImportOptions())


ALL = [*common.good(VERB), SHAPES / "simulation.log.gz"]


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_good_files_follow_the_contract(path: Path) -> None:
    common.check_records(common.parse(VERB, path))


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_values_equal_an_independent_reading(path: Path) -> None:
    records = parse(path)
    trials = common.trials(records)
    expected = twin(path)
    assert len(trials) == len(expected)
    for (_, position), recs in sorted(trials.items(), key=lambda kv: kv[0][1]):
        run = expected[position]
        m = {r["metric"]: r["values"][0] for r in recs}
        elapsed = [float(x) for x in run["elapsed"]]
        span = (max(run["moments"]) - min(run["moments"])) / 1e3
        assert m["requests"] == len(elapsed)
        assert m["errors"] == run["ko"]
        assert m["duration_s"] == pytest.approx(span, abs=1e-9)
        assert m["throughput"] == pytest.approx(len(elapsed) / span)
        assert m["mean"] == pytest.approx(statistics.fmean(elapsed))
        assert (m["min"], m["max"]) == (min(elapsed), max(elapsed))
        for q, name in ((50, "p50"), (90, "p90"), (95, "p95"), (99, "p99"), (99.9, "p99.9")):
            assert m[name] == nearest_rank(elapsed, q), name
        assert recs[0]["latency"] == {"unit": "ms", "samples": elapsed}
        start_ms = run["start"] if run["start"] is not None else min(run["moments"])
        assert datetime.fromisoformat(recs[0]["started_at"]) == datetime.fromtimestamp(
            start_ms / 1e3, tz=timezone.utc)
        assert recs[0]["benchmark"] == f"gatling {run['simulation']}"
        assert recs[0]["settings"] == {"generator": "gatling"}  # the log holds no load
        attributes = recs[0]["attributes"]
        assert attributes["users"] == sum(e == "START" for e, _ in run["users"])
        assert attributes["max_active_users"] == peak_users(run["users"])


def test_every_version_s_columns_give_the_same_values() -> None:
    """One simulated run written in the columns of 2.0, 2.1, 2.2, 2.3, 3.0 and 3.7."""
    seen = {}
    for name in ("2.0", "2.1", "2.2", "2.3", "3.0", "3.7"):
        records = common.parse(VERB, GOOD / f"gatling_{name}.log")
        seen[name] = (common.metrics_of(records), records[0]["latency"],
                      records[0]["attributes"]["scenarios"],
                      records[0]["attributes"]["requests_by_name"])
    first = seen["3.7"]
    assert all(value == first for value in seen.values())
    assert first[2] == {"Browse": 8, "Buy": 4}
    columns = {n: common.parse(VERB, GOOD / f"gatling_{n}.log")[0]["attributes"]["log_columns"]
               for n in seen}
    assert columns == {"2.0": "2.0", "2.1": "2.1", "2.2": "2.2", "2.3": "2.2", "3.0": "3.0",
                       "3.7": "3.4"}


def test_runs_appended_to_one_file_are_one_trial_each() -> None:
    records = common.parse(VERB, GOOD / "gatling_3.7_two_runs.log")
    trials = common.trials(records)
    assert sorted(p for _, p in trials) == [0, 1]
    assert len({run for run, _ in trials}) == 1
    second = trials[next(k for k in trials if k[1] == 1)]
    assert second[0]["started_at"] == "2024-11-23T13:54:20Z"
    assert second[0]["attributes"]["description"] == "injector 2"
    # the same run saved alone with Windows line ends reads the same
    crlf = common.parse(VERB, GOOD / "gatling_3.5_crlf.log")
    assert {r["metric"]: r["values"] for r in crlf} == {r["metric"]: r["values"] for r in second}
    assert crlf[0]["attributes"]["gatling_version"] == "3.5.1"


@pytest.mark.parametrize("path", common.broken(VERB), ids=lambda p: p.name)
def test_broken_files_are_refused_in_one_line(path: Path) -> None:
    common.check_broken(VERB, path)


def test_a_binary_log_is_refused_naming_the_version_that_wrote_it() -> None:
    path = SHAPES / "binary_simulation.log"
    assert gatling.sniff(path.read_bytes()[:SNIFF_BYTES], path.name)
    with pytest.raises(TrialParseError) as info:
        common.parse(VERB, path)
    assert info.value.rule == "unsupported-format"
    assert "Gatling 3.13.1" in str(info.value) and "binary" in str(info.value)


def test_sniff_claims_its_files_only() -> None:
    common.check_sniff(VERB)
    data = text_of(SHAPES / "simulation.log.gz").encode()
    assert gatling.sniff(data[:SNIFF_BYTES], "simulation.log")


def independent_count(path: Path) -> Counter:
    """Trials per load level: one per RUN line, none with a load (the log holds none)."""
    return Counter({(None, None, None): len(twin(path))})


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_trials_per_load_level_match_an_independent_count(path: Path) -> None:
    assert common.trials_per_level(common.parse(VERB, path)) == independent_count(path)


def test_the_load_given_on_the_command_line_is_the_trial_s_load() -> None:
    from perfwarehouse.ingest.formats.records import apply_options

    records = common.parse(VERB, GOOD / "gatling_3.7.log")
    options = ImportOptions(node="n", settings=(("loop", "closed"), ("clients", 12)))
    filled = apply_options(records, options, "x", "c")
    assert common.level(filled[0]["settings"]) == ("closed", 12, None)


def test_ingest_auto_reads_a_results_tree_and_lists_the_binary_log(cli, tmp_path: Path) -> None:
    """Gatling's layout, results/<simulation>-<time>/simulation.log: a gzipped text log
    is read (format told from its content), a binary one is listed with its reason."""
    import shutil

    root = tmp_path / "results"
    (root / "basicsimulation-20241123135320").mkdir(parents=True)
    (root / "basicsimulation-20260101000000").mkdir()
    shutil.copy(SHAPES / "simulation.log.gz",
                root / "basicsimulation-20241123135320" / "simulation.log.gz")
    shutil.copy(SHAPES / "binary_simulation.log",
                root / "basicsimulation-20260101000000" / "simulation.log")
    result = cli("ingest", "auto", "--node", "n1", str(root), check=True)
    assert "files: 1 read (1 gatling); skipped 1" in result.stdout, result.stdout
    binary = root / "basicsimulation-20260101000000" / "simulation.log"
    assert f"skipped {binary}: [unsupported-format]" in result.stderr, result.stderr
    assert "Gatling 3.13.1" in result.stderr


REPORT = HERE / "report"


@pytest.mark.parametrize("name", ["global_stats.json", "stats.json"])
def test_the_report_s_numbers_are_one_trial_as_json_reads_them(name: str) -> None:
    import json

    path = REPORT / name
    doc = json.loads(path.read_text())
    stats = doc["stats"] if "contents" in doc else doc
    records = common.parse(VERB, path)
    common.check_records(records)
    m = common.metrics_of(records)
    assert m == {"throughput": stats["meanNumberOfRequestsPerSecond"]["total"],
                 "requests": stats["numberOfRequests"]["total"],
                 "errors": stats["numberOfRequests"]["ko"],
                 "mean": stats["meanResponseTime"]["total"],
                 "min": stats["minResponseTime"]["total"],
                 "max": stats["maxResponseTime"]["total"]}
    attributes = records[0]["attributes"]
    assert attributes["report_percentiles"] == [stats[f"percentiles{i}"]["total"]
                                                for i in range(1, 5)]
    assert records[0]["started_at"] is None and "latency" not in records[0]
    assert records[0]["benchmark"] == "gatling"
    # the report of the 3.7 run: its counts and extremes are the log's
    log = common.metrics_of(common.parse(VERB, GOOD / "gatling_3.7.log"))
    assert {k: m[k] for k in ("requests", "errors", "min", "max")} == \
        {k: log[k] for k in ("requests", "errors", "min", "max")}


def test_auto_never_reads_the_report_beside_its_log() -> None:
    """A results directory holds both: reading both would count the run twice."""
    for name in ("global_stats.json", "stats.json"):
        path = REPORT / name
        assert not gatling.sniff(path.read_bytes()[:SNIFF_BYTES], name)


def test_ingest_gatling_reads_a_named_report(cli, tmp_path: Path) -> None:
    path = REPORT / "global_stats.json"
    result = cli("ingest", "gatling", str(path), "--node", "n1",
                 "--started-at", "2024-11-23T13:53:20Z", check=True)
    assert "ingested 6 trials (6 values)" in result.stdout, result.stdout  # a record per metric


def test_non_ascii_digits_are_refused_in_one_line_and_the_walk_goes_on(cli,
                                                                       tmp_path: Path) -> None:
    """A superscript digit passes str.isdigit() but not float() (issue 44, H7): the file is
    listed as skipped with its line and rule, and the walk reads the next one."""
    import shutil

    root = tmp_path / "results"
    root.mkdir()
    bad = root / "a_simulation.log"
    shutil.copy(HERE / "broken" / "wrong-type__superscript_digit_in_a_time.log", bad)
    shutil.copy(GOOD / "gatling_3.7.log", root / "b_simulation.log")
    result = cli("ingest", "auto", "--node", "n1", str(root))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert f"skipped {bad}: line 6: [wrong-type] the request's start" in result.stderr
    assert "files: 1 read (1 gatling); skipped 1" in result.stdout, result.stdout
