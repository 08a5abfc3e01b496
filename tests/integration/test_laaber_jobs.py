"""The Laaber jobs end to end on real warehouses (ingest, run_job, SQL over the tables, CLI)."""

from __future__ import annotations

import json

import pytest

from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import get, run_job
from perfwarehouse.laaber import REGRESSIONS_PCT
from perfwarehouse.warehouse.store import fetch_arrow, fetch_one

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def laaber_warehouse(small_laaber, tmp_path_factory):
    from perfwarehouse.warehouse.store import Warehouse

    wh = Warehouse(tmp_path_factory.mktemp("laaber") / "warehouse", lock_timeout_s=5.0)
    ingest_jsonl(wh, [small_laaber])
    return wh


def _rows(wh, sql, params=None):
    with wh.catalog() as con:
        return fetch_arrow(con, sql, params).to_pylist()


def test_laaber_jobs_write_their_tables(laaber_warehouse, small_laaber):
    wh = laaber_warehouse
    truth = json.loads(small_laaber.with_name(small_laaber.name + ".truth.json").read_text())
    n_configs = truth["counts"]["benchmarks"] * truth["counts"]["environments"]
    results = {}
    for name in ("variability", "aa-fpr", "detectable-regression"):
        job = get(name)
        params = job.params(draws=30) if name != "variability" else job.params()
        results[name] = run_job(wh, job, params)

    var = _rows(wh, "SELECT * FROM variability_history WHERE job_run_id = ?",
                [results["variability"].job_run_id])
    assert len(var) == n_configs
    assert all(r["n_nodes"] == 10 and r["n_runs"] == 100 for r in var)
    assert all(r["rsd_total_pct"] > 0 and r["rsd_run_mean_pct"] > 0 for r in var)
    # the planted kinds show up where seed 001 says they should: instance-dependent pairs
    # put most of their variance between nodes, noisy ones within runs
    kind = {(p["benchmark"], p["hardware_type"]): p["kind"] for p in truth["pairs"]}
    share = {(r["benchmark"], r["hardware_type"]): r["share_nodes_pct"] for r in var}
    inst = [share[key] for key, k in kind.items() if k == "instance-dependent"]
    noisy = [share[key] for key, k in kind.items() if k == "noisy"]
    assert min(inst) > 50 > max(noisy)

    dr = _rows(wh, "SELECT * FROM detectable_regression_history WHERE job_run_id = ?",
               [results["detectable-regression"].job_run_id])
    assert len(dr) == n_configs * 5
    for r in dr:
        if r["status"] == "detectable":
            assert r["detectable_pct"] in REGRESSIONS_PCT and r["reason"] is None
            assert r["fp_rate"] <= 0.05 and r["tp_rate"] >= 0.95
        else:
            assert r["detectable_pct"] is None and r["reason"]
    # 10 instances per environment: instance-based k = 20 cannot be drawn, and says so
    k20 = [r for r in dr if r["strategy"] == "instance" and r["n_nodes"] == 20]
    assert all(r["status"] == "insufficient" and "needs 20 nodes" in r["reason"] for r in k20)
    stable_bm = [r["detectable_pct"] for r in dr if r["hardware_type"] == "bm"
                 and r["strategy"] == "trial" and r["n_nodes"] == 1
                 and not r["higher_is_better"]]
    assert max(stable_bm) <= 5  # bare metal is stable in the generator

    curve = fetch_one
    with wh.catalog() as con:
        n_curve = curve(con, "SELECT count(*) FROM detectable_regression_curve_history "
                             "WHERE job_run_id = ?",
                        [results["detectable-regression"].job_run_id])[0]
        # curve rows exist exactly for the cells that could be drawn, one per r
        drawn = curve(con, "SELECT count(*) FROM detectable_regression_history WHERE job_run_id = ? "
                           "AND status <> 'insufficient'",
                      [results["detectable-regression"].job_run_id])[0]
        assert n_curve == drawn * len(REGRESSIONS_PCT)
        # the answer agrees with the curve: every r from the answer up passes
        bad = curve(con, """
            SELECT count(*) FROM detectable_regression_history d
            JOIN detectable_regression_curve_history c USING (job_run_id, campaign, hardware_type,
                                                     config_id, strategy, n_nodes)
            WHERE d.job_run_id = ? AND d.status = 'detectable'
              AND c.r_pct >= d.detectable_pct AND NOT c.passes""",
                    [results["detectable-regression"].job_run_id])[0]
        assert bad == 0
        aa = curve(con, "SELECT count(*), avg(fp_rate) FROM aa_fpr_history WHERE job_run_id = ? "
                        "AND fp_rate IS NOT NULL", [results["aa-fpr"].job_run_id])
        assert aa[0] == n_configs * 2 * 3  # k = 20 cannot be drawn with 10 nodes
        runs = curve(con, "SELECT count(*) FROM job_runs WHERE job IN "
                          "('variability', 'aa-fpr', 'detectable-regression')")[0]
        assert runs == 3


def test_rerun_with_the_same_seed_gives_the_same_table(laaber_warehouse):
    job = get("detectable-regression")
    params = job.params(draws=20, seed=11, trial_nodes=(1,), instance_nodes=(5,))
    first = run_job(laaber_warehouse, job, params, write=False).tables
    second = run_job(laaber_warehouse, job, params, write=False).tables
    for name in job.outputs:
        assert first[name].equals(second[name])
    third = run_job(laaber_warehouse, job, job.params(draws=20, seed=12, trial_nodes=(1,),
                                                       instance_nodes=(5,)), write=False).tables
    assert not third["detectable_regression_curve"].equals(first["detectable_regression_curve"])


def test_jobs_on_the_longterm_shape(small_longterm, warehouse):
    """One value per trial, one trial per run and configuration: the jobs still run and
    say why per-run RSD and trial-based cells are undefined."""
    ingest_jsonl(warehouse, [small_longterm])
    var = run_job(warehouse, get("variability"), get("variability").params()).tables
    rows = var["variability"].to_pylist()
    assert rows and all(r["rsd_run_mean_pct"] is None and "per-run RSD undefined" in r["reason"]
                        for r in rows)
    assert all(r["rsd_total_pct"] is not None for r in rows)
    dr = run_job(warehouse, get("detectable-regression"),
                 get("detectable-regression").params(draws=20)).tables["detectable_regression"]
    rows = dr.to_pylist()
    assert {r["status"] for r in rows} <= {"detectable", "none", "insufficient"}
    assert all((r["detectable_pct"] is None) == (r["status"] != "detectable") for r in rows)
    assert all(r["reason"] for r in rows if r["status"] != "detectable")
    assert any(r["status"] == "detectable" for r in rows)


def test_cli(laaber_warehouse, cli):
    out = cli("analyze", "detectable-regression", "--draws", "10", "--trial-nodes", "1",
              "--instance-nodes", "1,5", "--seed", "3", warehouse=laaber_warehouse.root,
              check=True)
    assert "instance-based, k=5" in out.stdout and "detectable_regression_curve" in out.stdout
    res = cli("sql", "SELECT strategy, n_nodes, count(*) AS n FROM detectable_regression "
                     "WHERE job_run_id = (SELECT max(job_run_id) FROM job_runs) "
                     "GROUP BY ALL ORDER BY ALL", "--format", "csv",
              warehouse=laaber_warehouse.root, check=True)
    assert res.stdout.splitlines() == ["strategy,n_nodes,n", "instance,1,190", "instance,5,190",
                                       "trial,1,190"]
    bad = cli("analyze", "aa-fpr", "--draws", "0", warehouse=laaber_warehouse.root)
    assert bad.returncode == 1 and "--draws" in bad.stderr + bad.stdout
    assert "Traceback" not in bad.stderr
