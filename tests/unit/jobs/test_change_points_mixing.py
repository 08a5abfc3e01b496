"""The change-points job and mixed series: the flag on every row, no action, the summary
line; --baseline KEY=VALUE pairs tip with that night's baseline (against a slow twin)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import numpy as np
import pyarrow as pa

from perfwarehouse.jobs import change_points as job

SCHEMA = pa.schema([
    ("campaign", pa.string()), ("hardware_type", pa.string()), ("config_id", pa.uint64()),
    ("benchmark", pa.string()), ("settings", pa.string()), ("metric", pa.string()),
    ("unit", pa.string()), ("higher_is_better", pa.bool_()), ("revision", pa.string()),
    ("revision_time", pa.timestamp("us", tz="UTC")),
    ("started_at", pa.timestamp("us", tz="UTC")), ("run_id", pa.string()),
    ("position", pa.int64()), ("value", pa.float64()), ("node", pa.string()),
    ("attributes", pa.string())])
START = datetime(2024, 3, 1, 2, tzinfo=timezone.utc)


def _nights(promoted: bool, nights: int = 30) -> pa.Table:
    """Tip (8 % faster) and baseline each night at one start time; the machine drifts
    (+10 % from night 15) and both see it. Promoted: the toolchain is a setting."""
    rng = np.random.default_rng(8)
    rows = []
    for tc, speed in (("baseline", 1.0), ("experiment", 0.92)):
        for night in range(nights):
            machine = 1.10 if night >= 15 else 1.0
            settings = {"toolchain": tc} if promoted else {}
            rows.append({
                "campaign": "c", "hardware_type": "hw",
                "config_id": (1 if tc == "baseline" else 2) if promoted else 1,
                "benchmark": "BenchmarkX", "settings": json.dumps(settings),
                "metric": "ns/op", "unit": "ns", "higher_is_better": False, "revision": None,
                "revision_time": None, "started_at": START + timedelta(days=night),
                "run_id": f"{night}-{tc}", "position": 0,
                "value": 1000 * speed * machine * float(np.exp(rng.normal(0, 0.003))),
                "node": "builder",
                "attributes": None if promoted else json.dumps({"toolchain": tc, "line": 9})})
    table = pa.Table.from_pylist(rows, schema=SCHEMA)
    return table.sort_by([("config_id", "ascending"), ("started_at", "ascending"),
                          ("run_id", "ascending")])


def test_a_mixed_series_is_flagged_on_every_row_and_needs_no_action() -> None:
    params = job.ChangePointParams(by="time", permutations=199, split_permutations=99)
    out = job.compute(_nights(promoted=False), params)[job.OUTPUT].to_pylist()
    assert out and all(r["mixed"] == "several runs at one start time (30 of 30 start "
                       "times); split by attribute toolchain" for r in out)
    assert not any(r["action"] for r in out)
    lines = job.summarize({job.OUTPUT: pa.Table.from_pylist(out, schema=job.SCHEMA)}, params)
    assert any("1 series mix what should be apart" in line for line in lines)
    assert not any(line.startswith("  largest") for line in lines)  # nothing unmixed


def _twin(table: pa.Table, key: str, value: str) -> dict[int, list[float]]:
    """Slow obvious pairing: each trial whose KEY is not VALUE over the KEY=VALUE trial of
    the same benchmark, other settings, metric and start time."""
    rows = table.to_pylist()

    def rest(r: dict) -> str:
        s = json.loads(r["settings"])
        s.pop(key, None)
        return json.dumps(s, sort_keys=True)

    out: dict[int, list[float]] = {}
    for r in rows:
        if json.loads(r["settings"]).get(key) in (None, value):
            continue
        base = [b["value"] for b in rows if json.loads(b["settings"]).get(key) == value
                and b["benchmark"] == r["benchmark"] and rest(b) == rest(r)
                and b["metric"] == r["metric"] and b["started_at"] == r["started_at"]]
        out.setdefault(r["config_id"], []).append(r["value"] / float(np.median(base)))
    return out


def test_pairing_by_a_setting_divides_tip_by_that_nights_baseline() -> None:
    table = _nights(promoted=True)
    base = table.filter(pa.compute.equal(table.column("config_id"), 1)).to_pylist()
    divisors = tuple(("setting", r["campaign"], r["hardware_type"], r["benchmark"],
                      job._without(r["settings"], "toolchain"), r["metric"], r["started_at"],
                      r["value"]) for r in base if r["started_at"] != START)  # night 0 missing
    paired, unpaired, divided = job.pair_by_setting(table, "toolchain=baseline", divisors)
    assert divided == {2} and unpaired == {2: 1}
    got = paired.filter(pa.compute.equal(paired.column("config_id"), 2))
    want = _twin(table.filter(pa.compute.not_equal(table.column("started_at"),
                                                   pa.scalar(START))), "toolchain", "baseline")
    np.testing.assert_allclose(got.column("value").to_numpy(), want[2])
    # the ratio cancels the machine's drift: no change point in tip / baseline
    params = job.ChangePointParams(by="time", baseline="toolchain=baseline",
                                   baseline_values=divisors, permutations=199,
                                   split_permutations=99)
    out = job.compute(table, params)[job.OUTPUT].to_pylist()
    tip = [r for r in out if r["config_id"] == 2]
    raw = [r for r in out if r["config_id"] == 1]
    assert [r["position"] for r in tip] == [None] and tip[0]["paired_with"] == \
        "toolchain=baseline" and tip[0]["n_unpaired"] == 1
    assert any(r["position"] == 15 for r in raw) and raw[0]["paired_with"] is None
    assert all(r["mixed"] is None for r in out)
