"""`analyze change-points --by time` leaves out the trials without a start time and says so
once (issue 27: time is never invented; analyses over time say which trials they left out);
`--by revision` keeps them. A real warehouse: hyperfine exports (which hold no time),
ingested with --started-at for the timed runs and without it for the others."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import ingest_import
from perfwarehouse.jobs.change_points import JOB, ChangePointParams
from perfwarehouse.jobs.framework import run_job
from perfwarehouse.warehouse.store import Warehouse

KEYS = ("config_id", "position", "n_points", "started_at", "median_before", "median_after",
        "change_pct", "p_value", "reason")


def export(path: Path, times: list[float]) -> Path:
    path.write_text(json.dumps({"results": [{
        "command": "./bench", "mean": float(np.mean(times)), "times": times,
        "exit_codes": [0] * len(times)}]}))
    return path


def warehouse_of(root: Path, untimed: int, seed: int) -> Warehouse:
    """24 timed runs (a 20 % slowdown from run 12), their start time given by the path
    (``timed/<YYYYmmdd>.json``), and ``untimed`` runs of wild values whose files hold no
    time, ingested without one."""
    rng = np.random.default_rng(seed)
    (root / "timed").mkdir(parents=True)
    warehouse = Warehouse(root / "warehouse")
    start = datetime(2024, 2, 1, tzinfo=timezone.utc)
    for i in range(24):
        level = 1.2 if i >= 12 else 1.0
        times = [level * float(np.exp(rng.normal(0, 0.01))) for _ in range(5)]
        export(root / "timed" / f"{start + timedelta(days=i):%Y%m%d}.json", times)
    ingest_import(warehouse, "hyperfine", [root / "timed"],
                  ImportOptions(node="n1", campaign="c",
                                path_pattern="timed/{started_at:%Y%m%d}.json"))
    if untimed:
        files = [export(root / f"untimed{i}.json", [float(rng.uniform(50, 500))] * 5)
                 for i in range(untimed)]
        ingest_import(warehouse, "hyperfine", files, ImportOptions(node="n1", campaign="c"))
    return warehouse


def rows(result) -> list[tuple]:
    table = result.tables["change_points"]
    return sorted(tuple(r[k] for k in KEYS) for r in table.to_pylist())


def test_change_points_over_time_are_those_of_the_timed_trials(tmp_path: Path) -> None:
    mixed = warehouse_of(tmp_path / "mixed", untimed=6, seed=1)
    timed = warehouse_of(tmp_path / "timed", untimed=0, seed=1)
    params = ChangePointParams(by="time")
    got = run_job(mixed, JOB, params, write=False)
    expected = run_job(timed, JOB, params, write=False)
    assert rows(got) == rows(expected)
    assert [r[1] for r in rows(got)] == [12]  # the planted change, nothing at the end
    notes = [line for line in got.summary if "no start time" in line]
    assert len(notes) == 1 and notes[0].startswith("change-points: 6 trials in 1 campaign")
    assert not [line for line in expected.summary if "no start time" in line]


def test_by_revision_keeps_the_untimed_trials_and_says_nothing(tmp_path: Path) -> None:
    mixed = warehouse_of(tmp_path, untimed=6, seed=3)
    got = run_job(mixed, JOB, ChangePointParams(by="revision"), write=False)
    assert {r[2] for r in rows(got)} == {30}  # 24 timed + 6 untimed points in the series
    assert not [line for line in got.summary if "no start time" in line]
