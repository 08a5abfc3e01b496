"""OrderSage results directories: counts, one copy of each trial, idempotency, refusal."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.service import ingest_ordersage
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import ORDERSAGE_DIRS


def _count(warehouse: Warehouse, query: str = "SELECT count(*) FROM measurements") -> int:
    with warehouse.catalog() as con:
        return con.execute(query).fetchall()[0][0]


@pytest.mark.parametrize("name, trials", [("memcached", 300), ("npbench", 600), ("ufs", 400)])
def test_each_fixture_ingests_one_copy_of_each_trial(warehouse: Warehouse, name: str, trials: int) -> None:
    summary = ingest_ordersage(warehouse, [ORDERSAGE_DIRS[name]])
    assert summary.outcome == "landed"
    assert summary.trials_added == trials
    assert _count(warehouse) == trials
    assert _count(warehouse, "SELECT count(*) FROM trials") == trials
    # every (run, position) once; each run holds the whole test list
    assert _count(warehouse, "SELECT count(*) FROM (SELECT run_id, position FROM trials "
                             "GROUP BY ALL HAVING count(*) > 1)") == 0


def test_again_adds_nothing(warehouse: Warehouse) -> None:
    first = ingest_ordersage(warehouse, [ORDERSAGE_DIRS["npbench"]])
    again = ingest_ordersage(warehouse, [ORDERSAGE_DIRS["npbench"]])
    assert first.outcome == "landed" and again.outcome == "unchanged"
    assert _count(warehouse) == 600
    assert _count(warehouse, "SELECT count(*) FROM ingest_batches") == 1


def test_a_copy_with_only_the_all_file_adds_nothing(warehouse: Warehouse, tmp_path: Path) -> None:
    """The all_ file holds the same trials, re-saved with rounding noise: no conflict, no duplicate."""
    ingest_ordersage(warehouse, [ORDERSAGE_DIRS["npbench"]], campaign="npb")
    copy = tmp_path / "only_all"
    copy.mkdir()
    for f in ORDERSAGE_DIRS["npbench"].iterdir():
        if "_all_" in f.name:
            shutil.copy(f, copy / f.name)
    again = ingest_ordersage(warehouse, [copy], campaign="npb")
    assert again.outcome == "nothing-new" and again.trials_skipped == 600
    assert _count(warehouse) == 600


def test_non_numeric_result_is_refused_with_file_and_line(warehouse: Warehouse, tmp_path: Path) -> None:
    ingest_ordersage(warehouse, [ORDERSAGE_DIRS["memcached"]])
    before = sorted(p.name for p in warehouse.data_path.rglob("*"))
    bad = tmp_path / "bad_results"
    shutil.copytree(ORDERSAGE_DIRS["npbench"], bad)
    for f in bad.iterdir():
        f.chmod(0o644)
    host = next(bad.glob("c220g2*_test_results.csv"))
    lines = host.read_text().splitlines()
    lines[41] = lines[41].rsplit(",", 1)[0] + ",fast"
    host.write_text("\n".join(lines) + "\n")
    with pytest.raises(TrialParseError) as info:
        ingest_ordersage(warehouse, [bad])
    assert info.value.source.endswith(host.name)
    assert info.value.line == 42
    assert info.value.rule == "non-numeric"
    assert _count(warehouse) == 300
    assert sorted(p.name for p in warehouse.data_path.rglob("*")) == before


def test_the_same_directory_under_another_campaign_is_not_unchanged(warehouse: Warehouse) -> None:
    ingest_ordersage(warehouse, [ORDERSAGE_DIRS["ufs"]])
    other = ingest_ordersage(warehouse, [ORDERSAGE_DIRS["ufs"]], campaign="ufs-again")
    assert other.outcome == "landed" and other.trials_added == 400
    assert _count(warehouse, "SELECT count(DISTINCT campaign) FROM measurements") == 2


@pytest.mark.parametrize("change, rule", [("fast", "non-numeric"), ("999999", "copies-disagree")])
def test_the_other_copy_is_checked_too(warehouse: Warehouse, tmp_path: Path, change: str,
                                       rule: str) -> None:
    """Only one copy lands, but a broken or different value in the all_ file is refused."""
    bad = tmp_path / "bad_all"
    shutil.copytree(ORDERSAGE_DIRS["npbench"], bad)
    for f in bad.iterdir():
        f.chmod(0o644)
    copy = next(bad.glob("*_all_test_results.csv"))
    lines = copy.read_text().splitlines()
    lines[9] = lines[9].rsplit(",", 1)[0] + "," + change
    copy.write_text("\n".join(lines) + "\n")
    with pytest.raises(TrialParseError) as info:
        ingest_ordersage(warehouse, [bad])
    assert (info.value.source.endswith(copy.name), info.value.line, info.value.rule) == (True, 10, rule)
    assert not warehouse.exists() or _count(warehouse) == 0
