"""`report load` on the generated load campaign: verdict first, every chart, the tables;
the page is self-contained and every chart draws in headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import get as get_job
from perfwarehouse.jobs import run_job
from perfwarehouse.reports import Request, get
from perfwarehouse.reports.page import Notice, Table
from perfwarehouse.warehouse.store import Warehouse
from tests import browser
from tests.integration.test_report_browser import assert_every_chart_drew
from tests.integration.test_report_pages import assert_self_contained

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
