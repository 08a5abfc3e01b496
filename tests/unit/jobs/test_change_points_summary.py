"""The change-points job's summary lines, computed from the result's columns, against a
slow obvious twin that walks the rows as Python dicts (the code they replaced), on random
result tables: series with and without change points, every kind of shift, nulls,
mixed series, counts of unpaired trials, ties for the largest change."""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime, timezone

import pyarrow as pa
import pytest

from perfwarehouse.jobs.change_points import OUTPUT, ChangePointParams, summarize


def twin(t: pa.Table, params: ChangePointParams) -> list[str]:
    rows = t.to_pylist()
    key = lambda r: (r["campaign"], r["hardware_type"], r["config_id"])  # noqa: E731
    points = [r for r in rows if r["position"] is not None]
    stepped = [r for r in points if r["shift"] in (None, "step")]
    regressions = sum(1 for r in stepped if r["direction"] == "regression")
    shifts = sum(1 for r in points if r["shift"] == "level shift")
    tails = sum(1 for r in points if r["shift"] == "tail")
    lines = [f"change-points: {len({key(r) for r in rows}):,} series, {len(points):,} change "
             f"points in {len({key(r) for r in points}):,} series at alpha {params.alpha:g}: "
             f"{len(stepped):,} steps ({regressions:,} regressions, "
             f"{len(stepped) - regressions:,} improvements)"
             + (f", {shifts:,} level shifts of series that drift or cycle" if shifts else "")
             + (f", {tails:,} in the last points at no new revision" if tails else "")]
    if points:
        action = sum(1 for r in points if r["action"])
        lines.append(f"  {action:,} need action (interval beyond +-{params.min_effect:g} %)")
    if params.baseline is not None:
        left_out = sum({key(r): r["n_unpaired"] or 0 for r in rows}.values())
        lines.append(f"  series divided run by run by {params.baseline}'s median; "
                     f"{left_out:,} trials without a baseline in their run left out")
    mixed = {key(r): r for r in rows if r.get("mixed")}
    if mixed:
        lines.append(f"  {len(mixed):,} series mix what should be apart (their change points "
                     "need no action; split them):")
        for r in list(mixed.values())[:3]:
            lines.append(f"    {r['benchmark']} ({r['metric']}) on {r['hardware_type']}: "
                         f"{r['mixed']}")
        if len(mixed) > 3:
            lines.append(f"    ... and {len(mixed) - 3:,} more (column mixed)")
    short = sum(1 for r in rows if (r["reason"] or "").startswith("too short"))
    if short:
        lines.append(f"  {short:,} series too short for the test "
                     f"(fewer than {2 * params.min_size} trials)")
    unmixed = [r for r in points if not r.get("mixed")]
    if unmixed:
        big = max(unmixed, key=lambda r: abs(r["change_pct"] or 0.0))
        lines.append(f"  largest: {big['benchmark']} ({big['metric']}) on {big['hardware_type']}"
                     f": {big['change_pct']:+.2f} % at {big['revision'] or big['started_at']}")
    return lines


def random_result(rng: random.Random) -> pa.Table:
    rows = []
    for config in range(rng.randrange(1, 30)):
        hardware = rng.choice(["a", "b"])
        mixed = rng.choice([None, None, "", f"two groups {config}"])
        unpaired = rng.choice([None, 0, rng.randrange(9)])
        points = rng.choice([0, 0, 1, 3])
        reason = rng.choice([None, "too short (5 trials)", "no change"]) if not points else None
        for i in range(max(points, 1)):
            rows.append({
                "campaign": "c", "hardware_type": hardware, "config_id": config,
                "benchmark": f"b{config}", "metric": "m", "mixed": mixed,
                "n_unpaired": unpaired, "reason": reason,
                "position": rng.randrange(100) if points else None,
                "shift": rng.choice([None, "step", "level shift", "tail"]) if points else None,
                "direction": rng.choice([None, "regression", "improvement"]),
                "action": rng.choice([None, True, False]),
                "change_pct": rng.choice([None, -5.0, 5.0, rng.uniform(-20, 20)]),
                "revision": rng.choice([None, f"r{i}"]),
                "started_at": datetime(2024, 1, 1 + i, tzinfo=timezone.utc)})
    return pa.Table.from_pylist(rows)


@pytest.mark.parametrize("seed", range(30))
def test_the_summary_equals_the_row_by_row_twin(seed: int) -> None:
    rng = random.Random(seed)
    table = random_result(rng)
    for params in (ChangePointParams(), dataclasses.replace(ChangePointParams(), baseline="base")):
        assert summarize({OUTPUT: table}, params) == twin(table, params)


def test_no_rows_is_no_series() -> None:
    assert summarize({}, ChangePointParams()) == ["change-points: no series"]
