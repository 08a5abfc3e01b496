"""Rerunning a job from its previous run (perfwarehouse.jobs.incremental) against running
it whole on the same data: a small history over revisions, then a batch with new trials of
half of the benchmarks (one of which steps)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from perfwarehouse.generate.revisions import revision_records
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import get, incremental
from perfwarehouse.jobs.framework import run_job
from perfwarehouse.jobs.incremental import PER_CONFIGURATION, SUPPORTED, run_incremental
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.trial_logs import write

OLD = 24  # revisions r000..r023 first; r024..r031 of benchmarks 0-5 later
NEW_BENCHMARKS = 6


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """Every supported job run on the old data, then the new batch landed."""
    tmp = tmp_path_factory.mktemp("incremental")
    recs = revision_records(campaign="nightly", benchmarks=12, revisions=OLD + 8, trials=3,
                            noise=0.01, slowdowns={2: [(OLD + 2, 0.15)], 9: [(8, -0.1)]},
                            seed=5)
    old = [r for r in recs if int(r["revision"][1:]) < OLD]
    new = [r for r in recs if int(r["revision"][1:]) >= OLD
           and int(r["benchmark"][5:]) < NEW_BENCHMARKS]
    warehouse = Warehouse(tmp / "warehouse")
    ingest_jsonl(warehouse, [write(tmp / "old.jsonl", old)])
    for name in SUPPORTED:
        job = get(name)
        run_job(warehouse, job, job.params())
    ingest_jsonl(warehouse, [write(tmp / "new.jsonl", new)])
    return warehouse


def _rows(table: pa.Table) -> list[tuple[Any, ...]]:
    """The rows as sortable tuples (NaN as a string: NaN != NaN)."""
    def cell(v: Any) -> Any:
        return "nan" if isinstance(v, float) and math.isnan(v) else repr(v)
    return sorted(tuple(cell(r[c]) for c in sorted(table.column_names) if c != "job_run_id")
                  for r in table.to_pylist())


@pytest.mark.parametrize("name", PER_CONFIGURATION)
def test_a_per_configuration_job_equals_a_full_run(grown: Warehouse, name: str) -> None:
    job = get(name)
    result = run_incremental(grown, job, job.params(), "nightly")
    assert result is not None
    full = run_job(grown, job, job.params(), write=False)
    for output in job.outputs:
        assert _rows(result.tables[output]) == _rows(full.tables[output]), output


def test_change_points_reuse_unchanged_series_and_agree_with_a_full_search(
        grown: Warehouse) -> None:
    job = get("change-points")
    with grown.catalog() as con:
        before = fetch_arrow(con, "SELECT * FROM change_points")
    result = run_incremental(grown, job, job.params(), "nightly")
    assert result is not None
    got = result.tables["change_points"].to_pylist()
    full = run_job(grown, job, job.params(), write=False).tables["change_points"].to_pylist()

    def points(rows: list[dict[str, Any]]) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for r in rows:
            out.setdefault(r["benchmark"], [])
            if r["position"] is not None:
                out[r["benchmark"]].append(r["position"])
        return out

    mine, theirs = points(got), points(full)
    assert mine.keys() == theirs.keys() and len(mine) == 12
    for bench, positions in mine.items():
        assert len(positions) == len(theirs[bench]), bench
        assert all(abs(a - b) <= 1 for a, b in zip(positions, theirs[bench])), bench
    assert abs(mine["bench002"][-1] - 3 * (OLD + 2)) <= 1  # 3 trials a revision
    # the benchmarks without new trials keep their stored rows as they were
    def old_only(table: pa.Table) -> pa.Table:
        return table.filter(pa.array([int(b[5:]) >= NEW_BENCHMARKS for b in
                                      table.column("benchmark").to_pylist()]))

    same = old_only(result.tables["change_points"])
    assert same.num_rows >= 12 - NEW_BENCHMARKS
    assert _rows(same) == _rows(old_only(before).select(same.column_names))


def test_none_where_the_previous_run_cannot_be_used(grown: Warehouse) -> None:
    job = get("change-points")
    other = dataclasses.replace(job.params(), alpha=0.05)  # never ran with these
    assert run_incremental(grown, job, other, "nightly") is None
    assert run_incremental(grown, get("profile"), get("profile").params(), "nightly") is None
    assert run_incremental(grown, job, job.params(), "no-such-campaign") is None


def test_most_configurations_changed_runs_a_per_configuration_job_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every series grown (a nightly campaign): a per-configuration job is not rerun from
    its previous run (None: the caller runs it whole, the cheaper way to the same rows);
    change-points still is, reading each piece whole, and agrees with a full search."""
    recs = revision_records(campaign="nightly", benchmarks=6, revisions=OLD + 6, trials=2,
                            noise=0.01, slowdowns={1: [(OLD + 1, 0.15)]}, seed=7)
    warehouse = Warehouse(tmp_path / "warehouse")
    ingest_jsonl(warehouse, [write(tmp_path / "old.jsonl",
                                   [r for r in recs if int(r["revision"][1:]) < OLD])])
    for name in ("kpi", "change-points"):
        run_job(warehouse, get(name), get(name).params())
    ingest_jsonl(warehouse, [write(tmp_path / "new.jsonl",
                                   [r for r in recs if int(r["revision"][1:]) >= OLD])])
    assert run_incremental(warehouse, get("kpi"), get("kpi").params(), "nightly") is None
    read_whole: list[int] = []
    real = incremental.read_piece
    monkeypatch.setattr(incremental, "read_piece",
                        lambda *a: read_whole.append(1) or real(*a))
    job = get("change-points")
    result = run_incremental(warehouse, job, job.params(), "nightly")
    assert result is not None and read_whole
    full = run_job(warehouse, job, job.params(), write=False).tables["change_points"]
    mine = sorted((r["benchmark"], r["position"]) for r in result.tables["change_points"]
                  .to_pylist())
    theirs = sorted((r["benchmark"], r["position"]) for r in full.to_pylist())
    assert [b for b, _p in mine] == [b for b, _p in theirs]
    assert all(a is None and b is None or abs(a - b) <= 1
               for (_x, a), (_y, b) in zip(mine, theirs))


@pytest.mark.parametrize("name", ["variability", "aa-fpr", "change-points"])
def test_a_rerun_in_many_pieces_equals_one_in_one(
        grown: Warehouse, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rerun reads each piece's stored rows from the catalog and writes its results
    piece by piece (jobs/spill.py): in pieces of two configurations it gives the rows and
    the stored rows of a run in one piece, from the same previous run (the fixture's)."""
    from perfwarehouse.jobs import framework
    from perfwarehouse.jobs.spill import ResultTables

    job = get(name)
    with grown.catalog() as con:
        first = int(fetch_arrow(con, "SELECT min(job_run_id) AS id FROM job_runs WHERE job = ?",
                                [name]).column("id")[0].as_py())
        batches = fetch_arrow(con, "SELECT input_batches FROM job_runs WHERE job_run_id = ?",
                              [first]).column(0)[0].as_py()
    previous = incremental.Previous(first, frozenset(batches))
    monkeypatch.setattr(incremental, "previous_run", lambda *a: previous)
    one = run_incremental(grown, job, job.params(), "nightly")
    monkeypatch.setattr(framework, "SLICE_CONFIGURATIONS", 2)
    many = run_incremental(grown, job, job.params(), "nightly")
    assert one is not None and many is not None
    assert isinstance(many.tables, ResultTables)
    assert len(list(many.tables.directory.rglob("*.arrow"))) >= 6
    for output in job.outputs:
        assert many.tables[output].num_rows == one.tables[output].num_rows > 0
        assert _rows(many.tables[output]) == _rows(one.tables[output]), output
        with grown.catalog() as con:
            stored = [_rows(fetch_arrow(con, f"SELECT * FROM {output}_history WHERE "
                                             "job_run_id = ?", [r.job_run_id]))
                      for r in (one, many)]
        assert stored[0] == stored[1] and stored[0], output
