"""The variability, aa-fpr and detectable-regression jobs' pure compute functions."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
import pytest

from perfwarehouse import laaber
from perfwarehouse.errors import UsageError
from perfwarehouse.jobs import JOBS, get
from perfwarehouse.jobs.detectable_regression import (
    AAParams,
    DetectableParams,
    compute_aa,
    compute_detectable,
)
from perfwarehouse.jobs.variability import VariabilityParams
from perfwarehouse.jobs.variability import compute as compute_variability
from tests.naive import laaber as naive


def query_table(configs, *, hardware_type="hw-a", campaign="camp", first_id=1) -> pa.Table:
    """Rows shaped and ordered like sql/queries/laaber_measurements.sql."""
    cols: dict[str, list] = {k: [] for k in (
        "campaign", "hardware_type", "config_id", "benchmark", "settings", "metric", "unit",
        "higher_is_better", "node", "run_id", "value")}
    for i, cfg in enumerate(configs):
        for n, node in enumerate(cfg.values):
            for t, trial in enumerate(node):
                for v in np.sort(trial):
                    cols["campaign"].append(campaign)
                    cols["hardware_type"].append(hardware_type)
                    cols["config_id"].append(first_id + i)
                    cols["benchmark"].append(cfg.name)
                    cols["settings"].append('{"threads":1}')
                    cols["metric"].append("throughput" if cfg.higher_is_better else "time")
                    cols["unit"].append("ops/s" if cfg.higher_is_better else "ns")
                    cols["higher_is_better"].append(cfg.higher_is_better)
                    cols["node"].append(f"node-{n:03d}")
                    cols["run_id"].append(f"run-{n:03d}-{t:03d}")
                    cols["value"].append(float(v))
    return pa.table({**cols, "config_id": pa.array(cols["config_id"], pa.uint64())})


@pytest.fixture(scope="module")
def configs():
    return naive.kinds_campaign(3, per_kind=1, nodes=22, trials=10, iterations=5,
                                higher_is_better_share=0.4)


def test_jobs_are_registered_with_their_tables():
    names = [job.name for job in JOBS]
    assert {"variability", "aa-fpr", "detectable-regression"} <= set(names)
    assert get("detectable-regression").outputs == ("detectable_regression",
                                                    "detectable_regression_curve")
    assert get("aa-fpr").outputs == ("aa_fpr",)


def test_detectable_job_rows_equal_the_python_api(configs):
    params = DetectableParams(draws=40, seed=9)
    out = compute_detectable(query_table(configs), params)
    table = out["detectable_regression"].to_pylist()
    assert len(table) == len(configs) * 5
    for row in table:
        cfg = next(c for c in configs if c.name == row["benchmark"])
        values, node, run = cfg.flat()
        key = laaber.config_key("hw-a", cfg.name, '{"threads":1}', row["metric"])
        api = laaber.detectable_regression(
            values, node, run, strategy=row["strategy"], n_nodes=row["n_nodes"],
            higher_is_better=cfg.higher_is_better, draws=40, seed=9, key=key,
            higher_is_better_mode=params.higher_is_better_mode)
        assert row["detectable_pct"] == api.detectable_pct
        assert row["reason"] == api.reason
        assert row["status"] == ("detectable" if api.detectable_pct else
                                 "insufficient" if api.r_pct == () else "none")
        curve = [c for c in out["detectable_regression_curve"].to_pylist()
                 if c["benchmark"] == cfg.name and c["strategy"] == row["strategy"]
                 and c["n_nodes"] == row["n_nodes"]]
        assert [c["fp_rate"] for c in curve] == list(api.fp_rate)
        assert [c["tp_rate"] for c in curve] == list(api.tp_rate)
        if api.detectable_pct:
            i = api.r_pct.index(api.detectable_pct)
            assert (row["fp_rate"], row["tp_rate"]) == (api.fp_rate[i], api.tp_rate[i])
    # 22 nodes: instance k = 20 draws, but 2 x 20 disjoint nodes would be too few
    disjoint = compute_detectable(query_table(configs), dataclasses.replace(
        params, instance_groups="disjoint"))["detectable_regression"].to_pylist()
    k20 = [r for r in disjoint if r["strategy"] == "instance" and r["n_nodes"] == 20]
    assert all(r["status"] == "insufficient" and "needs 40 nodes" in r["reason"] for r in k20)


def test_a_configuration_gets_the_same_numbers_in_any_partition(configs):
    params = DetectableParams(draws=30, seed=4)
    together = compute_detectable(query_table(configs), params)["detectable_regression"]
    alone = compute_detectable(query_table(configs[2:3], first_id=3), params)
    mine = [r for r in together.to_pylist() if r["benchmark"] == configs[2].name]
    assert mine == alone["detectable_regression"].to_pylist()
    again = compute_detectable(query_table(configs), params)["detectable_regression"]
    assert again.equals(together)
    other_seed = compute_detectable(query_table(configs), dataclasses.replace(params, seed=5))
    assert not other_seed["detectable_regression"].equals(together)
    # the rows may come in any order (the query does not sort them)
    rows = query_table(configs)
    shuffled = rows.take(np.random.default_rng(1).permutation(rows.num_rows))
    assert compute_detectable(shuffled, params)["detectable_regression"].equals(together)
    var = compute_variability(rows, VariabilityParams())["variability"]
    assert compute_variability(shuffled, VariabilityParams())["variability"].equals(var)


def test_aa_job_rows(configs):
    out = compute_aa(query_table(configs), AAParams(draws=30, n_nodes=(1, 20)))["aa_fpr"]
    rows = out.to_pylist()
    assert len(rows) == len(configs) * 2 * 2
    for row in rows:
        assert 0 <= row["fp_rate"] <= 1 and row["rejections"] == round(row["fp_rate"] * 30)
        assert row["trials_per_node"] == (5 if row["strategy"] == "trial" else 1)
    instance = [r["fp_rate"] for r in rows if r["strategy"] == "instance" and r["n_nodes"] == 20]
    trial = [r["fp_rate"] for r in rows if r["strategy"] == "trial" and r["n_nodes"] == 20]
    # instance effects make cross-instance A/A tests reject far more often (seed 001, 4.2.1)
    assert np.mean(instance) > np.mean(trial)


def test_variability_job_on_single_value_trials():
    # the ordersage-longterm shape: one value per trial and one trial per run
    rng = np.random.default_rng(1)
    cfg = naive.SyntheticConfig("one-value", "stable", False, rng.lognormal(3, 0.1, (6, 4, 1)))
    out = compute_variability(query_table([cfg]), VariabilityParams())["variability"].to_pylist()
    assert len(out) == 1
    row = out[0]
    assert row["rsd_run_mean_pct"] is None and row["n_runs_rsd"] == 0
    assert "per-run RSD undefined" in row["reason"]
    want = naive.variability(*cfg.flat())
    assert row["rsd_total_pct"] == pytest.approx(want["rsd_total_pct"], rel=1e-12)
    assert row["rsd_node_mean_pct"] == pytest.approx(want["rsd_node_mean_pct"], rel=1e-12)
    dr = compute_detectable(query_table([cfg]), DetectableParams(draws=10))
    statuses = {(r["strategy"], r["n_nodes"]): r["status"]
                for r in dr["detectable_regression"].to_pylist()}
    assert statuses[("trial", 1)] == "insufficient"  # 4 trials per node < 2 x 5
    assert statuses[("instance", 20)] == "insufficient"
    assert statuses[("instance", 1)] in ("detectable", "none")
    nothing = compute_detectable(query_table([cfg]), DetectableParams(
        draws=10, instance_nodes=(7,), trial_nodes=(1,)))
    assert nothing["detectable_regression"].num_rows == 2
    curve = nothing["detectable_regression_curve"]
    assert curve.num_rows == 0 and "r_pct" in curve.column_names  # typed, not schemaless


def test_parameters_are_checked():
    table = query_table(naive.kinds_campaign(1, per_kind=1, nodes=3, trials=2, iterations=2)[:1])
    with pytest.raises(UsageError):
        compute_detectable(table, DetectableParams(draws=0))
    with pytest.raises(UsageError):
        compute_detectable(table, DetectableParams(regressions=(0, 5)))
    with pytest.raises(UsageError):
        compute_aa(table, AAParams(strategies=("bogus",)))
    with pytest.raises(UsageError):
        compute_aa(table, AAParams(seed=-1))
