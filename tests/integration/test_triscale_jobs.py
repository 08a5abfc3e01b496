"""TriScale, trends and profile jobs on real warehouses: generated campaigns with planted
drift and seasonality, a campaign with iterations, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from perfwarehouse import triscale
from perfwarehouse.generate import ordersage_longterm
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import get, run_job
from perfwarehouse.jobs.profile import ProfileParams, compute_profile
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

pytestmark = pytest.mark.integration


def _key(r: dict) -> tuple:
    return (r["hardware_type"], r["benchmark"], r["settings"], r["metric"])


def test_jobs_on_the_small_longterm_campaign(warehouse: Warehouse, small_longterm: Path) -> None:
    ingest_jsonl(warehouse, [small_longterm])
    truth = json.loads(Path(f"{small_longterm}.truth.json").read_text())
    results = {name: run_job(warehouse, get(name), get(name).params())
               for name in ("trends", "kpi", "independence", "variability-score", "convergence",
                            "profile")}
    trends = results["trends"].tables["trends"].to_pylist()
    assert 0 < len(trends) <= truth["counts"]["configurations"]
    assert min(r["n"] for r in trends) >= 10  # --min-points
    planted = {_key(d): d["slope_pct_per_30d"] for d in truth["drifting"]}
    flagged = {_key(r) for r in trends if r["drifting"]}
    # family-wise 95 %: false flags are rare; the strongest planted drifts are found
    assert len(flagged - set(planted)) <= 2
    strong = {k for k, v in planted.items() if abs(v) >= 2.0}
    assert len(flagged & strong) >= 0.5 * len(strong)
    for r in trends:
        if _key(r) in flagged & set(planted):
            assert np.sign(r["slope_pct_per_30d"]) in (np.sign(planted[_key(r)]), -np.sign(planted[_key(r)]))
    kpi = results["kpi"].tables["triscale_kpi"]
    assert kpi.num_rows == truth["counts"]["configurations"]
    assert results["convergence"].tables["triscale_convergence"].num_rows == 0
    assert "needs iterations" in results["convergence"].summary[0]
    assert results["profile"].tables["triscale_profile"].num_rows >= 1
    with warehouse.catalog() as con:  # the results are tables keyed by job_run_id
        n = fetch_arrow(con, "SELECT count(*) AS n FROM trends", None).column("n")[0].as_py()
        assert n == len(trends)


def test_profile_finds_planted_seasonality_on_a_dense_hardware_type() -> None:
    gen = ordersage_longterm.generate(seed=3, scale=0.25)
    truth = {(s["hardware_type"], s["period"]) for s in gen.truth["seasonality"]}
    t = gen.records.filter(pc.equal(gen.records.column("hardware_type"), "c220g5"))
    text = {c: t.column(c).cast(pa.string()) for c in ("benchmark", "settings", "metric")}
    config = pc.binary_join_element_wise(text["benchmark"], text["settings"], text["metric"], "|")
    codes = pc.dictionary_encode(config).combine_chunks().indices
    table = pa.table({
        "campaign": t.column("campaign"), "hardware_type": t.column("hardware_type"),
        "config_id": pa.array(codes.to_numpy(zero_copy_only=False).astype(np.uint64)),
        "higher_is_better": t.column("higher_is_better"), "node": t.column("node"),
        "t": pc.divide(pc.cast(pc.cast(t.column("started_at"), pa.int64()), pa.float64()), 1e6),
        "value": pc.list_element(t.column("values"), 0)}).sort_by(
            [("config_id", "ascending"), ("t", "ascending")])
    out = compute_profile(table, ProfileParams())["triscale_profile"].to_pylist()[0]
    found = {("c220g5", p) for p in out["seasonal_periods"]}
    assert ("c220g5", "1 day") in truth and ("c220g5", "1 day") in found
    assert found <= truth  # nothing that was not planted


def _write_runs(path: Path, converging: int, drifting: int) -> None:
    rng = np.random.default_rng(0)
    lines = []
    for i in range(converging + drifting):
        base = np.linspace(0, 40, 300) if i >= converging else np.zeros(300)
        values = (100 + base + rng.normal(0, 1, 300)).round(3).tolist()
        lines.append(json.dumps({
            "v": 1, "campaign": "iters", "run_id": f"r{i}", "node": "n1", "hardware_type": "hw",
            "run_index": i, "order_kind": "fixed", "seed": "0", "position": 0,
            "benchmark": "bench", "settings": {}, "metric": "latency", "unit": "ms",
            "higher_is_better": False, "values": values,
            "started_at": f"2024-01-01T00:{i:02d}:00Z", "status": "ok"}))
    path.write_text("\n".join(lines) + "\n")


def test_convergence_job_equals_the_api(warehouse: Warehouse, tmp_path: Path) -> None:
    path = tmp_path / "iters.jsonl"
    _write_runs(path, converging=6, drifting=3)
    ingest_jsonl(warehouse, [path])
    result = run_job(warehouse, get("convergence"), get("convergence").params())
    rows = result.tables["triscale_convergence"].to_pylist()
    assert len(rows) == 9
    assert not any(r["converged"] for r in rows if int(r["run_id"][1:]) >= 6)  # the ramps
    assert sum(r["converged"] for r in rows) >= 1
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    for r in rows:
        values = next(x["values"] for x in lines if x["run_id"] == r["run_id"])
        api = triscale.metric(values, measure=0.5, converge=True)
        assert (r["metric_value"], r["converged"]) == (api.value, api.converged)
    assert f"{sum(r['converged'] for r in rows)} of 9" in result.summary[0]


def test_cli_plan_and_analyze(cli, small_longterm: Path) -> None:  # type: ignore[no-untyped-def]
    out = cli("plan", "runs", "--percentile", "95", "--confidence", "0.95", check=True).stdout
    assert "one-sided: 59 runs" in out and "upper bound of the 95th percentile" in out
    assert "two-sided: 6 runs" in cli("plan", "runs", "-p", "0.5", "-c", "95", check=True).stdout
    bad = cli("plan", "runs", "-p", "0", "-c", "95")
    assert bad.returncode == 2
    cli("ingest", "jsonl", str(small_longterm), check=True)
    res = cli("analyze", "kpi", "--percentile", "90", "--confidence", "95", "--series-by", "month",
              check=True)
    assert "kpi:" in res.stdout and "triscale_kpi" in res.stdout
    res = cli("sql", "SELECT DISTINCT side, percentile FROM triscale_kpi", "--format", "csv",
              check=True)
    assert "upper,0.9" in res.stdout


def test_the_triscale_page_draws_gappy_profiles(tmp_path: Path) -> None:
    """A gappy run profile has lags that no two observed runs are apart: no
    autocorrelation, an infinite band in triscale_profile_acf. The page drew them and
    failed ("Out of range float values are not JSON compliant") on this campaign."""
    from perfwarehouse.generate import generate_to_file
    from perfwarehouse.reports import REPORTS

    generate_to_file("ordersage-longterm", tmp_path / "lt.jsonl", seed=1, scale=0.02)
    warehouse = Warehouse(tmp_path / "wh")
    ingest_jsonl(warehouse, [tmp_path / "lt.jsonl"])
    run_job(warehouse, get("profile"), get("profile").params())
    with warehouse.catalog() as con:
        infinite = fetch_arrow(con, "SELECT count(*) AS n FROM triscale_profile_acf "
                                    "WHERE isinf(band)").column("n")[0].as_py()
    assert infinite > 0  # the case is there
    page = next(r for r in REPORTS if r.name == "triscale").write(
        warehouse, out=tmp_path / "triscale.html")
    text = Path(page).read_text(encoding="utf-8")
    assert "Autocorrelation of run performance" in text and "Infinity" not in text
