"""refresh's drift rule through a real warehouse (refresh/drifts.py): of three nightly
series that trends calls drifting, the one whose change is a step is not a new drift,
the one that drifts (with a step too) and the one that drifts without a step are."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import get
from perfwarehouse.jobs.framework import run_job
from perfwarehouse.refresh.drifts import without_explained_drifts
from perfwarehouse.refresh.points import change_points_at, findings_at
from perfwarehouse.warehouse.store import Warehouse

NIGHTS = 120
START = datetime(2025, 1, 1, tzinfo=timezone.utc)


def _value(bench: int, night: int, noise: float) -> float:
    step = 1.15 if bench in (0, 1) and night >= 90 else 1.0  # a 15 % step at night 90
    drift = 1 + 0.001 * night if bench in (1, 2) else 1.0  # +0.1 % a night
    return 50.0 * step * drift * noise


def _records(path: Path) -> Path:
    rng = np.random.default_rng(4)
    with path.open("w") as out:
        for night in range(NIGHTS):
            when = START + timedelta(days=night)
            for b in range(4):  # bench 3: neither step nor drift
                out.write(json.dumps({
                    "v": 1, "campaign": "nightly", "run_id": f"n{night:04d}",
                    "node": "n1", "hardware_type": "hw", "run_index": night,
                    "order_kind": "fixed", "seed": 1, "position": b, "run_size": 4,
                    "benchmark": f"bench{b}", "settings": {}, "metric": "runtime",
                    "unit": "s", "higher_is_better": False,
                    "values": [_value(b, night, float(np.exp(rng.normal(0, 0.01))))],
                    "started_at": (when + timedelta(seconds=b)).isoformat()
                    .replace("+00:00", "Z"), "status": "ok", "revision": f"r{night:04d}",
                    "revision_time": when.isoformat().replace("+00:00", "Z"),
                }) + "\n")
    return path


def test_a_drift_explained_by_a_step_is_dropped_a_real_one_kept(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "warehouse")
    ingest_jsonl(warehouse, [_records(tmp_path / "nights.jsonl")])
    for name in ("change-points", "trends"):
        run_job(warehouse, get(name), get(name).params())
    now = findings_at(warehouse, lambda c: c)
    drifting = sorted(f.benchmark for f in now if f.kind == "drift")
    assert drifting == ["bench0", "bench1", "bench2"]  # trends: one slope per series
    steps = sorted({p.config_id for p in change_points_at(warehouse) if p.shift == "step"})
    assert len(steps) >= 2  # bench0's and bench1's steps
    kept = without_explained_drifts(warehouse, now, change_points_at(warehouse))
    assert sorted(f.benchmark for f in kept if f.kind == "drift") == ["bench1", "bench2"]
    assert [f for f in kept if f.kind != "drift"] == [f for f in now if f.kind != "drift"]
