"""``analyze all`` runs what applies to each campaign, with the parameters the user last
gave each job there; ``status`` says what applies (issue 40)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl, ingest_ordersage
from perfwarehouse.jobs import JOBS
from perfwarehouse.jobs.plan import plan_all
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.conftest import REPO

pytestmark = pytest.mark.integration

ORDER_STUDY = REPO / "tests" / "fixtures" / "ordersage" / "20221012_19:59:50_results"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """A load test and an order study in one warehouse."""
    base = tmp_path_factory.mktemp("mixed")
    generate_to_file("load-campaign", base / "lc.jsonl", seed=3)
    wh = Warehouse(base / "warehouse", lock_timeout_s=30.0)
    ingest_jsonl(wh, [base / "lc.jsonl"])
    ingest_ordersage(wh, [ORDER_STUDY], campaign="order-study")
    return wh


def _plan(wh: Warehouse) -> dict[str, dict[tuple[str, ...], dict]]:
    runs, _skipped = plan_all(wh, JOBS)
    out: dict[str, dict[tuple[str, ...], dict]] = {}
    for run in runs:
        out.setdefault(run.job.name, {})[run.campaigns] = run.kept
    return out


def test_jobs_run_only_where_they_apply(mixed: Warehouse) -> None:
    plan = _plan(mixed)
    assert set(plan["order-effects"]) == {("order-study",)}
    assert set(plan["predecessor-effects"]) == {("order-study",)}
    assert set(plan["load"]) == {("load-campaign",)}
    assert "surface" not in plan  # no peak-rate searches anywhere
    assert set(plan["variability"]) == {("load-campaign", "order-study")}
    _runs, skipped = plan_all(mixed, JOBS)
    assert {(s.job, s.campaigns) for s in skipped} >= {
        ("order-effects", ("load-campaign",)), ("load", ("order-study",))}


def test_a_users_parameters_stay_and_lambda_star_with_them(cli, mixed: Warehouse) -> None:
    cli("analyze", "load", "--r-sat", "5", warehouse=mixed.root, check=True)
    with mixed.catalog() as con:
        before = fetch_arrow(con, "SELECT lambda_star FROM peak_rate "
                                  "WHERE lambda_star IS NOT NULL").to_pylist()
    assert before  # λ* needs --r-sat: the defaults would give none
    assert _plan(mixed)["load"] == {("load-campaign",): {"r_sat": 5.0}}
    result = cli("analyze", "all", "--campaign", "load-campaign", "--processes", "1",
                 warehouse=mixed.root, check=True)
    assert "load: keeps --r-sat 5 (its last run) on campaign load-campaign" in result.stdout
    assert "order-effects: does not apply to campaign load-campaign" in result.stdout
    with mixed.catalog() as con:
        after = fetch_arrow(con, "SELECT lambda_star FROM peak_rate "
                                 "WHERE lambda_star IS NOT NULL").to_pylist()
        ran = {r["job"] for r in fetch_arrow(con, "SELECT job FROM job_runs").to_pylist()}
    assert after == before
    assert "order-effects" not in ran and "surface" not in ran


def test_status_names_what_does_not_apply(cli, mixed: Warehouse, tmp_path: Path) -> None:
    out = cli("status", warehouse=mixed.root, check=True).stdout
    order_part = out[out.index("order-study:"):]
    assert "does not apply: load: no load-test trials" in order_part
    load_part = out[out.index("load-campaign:"):out.index("order-study:")]
    assert "does not apply: order-effects, predecessor-effects: no runs in random order" \
        in load_part
    assert "order-effects" not in load_part.split("does not apply")[0]
