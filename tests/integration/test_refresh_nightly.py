"""Issue 41's acceptance check at a tiny size, no timing (the measured version:
benchmarks/bench_refresh_nightly.py): a nightly history with old steps, then 8 more
nights in which 3 benchmarks regress by 15 %; the second refresh reruns change points
from the first's results, names those 3, finds nothing else that a full search of the same
data would not, and its change points equal that search's within one position."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.bench_refresh_nightly import nights, same_within_one
from perfwarehouse.changepoints.incremental import anchor_margin
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import incremental
from perfwarehouse.jobs.change_points import JOB
from perfwarehouse.jobs.framework import run_job
from perfwarehouse.jobs.incremental import run_incremental
from perfwarehouse.refresh.run import RefreshOptions, refresh
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow


def test_eight_more_nights_name_the_three_regressions(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ingest/sources.toml here: nothing is pulled
    old, new, regressing = nights(tmp_path, 100, 100, 8, 41)
    warehouse = Warehouse(tmp_path / "warehouse")
    options = RefreshOptions(site=None, jobs=("change-points",), processes=1)
    ingest_jsonl(warehouse, [old])
    refresh(warehouse, options)
    ingest_jsonl(warehouse, [new])
    reruns: list[object] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        reruns.append(result := run_incremental(*args, **kwargs))
        return result

    monkeypatch.setattr(incremental, "run_incremental", spy)
    second = refresh(warehouse, options)
    assert len(reruns) == 1 and reruns[0] is not None  # from the first refresh's results
    with warehouse.catalog() as con:
        stored = fetch_arrow(con, "SELECT * FROM change_points")
    named = sorted(f.benchmark for f in second.new if f.kind == "regression")
    expected = [f"bench{b:04d}" for b in regressing]
    assert set(expected) <= set(named)
    full = run_job(warehouse, JOB, JOB.params(), write=False).tables["change_points"]
    agreement = same_within_one(stored, full)
    assert agreement["series"] == 100
    assert agreement["same_within_one"] >= 0.97, agreement["differ"]
    # measured 98 of 100 at this size (the benchmark holds the 1,500 series of a year to
    # 99 %); each series that differs is one where the full search changed its own answer
    # about the old nights (the first refresh's search, job run 1, found otherwise there)
    with warehouse.catalog() as con:
        first = fetch_arrow(con, "SELECT config_id, position FROM change_points_history "
                                 "WHERE job_run_id = 1 AND position IS NOT NULL").to_pylist()
    edge = 100 - anchor_margin(4)
    for config, _mine, theirs in agreement["differ"]:
        old_points = sorted(r["position"] for r in first if str(r["config_id"]) == config)
        kept = [p for p in old_points if p < edge]
        again = [p for p in theirs or [] if p < edge]
        assert len(kept) != len(again) or any(abs(a - b) > 1 for a, b in zip(kept, again))
    # the other findings: at most two here (100 short series: a stationary one may get its
    # first false alarm at alpha 1 % as it grows), each a step the full search finds too
    others = [f for f in second.new if f.benchmark not in expected]
    assert len(others) <= 2, others
    steps = {(r["benchmark"], r["revision"]) for r in full.to_pylist() if r["shift"] == "step"}
    assert all((f.benchmark, f.revision) in steps for f in others)
