"""The predecessor-effects job against a slow twin, and both jobs on generated campaigns
with planted effects (the recovery rates are printed with -s)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import order_effects as oe
from perfwarehouse.jobs import predecessor_effects as pe
from perfwarehouse.jobs.framework import run_job
from perfwarehouse.stats import median_ci
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

POLLUTER = "t3"


def write_campaign(path: Path, seed: int = 3) -> list[dict]:
    """8 tests on one hardware type; whichever test runs right after t3 reports a 15 % lower
    value.
    Trial t5 of some random runs fails without a value (its successor's predecessor is
    unknown), and one run's t6 fails with a value (status 'failed', not analysed)."""
    rng = np.random.default_rng(seed)
    tests = [f"t{i}" for i in range(8)]
    level = {t: 100.0 * (i + 1) for i, t in enumerate(tests)}
    records = []
    for run in range(160):
        kind = "random" if run % 3 else "fixed"
        order = list(rng.permutation(tests)) if kind == "random" else tests
        previous = None
        for position, test in enumerate(order):
            value = level[test] * rng.lognormal(0, 0.01) * (0.85 if previous == POLLUTER else 1.0)
            previous = test
            status = "ok"
            if kind == "random" and test == "t5" and run % 7 == 0:
                continue  # failed, no row at all
            if run == 10 and test == "t6":
                status = "failed"
            records.append({
                "v": 1, "campaign": "synthetic", "run_id": f"r{run:03d}", "node": f"n{run % 4}",
                "hardware_type": "hwA", "run_index": run, "order_kind": kind, "seed": run,
                "position": position, "benchmark": test, "settings": {}, "metric": "runtime",
                "unit": "s", "higher_is_better": False, "values": [round(float(value), 4)],
                "started_at": f"2024-01-01T{run // 60:02d}:{run % 60:02d}:{position:02d}Z",
                "status": status,
            })
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return records


def slow_predecessor_effects(records: list[dict], min_trials: int, confidence: float) -> dict:
    """Per configuration, with dicts and scipy: groups by predecessor, KW, the worst group."""
    at = {(r["run_id"], r["position"]): r["benchmark"] for r in records}
    groups: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        if r["order_kind"] != "random" or r["status"] != "ok":
            continue
        if r["position"] == 0:
            before = "(start)"
        elif (r["run_id"], r["position"] - 1) in at:
            before = at[(r["run_id"], r["position"] - 1)]
        else:
            continue  # unknown predecessor
        groups[r["benchmark"]][before].append(r["values"][0])
    out = {}
    for test, by_before in groups.items():
        samples = list(by_before.values())
        pooled = [v for s in samples for v in s]
        res = scipy.stats.kruskal(*samples)
        median = np.median(pooled)
        candidates = [(abs(np.median(s) - median) / abs(median), b) for b, s in by_before.items()
                      if len(s) >= min_trials]
        _, worst = max(candidates)
        rest = [v for b, s in by_before.items() if b != worst for v in s]
        group = by_before[worst]
        out[test] = {
            "n_random": len(pooled), "n_predecessors": len(samples), "kw_h": res.statistic,
            "kw_p": res.pvalue, "worst": worst, "worst_n": len(group),
            "worst_median": np.median(group), "rest_median": np.median(rest),
            "worst_ci": median_ci(group, confidence), "rest_ci": median_ci(rest, confidence),
            "mwu_p": scipy.stats.mannwhitneyu(group, rest, method="asymptotic").pvalue,
            "n_candidates": len(candidates),
        }
    return out


def test_predecessor_job_equals_the_slow_twin(warehouse: Warehouse, tmp_path: Path) -> None:
    path = tmp_path / "synthetic.jsonl"
    records = write_campaign(path)
    ingest_jsonl(warehouse, [path])
    result = run_job(warehouse, pe.JOB, pe.PredecessorParams())
    with warehouse.catalog() as con:
        rows = {r["benchmark"]: r for r in fetch_arrow(
            con, "SELECT * FROM predecessor_effects_history WHERE job_run_id = $id",
            {"id": result.job_run_id}).to_pylist()}
    expected = slow_predecessor_effects(records, 3, 0.95)
    assert set(rows) == set(expected)
    for test, ref in expected.items():
        row = rows[test]
        assert row["n_random"] == ref["n_random"]
        assert row["n_predecessors"] == ref["n_predecessors"]
        assert row["kw_h"] == pytest.approx(ref["kw_h"], rel=1e-9)
        assert row["kw_p"] == pytest.approx(ref["kw_p"], rel=1e-9)
        worst = ("(start)" if row["worst_is_run_start"] else row["worst_predecessor_benchmark"])
        assert worst == ref["worst"]
        assert row["worst_n"] == ref["worst_n"]
        assert row["worst_median"] == ref["worst_median"]
        assert row["rest_median"] == ref["rest_median"]
        for name in ("worst", "rest"):
            ci = ref[f"{name}_ci"]
            assert (row[f"{name}_ci_low"], row[f"{name}_ci_high"]) == (ci.low, ci.high)
        assert row["median_shift_pct"] == pytest.approx(
            (ref["worst_median"] - ref["rest_median"]) / ref["rest_median"] * 100)
        assert row["mwu_p"] == pytest.approx(ref["mwu_p"], rel=1e-9)
        assert row["n_candidates"] == ref["n_candidates"]
    # the planted polluter is found behind every other test, with its -15 %
    for test, row in rows.items():
        if test != POLLUTER:
            assert row["worst_predecessor_benchmark"] == POLLUTER
            assert row["median_shift_pct"] == pytest.approx(-15, abs=1.5)
            assert row["reject_bonferroni"]
            # a 95 % median CI needs 6 values: fewer give no CI and no case, never a guess
            assert row["ci_case"] == (1 if row["worst_n"] >= 6 else None)
    unknown = sum(r["n_unknown_predecessor"] for r in rows.values())
    assert unknown == sum(1 for r in records if r["order_kind"] == "random" and r["position"] > 0
                          and r["status"] == "ok" and not any(
                              o["run_id"] == r["run_id"] and o["position"] == r["position"] - 1
                              for o in records))


# ------------------------------------------------------- generated long-term campaign
@pytest.fixture(scope="module")
def longterm(small_longterm: Path, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[Warehouse, dict]:
    warehouse = Warehouse(tmp_path_factory.mktemp("longterm") / "warehouse")
    ingest_jsonl(warehouse, [small_longterm])
    truth = json.loads(Path(str(small_longterm) + ".truth.json").read_text())
    return warehouse, truth


def key(row: dict) -> tuple[str, str, str, str]:
    return row["benchmark"], row["settings"], row["metric"], row["hardware_type"]


def test_planted_order_effects_are_recovered(longterm: tuple[Warehouse, dict]) -> None:
    """small_longterm is a 2 % campaign: 2-30 trials per group, so only large effects with
    enough trials are within reach of the test. Of those, most are found, with the planted
    direction; unplanted configurations are rejected at about the nominal rate or less."""
    warehouse, truth = longterm
    rows = {key(r): r for r in run_job(warehouse, oe.JOB, oe.OrderEffectsParams(),
                                       write=False).tables["order_effects"].to_pylist()}
    planted = {key(o): o for o in truth["order_dependent"]}
    assert planted.keys() <= rows.keys()

    def direction_ok(row: dict, effect: dict) -> bool:
        # expected_delta_pct is on the performance factor: a lower-is-better metric moves the
        # other way
        better_fixed = effect["expected_delta_pct"] > 0
        return (row["delta_pct"] > 0) == (better_fixed == bool(row["higher_is_better"]))

    reachable = [(rows[k], o) for k, o in planted.items()
                 if min(rows[k]["n_fixed"], rows[k]["n_random"]) >= 5
                 and abs(o["expected_delta_pct"]) >= 5]
    found = [(r, o) for r, o in reachable if r["reject_alpha"] and direction_ok(r, o)]
    everything = [rows[k] for k in planted]
    unplanted = [r for k, r in rows.items() if k not in planted and r["kw_p"] is not None]
    false_rate = sum(r["reject_alpha"] for r in unplanted) / len(unplanted)
    print(f"\nsmall_longterm: {len(found)}/{len(reachable)} planted effects >= 5 % with >= 5 "
          f"trials per group found at alpha (direction right); all planted: "
          f"{sum(r['reject_alpha'] for r in everything)}/{len(everything)} at alpha, "
          f"{sum(r['reject_bonferroni'] for r in everything)} at alpha/m; unplanted rejected at "
          f"alpha: {false_rate:.3f}")
    assert len(reachable) >= 15
    assert len(found) >= 0.6 * len(reachable)
    assert false_rate <= 0.05
    assert not any(r["reject_bonferroni"] for r in unplanted)


def test_predecessor_job_runs_on_the_generated_campaign(longterm: tuple[Warehouse, dict]) -> None:
    warehouse, _truth = longterm
    result = run_job(warehouse, pe.JOB, pe.PredecessorParams(min_trials=1), write=False)
    rows = result.tables["predecessor_effects"].to_pylist()
    assert len(rows) == 1880
    with warehouse.catalog() as con:
        random_ok = con.execute("SELECT count(*) FROM measurements WHERE order_kind = 'random' "
                                "AND status = 'ok'").fetchall()[0][0]
    # every random value is analysed or counted as having an unknown predecessor
    assert sum(r["n_random"] + r["n_unknown_predecessor"] for r in rows) == random_ok
    # min_trials = 1: every configuration with two predecessors has a worst one
    assert all(r["worst_n"] is not None for r in rows if r["kw_df"] is not None)
    assert result.summary and "tested across predecessors" in result.summary[0]
