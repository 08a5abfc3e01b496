"""The compare page built from kept rows (pure): verdict first, chart, geomean table."""

from __future__ import annotations

from datetime import datetime, timezone

import polars as pl
import pyarrow as pa

from perfwarehouse.reports.compare import build_page
from perfwarehouse.reports.page import Figure


def _rows() -> pa.Table:
    base = {"comparison_id": 3, "created_at": datetime(2026, 1, 1, tzinfo=timezone.utc),
            "baseline_campaign": "c", "baseline_revision": "v1", "baseline_where": None,
            "contender_campaign": "c", "contender_revision": "v2", "contender_where": None,
            "confidence": 0.95, "threshold_pct": 0.0, "correction": "bh",
            "hardware_type": "h", "settings": "{}", "metric": "time", "unit": "s",
            "higher_is_better": False, "n_baseline": 10, "n_contender": 10,
            "p_value": 0.001, "p_adjusted": 0.002, "more_trials": None, "reason": None}
    rows = [{**base, "config_id": 1, "benchmark": "a", "median_baseline": 1.0,
             "median_contender": 1.3, "change_pct": 30.0, "ci_low_pct": 20.0,
             "ci_high_pct": 40.0, "verdict": "slower"},
            {**base, "config_id": 2, "benchmark": "b", "median_baseline": 2.0,
             "median_contender": 2.0, "change_pct": 0.5, "ci_low_pct": -3.0,
             "ci_high_pct": 4.0, "verdict": "inconclusive", "more_trials": 40}]
    return pa.Table.from_pylist(rows)


def test_page_opens_with_the_verdict_and_draws_each_change() -> None:
    shown = pl.DataFrame({"ratio": ["1.30x slower", "1.00x slower"],
                          "baseline": ["1 s", "2 s"], "contender": ["1.3 s", "2 s"]})
    geo = [{"hardware_type": "h", "metric": "time", "unit": "s", "configurations": 2,
            "change_pct": 14.0, "ci_low_pct": -50.0, "ci_high_pct": 90.0, "ratio": "1.14x slower",
            "baseline": "1.414 s", "contender": "1.612 s"}]
    page = build_page(_rows(), "1 of 2 configurations slower, 0 faster, 0 no change, "
                               "1 inconclusive", shown, geo)
    assert page.verdict is not None and page.verdict.level == "alarm"
    assert page.verdict.text.startswith("1 of 2 configurations slower")
    assert ("all reports", "index.html") in page.links
    (fig,) = page.figures()
    assert isinstance(fig, Figure)
    layers = fig.spec()["layer"]
    assert len(layers) == 3 and "interval" in fig.caption
    assert [s.title for s in page.sections] == ["Changes", "Geometric mean per unit",
                                                "Every configuration"]


def test_the_chart_has_a_colour_and_a_shape_for_every_verdict_compare_gives() -> None:
    """Issue 40: "no significant change" rows were drawn without colour or shape (the
    scale's domain lacked it), and the legend did not list them."""
    from perfwarehouse.compare.results import VERDICTS as GIVEN
    from perfwarehouse.reports.compare_charts import COLORS, SHAPES, VERDICTS

    assert set(GIVEN) <= set(VERDICTS)
    assert len(set(COLORS)) == len(set(SHAPES)) == len(VERDICTS)
