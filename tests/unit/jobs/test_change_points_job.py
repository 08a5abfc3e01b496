"""The change-points job's compute on a partition table (no warehouse), and the history
page built from its output."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pyarrow as pa

from perfwarehouse.jobs.change_points import SCHEMA, ChangePointParams, compute, summarize


def partition(seed: int = 1) -> tuple[pa.Table, pa.Table]:
    """Rows as ``change_point_series.sql`` returns them: config 1 (runtime) slows down 8 %
    at trial 60 of 120; config 2 (throughput) drops 8 % (a regression) at 40 of 80;
    config 3 is stationary; config 4 has 6 trials. Returns (rows, series for the report)."""
    rng = np.random.default_rng(seed)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    rows = []
    for cid, (n, at, factor, hib) in enumerate([(120, 60, 1.08, False), (80, 40, 0.92, True),
                                                (100, None, 1.0, False), (6, None, 1.0, False)],
                                               start=1):
        for i in range(n):
            rev = i // 4
            level = 10.0 * (factor if at is not None and i >= at else 1.0)
            rows.append({
                "campaign": "c", "hardware_type": "hw", "config_id": cid,
                "benchmark": f"bench{cid}", "settings": "{}",
                "metric": "throughput" if hib else "runtime", "unit": "ops/s" if hib else "s",
                "higher_is_better": hib, "revision": f"r{rev:03d}",
                "revision_time": start + timedelta(days=rev),
                "started_at": start + timedelta(days=rev, minutes=i),
                "value": level * float(np.exp(rng.normal(0, 0.01))),
            })
    table = pa.Table.from_pylist(rows).cast(pa.schema([
        ("campaign", pa.string()), ("hardware_type", pa.string()), ("config_id", pa.uint64()),
        ("benchmark", pa.string()), ("settings", pa.string()), ("metric", pa.string()),
        ("unit", pa.string()), ("higher_is_better", pa.bool_()), ("revision", pa.string()),
        ("revision_time", pa.timestamp("us", tz="UTC")),
        ("started_at", pa.timestamp("us", tz="UTC")), ("value", pa.float64())]))
    series = table.select(["campaign", "hardware_type", "config_id", "revision",
                           "revision_time", "started_at", "value"])
    idx = np.concatenate([np.arange(n) for n in (120, 80, 100, 6)])
    return table, series.append_column("idx", pa.array(idx, pa.int64()))


def test_compute_finds_planted_changes_and_says_why_not() -> None:
    table, _ = partition()
    out = compute(table, ChangePointParams())["change_points"]
    assert out.schema == SCHEMA
    rows = {r["config_id"]: r for r in out.to_pylist()}
    assert len(out) == 4
    one, two, three, four = rows[1], rows[2], rows[3], rows[4]
    assert one["position"] == 60 and one["revision"] == "r015" and one["revision_before"] == "r014"
    assert one["direction"] == "regression" and 7 < one["change_pct"] < 9
    assert one["ci_low_pct"] < one["change_pct"] < one["ci_high_pct"]
    assert two["position"] == 40 and two["direction"] == "regression"
    assert two["change_pct"] < -7
    assert three["position"] is None and "no significant change" in three["reason"]
    assert four["position"] is None and four["reason"].startswith("too short: 6 points")
    lines = summarize({"change_points": out}, ChangePointParams())
    assert lines[0].startswith("change-points: 4 series, 2 change points in 2 series "
                               "(2 regressions, 0 improvements)")


def test_by_time_and_min_change_are_honoured() -> None:
    table, _ = partition()
    out = compute(table, ChangePointParams(by="time", min_change=10.0))["change_points"]
    assert all(r["position"] is None for r in out.to_pylist())
    assert {r["ordered_by"] for r in out.to_pylist()} == {"time"}
