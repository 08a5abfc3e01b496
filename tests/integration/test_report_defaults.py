"""Defaults that must not mislead (issue: reports a performance engineer trusts).

On a demo-like generated campaign (``ordersage-longterm``, the demo's campaign, at a
small scale) the detectable-regression default compares higher-is-better metrics as
costs: no throughput configuration is "none" only because a halved throughput sits
exactly on the r/2 % threshold (which is what ``divide`` does), and the page says
how they were compared, with the counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import get, run_job
from perfwarehouse.reports import get as get_report
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DRAWS = 40
ARTEFACT = "divided by 1 + r/100"


@pytest.fixture(scope="module")
def demo_like(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    root = tmp_path_factory.mktemp("demo-like")
    trials = root / "longterm.jsonl"
    generate_to_file("ordersage-longterm", trials, seed=1, scale=0.02)
    wh = Warehouse(root / "warehouse", lock_timeout_s=5.0)
    ingest_jsonl(wh, [trials])
    return wh


def _hib_counts(wh: Warehouse, job_run_id: int) -> dict[str, int]:
    with wh.catalog() as con:
        rows = fetch_arrow(con, """
            SELECT status, reason FROM detectable_regression_history
            WHERE job_run_id = ? AND higher_is_better""", [job_run_id]).to_pylist()
    return {"cells": sum(r["status"] != "insufficient" for r in rows),
            "none": sum(r["status"] == "none" for r in rows),
            "artefact": sum(r["status"] == "none" and ARTEFACT in (r["reason"] or "")
                            for r in rows)}


def test_higher_is_better_default_is_cost_and_the_page_says_so(demo_like: Warehouse,
                                                                tmp_path: Path) -> None:
    job = get("detectable-regression")
    assert job.params().higher_is_better_mode == "cost"
    default = run_job(demo_like, job, job.params(draws=DRAWS))
    counts = _hib_counts(demo_like, default.job_run_id)
    assert counts["cells"] > 0, "the campaign has higher-is-better metrics"
    assert counts["artefact"] == 0
    # SPEC's literal "divide" marks (nearly) every throughput cell "none" by the artefact
    divide = run_job(demo_like, job, job.params(draws=DRAWS, higher_is_better_mode="divide"))
    literal = _hib_counts(demo_like, divide.job_run_id)
    assert literal["none"] >= 0.9 * literal["cells"] and literal["artefact"] > 0
    assert counts["none"] < literal["none"]
    print(f"higher-is-better cells: {counts['cells']}; none with cost (default): "
          f"{counts['none']}; none with divide: {literal['none']} "
          f"({literal['artefact']} by the threshold artefact)")

    # the page reads the latest run (divide): it warns; after a default run it explains cost
    page = get_report("variability").page(demo_like, _request())
    warning = [n.text for n in page.notices() if "--higher-is-better-mode divide" in n.text]
    assert warning and f"{literal['none']:,} of {literal['cells']:,}" in warning[0]
    run_job(demo_like, job, job.params(draws=DRAWS))
    page = get_report("variability").page(demo_like, _request())
    note = [n.text for n in page.notices() if "compared as costs" in n.text]
    assert note and f"{counts['none']:,} of {counts['cells']:,}" in note[0]


def _request():  # type: ignore[no-untyped-def]
    from perfwarehouse.reports import Request

    return Request()
