"""redis-benchmark --csv -> one load-test trial per test line."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from perfwarehouse.ingest.formats.records import ImportOptions, apply_options
from tests.unit.ingest import loadtest_common as common

VERB = "redis-benchmark"


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_good_files_follow_the_contract(path: Path) -> None:
    common.check_records(common.parse(VERB, path))


def test_redis7_mapping() -> None:
    path = common.IMPORTERS / VERB / "good" / "redis_c4.csv"
    rows = list(csv.DictReader(path.read_text().splitlines()))
    records = common.parse(VERB, path)
    by_test = {(r["benchmark"], r["metric"]): r["values"][0] for r in records}
    for row in rows:
        assert by_test[(row["test"], "throughput")] == float(row["rps"])
        assert by_test[(row["test"], "mean")] == float(row["avg_latency_ms"])
        assert by_test[(row["test"], "p99")] == float(row["p99_latency_ms"])
        assert by_test[(row["test"], "max")] == float(row["max_latency_ms"])
    assert [r["position"] for r in records if r["metric"] == "throughput"] == list(range(len(rows)))
    # clients are not in --csv: --setting gives them to every trial
    filled = apply_options(records, ImportOptions(node="n1", settings=(("clients", "4"),)),
                           str(path), "c")
    assert {r["settings"]["clients"] for r in filled} == {"4"}
    assert {r["settings"]["loop"] for r in filled} == {"closed"}


def test_old_two_column_layout() -> None:
    path = common.IMPORTERS / VERB / "good" / "redis5_old_2col.csv"
    records = common.parse(VERB, path)
    rows = list(csv.reader(path.read_text().splitlines()))
    assert [(r["benchmark"], r["values"][0]) for r in records] == [(t, float(v)) for t, v in rows]
    assert {r["metric"] for r in records} == {"throughput"}


@pytest.mark.parametrize("path", common.broken(VERB), ids=lambda p: p.name)
def test_broken_files_are_refused_in_one_line(path: Path) -> None:
    common.check_broken(VERB, path)


def test_sniff_claims_its_files_only() -> None:
    common.check_sniff(VERB)


def independent_count(path: Path) -> Counter:
    rows = [r for r in csv.reader(path.read_text().splitlines()) if r]
    body = rows[1:] if rows[0][:2] == ["test", "rps"] else rows
    return Counter({("closed", None, None): len(body)})


@pytest.mark.parametrize("path", common.good(VERB), ids=lambda p: p.name)
def test_trials_per_load_level_match_an_independent_count(path: Path) -> None:
    assert common.trials_per_level(common.parse(VERB, path)) == independent_count(path)
