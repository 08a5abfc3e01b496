"""Job `load` on the generated load campaign: the planted truth is recovered.

generate load-campaign -> ingest (latency distributions into latency_histograms) ->
analyze load -> load_curve / peak_rate / load_law_checks compared with the truth file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwarehouse.errors import UsageError
from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import get, run_job
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Warehouse, dict, dict]:
    out = tmp_path_factory.mktemp("load") / "load.jsonl"
    generate_to_file("load-campaign", out, seed=3)
    truth = json.loads(out.with_name(out.name + ".truth.json").read_text())
    wh = Warehouse(out.parent / "warehouse", lock_timeout_s=5.0)
    ingest_jsonl(wh, [out])
    job = get("load")
    result = run_job(wh, job, job.params(r_sat=str(truth["open"]["r_sat_ms"])))
    return wh, truth, result.tables


def _rows(wh: Warehouse, sql: str) -> list[dict]:
    with wh.catalog() as con:
        return fetch_arrow(con, sql).to_pylist()


def test_every_trial_has_its_distribution(campaign) -> None:
    wh, truth, _ = campaign
    n = _rows(wh, "SELECT count(*) AS n, count(DISTINCT kind) AS k FROM latency_histograms")[0]
    assert n == {"n": truth["counts"]["trials"], "k": 2}


def test_planted_inconsistent_trials_and_only_them_are_flagged(campaign) -> None:
    wh, truth, _ = campaign
    rows = _rows(wh, "SELECT run_id, position, consistent, reason FROM load_law_checks")
    assert len(rows) == truth["counts"]["trials"]
    flagged = {(r["run_id"], r["position"]) for r in rows if r["consistent"] is False}
    planted = {(p["run_id"], p["position"]) for p in truth["planted_inconsistent"]}
    assert flagged == planted
    assert all(r["consistent"] is True for r in rows if (r["run_id"], r["position"]) not in planted)
    kinds = {(p["run_id"], p["position"]): p["kind"] for p in truth["planted_inconsistent"]}
    for r in rows:
        if kinds.get((r["run_id"], r["position"])) == "client-bottleneck":
            assert "client bottleneck" in r["reason"]
        elif kinds.get((r["run_id"], r["position"])) == "overload":
            assert "did not keep up" in r["reason"]


def test_closed_loop_peak_and_knee_recovered_within_the_ci(campaign) -> None:
    wh, truth, _ = campaign
    peaks = {json.loads(r["family"])["workload"]: r for r in _rows(
        wh, "SELECT * FROM peak_rate WHERE loop = 'closed'")}
    assert set(peaks) == set(truth["closed"])
    for workload, t in truth["closed"].items():
        got = peaks[workload]
        assert got["peak_low"] <= t["peak_throughput"] <= got["peak_high"], workload
        assert got["peak_clients"] in t["peak_clients"]
        assert got["knee_clients"] == t["knee_clients"]
        assert got["falls_after_peak"] is t["falls_after_peak"]


def test_law_line_and_curve_follow_the_true_curve(campaign) -> None:
    wh, truth, _ = campaign
    curve = _rows(wh, "SELECT * FROM load_curve WHERE loop = 'closed' ORDER BY family, load")
    for row in curve:
        t = {c["clients"]: c for c in truth["closed"][json.loads(row["family"])["workload"]]
             ["curve"]}[int(row["load"])]
        assert row["throughput_law"] == pytest.approx(row["throughput"], rel=0.03)
        assert row["throughput"] == pytest.approx(t["throughput"], rel=0.05)
        assert row["latency_source"] == "histogram"
        assert row["p50_low_ms"] <= row["p50_ms"] <= row["p50_high_ms"]
        assert row["n_used"] == row["n_trials"] - row["n_inconsistent"]


def test_open_loop_peak_rate_brackets_the_true_lambda_star(campaign) -> None:
    wh, truth, _ = campaign
    (row,) = _rows(wh, "SELECT * FROM peak_rate WHERE loop = 'open'")
    t = truth["open"]
    assert row["lambda_star"] == t["lambda_star_tested"]
    assert row["lambda_low"] <= t["lambda_star"] <= row["lambda_high"]
    assert row["r_star_low_ms"] <= row["r_star_ms"] <= row["r_star_high_ms"] <= t["r_sat_ms"]
    assert 0 < row["accuracy"] < 1
    assert row["n_inconsistent_levels"] == 1  # the overload rate
    levels = _rows(wh, "SELECT load, region, consistent FROM load_curve WHERE loop = 'open' "
                       "ORDER BY load")
    assert [r["region"] for r in levels if r["load"] <= 1200] == ["below"] * 3
    assert all(r["region"] == "above" for r in levels if r["load"] >= 1850)
    assert [r["consistent"] for r in levels][-1] is False


def test_percentile_option_and_rank_cis(campaign) -> None:
    wh, truth, _ = campaign
    job = get("load")
    result = run_job(wh, job, job.params(r_sat=str(truth["open"]["r_sat_p99_ms"]),
                                         percentile="99", ci_method="rank"), write=False)
    (row,) = [r for r in result.tables["peak_rate"].to_pylist() if r["loop"] == "open"]
    assert row["response_metric"] == "p99"
    assert row["lambda_low"] <= truth["open"]["lambda_star"] <= row["lambda_high"]
    curve = result.tables["load_curve"].to_pylist()
    assert all(r["ci_method"] == "rank" and r["throughput_low"] is None for r in curve)  # 5 < 6


def test_bad_options_are_one_line_errors(campaign) -> None:
    wh, _, _ = campaign
    job = get("load")
    for params in (job.params(r_sat="fast"), job.params(confidence=150.0),
                   job.params(r_sat="-3"), job.params(width=-0.1)):
        with pytest.raises(UsageError):
            run_job(wh, job, params, write=False)


def test_cli_analyze_load(cli, campaign, tmp_path: Path) -> None:
    wh, _, _ = campaign
    result = cli("analyze", "load", "--r-sat", "5", "--law-tolerance", "10",
                 warehouse=wh.root, check=True)
    assert "lambda* = 1750 req/s" in result.stdout and "knee N = 16" in result.stdout
    bad = cli("analyze", "load", "--ci-method", "z", warehouse=wh.root)
    assert bad.returncode != 0
