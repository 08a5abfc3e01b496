"""The history page from a change_points table (pure build, then rendered)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from perfwarehouse.jobs.change_points import ChangePointParams, compute
from perfwarehouse.reports.history import build_page
from perfwarehouse.reports.page import Figure, Table
from perfwarehouse.reports.render import render_html, write_report
from tests.unit.jobs.test_change_points_job import partition


def _page():  # type: ignore[no-untyped-def]
    table, series = partition()
    rows = compute(table, ChangePointParams())["change_points"]
    keep = ["campaign", "hardware_type", "config_id", "benchmark", "settings", "metric", "unit",
            "higher_is_better", "ordered_by", "n_points", "position", "revision",
            "revision_time", "started_at", "revision_before", "n_before", "n_after",
            "median_before", "median_after", "change_pct", "ci_low_pct", "ci_high_pct",
            "confidence", "p_value", "alpha", "direction", "reason"]
    return build_page(rows.select(keep), series)


def test_verdict_first_then_series_then_index() -> None:
    page = _page()
    titles = [s.title for s in page.sections]
    assert titles[0] == "Configurations with changes, largest first"
    verdict = page.verdict
    assert verdict is not None and verdict.level == "alarm"  # two regressions
    assert verdict.text.startswith("2 change points in 2 of 4 series: 2 regressions (▼), "
                                   "0 improvements (▲); 1 series too short to test")
    assert "Largest: " in verdict.text
    figures = page.figures()
    assert len(figures) == 2
    spec = figures[0].spec()
    assert "regression" in spec["description"] and spec["title"]["text"]
    index = [b for s in page.sections for b in s.blocks if isinstance(b, Table)][0]
    assert index.data.num_rows == 2
    assert index.data.column("direction").to_pylist() == ["▼ regression", "▼ regression"]


def test_renders_to_html(tmp_path: Path) -> None:
    page = _page()
    html = render_html(page)
    assert "History: change points" in html and "Every change" in html
    out = write_report(page, tmp_path / "history.html", None)
    assert out.exists()


def test_empty_series_table_still_renders() -> None:
    page = _page()
    assert isinstance(page.figures()[0], Figure)
    empty = build_page(_page_rows_without_changes(), pa.table({}))
    assert [s.title for s in empty.sections] == ["Series without change points"]
    assert empty.verdict is not None and empty.verdict.level == "ok"
    assert empty.verdict.text.startswith("0 change points in 0 of 4 series")


def _page_rows_without_changes() -> pa.Table:
    table, _ = partition()
    rows = compute(table, ChangePointParams(min_change=50.0))["change_points"]
    return rows
