"""`report load` on the generated load campaign: verdict first, every chart, the tables;
the page is self-contained and every chart draws in headless Chromium. Then the workbench
controller's searches (``agent peak-rate``/``agent surface`` against a simulated
generator, ingested from the spool): the search trace, the cost of the policies and the
response surface, with the spool's numbers."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from perfwarehouse.agent.workbench import WorkbenchConfig, run_searches
from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import get as get_job
from perfwarehouse.jobs import run_job
from perfwarehouse.reports import Request, get
from perfwarehouse.reports.page import Figure, Notice, Table
from perfwarehouse.warehouse.store import Warehouse
from perfwarehouse.workbench import SearchSpec
from tests import browser
from tests.integration.test_report_browser import assert_every_chart_drew
from tests.integration.test_report_pages import assert_self_contained
from tests.integration.test_workbench_runner import SIM, quiet, records

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def load_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    root = tmp_path_factory.mktemp("loadreport")
    generate_to_file("load-campaign", root / "load.jsonl", seed=3)
    wh = Warehouse(root / "warehouse", lock_timeout_s=5.0)
    ingest_jsonl(wh, [root / "load.jsonl"])
    job = get_job("load")
    run_job(wh, job, job.params(r_sat="5"))
    return wh


def test_verdict_first_then_curves_consistency_tables(load_warehouse: Warehouse) -> None:
    page = get("load").page(load_warehouse, Request())
    titles = [s.title for s in page.sections]
    assert titles == ["Verdict", "Peak throughput (closed loop)",
                      "Latency under load (open loop)", "Consistency of the measurements",
                      "Tables"]
    verdict = " ".join(b.text for b in page.sections[0].blocks if isinstance(b, Notice))
    assert "peak rate λ* = 1,750 req/s" in verdict
    assert "knee at N = 16" in verdict and "falls after the peak" in verdict
    assert "11 of 145 trials break the operational laws" in verdict
    bad = [b for b in page.sections[0].blocks if isinstance(b, Table)]
    assert bad and bad[0].data.num_rows == 11
    assert [f.name for f in page.figures()] == [
        "load-throughput", "load-latency-closed", "load-latency-open",
        "load-consistency-closed", "load-consistency-open"]
    law_line = page.figures()[0].spec()
    assert "N/(R+Z)" in str(law_line)


def test_missing_analysis_is_named(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "empty", lock_timeout_s=5.0)
    generate_to_file("load-campaign", tmp_path / "l.jsonl", seed=1, scale=0.6)
    ingest_jsonl(wh, [tmp_path / "l.jsonl"])
    page = get("load").page(wh, Request())
    assert "perfwarehouse analyze load" in page.notices("missing")[0].text


@pytest.mark.browser
@pytest.mark.skipif(browser.chromium() is None, reason="chromium is not installed")
def test_page_is_self_contained_and_draws(load_warehouse: Warehouse, tmp_path: Path) -> None:
    out = get("load").write(load_warehouse, out=tmp_path / "load.html")
    assert_self_contained(out.read_text(encoding="utf-8"))
    assert out.stat().st_size < 5 * 1024 * 1024
    assert_every_chart_drew(browser.load(out), 5)


# ---------------------------------------------------------------- workbench
SURFACE_POINTS = [(1, 1), (1, 3), (4, 1), (4, 3), (2, 2), (3, 2), (1, 2), (4, 2), (2, 1)]
TRACE, COST, SURFACE = ("Search trace of the peak-rate searches", "Cost of the policies",
                        "Response surface of the peak rate")


@pytest.fixture(scope="module")
def workbench_warehouse(tmp_path_factory: pytest.TempPathFactory
                        ) -> tuple[Warehouse, list[dict[str, Any]]]:
    """A surface of 9 samples (binsearch, each seeded from the nearest finished one) of
    a step-knee generator whose capacity is 100 + 40 a + 20 b req/s, and one model search,
    run into a spool, ingested, analysed by `analyze load` and `analyze surface`."""
    root = tmp_path_factory.mktemp("workbenchreport")
    spec = SearchSpec(r_sat=20.0, start_load=50.0)
    surface = WorkbenchConfig(spool=root / "spool", campaign="surf",
                              template=SIM % "$((100 + 40 * {a} + 20 * {b}))", fmt="native",
                              spec=spec, duration_s=1.0, node="n1", warmup=0)
    samples = [{"a": str(a), "b": str(b)} for a, b in SURFACE_POINTS]
    assert run_searches(surface, samples, echo=quiet, warn=quiet).exit_code == 0
    plain = replace(surface, campaign="plain", template=SIM % "300",
                    spec=replace(spec, policy="model"))
    assert run_searches(plain, [{}], echo=quiet, warn=quiet).exit_code == 0
    warehouse = Warehouse(root / "warehouse", lock_timeout_s=5.0)
    ingest_jsonl(warehouse, sorted((root / "spool").glob("*.jsonl")))
    for name, params, campaigns in (("load", {"r_sat": "20"}, None),
                                    ("surface", {"campaign": "surf", "factors": "a,b"},
                                     ["surf"])):
        job = get_job(name)
        run_job(warehouse, job, job.params(**params), campaigns=campaigns)
    return warehouse, records(root / "spool")


def _blocks(page: Any, title: str) -> list[Any]:
    return list(next(s for s in page.sections if s.title == title).blocks)


def test_workbench_trace_cost_and_surface(
        workbench_warehouse: tuple[Warehouse, list[dict[str, Any]]]) -> None:
    warehouse, spool = workbench_warehouse
    page = get("load").page(warehouse, Request())
    titles = [s.title for s in page.sections]
    assert titles[-4:] == [TRACE, COST, SURFACE, "Tables"]
    trial_runs = {r["run_id"]: r for r in spool if r["attributes"]["workbench"]["kind"] == "trial"}
    results = {r["run_id"].removesuffix("-result"): r for r in spool
               if r["metric"] == "search_trials"}
    assert len(results) == 10
    # the trace: one point per trial of the spool, at load / the search's λ*
    trace = _blocks(page, TRACE)
    assert trace[0].text.startswith("10 searches (binsearch, model): λ* found within ")
    figure = next(b for b in trace if isinstance(b, Figure))
    points = max(figure.spec()["datasets"].values(), key=len)
    assert len(points) == len(trial_runs)
    per_search = Counter(p["search"] for p in points)
    assert per_search == {s: int(r["values"][0]) for s, r in results.items()}
    lambdas = {r["run_id"].removesuffix("-result"): r["values"][0] for r in spool
               if r["metric"] == "peak_rate"}
    for p in points:
        assert p["load_factor"] == pytest.approx(p["load"] / lambdas[p["search"]], rel=1e-4)
    searches = next(b for b in trace if isinstance(b, Table))
    assert searches.data.num_rows == 10
    # the cost table: the spool's trials per policy and seeding
    seeded = {s: r["settings"]["search_seeding"] == "nearest" for s, r in results.items()}
    spooled = Counter((r["attributes"]["workbench"]["policy"],
                       "with seeding" if seeded[run_id.rsplit("-", 1)[0]] else "without seeding")
                      for run_id, r in trial_runs.items())
    cost = next(b for b in _blocks(page, COST) if isinstance(b, Table))
    assert {(r["policy"], r["seeding"]): r["total_trials"] for r in cost.data.to_pylist()} == \
        spooled
    assert {(r["policy"], r["seeding"]): r["searches"] for r in cost.data.to_pylist()} == \
        {("binsearch", "without seeding"): 1, ("binsearch", "with seeding"): 8,
         ("model", "without seeding"): 1}
    # the response surface: 12 cells, the 9 samples measured, the job's MAPE in the caption
    with warehouse.catalog() as con:
        mape = con.execute("SELECT any_value(loo_mape) FROM response_surface").fetchone()[0]
    surface = _blocks(page, SURFACE)
    assert f"from 9 samples: leave-one-out MAPE {100 * mape:.1f} %" in surface[0].text
    heatmap = next(b for b in surface if isinstance(b, Figure))
    assert f"leave-one-out MAPE {100 * mape:.1f} %" in heatmap.caption
    cells = max(heatmap.spec()["datasets"].values(), key=len)
    assert len(cells) == 12 and sum(c["sample"] is not None for c in cells) == 9
    coefficients = next(b for b in surface if isinstance(b, Table))
    assert coefficients.data.column("term").to_pylist() == ["1", "a", "b", "a*b", "a^2", "b^2"]


def test_search_results_are_not_load_levels_and_the_verdict_stays_short(
        workbench_warehouse: tuple[Warehouse, list[dict[str, Any]]]) -> None:
    """The result record of each search (settings with search_policy, no load) is not a
    trial of `analyze load`; with more families than VERDICT_FAMILIES the verdict opens
    with a count and names only the first ones, each with its campaign."""
    from perfwarehouse.reports.load_verdict import VERDICT_FAMILIES

    warehouse, spool = workbench_warehouse
    trials = {(r["run_id"], r["position"]) for r in spool
              if r["attributes"]["workbench"]["kind"] == "trial"}
    with warehouse.catalog() as con:
        checked = con.execute("SELECT run_id, position, load FROM load_law_checks").fetchall()
        families = con.execute("SELECT count(*) FROM peak_rate").fetchone()[0]
    assert {(run, pos) for run, pos, _ in checked} == trials
    assert all(load is not None for _, _, load in checked)
    assert families > VERDICT_FAMILIES
    page = get("load").page(warehouse, Request())
    notices = [b.text for b in page.sections[0].blocks if isinstance(b, Notice)]
    assert notices[0].startswith(f"{families} families: ")
    named = [t for t in notices[1:] if t.startswith(("surf: ", "plain: "))]
    assert len(named) == VERDICT_FAMILIES


@pytest.mark.browser
@pytest.mark.skipif(browser.chromium() is None, reason="chromium is not installed")
def test_workbench_page_draws(workbench_warehouse: tuple[Warehouse, list[dict[str, Any]]],
                              tmp_path: Path) -> None:
    out, page = get("load").write_page(workbench_warehouse[0], out=tmp_path / "load.html")
    assert_self_contained(out.read_text(encoding="utf-8"))
    names = [f.name for f in page.figures()]
    assert {"workbench-trace", "workbench-cost", "workbench-surface-1"} <= set(names)
    assert_every_chart_drew(browser.load(out), len(names))
