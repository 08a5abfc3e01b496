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


def test_records_shaped_like_an_importer_closed_loop_sweep(tmp_path: Path) -> None:
    """What a load-generator importer emits (records.py): one record per metric, the
    latency spectrum on the throughput record without a count, `avg` for the mean, no
    think time; a real-looking redis-benchmark sweep where N = X R holds."""
    from perfwarehouse.ingest.formats.records import ImportOptions, apply_options

    records = []
    service_ms = 0.05
    for i, n in enumerate((1, 2, 4, 8, 16, 32, 64)):
        x = n / (service_ms * max(1, n / 4) / 1000)  # saturates at 4 clients
        x = min(x, 80000.0)
        r_ms = n / x * 1000
        base = {"run_id": f"sweep-{n}", "run_index": i, "order_kind": "fixed", "position": 0,
                "benchmark": "redis-benchmark GET", "started_at": "2026-11-23T10:00:00Z",
                "status": "ok", "duration_s": 3.0,
                "settings": {"loop": "closed", "clients": n, "pipeline": 1}}
        records.append({**base, "metric": "throughput", "unit": "req/s",
                        "higher_is_better": True, "values": [x],
                        "latency": {"unit": "ms", "percentiles": [
                            [50, r_ms * 0.9], [95, r_ms * 2], [99, r_ms * 3], [100, r_ms * 8]]}})
        for metric, value in (("avg", r_ms), ("p50", r_ms * 0.9), ("p99", r_ms * 3),
                              ("max", r_ms * 8), ("requests", x * 3)):
            records.append({**base, "metric": metric, "unit": "ms" if metric != "requests"
                            else "requests", "higher_is_better": metric == "requests",
                            "values": [value]})
    apply_options(records, ImportOptions(node="lab-1", campaign="redis"), "sweep", "redis")
    log = tmp_path / "sweep.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    wh = Warehouse(tmp_path / "warehouse", lock_timeout_s=5.0)
    ingest_jsonl(wh, [log])
    job = get("load")
    result = run_job(wh, job, job.params())
    checks = result.tables["load_law_checks"].to_pylist()
    assert len(checks) == 7 and all(c["consistent"] for c in checks)
    curve = result.tables["load_curve"].to_pylist()
    assert [r["latency_source"] for r in curve] == ["histogram"] * 7
    assert all(r["p99_ms"] == pytest.approx(r["mean_ms"] * 3, rel=0.02) for r in curve)
    (peak,) = result.tables["peak_rate"].to_pylist()
    assert peak["peak_throughput"] == pytest.approx(80000.0)
    assert peak["knee_clients"] == 4 and peak["peak_low"] is None  # one trial a level
