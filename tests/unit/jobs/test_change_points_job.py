"""The change-points job's compute on a partition table (no warehouse), and the history
page built from its output."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pyarrow as pa
import pyarrow.compute
import pytest

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
    assert lines[0].startswith("change-points: 4 series, 2 change points in 2 series at "
                               "alpha 0.01: 2 steps (2 regressions, 0 improvements)")


def test_by_time_and_min_change_are_honoured() -> None:
    table, _ = partition()
    out = compute(table, ChangePointParams(by="time", min_change=10.0))["change_points"]
    assert all(r["position"] is None for r in out.to_pylist())
    assert {r["ordered_by"] for r in out.to_pylist()} == {"time"}


def _drifting_runs(with_baseline_in: int = 120) -> pa.Table:
    """Two configurations measured in the same 120 runs (one trial each): ``tip`` and
    ``base``. The machine gets 10 % slower from run 40 on (both series move); tip alone
    gets 5 % slower from run 80 on. ``base`` runs only in the first ``with_baseline_in``
    runs."""
    rng = np.random.default_rng(4)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    rows = []
    for cid, name in ((1, "tip"), (2, "base")):
        for run in range(120):
            if name == "base" and run >= with_baseline_in:
                continue
            machine = 1.10 if run >= 40 else 1.0
            own = 1.05 if name == "tip" and run >= 80 else 1.0
            rows.append({
                "campaign": "c", "hardware_type": "hw", "config_id": cid, "benchmark": name,
                "settings": "{}", "metric": "runtime", "unit": "s", "higher_is_better": False,
                "revision": f"r{run:03d}", "revision_time": start + timedelta(days=run),
                "started_at": start + timedelta(days=run, minutes=cid), "run_id": run,
                "position": cid,
                "value": 10.0 * machine * own * float(np.exp(rng.normal(0, 0.003)))})
    return pa.Table.from_pylist(rows).cast(pa.schema([
        ("campaign", pa.string()), ("hardware_type", pa.string()), ("config_id", pa.uint64()),
        ("benchmark", pa.string()), ("settings", pa.string()), ("metric", pa.string()),
        ("unit", pa.string()), ("higher_is_better", pa.bool_()), ("revision", pa.string()),
        ("revision_time", pa.timestamp("us", tz="UTC")),
        ("started_at", pa.timestamp("us", tz="UTC")), ("run_id", pa.int64()),
        ("position", pa.int64()), ("value", pa.float64())]))


def _baseline_rows(table: pa.Table, name: str) -> tuple[tuple, ...]:
    """What the prepare query returns: the baseline's median per run (here one trial)."""
    base = table.filter(pa.compute.equal(table.column("benchmark"), name))
    return tuple((r["campaign"], r["hardware_type"], r["run_id"], r["metric"], r["value"])
                 for r in base.to_pylist())


def test_paired_baseline_cancels_the_machine_drift() -> None:
    from dataclasses import replace

    from perfwarehouse.jobs.change_points import prepare_baseline

    table = _drifting_runs()
    raw = compute(table, ChangePointParams())["change_points"].to_pylist()
    assert sorted((r["config_id"], r["position"]) for r in raw) == [(1, 40), (1, 80), (2, 40)]
    prepared = prepare_baseline(pa.table({
        "campaign": [r[0] for r in _baseline_rows(table, "base")],
        "hardware_type": [r[1] for r in _baseline_rows(table, "base")],
        "run_id": [r[2] for r in _baseline_rows(table, "base")],
        "metric": [r[3] for r in _baseline_rows(table, "base")],
        "baseline": [r[4] for r in _baseline_rows(table, "base")]}),
        ChangePointParams(baseline="base"))
    assert prepared.baseline_values == _baseline_rows(table, "base")
    paired = {(r["config_id"], r["position"]): r
              for r in compute(table, prepared)["change_points"].to_pylist()}
    assert sorted(paired) == [(1, 80), (2, 40)]  # tip / base changes once; base stays raw
    tip = paired[(1, 80)]
    assert tip["paired_with"] == "base" and tip["n_unpaired"] == 0
    assert 4 < tip["change_pct"] < 6 and tip["median_before"] == pytest.approx(1.0, abs=0.01)
    assert paired[(2, 40)]["paired_with"] is None
    # runs without a baseline: left out and counted, never silently
    short = _drifting_runs(with_baseline_in=100)
    params = replace(prepared, baseline_values=_baseline_rows(short, "base"))
    out = compute(short, params)["change_points"].to_pylist()
    tip_rows = [r for r in out if r["config_id"] == 1]
    assert {r["n_unpaired"] for r in tip_rows} == {20}
    assert {r["n_points"] for r in tip_rows} == {100}
    lines = summarize({"change_points": compute(short, params)["change_points"]}, params)
    assert any("20 trials without a baseline in their run left out" in line for line in lines)
    # a series none of whose runs has a baseline gets a row that says so
    none = replace(params, baseline_values=_baseline_rows(short, "base")[:0] + (
        ("c", "hw", 999, "runtime", 1.0),))
    rows = compute(short, none)["change_points"].to_pylist()
    [tip_row] = [r for r in rows if r["config_id"] == 1]
    assert tip_row["position"] is None and "no trial has a baseline" in tip_row["reason"]


def test_unknown_baseline_is_a_one_line_error() -> None:
    from perfwarehouse.errors import AnalysisError
    from perfwarehouse.jobs.change_points import prepare_baseline

    empty = pa.table({"campaign": pa.array([], pa.string()),
                      "hardware_type": pa.array([], pa.string()),
                      "run_id": pa.array([], pa.int64()), "metric": pa.array([], pa.string()),
                      "baseline": pa.array([], pa.float64())})
    with pytest.raises(AnalysisError, match="no trial of that benchmark"):
        prepare_baseline(empty, ChangePointParams(baseline="nope"))
    assert prepare_baseline(empty, ChangePointParams()) == ChangePointParams()
