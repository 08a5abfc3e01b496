"""The fleet report against the ground truth of a generated long-term campaign: it names
the planted drifting and order-dependent configurations, and nothing unexplained.

The campaign is 10 % of ordersage-longterm (seed 5). Over its whole span the report
must recover most planted drifts (0.8-3 % per 30 days against node offsets, noise and
seasonality) without a false one, and a good part of the planted order dependences;
every configuration it calls order-dependent must be planted (the truth file lists
effects of at least 1 %; memory tests on a hardware type with a position effect carry
smaller ones too, which count as explained).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest

from perfwarehouse import fleet as analysis
from perfwarehouse.reports import fleet, get
from perfwarehouse.reports.base import ReportData
from tests.reports_support import longterm_warehouse

pytestmark = [pytest.mark.integration, pytest.mark.slow]

Key = tuple[str, str, str, str]


def keys(items: list[dict]) -> set[Key]:
    return {(t["hardware_type"], t["benchmark"], t["settings"], t["metric"]) for t in items}


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, dict]:
    warehouse, truth = longterm_warehouse(tmp_path_factory.getbasetemp())
    start = datetime(2022, 1, 3, tzinfo=timezone.utc)  # the generator's first day
    with warehouse.catalog() as con:
        data = ReportData(con)
        last = data.query("fleet_span", campaign=None).to_pylist()[0]["last_at"]
        period = analysis.choose_period(start, None, last)
        assert period is not None
        trials = data.query("fleet_trials", campaign=None, prev_since=period.previous_since,
                            since=period.since, until=period.until)
        result = fleet.label(analysis.analyse(trials, period), data.query("fleet_configurations"))
    return result, truth


def found(result: pl.DataFrame, column: str) -> set[Key]:
    return {(r["hardware_type"], r["benchmark"], r["settings"], r["metric"])
            for r in result.filter(pl.col(column)).iter_rows(named=True)}


def test_drifts_are_recovered_without_false_ones(findings: tuple[pl.DataFrame, dict]) -> None:
    result, truth = findings
    planted = keys(truth["drifting"])
    named = found(result, "drifting")
    assert named <= planted, f"not planted: {sorted(named - planted)[:5]}"
    assert len(named) >= 0.65 * len(planted), f"{len(named)} of {len(planted)}"
    # the sign agrees: value trend = planted performance trend, inverted for run times
    slopes = {(r["hardware_type"], r["benchmark"], r["settings"], r["metric"]):
              (r["slope_pct"], r["higher_is_better"]) for r in result.iter_rows(named=True)}
    for t in truth["drifting"]:
        key = (t["hardware_type"], t["benchmark"], t["settings"], t["metric"])
        if key in named:
            slope, higher_is_better = slopes[key]
            assert (slope > 0) == ((t["slope_pct_per_30d"] > 0) == higher_is_better)


def test_order_dependence_is_recovered_and_explained(findings: tuple[pl.DataFrame, dict]) -> None:
    result, truth = findings
    planted = keys(truth["order_dependent"])
    named = found(result, "dependent_now")
    position_types = {t["hardware_type"] for t in truth["order_dependent"]
                      if t["cause"] == "position"}
    unexplained = {k for k in named - planted
                   if not (k[0] in position_types and json.loads(k[2])["kind"] == "memory")}
    assert not unexplained, sorted(unexplained)[:5]
    assert len(named & planted) >= 0.25 * len(planted), f"{len(named & planted)} of {len(planted)}"
    # the strongest planted effects are nearly all found where there are trials enough
    # (the smaller hardware types have a dozen runs in a 10 % campaign: p cannot reach α/m)
    enough = found(result.with_columns(enough=pl.col("n_now") >= 40), "enough")
    strong = keys([t for t in truth["order_dependent"] if abs(t["expected_delta_pct"]) >= 8])
    assert len(strong & enough) >= 10
    assert len(strong & enough & named) >= 0.9 * len(strong & enough)


def test_the_page_names_them(findings: tuple[pl.DataFrame, dict], tmp_path: Path,
                             tmp_path_factory: pytest.TempPathFactory) -> None:
    result, _truth = findings
    warehouse, _ = longterm_warehouse(tmp_path_factory.getbasetemp())
    page = get("fleet").write(warehouse, out=tmp_path / "fleet.html", since=datetime(
        2022, 1, 3, tzinfo=timezone.utc)).read_text(encoding="utf-8")
    drifting = result.filter(pl.col("drifting")).sort(pl.col("slope_pct").abs(),
                                                      descending=True).row(0, named=True)
    # a table cell holds the benchmark (cells may carry attributes: frozen key columns)
    assert re.search(rf"<td[^>]*>{re.escape(drifting['benchmark'])}</td><td", page)
    assert "Drifting configurations" in page and "Order-dependent configurations" in page
    assert page.count("<tr>") > result.filter(pl.col("drifting")).height
